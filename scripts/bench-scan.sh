#!/usr/bin/env bash
# Times `scan KRBvKR` and `scan KNNvKP` with both engines in one run and
# prints the ratios, plus the ratio to the Syzygy generator's own time
# (96 s for KRBvKR, 8.5 min for KNNvKP, rebuilding each table with
# statistics on a 2-core machine).
#
# The probe engine takes minutes to hours on a whole 5-piece table (on 2
# cores about 6 minutes for KRBvKR, mostly draws, and 80 minutes for
# KNNvKP), so by default it scans one shard (--probe-shard K/N, default
# 1/32) and its whole-table time is extrapolated (x N), which the output
# says. The sweep engine is
# timed on the whole table, and also run on the same shard: the two shard
# results must be byte-identical.
#
# Options:
#   --probe-shard K/N   the shard the probe engine scans (default 1/32)
#   --compare           also run the probe engine on the whole tables and
#                       require byte-identical JSON (KNNvKP: hours)
#   --materials "A B"   other materials (default "KRBvKR KNNvKP")
#   --threads N         worker threads for both engines (default: all)
#
# Tables: $FIFTYMOVE_TEST_TABLES, else data/syzygy. Build: release, in
# $CARGO_TARGET_DIR if set.
set -euo pipefail
cd "$(dirname "$0")/.."

shard="1/32"
compare=0
materials="KRBvKR KNNvKP"
threads=()
while [ $# -gt 0 ]; do
    case "$1" in
        --probe-shard) shard="$2"; shift 2 ;;
        --compare) compare=1; shift ;;
        --materials) materials="$2"; shift 2 ;;
        --threads) threads=(--threads "$2"); shift 2 ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
n="${shard#*/}"
tables="${FIFTYMOVE_TEST_TABLES:-data/syzygy}"

cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/fiftymove"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Seconds (with decimals) that a command takes; its stdout goes to $1.
timed() {
    local out="$1"; shift
    local start end
    start=$(date +%s.%N)
    "$@" > "$out"
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}

generator_seconds() {
    case "$1" in
        KRBvKR) echo 96 ;;
        KNNvKP) echo 510 ;;
        *) echo "" ;;
    esac
}

fmt() { printf '%.2f' "$1"; }

status=0
printf '%-8s %12s %18s %10s %14s\n' material "sweep s" "probe s" "probe/sweep" "sweep/generator"
for m in $materials; do
    common=(--tables "$tables" "${threads[@]}" --json -q scan)
    t_sweep=$(timed "$tmp/$m.sweep.json" "$bin" "${common[@]}" --engine sweep "$m")
    "$bin" "${common[@]}" --engine sweep --shard "$shard" --out "$tmp/$m.sweep.shard.json" "$m"
    t_probe_shard=$(timed /dev/null "$bin" "${common[@]}" --engine probe --shard "$shard" --out "$tmp/$m.probe.shard.json" "$m")
    if ! cmp -s "$tmp/$m.sweep.shard.json" "$tmp/$m.probe.shard.json"; then
        echo "$m: shard $shard differs between the engines" >&2
        status=1
    fi
    if [ "$compare" = 1 ]; then
        t_probe=$(timed "$tmp/$m.probe.json" "$bin" "${common[@]}" --engine probe "$m")
        probe_note="$(fmt "$t_probe")"
        if ! cmp -s "$tmp/$m.sweep.json" "$tmp/$m.probe.json"; then
            echo "$m: whole-table JSON differs between the engines" >&2
            status=1
        fi
    else
        t_probe=$(echo "$t_probe_shard * $n" | bc -l)
        probe_note="$(fmt "$t_probe") (${shard}x$n)"
    fi
    gen=$(generator_seconds "$m")
    ratio=$(echo "$t_probe / $t_sweep" | bc -l)
    if [ -n "$gen" ]; then
        genratio="$(fmt "$(echo "100 * $t_sweep / $gen" | bc -l)")%"
    else
        genratio="-"
    fi
    printf '%-8s %12s %18s %10s %14s\n' "$m" "$(fmt "$t_sweep")" "$probe_note" "$(fmt "$ratio")x" "$genratio"
done
if [ "$compare" = 1 ]; then
    echo "whole tables: byte-identical JSON from both engines: $([ $status = 0 ] && echo yes || echo NO)"
else
    echo "probe times are extrapolated from shard $shard (x$n); shard JSON identical: $([ $status = 0 ] && echo yes || echo NO)"
fi
exit "$status"
