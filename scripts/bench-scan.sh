#!/usr/bin/env bash
# Times `scan KRBvKR` and `scan KNNvKP` with both engines in one run and
# prints the ratios, plus the ratio to the Syzygy generator's time to
# rebuild each table with statistics. With --generator DIR that time is
# measured in the same run: DIR holds `rtbgen` and `rtbgenp`, built by
# you from https://github.com/syzygy1/tb (this script does not build
# them); the script runs `rtbgen -t THREADS -s MATERIAL` (rtbgenp for
# pawns) in a temp dir, sub-tables from the tables dir, and checks the
# rebuilt table against the official md5s. Without --generator, the
# ratio is to issue 4's stated figures (96 s for KRBvKR, 8.5 min for
# KNNvKP), which the output marks as stated, not measured.
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
#   --threads N         worker threads for both engines and the
#                       generator (default: all)
#   --generator DIR     time the Syzygy generator from DIR in this run
#
# Tables: $FIFTYMOVE_TEST_TABLES, else data/syzygy. Build: release, in
# $CARGO_TARGET_DIR if set.
set -euo pipefail
cd "$(dirname "$0")/.."

shard="1/32"
compare=0
materials="KRBvKR KNNvKP"
threads=()
generator=""
while [ $# -gt 0 ]; do
    case "$1" in
        --probe-shard) shard="$2"; shift 2 ;;
        --compare) compare=1; shift ;;
        --materials) materials="$2"; shift 2 ;;
        --threads) threads=(--threads "$2"); shift 2 ;;
        --generator) generator="$2"; shift 2 ;;
        -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
n="${shard#*/}"
tables="${FIFTYMOVE_TEST_TABLES:-data/syzygy}"
abs_tables="$(cd "$tables" && pwd -P)"
if [ -n "$generator" ]; then
    generator="$(cd "$generator" && pwd -P)"
    for prog in rtbgen rtbgenp; do
        [ -x "$generator/$prog" ] || { echo "no executable $generator/$prog" >&2; exit 2; }
    done
fi

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

# The generator's time for material $1: measured with --generator (the
# rebuilt tables must match the official md5s), else the stated figure.
generator_seconds() {
    local m="$1"
    if [ -z "$generator" ]; then
        case "$m" in
            KRBvKR) echo 96 ;;
            KNNvKP) echo 510 ;;
            *) echo "" ;;
        esac
        return
    fi
    local prog=rtbgen
    case "$m" in *P*) prog=rtbgenp ;; esac
    local dir="$tmp/gen-$m" nthreads
    nthreads="${threads[1]:-$(nproc)}"
    mkdir -p "$dir"
    local t
    # The generator reads its sub-tables' WDL files from $RTBPATH (from
    # 2025-09-29 on; $RTBWDIR before, so both are set).
    t=$(cd "$dir" && RTBPATH="$abs_tables" RTBWDIR="$abs_tables" timed /dev/null "$generator/$prog" -t "$nthreads" -s "$m")
    local ext
    for ext in rtbw rtbz; do
        local want got
        want=$(awk -v f="$m.$ext" '$2 == f { print $1 }' data/syzygy-md5.txt)
        got=$(md5sum "$dir/$m.$ext" | cut -d' ' -f1)
        if [ "$want" != "$got" ]; then
            # (In a command substitution: the flag file carries the failure out.)
            echo "$m: the generator's $m.$ext differs from the official file" >&2
            touch "$tmp/generator-mismatch"
        fi
    done
    rm -rf "$dir"
    echo "$t"
}

fmt() { printf '%.2f' "$1"; }

status=0
gen_label="generator s (stated)"
[ -n "$generator" ] && gen_label="generator s (measured)"
printf '%-8s %12s %18s %12s %22s %16s\n' material "sweep s" "probe s" "probe/sweep" "$gen_label" "sweep/generator"
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
        gen="$(fmt "$gen")"
    else
        gen="-"
        genratio="-"
    fi
    printf '%-8s %12s %18s %12s %22s %16s\n' "$m" "$(fmt "$t_sweep")" "$probe_note" "$(fmt "$ratio")x" "$gen" "$genratio"
done
if [ -e "$tmp/generator-mismatch" ]; then
    status=1
fi
if [ -n "$generator" ]; then
    echo "generator tables identical to the official files: $([ -e "$tmp/generator-mismatch" ] && echo NO || echo yes)"
fi
if [ "$compare" = 1 ]; then
    echo "whole tables: byte-identical JSON from both engines: $([ $status = 0 ] && echo yes || echo NO)"
else
    echo "probe times are extrapolated from shard $shard (x$n); shard JSON identical: $([ $status = 0 ] && echo yes || echo NO)"
fi
exit "$status"
