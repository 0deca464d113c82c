#!/usr/bin/env bash
# Measures the single-thread throughputs that scripts/slurm/estimate.py turns
# into cluster costs, and writes them as JSON (default: stdout):
#
#   scripts/slurm/measure.sh [--bin PATH] [--out FILE]
#
# Runs, one thread each, with the installed tables (data/syzygy or
# --tables via FIFTYMOVE_TABLES_ARGS): scan KRBvKR and scan KNNvKP (sweep),
# shard 1/64 of scan KRBvKR with the probe engine (times 64), and solve
# KRBvKR under rules 50, 75 and 100 with no cache (closure included).
# A few minutes on the 2-core machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BIN="$here/../../target/release/fiftymove"
OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) BIN=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        *) echo "usage: $0 [--bin PATH] [--out FILE]" >&2; exit 2 ;;
    esac
done
[ -x "$BIN" ] || { echo "error: no fiftymove binary at $BIN" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# CPU-seconds (user + system) of one command.
cpu() {
    /usr/bin/time -f "%U %S" -o "$tmp/time" "$@" > /dev/null
    awk '{printf "%.2f", $1 + $2}' "$tmp/time"
}
F=(--quiet --threads 1)
echo "measuring (one thread)..." >&2
sw_pl=$(cpu "$BIN" "${F[@]}" scan KRBvKR)
sw_pl_mem=$("$BIN" --quiet scan --plan KRBvKR | cut -f2)
sw_p=$(cpu "$BIN" "${F[@]}" scan KNNvKP)
sw_p_mem=$("$BIN" --quiet scan --plan KNNvKP | cut -f2)
pr=$(cpu "$BIN" "${F[@]}" scan --engine probe --shard 1/64 --out "$tmp/shard.json" KRBvKR)
pr=$(awk -v s="$pr" 'BEGIN {printf "%.2f", s * 64}')
declare -A sv
for rule in 50 75 100; do
    sv[$rule]=$(cpu "$BIN" "${F[@]}" --no-cache solve --rule "$rule" KRBvKR)
done
# The largest solve bound of any 5-piece material (with its closure kept).
solve_mem=0
for t in $(awk '{print $2}' "$here/../../data/syzygy-md5.txt" | sed -n 's/\.rtbw$//p' | awk 'length($0) == 6'); do
    b=$("$BIN" --quiet --no-cache solve --plan "$t" | tail -1 | cut -f2)
    [ "$b" -gt "$solve_mem" ] && solve_mem=$b
done
json=$(cat <<JSON
{
  "machine": "$(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB, $(date -u +%Y-%m-%d)",
  "sweep_pawnless": {"material": "KRBvKR", "what": "scan", "cpu_seconds": $sw_pl, "memory_bytes": $sw_pl_mem},
  "sweep_pawns": {"material": "KNNvKP", "what": "scan", "cpu_seconds": $sw_p, "memory_bytes": $sw_p_mem},
  "probe": {"material": "KRBvKR", "what": "scan --engine probe (shard 1/64, x64)", "cpu_seconds": $pr},
  "solve_50": {"material": "KRBvKR", "what": "solve --rule 50", "cpu_seconds": ${sv[50]}},
  "solve_75": {"material": "KRBvKR", "what": "solve --rule 75", "cpu_seconds": ${sv[75]}},
  "solve_100": {"material": "KRBvKR", "what": "solve --rule 100", "cpu_seconds": ${sv[100]}},
  "solve_memory_bytes": $solve_mem
}
JSON
)
if [ -n "$OUT" ]; then
    printf '%s\n' "$json" > "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
else
    printf '%s\n' "$json"
fi
