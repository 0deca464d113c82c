#!/usr/bin/env bash
# Times `scan KRBvKR` (every position of the table, both sides to move,
# DTZ made exact) against python-chess probing WDL and DTZ of 25,000
# random legal KRBvKR positions (scripts/python/probe_random.py), in the
# same run, and prints both times and their ratio (issue 44: the scan
# should take no longer). python-chess's time counts the probes only, not
# its start or the placing of the positions; the scan's is the whole
# process, its reading of the tables included.
#
# Options:
#   --material M   another material (default KRBvKR)
#   --count N      positions python-chess probes (default 25000)
#   --threads N    the scan's worker threads (default: all; python-chess
#                  uses one)
#
# Tables: $FIFTYMOVE_TEST_TABLES, else data/syzygy. Build: release, in
# $CARGO_TARGET_DIR if set. Needs python-chess (pip install chess).
set -euo pipefail
cd "$(dirname "$0")/.."

material="KRBvKR"
count=25000
threads=()
while [ $# -gt 0 ]; do
    case "$1" in
        --material) material="$2"; shift 2 ;;
        --count) count="$2"; shift 2 ;;
        --threads) threads=(--threads "$2"); shift 2 ;;
        *) echo "error: unknown option $1" >&2; exit 2 ;;
    esac
done
tables="${FIFTYMOVE_TEST_TABLES:-data/syzygy}"
if ! python3 -c 'import chess.syzygy' 2>/dev/null; then
    echo "error: python-chess is not installed (pip install chess)" >&2
    exit 2
fi
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/fiftymove"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

python=$(python3 scripts/python/probe_random.py "$tables" "$material" "$count")
start=$(date +%s.%N)
"$bin" --quiet --tables "$tables" "${threads[@]}" --json scan "$material" > "$out/scan.json"
end=$(date +%s.%N)
python3 - "$python" "$start" "$end" "$out/scan.json" <<'PY'
import json, sys
probe = json.loads(sys.argv[1])
scan_s = float(sys.argv[3]) - float(sys.argv[2])
doc = json.load(open(sys.argv[4]))
stats = doc[0] if isinstance(doc, list) else doc
n = stats["white"]["positions"] + stats["black"]["positions"]
print(f"python-chess: {probe['positions']} random {probe['material']} positions probed "
      f"(WDL and DTZ) in {probe['seconds']:.2f} s, "
      f"{probe['seconds'] / probe['positions'] * 1e6:.0f} us each")
print(f"fiftymove scan: {n} positions (symmetry-reduced, both sides) in {scan_s:.2f} s, "
      f"{scan_s / n * 1e9:.1f} ns each")
print(f"ratio scan / python-chess: {scan_s / probe['seconds']:.2f}")
PY
