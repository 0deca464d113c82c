#!/usr/bin/env bash
# Times `scan MATERIAL` (the sweep) against rtbver, the Syzygy generator's
# verifier, in one run: rtbver reads a whole table and checks every
# position against its successors, which is the work `scan` does. With
# --before BIN it also times the same scan by another fiftymove binary (an
# earlier build), and checks that both print the same statistics (the
# `build` field, which names the build, aside).
#
# Each command runs --repeat times (default 1), the commands taking turns
# round after round, and the least time is kept, so a stray load spike or a
# drift of the machine's speed costs a repeat, not the ratio. Run it on a machine
# doing nothing else: the times are wall-clock.
#
# Options:
#   --verifier DIR      holds rtbver and rtbverp, built by you from
#                       https://github.com/syzygy1/tb (`make rtbver rtbverp`
#                       in its src/; this script does not build them)
#   --before BIN        a fiftymove binary to time beside this build's
#   --materials "A B"   default "KRBvKR KBBvKN KNNvKP KQPvKQ KNNvKNN"
#   --threads N         threads for both tools (default: all cores)
#   --repeat R          runs per command, the least time kept (default 1)
#
# Tables: $FIFTYMOVE_TEST_TABLES, else data/syzygy (rtbver reads the
# closure's tables from there through RTBPATH). Build: release, in
# $CARGO_TARGET_DIR if set.
set -euo pipefail
cd "$(dirname "$0")/.."

materials="KRBvKR KBBvKN KNNvKP KQPvKQ KNNvKNN"
threads="$(nproc)"
verifier=""
before=""
repeat=1
while [ $# -gt 0 ]; do
    case "$1" in
        --verifier) verifier="$2"; shift 2 ;;
        --before) before="$2"; shift 2 ;;
        --materials) materials="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --repeat) repeat="$2"; shift 2 ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) echo "error: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ -z "$verifier" ] && [ -z "$before" ]; then
    echo "error: nothing to compare with: give --verifier DIR, --before BIN or both" >&2
    exit 2
fi
if [ -n "$verifier" ]; then
    verifier="$(cd "$verifier" && pwd -P)"
    for prog in rtbver rtbverp; do
        [ -x "$verifier/$prog" ] || { echo "error: no executable $verifier/$prog" >&2; exit 2; }
    done
fi
if [ -n "$before" ] && [ ! -x "$before" ]; then
    echo "error: --before $before is not an executable" >&2
    exit 2
fi
tables="${FIFTYMOVE_TEST_TABLES:-data/syzygy}"
abs_tables="$(cd "$tables" && pwd -P)"

cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/fiftymove"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The wall-clock seconds of one run of a command, its stdout in $1.
once() {
    local out="$1"; shift
    local start end
    start=$(date +%s.%N)
    # (In a command substitution: a failure is reported here, and the
    # empty time it leaves makes the caller stop.)
    if ! "$@" > "$out"; then
        echo "error: failed: $*" >&2
        return 1
    fi
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}

# The smaller of two times ($1 empty: none yet).
smaller() {
    if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc -l)" = 1 ]; then echo "$2"; else echo "$1"; fi
}

# The statistics document without its `build` field.
strip_build() {
    python3 -c 'import json, sys
doc = json.load(open(sys.argv[1]))
doc.pop("build", None)
print(json.dumps(doc, sort_keys=True))' "$1"
}

# rtbver in the tables' directory (it opens the table there; the closure
# through RTBPATH); its output must end with "No errors.".
verify() {
    local m="$1" prog=rtbver
    case "$m" in *P*) prog=rtbverp ;; esac
    (cd "$abs_tables" && RTBPATH="$abs_tables" "$verifier/$prog" -t "$threads" "$m")
}

fmt() { printf '%.2f' "$1"; }

status=0
printf '%-8s %10s %10s %12s %10s %12s\n' material "scan s" "before s" "scan/before" "rtbver s" "scan/rtbver"
for m in $materials; do
    # No md5 check and no cache: the scan alone, as rtbver does it.
    scan=(--tables "$tables" --threads "$threads" --json -q --no-verify --no-cache scan "$m")
    # The commands take turns, round after round, so that a drift of the
    # machine's speed touches them alike; each keeps its least time.
    t_scan="" t_before="" t_ver=""
    for ((round = 0; round < repeat; round++)); do
        t=$(once "$tmp/$m.json" "$bin" "${scan[@]}") || exit 1
        t_scan=$(smaller "$t_scan" "$t")
        if [ -n "$before" ]; then
            t=$(once "$tmp/$m.before.json" "$before" "${scan[@]}") || exit 1
            t_before=$(smaller "$t_before" "$t")
        fi
        if [ -n "$verifier" ]; then
            t=$(once "$tmp/$m.rtbver.txt" verify "$m") || exit 1
            t_ver=$(smaller "$t_ver" "$t")
            if ! grep -q '^No errors\.' "$tmp/$m.rtbver.txt"; then
                echo "$m: rtbver did not report \"No errors.\"" >&2
                status=1
            fi
        fi
    done
    r_before="-" r_ver="-"
    if [ -n "$before" ]; then
        if [ "$(strip_build "$tmp/$m.json")" != "$(strip_build "$tmp/$m.before.json")" ]; then
            echo "$m: the two builds' statistics differ" >&2
            status=1
        fi
        r_before="$(fmt "$(echo "$t_scan / $t_before" | bc -l)")"
        t_before="$(fmt "$t_before")"
    else
        t_before="-"
    fi
    if [ -n "$verifier" ]; then
        r_ver="$(fmt "$(echo "$t_scan / $t_ver" | bc -l)")"
        t_ver="$(fmt "$t_ver")"
    else
        t_ver="-"
    fi
    printf '%-8s %10s %10s %12s %10s %12s\n' "$m" "$(fmt "$t_scan")" "$t_before" "$r_before" "$t_ver" "$r_ver"
done
echo "threads: $threads; least of $repeat run(s) each; build: $("$bin" --version)"
[ -n "$before" ] && echo "before: $("$before" --version); same statistics: $([ $status = 0 ] && echo yes || echo NO)"
exit "$status"
