#!/usr/bin/env bash
# Times `solve --rule 50` of KRBvKR and KNNvKP from an empty cache, the
# closure included (every smaller table is solved too), and prints the ratio
# to the Syzygy generator measured in the same run.
#
# With --generator DIR (DIR holds `rtbgen`, and `rtbgenp` for pawns, built by you from
# https://github.com/syzygy1/tb; this script does not build them) the
# generator is timed twice per material, each time rebuilding with
# statistics (`-s`) on the same number of threads:
#   table    the table alone, its sub-tables read from the tables dir (what
#            the generator needs at the least);
#   closure  the whole closure from nothing, in the solver's order, each
#            table built from those built before it (the solver's task).
# Every table the generator writes is checked against the official md5s.
#
# Options:
#   --materials "A B"   other materials (default "KRBvKR KNNvKP")
#   --threads N         worker threads for both (default: all)
#   --generator DIR     time the Syzygy generator from DIR in this run
#   --metrics "dtz ..." also time these metrics of the solver, as a ratio to
#                       dtz in the same run (default "dtz")
#   --closure-only      time the generator on the closure only, not also on
#                       the table alone (at six pieces the table takes
#                       nearly all of the closure's time)
#   --memory-limit SIZE solve within SIZE (as 400M): below the whole
#                       solve's bound the solver reads its tables page by
#                       page; the bound `solve --plan` gives is printed too
#
# Peak resident memory (GNU time's maximum RSS) is printed for the solve and
# for the generator's largest table of the closure.
#
# Tables: $FIFTYMOVE_TEST_TABLES, else data/syzygy. Build: release, in
# $CARGO_TARGET_DIR if set.
set -euo pipefail
cd "$(dirname "$0")/.."

materials="KRBvKR KNNvKP"
threads=()
generator=""
metrics="dtz"
closure_only=0
limit=()
while [ $# -gt 0 ]; do
    case "$1" in
        --materials) materials="$2"; shift 2 ;;
        --threads) threads=(--threads "$2"); shift 2 ;;
        --generator) generator="$2"; shift 2 ;;
        --metrics) metrics="$2"; shift 2 ;;
        --closure-only) closure_only=1; shift ;;
        --memory-limit) limit=(--memory-limit "$2"); shift 2 ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
tables="${FIFTYMOVE_TEST_TABLES:-data/syzygy}"
abs_tables="$(cd "$tables" && pwd -P)"
if [ -n "$generator" ]; then
    generator="$(cd "$generator" && pwd -P)"
    # rtbgen makes pawnless tables, rtbgenp those with pawns: only the
    # ones the materials' closures need must be built.
    progs=rtbgen
    case "$materials" in *P*) progs="rtbgen rtbgenp" ;; esac
    for prog in $progs; do
        [ -x "$generator/$prog" ] || { echo "no executable $generator/$prog" >&2; exit 2; }
    done
fi

cargo build --release --quiet
bin="$(pwd)/${CARGO_TARGET_DIR:-target}/release/fiftymove"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
nthreads="${threads[1]:-$(nproc)}"

# Seconds (with decimals) that a command takes; its stdout goes to $1, its
# peak resident memory in KiB to $tmp/peak-kib.
timed() {
    local out="$1"; shift
    local start end
    start=$(date +%s.%N)
    /usr/bin/time -f '%M' -o "$tmp/peak-kib" "$@" > "$out"
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}

# The peak of the last `timed` command, in GB (10^9 bytes).
peak_gb() { printf '%.2f' "$(echo "$(cat "$tmp/peak-kib") * 1024 / 10^9" | bc -l)"; }

