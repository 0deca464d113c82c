#!/usr/bin/env bash
#
# install-tables.sh: install the Syzygy endgame tables that fiftymove's README
# examples and tests need, and check every file against the official checksums.
#
# Usage:
#   scripts/install-tables.sh [OPTIONS] [MATERIAL...]
#
#   Without MATERIAL arguments, installs every table listed in data/tables.txt
#   (one name per line, e.g. KRBvKR; '#' starts a comment). Each name stands for
#   two files: NAME.rtbw (WDL) and NAME.rtbz (DTZ). MATERIAL arguments replace
#   the list, e.g. `scripts/install-tables.sh KRNvKNN`.
#
#   Each material is installed with its whole closure: every table that
#   captures and promotions (capturing promotions included) can reach from
#   it, down to the 3-piece tables (Syzygy has no 2-piece files). KRNvKNN,
#   say, brings 10 tables: KRNvKNN, KRNvKN, KNNvKN, KNNvKR, KRNvK, KNNvK,
#   KRvKN, KNvKN, KRvK and KNvK. This is
#   the same closure as `fiftymove tables MATERIAL` lists (computed here in
#   bash, so that the script needs no build). The closure applies to the
#   names of the list too (data/tables.txt is closed already).
#
#   Before anything is installed, the script prints how many files are not
#   yet correctly installed and their total official size (from
#   data/syzygy-bytes.tsv), and checks that they fit in the free space of the
#   destination's filesystem (df). If they do not, it stops at once with
#   exit status 4. Symlinks (--from without --copy) take no space, so then
#   the size is printed but not checked.
#
# Options:
#   --from DIR    take the files from the local directory DIR instead of
#                 downloading them. Each source file is checked before use.
#                 The files are symlinked unless --copy is given.
#   --copy        with --from: copy the files instead of symlinking them
#   --dest DIR    install into DIR (default: data/syzygy in the repository;
#                 DIR is created if needed)
#   --list FILE   read table names from FILE instead of data/tables.txt
#   --no-closure  install only the tables named, not their closures
#   --dry-run     install nothing: print the tables that would be installed
#                 (closures included, one name a line, on stdout) and the
#                 size line, check the disk space (exit status 4 if the
#                 files would not fit), and stop
#   -q, --quiet   no progress messages, the size line included (errors,
#                 warnings and the summary are still printed)
#   -h, --help    show this help and exit
#
# Downloads are tried from these mirrors, in order:
#   https://tablebase.lichess.ovh/tables/standard/   (3-4-5/, 6-wdl/, 6-dtz/)
#   http://tablebase.sesse.net/syzygy/                (3-4-5/ only)
# Tables with 3 to 6 pieces can be downloaded. Use --from for 7-piece tables.
# curl is used (or wget if curl is missing) with a 10 s connect timeout.
# Transient failures (HTTP 5xx, dropped or stalled transfers) are retried twice.
# A mirror that cannot be reached is skipped for the rest of the run. If no
# mirror can be reached, the script stops at once with exit status 3.
# Each file goes to a temporary file in the destination directory. It is
# renamed into place only after the size and md5 checks pass.
#
# Verification: each file is compared with the official sizes in
# data/syzygy-bytes.tsv (checked first, because it is cheap), then with the
# official md5 sums in data/syzygy-md5.txt. If a file is already installed and
# correct, it is left alone, so a second run changes nothing. If it is there
# but wrong, a warning is printed and the file is replaced.
#
# Environment:
#   FIFTYMOVE_MIRRORS     space-separated base URLs to use instead of the
#                         default mirrors. Each must have the lichess layout
#                         (BASE/3-4-5/NAME.EXT, BASE/6-wdl/..., BASE/6-dtz/...).
#   FIFTYMOVE_DOWNLOADER  "curl" or "wget" to force a download tool.
#   FIFTYMOVE_FREE_BYTES  test hook: use this many bytes as the destination's
#                         free space instead of asking df (so that the tests
#                         can check the refusal without filling a disk).
#
# All messages except --help go to stderr. The last line is a summary:
#   N installed, N already present, N failed.
# A usage error, no reachable mirror, or too little disk space ends the run
# early with a single 'error:' line instead.
#
# Exit status:
#   0  every requested file is installed and verified
#   1  internal or environment error (e.g. md5sum or a checksum list missing,
#      df gives no reading)
#   2  bad usage: unknown option, malformed or unknown table name, bad --list
#      file, missing --from directory
#   3  some tables could not be obtained: download failed or no mirror is
#      reachable, the source file is missing or corrupt, or the destination
#      cannot be written
#   4  not enough free disk space in the destination for the files to install
#      (checked before any is installed)
#
set -euo pipefail

