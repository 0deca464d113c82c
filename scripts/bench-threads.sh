#!/usr/bin/env bash
# Scan throughput with 1 and 2 threads, measured in one run.
# Usage: scripts/bench-threads.sh [--engine sweep|probe] MATERIAL...
# Prints, per material and thread count, the wall time and the positions
# (both sides to move, symmetry-reduced) per second, and the speed-up.
set -euo pipefail
cd "$(dirname "$0")/.."
engine=sweep
if [ "${1:-}" = "--engine" ]; then engine=$2; shift 2; fi
[ $# -gt 0 ] || set -- KQvKR KRBvKR
cargo build --release --quiet
bin=target/release/fiftymove
printf '%-8s %-7s %8s %14s %16s\n' material threads seconds positions 'positions/s'
for m in "$@"; do
  declare -A secs=()
  for t in 1 2; do
    start=$(date +%s.%N)
    json=$("$bin" --quiet --json --threads "$t" scan --engine "$engine" "$m")
    end=$(date +%s.%N)
    n=$(printf '%s' "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["white"]["positions"]+d["black"]["positions"])')
    s=$(python3 -c "print(round($end-$start,3))")
    secs[$t]=$s
    printf '%-8s %-7s %8s %14s %16.0f\n' "$m" "$t" "$s" "$n" "$(python3 -c "print($n/$s)")"
  done
  printf '%-8s speed-up 2 threads / 1 thread: %.2fx\n' "$m" "$(python3 -c "print(${secs[1]}/${secs[2]})")"
done
