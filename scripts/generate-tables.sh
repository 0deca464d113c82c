#!/usr/bin/env bash
# Makes Syzygy tables with the official generator (syzygy1/tb, built here from
# a local copy of its source): every table of the materials' closures that the
# table directories lack, each file checked against the official md5s; then
# scans each material with fiftymove and compares the scan with the statistics
# the generator printed while building it.
#
# Usage:
#   scripts/generate-tables.sh [OPTIONS] MATERIAL...
#
# The documented use (issue 63, item 6): KNNN v KP, a 6-piece table with
# pawns, with the tables of its closure that ../shared/syzygy lacks (KNNN v
# KQ, KR, KB, KN and KNNN v K), scanned within 8 GiB:
#
#   nice -n 19 scripts/generate-tables.sh --generator-src /path/to/tb \
#       --tables ../shared/syzygy --out data/generated --memory-limit 8G KNNNvKP
#
# (docs/six-pieces.md, "KNNN v KP from the generator": about 16 GB of memory
# for the generator's 6-piece pawnless tables, so an otherwise idle machine.)
#
# Steps:
#  1. Builds rtbgen and rtbgenp from the generator's source in a scratch
#     directory (never in this repository). The source is a clone of
#     https://github.com/syzygy1/tb, a work tree or a bare repository (its
#     HEAD), from --generator-src DIR or $TB_SRC. Without network: bring the
#     repository as a bare git directory from a machine that has it. Needs gcc
#     and make; without zstd's header and library (Debian: libzstd-dev) the
#     generator is built with the LZ4 it bundles for its temporary files (the
#     tables are the same). --generator DIR takes rtbgen and rtbgenp built
#     already instead.
#  2. Lists each material's closure (`fiftymove tables`) and generates, fewer
#     pieces then fewer pawns first, each table of it whose files are in
#     neither --tables nor --out: `rtbgen -t N -s NAME` (`rtbgenp` with pawns)
#     in OUT/.work-NAME, with RTBPATH=OUT:TABLES (the generator's sub-tables:
#     its source from 2025-09-29 on reads RTBPATH). The statistics (-s) go to
#     OUT/NAME.txt, the generator's output to OUT/NAME.log.
#  3. Checks both files of each table against data/syzygy-md5.txt before they
#     go into OUT; a mismatch stops the run (exit 1; the files are left in
#     OUT/.work-NAME). At the end `fiftymove tables --verify` checks every file
#     of the closures.
#  4. For each MATERIAL whose statistics are in OUT: `fiftymove --memory-limit
#     SIZE scan --out OUT/NAME.scan.json NAME` under /usr/bin/time -v, compared
#     with OUT/NAME.txt by examples/generator_stats.rs (the comparison the
#     tests use: every class, every DTZ bin, the longest wins). Prints the
#     wall time, CPU time and peak resident memory beside the bound `scan
#     --plan` gives; exit 1 if the scan differs.
#
# Before anything is built or generated, the script refuses (exit 1) if the
# memory available (MemAvailable) is short of the generator's estimate for a
# table (its working tables, the copy it compresses from unless -d, 512 MiB:
# -d is used by itself when only that fits), or of a scan's bound, or if a scan would not fit its
# --memory-limit, or if the official sizes of the files to generate pass the
# free disk space of OUT.
#
# Options:
#   --generator-src DIR  the generator's source (default: $TB_SRC)
#   --generator DIR      rtbgen and rtbgenp built already, instead of a source
#   --build-dir DIR      build the generator in DIR (default: a temp dir,
#                        removed at the end)
#   --tables DIR         the tables there are (repeatable; default
#                        $FIFTYMOVE_TEST_TABLES, else data/syzygy); read only
#   --out DIR            where the generated tables, their statistics and
#                        scans go (default data/generated; created)
#   --threads N          threads of the generator and of the scan (default:
#                        all cores)
#   --memory-limit SIZE  the scan's --memory-limit (as 8G; default: what
#                        fiftymove takes, the memory available)
#   --disk               the generator's -d (less memory, temporary files in
#                        OUT) for every table
#   --no-scan            generate and check only
#   --dry-run            print the plan and the checks, and stop
#
# Test hook: $FIFTYMOVE_AVAILABLE_BYTES stands for MemAvailable.
#
# Build: fiftymove in release, in $CARGO_TARGET_DIR if set (CARGO_BUILD_JOBS=1
# builds on one core). Exit status: 0 done; 1 refused, a generator failure, an
# md5 mismatch or a scan that differs; 2 bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd -P)"