PROG=install-tables.sh

if [[ -z "${BASH_VERSINFO[0]:-}" || "${BASH_VERSINFO[0]}" -lt 4 ]]; then
    echo "error: $PROG needs bash 4 or newer" >&2
    exit 1
fi

# --- locations --------------------------------------------------------------

script_path=${BASH_SOURCE[0]}
if resolved=$(readlink -f -- "$script_path" 2>/dev/null) && [[ -n "$resolved" ]]; then
    script_path=$resolved
fi
SCRIPT_DIR=$(cd -- "$(dirname -- "$script_path")" && pwd -P)
REPO_ROOT=$(cd -- "$SCRIPT_DIR/.." && pwd -P)
MD5_LIST=$REPO_ROOT/data/syzygy-md5.txt
SIZE_LIST=$REPO_ROOT/data/syzygy-bytes.tsv

DEFAULT_MIRRORS=(
    "lichess|https://tablebase.lichess.ovh/tables/standard/"
    "345|http://tablebase.sesse.net/syzygy/"
)
CONNECT_TIMEOUT=10
RETRIES=2
RETRY_DELAY=2

# --- messages ---------------------------------------------------------------

QUIET=0
say() { if [[ $QUIET -eq 0 ]]; then printf '%s\n' "$*" >&2; fi; }
warn() { printf 'warning: %s\n' "$*" >&2; }
err() { printf 'error: %s\n' "$*" >&2; }
die() {
    local code=$1
    shift
    err "$*"
    exit "$code"
}
usage_error() { die 2 "$* (see $PROG --help)"; }

show_help() {
    # Print the comment block at the top of this file, without the '#'.
    awk 'NR < 3 { next } /^set -euo pipefail/ { exit } { sub(/^# ?/, ""); print }' "$script_path"
}

# --- temporary files ---------------------------------------------------------

TMPFILES=()
# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
    local f
    # (The ${a[@]+...} form keeps bash < 4.4 happy about empty arrays under set -u.)
    for f in ${TMPFILES[@]+"${TMPFILES[@]}"}; do
        rm -f -- "$f"
    done
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Create a temporary file in the destination directory, next to the final file,
# so that the final `mv` is an atomic rename on the same filesystem. The name
# is left in TMP (not printed: a subshell could not record it for cleanup).
TMP=
make_tmp() {
    local file=$1
    TMP=$(mktemp "$DEST/.$file.part.XXXXXX" 2>/dev/null) || return 1
    TMPFILES+=("$TMP")
}

# --- arguments -------------------------------------------------------------

FROM=
COPY=0
DEST=
LIST=
CLOSURE=1
DRY_RUN=0
NAMES=()
while [[ $# -gt 0 ]]; do
    case $1 in
    -h | --help)
        show_help
        exit 0
        ;;
    -q | --quiet) QUIET=1 ;;
    --copy) COPY=1 ;;
    --no-closure) CLOSURE=0 ;;
    --dry-run) DRY_RUN=1 ;;
    --from | --dest | --list)
        [[ $# -ge 2 && -n $2 ]] || usage_error "option $1 needs an argument"
        case $1 in
        --from) FROM=$2 ;;
        --dest) DEST=$2 ;;
        --list) LIST=$2 ;;
        esac
        shift
        ;;
    --from=* | --dest=* | --list=*)
        value=${1#*=}
        [[ -n $value ]] || usage_error "option ${1%%=*} needs an argument"
        case $1 in
        --from=*) FROM=$value ;;
        --dest=*) DEST=$value ;;
        --list=*) LIST=$value ;;
        esac
        ;;
    --)
        shift
        NAMES+=("$@")
        break
        ;;
    -*) usage_error "unknown option '$1'" ;;
    *) NAMES+=("$1") ;;
    esac
    shift
done

if [[ $COPY -eq 1 && -z $FROM ]]; then
    usage_error "--copy only makes sense with --from DIR"
