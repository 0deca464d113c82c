#!/usr/bin/env bash
#
# bench-claims.sh: time the README's main job, `claims`, from an empty cache,
# and check that its verdicts and counts equal a baseline's.
#
# Usage:
#   scripts/bench-claims.sh [--bin PATH] [--baseline PATH] [--out DIR] [CLAIM...]
#
# Runs `claims --json` (with the claims named, else the whole catalog) with a
# fresh cache directory under /usr/bin/time, and prints its wall time,
# CPU-seconds (user + system) and peak resident memory, and the slowest steps
# from its progress lines. With --baseline, the other binary (an older build,
# say) runs the same way first, on the same machine in the same run, and the
# ratios of wall time and CPU-seconds are printed, and the two JSON outputs
# must be equal: the exit status is 1 if they differ (a diff is printed).
# Keep the machine otherwise idle: both runs use every core.
#
# --out DIR keeps each run's JSON, stderr and cache in DIR (default: a
# temporary directory, removed at the end). Tables: $SYZYGY_PATH, else
# ./data/syzygy.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$here/target/release/fiftymove"
baseline=""
out=""
claims=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --bin) bin="$2"; shift 2 ;;
        --baseline) baseline="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        -h|--help) sed -n '3,21p' "$0"; exit 0 ;;
        -*) echo "error: unknown option '$1' (see --help)" >&2; exit 2 ;;
        *) claims+=("$1"); shift ;;
    esac
done
if [[ ! -x "$bin" ]]; then
    (cd "$here" && cargo build --release --quiet)
fi
if [[ -n "$baseline" && ! -x "$baseline" ]]; then
    echo "error: --baseline $baseline is not an executable" >&2
    exit 2
fi
if [[ -z "$out" ]]; then
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
tables="${SYZYGY_PATH:-$here/data/syzygy}"

# run NAME BINARY: one cold run; prints "wall cpu peak_kb".
run() {
    local name="$1" exe="$2"
    rm -rf "$out/$name.cache"
    FIFTYMOVE_CACHE_DIR="$out/$name.cache" /usr/bin/time -f '%e %U %S %M' -o "$out/$name.time" \
        "$exe" --tables "$tables" --json claims "${claims[@]}" \
        > "$out/$name.json" 2> "$out/$name.err" || true
    if [[ ! -s "$out/$name.json" ]]; then
        echo "error: $name printed no result; its stderr ends:" >&2
        tail -5 "$out/$name.err" >&2
        exit 1
    fi
    awk '{ printf "%s %.1f %s\n", $1, $2 + $3, $4 }' "$out/$name.time"
}

report() {
    local name="$1" wall="$2" cpu="$3" peak="$4"
    printf '%-9s %9.1f s wall %9.1f CPU-s %7.2f GB peak\n' "$name" "$wall" "$cpu" \
        "$(awk -v k="$peak" 'BEGIN { print k * 1024 / 1e9 }')"
    echo "  slowest steps:"
    grep '^done: ' "$out/$name.err" | awk '{ print $(NF-1), $0 }' | sort -rn | head -8 \
        | cut -d' ' -f2- | sed 's/^/    /'
}

status=0
if [[ -n "$baseline" ]]; then
    read -r bw bc bp < <(run baseline "$baseline")
fi
read -r nw nc np < <(run new "$bin")
[[ -n "$baseline" ]] && report baseline "$bw" "$bc" "$bp"
report new "$nw" "$nc" "$np"
if [[ -n "$baseline" ]]; then
    awk -v bw="$bw" -v nw="$nw" -v bc="$bc" -v nc="$nc" \
        'BEGIN { printf "ratio     %.2fx wall, %.2fx CPU-seconds (baseline / new)\n", bw / nw, bc / nc }'
    if cmp -s "$out/baseline.json" "$out/new.json"; then
        echo "outputs: equal"
    else
        echo "outputs: DIFFER"
        diff <(python3 -m json.tool "$out/baseline.json") <(python3 -m json.tool "$out/new.json") | head -60
        status=1
    fi
fi
exit "$status"