die() { echo "error: $*" >&2; exit "${2:-2}"; }
refuse() { echo "error: $*" >&2; exit 1; }

src="${TB_SRC:-}"
generator=""
build_dir=""
tables=()
out="data/generated"
threads="$(nproc)"
limit=()
disk=0
scan=1
dry_run=0
materials=()
while [ $# -gt 0 ]; do
    case "$1" in
        --generator-src) [ $# -ge 2 ] || die "$1 needs a value"; src="$2"; shift 2 ;;
        --generator) [ $# -ge 2 ] || die "$1 needs a value"; generator="$2"; shift 2 ;;
        --build-dir) [ $# -ge 2 ] || die "$1 needs a value"; build_dir="$2"; shift 2 ;;
        --tables) [ $# -ge 2 ] || die "$1 needs a value"; tables+=("$2"); shift 2 ;;
        --out) [ $# -ge 2 ] || die "$1 needs a value"; out="$2"; shift 2 ;;
        --threads) [ $# -ge 2 ] || die "$1 needs a value"; threads="$2"; shift 2 ;;
        --memory-limit) [ $# -ge 2 ] || die "$1 needs a value"; limit=(--memory-limit "$2"); shift 2 ;;
        --disk) disk=1; shift ;;
        --no-scan) scan=0; shift ;;
        --dry-run) dry_run=1; shift ;;
        -h|--help) sed -n '2,100p' "$0" | sed -n '/^set -euo/q;p' | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) materials+=("$1"); shift ;;
    esac