fi
if [[ -n $FROM ]]; then
    [[ -d $FROM ]] || usage_error "--from: '$FROM' is not a directory"
    # Absolute path so that symlinks work from anywhere.
    FROM=$(cd -- "$FROM" && pwd -P)
fi
[[ -n $DEST ]] || DEST=$REPO_ROOT/data/syzygy
if [[ ${#NAMES[@]} -gt 0 && -n $LIST ]]; then
    warn "table names given on the command line; ignoring --list $LIST"
fi
[[ -n $LIST ]] || LIST=$REPO_ROOT/data/tables.txt
if [[ -n ${FIFTYMOVE_FREE_BYTES:-} && ! $FIFTYMOVE_FREE_BYTES =~ ^[0-9]+$ ]]; then
    usage_error "FIFTYMOVE_FREE_BYTES must be a number of bytes, not '$FIFTYMOVE_FREE_BYTES'"
fi

# --- official checksums and sizes --------------------------------------------

for f in "$MD5_LIST" "$SIZE_LIST"; do
    [[ -r $f ]] || die 1 "cannot read $f (the repository ships it; is the checkout complete?)"
done

if command -v md5sum >/dev/null 2>&1; then
    md5_of() { local out; out=$(md5sum <"$1") || return 1; printf '%s\n' "${out%% *}"; }
elif command -v md5 >/dev/null 2>&1; then
    md5_of() { md5 -q <"$1"; }
else
    die 1 "md5sum not found (install coreutils)"
fi

declare -A MD5 SIZE
while read -r sum file _; do
    [[ -n ${sum:-} && $sum != \#* ]] || continue
    file=${file#\*}
    [[ $sum =~ ^[0-9a-f]{32}$ ]] || die 1 "$MD5_LIST: malformed line for '$file'"
    MD5[$file]=$sum
done <"$MD5_LIST"
while IFS=$'\t' read -r bytes file _; do
    [[ -n ${bytes:-} && $bytes != \#* ]] || continue
    [[ $bytes =~ ^[0-9]+$ ]] || die 1 "$SIZE_LIST: malformed line for '$file'"
    SIZE[$file]=$bytes
done <"$SIZE_LIST"

# --- table names -------------------------------------------------------------

NAME_RE='^K[QRBNP]*vK[QRBNP]*$'

# Pieces of one side in Syzygy order (Q R B N P), without the king.
canon_side() {
    local side=$1 out='' p rest
    for p in Q R B N P; do
        rest=${side//[^$p]/}
        out+=$rest
    done
    printf '%s' "$out"
}

# Check a table name. Print the normalized name, or print a message and fail.
check_name() {
    local raw=$1 name w b cand
    name=${raw%.rtbw}
    name=${name%.rtbz}
    name=${name^^}
    name=${name//V/v}
    if [[ ! $name =~ $NAME_RE ]]; then
        printf "invalid table name '%s': expected something like KRBvKR (a king and pieces Q R B N P for each side, separated by 'v')" "$raw"
        return 1
    fi
    if [[ -z ${MD5[$name.rtbw]:-} || -z ${MD5[$name.rtbz]:-} ]]; then
        w=${name%v*}
        b=${name#*v}
        w=$(canon_side "${w#K}")
        b=$(canon_side "${b#K}")
        for cand in "K${w}vK${b}" "K${b}vK${w}"; do
            if [[ $cand != "$name" && -n ${MD5[$cand.rtbw]:-} ]]; then
                printf "unknown table '%s' (not in data/syzygy-md5.txt): misspelt? did you mean %s?" "$raw" "$cand"
                return 1
            fi
        done
        printf "unknown table '%s' (not in data/syzygy-md5.txt): misspelt? Syzygy names look like KRBvKR, stronger side first, pieces in the order QRBNP" "$raw"
        return 1
    fi
    if [[ -z ${SIZE[$name.rtbw]:-} || -z ${SIZE[$name.rtbz]:-} ]]; then
        printf "table '%s' is in data/syzygy-md5.txt but not in data/syzygy-bytes.tsv" "$raw"
        return 1
    fi
    printf '%s' "$name"
}

# --- closures ------------------------------------------------------------------

# The closure of a material, as in Material::closure (src/chess/material.rs):
# every material one capture, promotion or capturing promotion away, and so
# on, normalised to Syzygy's names, down to 3 pieces. A side is written as
# its pieces without the king, in the order Q R B N P.

# (These functions return their results in global variables rather than
# on stdout: a closure of the whole default list would otherwise cost
# thousands of subshells.)

# Set KEY to the sort key of a side in Syzygy's strength order: more pieces
# first, then more of the stronger roles (counts of Q R B N P compared in
# turn). Each count is one digit (a side has at most 6 pieces besides its
# king), so keys of equal length compare as strings.
side_key() {
    local side=$1 p rest
    KEY=${#side}
    for p in Q R B N P; do
        rest=${side//[^$p]/}
        KEY+=${#rest}
    done
}

# Set SIDE to the pieces of a side in Syzygy order (Q R B N P).
sort_side() {
    local side=$1 p rest
    SIDE=
    for p in Q R B N P; do
        rest=${side//[^$p]/}
        SIDE+=$rest
    done
}

# Append to SUCC the Syzygy name of the material with sides W and B
# (stronger side first).
push_pair() {
    local w b kw kb
    sort_side "$1"
    w=$SIDE
    sort_side "$2"
    b=$SIDE
    side_key "$w"
    kw=$KEY
    side_key "$b"
    kb=$KEY
    if [[ $kw < $kb ]]; then
        SUCC+=("K${b}vK${w}")
    else
        SUCC+=("K${w}vK${b}")
    fi
}

# Set SUCC to the names one move away from material NAME (with repeats):
# each capture of a non-king piece, each promotion of a pawn, each
# promotion that captures a piece other than a pawn (none stands on the
# last rank).
successors() {
    local name=$1 w b own mine other r promo v moved
    w=${name%v*}
    w=${w#K}
    b=${name#*v}
    b=${b#K}
    SUCC=()
    for own in w b; do
        if [[ $own == w ]]; then
            mine=$w other=$b
        else
            mine=$b other=$w
        fi
        for r in Q R B N P; do
            [[ $mine == *$r* ]] || continue
            # Capture of this piece.
            pair "$own" "${mine/$r/}" "$other"
            [[ $r == P ]] || continue
            for promo in Q R B N; do
                moved=${mine/P/}$promo
                pair "$own" "$moved" "$other"
                for v in Q R B N; do
                    [[ $other == *$v* ]] || continue
                    pair "$own" "$moved" "${other/$v/}"
                done
            done
        done
    done
}

# push_pair with the sides given as OWN (w or b), its pieces, the other's.
pair() {
    if [[ $1 == w ]]; then
        push_pair "$2" "$3"
    else
        push_pair "$3" "$2"
    fi
}

KEY=
SIDE=
SUCC=()
TABLES=()
declare -A SEEN
add_table() {
    local name=$1
    if [[ -z ${SEEN[$name]:-} ]]; then
        SEEN[$name]=1
        TABLES+=("$name")
    fi
}

# Add NAME and, unless --no-closure, every table of its closure. Names with
# only the two kings (KvK) have no table and are left out.
add_with_closure() {
    local stack=("$1") name
    if [[ $CLOSURE -eq 0 ]]; then
        add_table "$1"
        return
    fi
    while [[ ${#stack[@]} -gt 0 ]]; do
        name=${stack[-1]}
        unset 'stack[-1]'
        [[ $name != KvK && -z ${SEEN[$name]:-} ]] || continue
        add_table "$name"
        successors "$name"
        stack+=(${SUCC[@]+"${SUCC[@]}"})
    done
}

if [[ ${#NAMES[@]} -gt 0 ]]; then
    for raw in "${NAMES[@]}"; do
        name=$(check_name "$raw") || usage_error "$name"
        add_with_closure "$name"
    done
else
    [[ -f $LIST && -r $LIST ]] || usage_error "cannot read table list '$LIST'"
    lineno=0
    while IFS= read -r line || [[ -n $line ]]; do
        lineno=$((lineno + 1))
        line=${line%%#*}
        line=${line//$'\r'/}
        # Trim leading and trailing whitespace.
        line=${line#"${line%%[![:space:]]*}"}
        line=${line%"${line##*[![:space:]]}"}
        [[ -n $line ]] || continue
        if [[ $line =~ [[:space:]] ]]; then
            usage_error "$LIST:$lineno: one table name per line, got '$line'"
        fi
        name=$(check_name "$line") || usage_error "$LIST:$lineno: $name"
        add_with_closure "$name"
    done <"$LIST"
    [[ ${#TABLES[@]} -gt 0 ]] || usage_error "no table names in '$LIST'"
fi

# --- checks ----------------------------------------------------------------

# Check that PATH holds the official contents of FILE (e.g. KQvK.rtbw).
# On failure, print the reason and return 1.
check_file() {
    local path=$1 file=$2 size sum
    if [[ ! -e $path ]]; then
        if [[ -L $path ]]; then
            printf 'broken symlink (to %s)' "$(readlink -- "$path")"
        else
            printf 'not found'
        fi
        return 1
    fi
    if [[ -d $path ]]; then
        printf 'is a directory'
        return 1
    fi
    if ! size=$(wc -c <"$path" 2>/dev/null); then
        printf 'cannot be read'
        return 1
    fi
    size=${size//[[:space:]]/}
    if [[ $size != "${SIZE[$file]}" ]]; then
        printf 'wrong size: %s bytes, expected %s (truncated or corrupt?)' "$size" "${SIZE[$file]}"
        return 1
    fi
    if ! sum=$(md5_of "$path" 2>/dev/null) || [[ -z $sum ]]; then
        printf 'cannot be read'
        return 1
    fi
    if [[ $sum != "${MD5[$file]}" ]]; then
        printf 'md5 mismatch: got %s, expected %s (corrupt?)' "$sum" "${MD5[$file]}"
        return 1
    fi
    return 0
}

# Permission bits for new files: 0666 minus the umask (mktemp creates 0600).
FILE_MODE=$(printf '%o' $((0666 & ~0$(umask))))

# --- installing from a local directory ------------------------------------

# Install FILE from $FROM. Return 0 if installed, 1 on failure (reported).
install_from_dir() {
    local file=$1 final=$DEST/$1 src=$FROM/$1 tmp reason size
    if [[ ! -e $src ]]; then
        err "$src: not found (is --from the right directory?)"
        return 1
    fi
    if [[ $COPY -eq 1 ]]; then
        # Size first (cheap) so that an obviously wrong file is not copied.
        if [[ ! -d $src ]] && size=$(wc -c <"$src" 2>/dev/null) &&
            [[ ${size//[[:space:]]/} != "${SIZE[$file]}" ]]; then
            reason=$(check_file "$src" "$file") || true
            err "$src: $reason; not installed"
            return 1
        fi
        make_tmp "$file" || {
            err "$DEST: cannot create a temporary file"
            return 1
        }
        tmp=$TMP
        if ! cp -- "$src" "$tmp" 2>/dev/null; then
            err "$src: cannot copy to $DEST"
            return 1
        fi
        if ! reason=$(check_file "$tmp" "$file"); then
            err "$src: $reason; not installed"
            rm -f -- "$tmp"
            return 1
        fi
        chmod "$FILE_MODE" "$tmp" 2>/dev/null || true
    else
        if ! reason=$(check_file "$src" "$file"); then
            err "$src: $reason; not linked"
            return 1
        fi
        make_tmp "$file" || {
            err "$DEST: cannot create a temporary file"
            return 1
        }
        tmp=$TMP
        rm -f -- "$tmp"
        if ! ln -s -- "$src" "$tmp" 2>/dev/null; then
            err "$DEST: cannot create a symlink"
            return 1
        fi
    fi
    if ! mv -f -- "$tmp" "$final" 2>/dev/null; then
        err "$final: cannot move the file into place"
        return 1
    fi
    if [[ $COPY -eq 1 ]]; then
        say "installed $file (copied from $FROM)"
    else
        say "installed $file (symlink to $src)"
    fi
    return 0
}

# --- downloading -------------------------------------------------------------

MIRRORS=()
if [[ -n ${FIFTYMOVE_MIRRORS+x} ]]; then
    read -r -a env_mirrors <<<"$FIFTYMOVE_MIRRORS"
    [[ ${#env_mirrors[@]} -gt 0 ]] || usage_error "FIFTYMOVE_MIRRORS is set but empty"
    for m in "${env_mirrors[@]}"; do
        [[ $m =~ ^https?:// ]] || usage_error "FIFTYMOVE_MIRRORS: '$m' is not an http(s) URL"
        MIRRORS+=("lichess|$m")
    done
else
    MIRRORS=("${DEFAULT_MIRRORS[@]}")
fi
declare -A DEAD      # mirror URL -> why it is considered unreachable
declare -A MIRROR_OK # mirror URL -> 1 once it delivered a good file
DOWNLOADER=

# Print the path of FILE relative to a mirror base URL with the given layout.
# Return 1 if that mirror has no such file.
mirror_path() {
    local layout=$1 file=$2 name pieces
    name=${file%.*}
    pieces=$((${#name} - 1))
    if [[ $pieces -le 5 ]]; then
        printf '3-4-5/%s' "$file"
    elif [[ $pieces -eq 6 && $layout == lichess ]]; then
        case $file in
        *.rtbw) printf '6-wdl/%s' "$file" ;;
        *.rtbz) printf '6-dtz/%s' "$file" ;;
        esac
    else
        return 1
    fi
}

pick_downloader() {
    local want=${FIFTYMOVE_DOWNLOADER:-}
    case $want in
    "") if command -v curl >/dev/null 2>&1; then
        DOWNLOADER=curl
    elif command -v wget >/dev/null 2>&1; then
        DOWNLOADER=wget
    fi ;;
    curl | wget) command -v "$want" >/dev/null 2>&1 && DOWNLOADER=$want ;;
    *) usage_error "FIFTYMOVE_DOWNLOADER must be 'curl' or 'wget', not '$want'" ;;
    esac
    [[ -n $DOWNLOADER ]] ||
        die 3 "cannot download tables: ${want:-curl or wget} not found; install it, or use --from DIR"
}

# One download attempt of URL to OUT. Print "KIND REASON", where KIND is
# ok, perm (this file cannot be had from this mirror, e.g. HTTP 404),
# dead (the mirror is unreachable: DNS, connection, TLS, no response) or
# retry (a transient failure worth another attempt).
fetch_once() {
    local url=$1 out=$2 rc=0 written code=000 size=0
    if [[ $DOWNLOADER == curl ]]; then
        local args=(--fail --location --max-redirs 5 --proto-redir '=http,https'
            --connect-timeout "$CONNECT_TIMEOUT" --speed-limit 1024 --speed-time 60
            --output "$out" --write-out '%{http_code} %{size_download}')
        if [[ $QUIET -eq 0 && -t 2 ]]; then args+=(--progress-bar); else args+=(--silent); fi
        written=$(curl "${args[@]}" "$url") || rc=$?
        read -r code size _ <<<"$written" || true
        case $rc in
        0) echo "ok" ;;
        22) case $code in
            408 | 429 | 500 | 502 | 503 | 504) echo "retry HTTP $code" ;;
            *) echo "perm HTTP $code" ;;
            esac ;;
        5 | 6) echo "dead cannot resolve host" ;;
        7) echo "dead cannot connect" ;;
        28) if [[ ${size:-0} == 0 ]]; then
            echo "dead no response (timed out)"
        else
            echo "retry transfer stalled (timed out)"
        fi ;;
        35 | 51 | 58 | 59 | 60 | 77 | 83 | 90 | 91) echo "dead TLS error (curl exit $rc)" ;;
        18 | 52 | 55 | 56 | 92 | 95) echo "retry connection dropped (curl exit $rc)" ;;
        23) echo "perm cannot write $out" ;;
        *) echo "perm curl failed (exit $rc)" ;;
        esac
    else
        local args=(--tries=1 --max-redirect=5 --connect-timeout="$CONNECT_TIMEOUT"
            --read-timeout=60 --output-document="$out" --quiet)
        if [[ $QUIET -eq 0 && -t 2 ]] && wget --help 2>/dev/null | grep -q -- --show-progress; then
            args+=(--show-progress)
        fi
        wget "${args[@]}" "$url" || rc=$?
        case $rc in
        0) echo "ok" ;;
        4) echo "dead network failure" ;;
        5) echo "dead TLS error" ;;
        8) echo "perm server error response (file missing on this mirror?)" ;;
        3) echo "perm cannot write $out" ;;
        *) echo "perm wget failed (exit $rc)" ;;
        esac
    fi
}

# Download URL to OUT, retrying transient failures up to $RETRIES times.
# MIRROR_OK is 1 if this mirror already delivered a file in this run: then a
# connection failure is retried too; otherwise the mirror is given up at once,
# so that a machine without network fails after one connect timeout per mirror.
# On failure, print a short reason and return 1 (file not available from this
# mirror) or 2 (mirror unreachable).
fetch() {
    local url=$1 out=$2 mirror_ok=$3 attempt=0 result kind why
    while true; do
        attempt=$((attempt + 1))
        result=$(fetch_once "$url" "$out")
        kind=${result%% *}
        why=${result#* }
        case $kind in
        ok) return 0 ;;
        perm)
            printf '%s' "$why"
            return 1
            ;;
        dead)
            if [[ $mirror_ok -eq 0 || $attempt -gt $RETRIES ]]; then
                printf '%s' "$why"
                return 2
            fi
            ;;
        *)
            if [[ $attempt -gt $RETRIES ]]; then
                printf '%s (gave up after %d attempts)' "$why" "$attempt"
                return 1
            fi
            ;;
        esac
        say "  $url: $why; retrying in ${RETRY_DELAY}s"
        sleep "$RETRY_DELAY"
    done
}

# Download FILE from the first mirror that has a correct copy.
# Return 0 if installed, 1 on failure (reported). Exit 3 if no mirror is reachable.
install_download() {
    local file=$1 final=$DEST/$1 entry layout base rel url tmp why reason rc tried=0
    [[ -n $DOWNLOADER ]] || pick_downloader
    make_tmp "$file" || {
        err "$DEST: cannot create a temporary file"
        return 1
    }
    tmp=$TMP
    for entry in "${MIRRORS[@]}"; do
        layout=${entry%%|*}
        base=${entry#*|}
        base=${base%/}/
        [[ -z ${DEAD[$base]:-} ]] || continue
        rel=$(mirror_path "$layout" "$file") || continue
        tried=1
        url=$base$rel
        say "downloading $file ($(human "${SIZE[$file]}")) from $url"
        rc=0
        why=$(fetch "$url" "$tmp" "${MIRROR_OK[$base]:-0}") || rc=$?
        if [[ $rc -eq 2 ]]; then
            DEAD[$base]=$why
            say "  $base: $why; skipping this mirror from now on"
            continue
        elif [[ $rc -ne 0 ]]; then
            say "  $url: $why"
            continue
        fi
        if ! reason=$(check_file "$tmp" "$file"); then
            warn "$url: downloaded file is bad: $reason; trying the next mirror"
            continue
        fi
        MIRROR_OK[$base]=1
        chmod "$FILE_MODE" "$tmp" 2>/dev/null || true
        if ! mv -f -- "$tmp" "$final" 2>/dev/null; then
            err "$final: cannot move the file into place"
            return 1
        fi
        say "installed $file"
        return 0
    done
    rm -f -- "$tmp"

    # Every mirror unreachable: there is no point in trying the other files.
    local alive=0 dead_list=
    for entry in "${MIRRORS[@]}"; do
        base=${entry#*|}
        base=${base%/}/
        if [[ -n ${DEAD[$base]:-} ]]; then
            dead_list+="${dead_list:+, }$base (${DEAD[$base]})"
        else
            alive=1
        fi
    done
    if [[ $alive -eq 0 ]]; then
        die 3 "cannot download $file: no mirror reachable: $dead_list. Check the network, or install from a local copy with --from DIR"
    fi
    if [[ $tried -eq 0 ]]; then
        err "$file: no mirror serves tables with this many pieces; download it by hand and use --from DIR"
    else
        err "$file: could not be downloaded from any mirror"
    fi
    return 1
}

human() {
    local n=$1
    if [[ $n -ge 1073741824 ]]; then
        printf '%d.%d GiB' $((n / 1073741824)) $((n % 1073741824 * 10 / 1073741824))
    elif [[ $n -ge 1048576 ]]; then
        printf '%d.%d MiB' $((n / 1048576)) $((n % 1048576 * 10 / 1048576))
    elif [[ $n -ge 1024 ]]; then
        printf '%d KiB' $((n / 1024))
    else
        printf '%d bytes' "$n"
    fi
}

# --- main ----------------------------------------------------------------------

n_files=$((2 * ${#TABLES[@]}))
if [[ -n $FROM ]]; then
    say "checking ${#TABLES[@]} tables ($n_files files) in $DEST, source $FROM"
else
    say "checking ${#TABLES[@]} tables ($n_files files) in $DEST"
fi

# What is already there, checked once (md5 included) before anything is
# installed: the size line and the disk check count only what is missing or
# wrong, and the install loop below reuses the verdicts.
declare -A PRESENT_OK # file -> 1 if installed and correct
declare -A REASON     # file -> what is wrong with the installed copy
todo_files=0
todo_bytes=0
for name in "${TABLES[@]}"; do
    for ext in rtbw rtbz; do
        file=$name.$ext
        final=$DEST/$file
        if [[ -e $final || -L $final ]]; then
            if reason=$(check_file "$final" "$file"); then
                PRESENT_OK[$file]=1
                continue
            fi
            REASON[$file]=$reason
        fi
        todo_files=$((todo_files + 1))
        todo_bytes=$((todo_bytes + SIZE[$file]))
    done
done

# Free bytes on the filesystem that holds DEST (or its nearest existing
# parent, since DEST is only created once the files are known to fit).
free_bytes() {
    local dir=$1 out avail
    if [[ -n ${FIFTYMOVE_FREE_BYTES:-} ]]; then
        printf '%s' "$FIFTYMOVE_FREE_BYTES"
        return 0
    fi
    while [[ ! -e $dir ]]; do
        dir=$(dirname -- "$dir")
    done
    # POSIX output: one header line, then "fs blocks used available ...",
    # in 1024-byte blocks.
    out=$(df -Pk -- "$dir" 2>/dev/null | awk 'NR == 2 { print $4 }') || true
    [[ $out =~ ^[0-9]+$ ]] || return 1
    avail=$out
    printf '%s' $((avail * 1024))
}

if [[ $DRY_RUN -eq 1 ]]; then
    # The list first, so that it is there even when the disk check refuses.
    printf '%s\n' "${TABLES[@]}"
fi
if [[ $todo_files -eq 0 ]]; then
    say "all $n_files files already installed and correct"
elif [[ -n $FROM && $COPY -eq 0 ]]; then
    say "to install: $todo_files of $n_files files, $(human "$todo_bytes") ($todo_bytes bytes, official sizes), as symlinks (no disk space needed)"
else
    if ! free=$(free_bytes "$DEST"); then
        die 1 "cannot read the free disk space of '$DEST' with df"
    fi
    if [[ -n $FROM ]]; then what="to copy"; else what="to download"; fi
    say "$what: $todo_files of $n_files files, $(human "$todo_bytes") ($todo_bytes bytes, official sizes); free in $DEST: $(human "$free")"
    if [[ $todo_bytes -gt $free ]]; then
        die 4 "not enough disk space: the $todo_files files $what take $(human "$todo_bytes") ($todo_bytes bytes), but only $(human "$free") ($free bytes) is free for '$DEST'; free some space or choose another --dest"
    fi
fi

if [[ $DRY_RUN -eq 1 ]]; then
    exit 0
fi

if ! mkdir -p -- "$DEST" 2>/dev/null || [[ ! -d $DEST || ! -w $DEST ]]; then
    die 3 "cannot create or write to the destination directory '$DEST'"
fi

n_installed=0
n_present=0
n_failed=0
for name in "${TABLES[@]}"; do
    for ext in rtbw rtbz; do
        file=$name.$ext
        final=$DEST/$file
        if [[ -n ${PRESENT_OK[$file]:-} ]]; then
            n_present=$((n_present + 1))
            continue
        fi
        if [[ -n ${REASON[$file]:-} ]]; then
            if [[ -d $final ]]; then
                err "$final: is a directory; remove it and run again"
                n_failed=$((n_failed + 1))
                continue
            fi
            warn "$final: ${REASON[$file]}; replacing it"
        fi
        if [[ -n $FROM ]]; then
            if install_from_dir "$file"; then ok=1; else ok=0; fi
        else
            if install_download "$file"; then ok=1; else ok=0; fi
        fi
        if [[ $ok -eq 1 ]]; then
            n_installed=$((n_installed + 1))
        else
            n_failed=$((n_failed + 1))
        fi
    done
done

summary="$n_installed installed, $n_present already present, $n_failed failed ($n_files files in $DEST)"
if [[ $n_failed -gt 0 ]]; then
    printf '%s: %s\n' "$PROG" "$summary" >&2
    exit 3
fi
if [[ $n_installed -eq 0 ]]; then
    summary+="; nothing to do"
fi
printf '%s: %s\n' "$PROG" "$summary" >&2
exit 0