# Builds table $1 with the generator in dir $2 (sub-tables from $3) and
# checks it against the official md5s; prints the seconds.
generate() {
    local m="$1" dir="$2" subs="$3" prog=rtbgen t ext want got
    case "$m" in *P*) prog=rtbgenp ;; esac
    t=$(cd "$dir" && RTBPATH="$subs" timed /dev/null "$generator/$prog" -t "$nthreads" -s "$m")
    # The largest peak of the generator's tables so far, for the summary.
    local kib
    kib=$(cat "$tmp/peak-kib")
    if [ ! -e "$tmp/gen-peak-kib" ] || [ "$kib" -gt "$(cat "$tmp/gen-peak-kib")" ]; then
        echo "$kib" > "$tmp/gen-peak-kib"
    fi
    for ext in rtbw rtbz; do
        want=$(awk -v f="$m.$ext" '$2 == f { print $1 }' data/syzygy-md5.txt)
        got=$(md5sum "$dir/$m.$ext" | cut -d' ' -f1)
        if [ "$want" != "$got" ]; then
            echo "$m: the generator's $m.$ext differs from the official file" >&2
            touch "$tmp/generator-mismatch"
        fi
    done
    echo "$t"
}

fmt() { printf '%.2f' "$1"; }

printf '%-8s %-6s %10s %11s %8s %16s %16s %14s %11s\n' material metric "solve s" "solve peak" "vs dtz" "generator table" "gen. closure s" "solve/closure" "gen. peak"
for m in $materials; do
    t_dtz=""
    for metric in $metrics; do
        cache="$tmp/cache-$m-$metric"
        mkdir -p "$cache"
        rule=(--rule 50)
        [ "$metric" = dtz ] || rule=()
        if [ ${#limit[@]} -gt 0 ]; then
            # The plan without a cache: the whole closure's bound, as the run
            # below solves it (with a cache, a line is its material's alone).
            "$bin" --tables "$tables" "${threads[@]}" -q --json --no-cache \
                "${limit[@]}" solve --plan "${rule[@]}" --metric "$metric" "$m" | tail -n 1 |
                python3 -c 'import json, sys; d = json.load(sys.stdin); print("bound of %s %s: %d bytes (pages: %s)" % (d["material"], sys.argv[1], d["memory_bytes"], d.get("page_bytes", "none, whole")))' "$metric" >&2
        fi
        t=$(timed "$tmp/$m.$metric.json" "$bin" --tables "$tables" "${threads[@]}" -q --json \
            --cache-dir "$cache" "${limit[@]}" solve "${rule[@]}" --metric "$metric" "$m")
        rm -rf "$cache"
        peak="$(peak_gb) GB"
        [ "$metric" = dtz ] && t_dtz="$t"
        vs="-"
        [ -n "$t_dtz" ] && vs="$(fmt "$(echo "$t / $t_dtz" | bc -l)")x"
        gen_table="-"; gen_closure="-"; ratio="-"; gen_peak="-"
        if [ -n "$generator" ] && [ "$metric" = dtz ]; then
            rm -f "$tmp/gen-peak-kib"
            dir="$tmp/gen-$m"; mkdir -p "$dir"
            g_table=""
            if [ $closure_only -eq 0 ]; then
                g_table=$(generate "$m" "$dir" "$abs_tables")
                rm -rf "$dir"; mkdir -p "$dir"
            fi
            g_closure=0
            # The closure in the solver's order (fewer pieces, then fewer
            # pawns, first), each from the tables built before it.
            for c in $("$bin" --tables "$tables" -q --json tables "$m" | python3 -c '
import json, sys
d = json.load(sys.stdin)
names = d["materials"][0]["closure"]
print(" ".join(sorted(names, key=lambda n: (len(n) - 1, n.count("P"), n))))'); do
                g=$(generate "$c" "$dir" "$dir")
                g_closure=$(echo "$g_closure + $g" | bc -l)
            done
            rm -rf "$dir"
            [ -n "$g_table" ] && gen_table="$(fmt "$g_table")"
            gen_closure="$(fmt "$g_closure")"
            ratio="$(fmt "$(echo "100 * $t / $g_closure" | bc -l)")%"
            cp "$tmp/gen-peak-kib" "$tmp/peak-kib"
            gen_peak="$(peak_gb) GB"
        fi
        printf '%-8s %-6s %10s %11s %8s %16s %16s %14s %11s\n' "$m" "$metric" "$(fmt "$t")" "$peak" "$vs" "$gen_table" "$gen_closure" "$ratio" "$gen_peak"
    done
done
if [ -e "$tmp/generator-mismatch" ]; then
    exit 1
fi