done
[ ${#materials[@]} -gt 0 ] || die "no material given (e.g. KNNNvKP; see --help)"
for m in "${materials[@]}"; do
    [[ $m =~ ^K[QRBNP]*vK[QRBNP]*$ && ${#m} -ge 4 && ${#m} -le 8 ]] ||
        die "'$m' is not a material of 3 to 7 pieces such as KNNNvKP"
done
[[ $threads =~ ^[1-9][0-9]*$ ]] || die "--threads takes a positive number, not '$threads'"
[ ${#tables[@]} -gt 0 ] || tables=("${FIFTYMOVE_TEST_TABLES:-data/syzygy}")
for i in "${!tables[@]}"; do
    [ -d "${tables[$i]}" ] || die "no table directory ${tables[$i]}"
    tables[i]="$(cd "${tables[$i]}" && pwd -P)"
done
for tool in python3 md5sum /usr/bin/time cargo df; do
    command -v "$tool" > /dev/null || refuse "$tool is needed and not found"
done

cargo build --release --quiet --bin fiftymove --example generator_stats
bin="$repo/${CARGO_TARGET_DIR:-target}/release/fiftymove"
compare="$repo/${CARGO_TARGET_DIR:-target}/release/examples/generator_stats"

mkdir -p "$out"
out="$(cd "$out" && pwd -P)"
dirs=(--tables "$out")
for t in "${tables[@]}"; do dirs+=(--tables "$t"); done
rtbpath="$out$(printf ':%s' "${tables[@]}")"
tmp="$(mktemp -d)"
# shellcheck disable=SC2317 # (called by the trap)
cleanup() {
    rm -rf "$tmp"
    if [ -n "${own_build:-}" ]; then rm -rf "$own_build"; fi
}
trap cleanup EXIT

# Bytes as GB (10^9), or MB below 1 GB.
gb() {
    python3 -c 'import sys; n = int(sys.argv[1]); print("%.2f GB" % (n / 1e9) if n >= 1e9 else "%.1f MB" % (n / 1e6))' "$1"
}

# The closures (`tables --json`; its exit status says files are missing,
# which is why it runs): each material's table name, then the tables to
# generate in order (fewer pieces, then fewer pawns, first), each with its
# official bytes, and each table's scan bound under the limit.
"$bin" "${dirs[@]}" -q --json "${limit[@]}" tables "${materials[@]}" > "$tmp/tables.json" 2> "$tmp/tables.err" || true
[ -s "$tmp/tables.json" ] || refuse "fiftymove tables failed: $(cat "$tmp/tables.err")"
python3 - "$tmp/tables.json" > "$tmp/plan.txt" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
missing = {}
for m in d["materials"]:
    mem = m["memory"]
    print("target", m["table"], mem["scan_bytes"], int(mem["scan_fits"]))
    for f, n in m["missing_bytes"].items():
        missing[f] = n
names = sorted({f.rsplit(".", 1)[0] for f in missing},
               key=lambda n: (len(n) - 1, n.count("P"), n))
for n in names:
    print("generate", n, missing.get(n + ".rtbw", 0) + missing.get(n + ".rtbz", 0))
EOF
mapfile -t targets < <(awk '$1 == "target" { print $2 }' "$tmp/plan.txt")
mapfile -t todo < <(awk '$1 == "generate" { print $2 }' "$tmp/plan.txt")

# The memory available: MemAvailable, as fiftymove reads it (or the test
# hook $FIFTYMOVE_AVAILABLE_BYTES).
available() {
    if [ -n "${FIFTYMOVE_AVAILABLE_BYTES:-}" ]; then
        echo "$FIFTYMOVE_AVAILABLE_BYTES"
    else
        echo $(( $(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo) * 1024 ))
    fi
}
avail=$(available)

# The generator's memory for a material, with -d ($2 = 1) or without: its
# working tables, a byte per index and side to move, of 462 x 64^(N-2)
# indices without pawns and 6 x 64^(N-1) with them (N pieces); without -d
# also the table permuted for compression, a side's index (pawnless: 462
# placements of the kings times those of each group of like pieces; with
# pawns, one file of the leading pawn at a time; none for a symmetric
# material, which compresses in place); and 512 MiB for the rest (compression
# buffers, sub-tables). Measured: KNNvKNN 15.81 GB (docs/performance.md)
# against 16.04 GB; KNNNvK 488 MB against 797 MB; KNNvKP 613 MB against 781 MB.
gen_bytes() {
    python3 - "$1" "$2" <<'PY'
import math, sys
m, disk = sys.argv[1], sys.argv[2] == "1"
n = len(m) - 1
# A copy covers one file of the leading pawn (6 squares) at a time; the
# other pieces, kings included, bound its placements from above.
if "P" in m:
    size = 6 * 64 ** (n - 1)
    copy, free = 6, 63
    sides = [s.replace("P", "", 1) if "P" in s else s for s in m.split("v")]
    if "P" in m.split("v")[0]:
        sides[1] = m.split("v")[1]
else:
    size = 462 * 64 ** (n - 2)
    copy, free = 462, 62
    sides = [s[1:] for s in m.split("v")]
for side in sides:
    for piece in set(side):
        k = side.count(piece)
        copy *= math.comb(free, k)
        free -= k
white, black = m.split("v")
if white == black:
    copy = 0
print(2 * size + (0 if disk else copy) + 512 * 2 ** 20)
PY
}

echo "table directories: $out (generated) ${tables[*]}"
echo "memory available: $(gb "$avail") (${FIFTYMOVE_AVAILABLE_BYTES:+FIFTYMOVE_AVAILABLE_BYTES, not }MemAvailable); threads: $threads"
status=0
declare -A use_disk
gen_total=0
for m in "${todo[@]}"; do
    bytes=$(awk -v m="$m" '$1 == "generate" && $2 == m { print $3 }' "$tmp/plan.txt")
    gen_total=$(( gen_total + bytes ))
    plain=$(gen_bytes "$m" 0)
    ondisk=$(gen_bytes "$m" 1)
    use_disk[$m]=$disk
    if [ "$disk" = 0 ] && [ "$plain" -gt "$avail" ] && [ "$ondisk" -le "$avail" ]; then
        use_disk[$m]=1
    fi
    need=$(gen_bytes "$m" "${use_disk[$m]}")
    prog=rtbgen
    case "$m" in *P*) prog=rtbgenp ;; esac
    flags="-t $threads -s"
    [ "${use_disk[$m]}" = 1 ] && flags="-d $flags"
    verdict="fits"
    if [ "$need" -gt "$avail" ]; then verdict="does NOT fit (with -d: about $(gb "$ondisk"))"; status=1; fi
    echo "to generate: $m ($prog $flags): files $(gb "$bytes") (official), memory about $(gb "$need"): $verdict"
done
[ ${#todo[@]} -gt 0 ] || echo "to generate: nothing (every table of the closures is there)"
if [ ${#todo[@]} -gt 0 ]; then
    free=$(( $(df -Pk "$out" | awk 'NR == 2 { print $4 }') * 1024 ))
    echo "disk: the files to generate take $(gb "$gen_total") (official sizes); free in $out: $(gb "$free")"
    [ "$gen_total" -le "$free" ] || { echo "error: not enough disk space in $out" >&2; status=1; }
fi
if [ "$scan" = 1 ]; then
    while read -r _ t bound fits; do
        what="fits the limit ${limit[1]:-(none: the memory available)}"
        [ "$fits" = 1 ] || { what="does NOT fit the limit ${limit[1]:-}"; status=1; }
        if [ "$bound" -gt "$avail" ]; then what="$what, but NOT the memory available"; status=1; fi
        echo "scan $t: bound $(gb "$bound") (fiftymove tables, before generating): $what"
    done < <(awk '$1 == "target"' "$tmp/plan.txt")
fi
if [ "$status" != 0 ]; then
    refuse "refused up front: the memory or the disk above is short (the generator takes -d by itself where that is enough; free memory or disk, or use a larger machine)"
fi
if [ "$dry_run" = 1 ]; then
    exit 0
fi

# 1. The generator.
if [ ${#todo[@]} -gt 0 ] && [ -z "$generator" ]; then
    [ -n "$src" ] || die "no generator: give --generator-src DIR (or TB_SRC), a clone of https://github.com/syzygy1/tb, or --generator DIR"
    for tool in gcc make; do
        command -v "$tool" > /dev/null || refuse "$tool is needed to build the generator and not found"
    done
    if [ -z "$build_dir" ]; then
        own_build="$(mktemp -d)"
        build_dir="$own_build"
    fi
    mkdir -p "$build_dir"
    build_dir="$(cd "$build_dir" && pwd -P)"
    case "$build_dir/" in "$repo"/*) die "--build-dir $build_dir is inside the repository" ;; esac
    if [ -f "$src/src/Makefile" ]; then
        rm -rf "$build_dir/src"
        cp -r "$src/src" "$build_dir/src"
        rev="$(git -C "$src" rev-parse --short HEAD 2> /dev/null || echo "a work tree")"
    elif git --git-dir="$src" rev-parse --verify -q HEAD > /dev/null 2>&1; then
        rm -rf "$build_dir/src"
        git --git-dir="$src" archive HEAD src | tar -x -C "$build_dir"
        rev="$(git --git-dir="$src" rev-parse --short HEAD)"
    else
        die "$src is not the generator's source (no src/Makefile, not a git repository)"
    fi
    [ -f "$build_dir/src/Makefile" ] || die "$src has no src/Makefile: not syzygy1/tb?"
    # The Makefile's defaults (BMI2, popcount, zstd), as far as this machine
    # has them.
    notes=()
    if ! grep -qw bmi2 /proc/cpuinfo; then
        sed -i 's/^FLAGS = -DBMI2/FLAGS = -DMAGIC/' "$build_dir/src/Makefile"; notes+=("magic bitboards: no BMI2")
    fi
    if ! grep -qw popcnt /proc/cpuinfo; then
        sed -i 's/^FLAGS += -DUSE_POPCNT/#&/' "$build_dir/src/Makefile"; notes+=("no popcnt")
    fi
    if ! printf '#include <zstd.h>\nint main(void) { return ZSTD_versionNumber() == 0; }\n' |
        gcc -x c - -lzstd -o "$tmp/zstd-test" > /dev/null 2>&1; then
        sed -i -e 's/^FLAGS += -DUSE_ZSTD/#&/' -e 's/^LDFLAGS += -lzstd/#&/' "$build_dir/src/Makefile"
        notes+=("LZ4 for its temporary files: zstd's header or library missing (Debian: libzstd-dev)")
    fi
    echo "building the generator (syzygy1/tb $rev) in $build_dir${notes[*]:+: ${notes[*]}}"
    if ! make -C "$build_dir/src" rtbgen rtbgenp > "$build_dir/build.log" 2>&1; then
        tail -n 20 "$build_dir/build.log" >&2
        refuse "the generator's build failed (log: $build_dir/build.log)"
    fi
    generator="$build_dir/src"
fi
if [ ${#todo[@]} -gt 0 ]; then
    generator="$(cd "$generator" && pwd -P)"
    for prog in rtbgen rtbgenp; do
        [ -x "$generator/$prog" ] || refuse "no executable $generator/$prog"
    done
fi

# The wall seconds, CPU seconds and peak resident bytes of a run under
# /usr/bin/time -v, from its report $1.
times_of() {
    python3 - "$1" <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
def num(label):
    return float(re.search(re.escape(label) + r": ([0-9.]+)", t).group(1))
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([0-9:.]+)", t).group(1)
s = 0.0
for part in wall.split(":"):
    s = s * 60 + float(part)
print("%.1f %.1f %d" % (s, num("User time (seconds)") + num("System time (seconds)"),
                        int(num("Maximum resident set size (kbytes)")) * 1024))
EOF
}

# 2 and 3. Each table, checked before it goes into OUT.
for m in "${todo[@]}"; do
    prog=rtbgen
    case "$m" in *P*) prog=rtbgenp ;; esac
    args=(-t "$threads" -s "$m")
    [ "${use_disk[$m]}" = 1 ] && args=(-d "${args[@]}")
    # The memory again: other work may have taken some since the start.
    avail=$(available)
    need=$(gen_bytes "$m" "${use_disk[$m]}")
    [ "$need" -le "$avail" ] ||
        refuse "$m needs about $(gb "$need") to generate, and only $(gb "$avail") is available now"
    work="$out/.work-$m"
    rm -rf "$work"
    mkdir -p "$work"
    echo "generating $m: $prog ${args[*]} (RTBPATH=$rtbpath)"
    if ! (cd "$work" && RTBPATH="$rtbpath" RTBSTATSDIR="$work" \
        /usr/bin/time -v -o "$work/time.txt" "$generator/$prog" "${args[@]}" > "$work/$m.log" 2>&1); then
        tail -n 20 "$work/$m.log" >&2
        refuse "the generator failed on $m (its output: $work/$m.log)"
    fi
    read -r wall cpu peak < <(times_of "$work/time.txt")
    sums=()
    for ext in rtbw rtbz; do
        f="$m.$ext"
        want=$(awk -v f="$f" '$2 == f { print $1 }' data/syzygy-md5.txt)
        [ -n "$want" ] || refuse "$f is not in data/syzygy-md5.txt"
        [ -f "$work/$f" ] || refuse "the generator wrote no $f (its output: $work/$m.log)"
        got=$(md5sum "$work/$f" | cut -d' ' -f1)
        [ "$got" = "$want" ] ||
            refuse "$f from the generator differs from the official file: md5 $got, official $want (left in $work)"
        sums+=("$f $got")
    done
    [ -f "$work/$m.txt" ] || refuse "the generator wrote no statistics $m.txt (its output: $work/$m.log)"
    mv "$work/$m.rtbw" "$work/$m.rtbz" "$work/$m.txt" "$work/$m.log" "$out/"
    rm -rf "$work"
    echo "generated $m: ${wall} s wall, ${cpu} CPU-s, peak $(gb "$peak") (estimate $(gb "$(gen_bytes "$m" "${use_disk[$m]}")")); md5 OK: ${sums[0]}, ${sums[1]}"
done

# Every file of the closures, md5-checked by fiftymove (its verdicts are
# cached, so the scans below do not hash the files again).
if ! "$bin" "${dirs[@]}" -q tables --verify "${targets[@]}" > "$tmp/verify.txt" 2>&1; then
    grep -v ' ok ' "$tmp/verify.txt" >&2 || true
    refuse "fiftymove tables --verify found files missing or damaged"
fi
echo "closures checked: $(grep -c ' ok ' "$tmp/verify.txt") files, md5 OK (fiftymove tables --verify)"

# 4. The scans, against the generator's statistics.
[ "$scan" = 1 ] || exit 0
for t in "${targets[@]}"; do
    if [ ! -f "$out/$t.txt" ]; then
        echo "scan $t: skipped, no statistics of the generator for it in $out (it was not generated here)"
        continue
    fi
    bound=$("$bin" "${dirs[@]}" -q --json "${limit[@]}" scan --plan "$t" |
        python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["memory_bytes"], int(d["fits"]))')
    read -r bound fits <<< "$bound"
    [ "$fits" = 1 ] || refuse "scan $t: its bound $(gb "$bound") does not fit the limit ${limit[1]:-}"
    echo "scanning $t: fiftymove --threads $threads ${limit[*]:+${limit[*]} }scan $t (bound $(gb "$bound"))"
    /usr/bin/time -v -o "$tmp/time.txt" "$bin" "${dirs[@]}" --threads "$threads" -q --json "${limit[@]}" \
        scan --out "$out/$t.scan.json" "$t"
    read -r wall cpu peak < <(times_of "$tmp/time.txt")
    if "$compare" "$out/$t.txt" "$out/$t.scan.json" > "$tmp/compare.txt"; then
        verdict="equals the generator's statistics ($t.txt)"
    else
        cat "$tmp/compare.txt" >&2
        verdict="DIFFERS from the generator's statistics ($t.txt)"
        status=1
    fi
    echo "scan $t${limit[*]:+ ${limit[*]}}: ${wall} s wall, ${cpu} CPU-s, peak $(gb "$peak") against the plan's bound $(gb "$bound"): $verdict"
done
exit "$status"
