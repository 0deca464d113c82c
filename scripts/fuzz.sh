#!/usr/bin/env bash
#
# fuzz.sh: run fiftymove's cargo-fuzz targets, one after the other, each for a
# fixed time budget, and print how many inputs each one ran.
#
# Usage:
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
#   SECONDS  time budget per target (default 600, i.e. 10 minutes)
#   TARGET   which targets to run (default: all of them)
#
# Targets (sources in fuzz/fuzz_targets/, the checks in checks.rs, which
# tests/fuzz_regressions.rs shares to replay the inputs that once failed):
#   fen          position::parse_fen on arbitrary text
#   material     Material::from_str (and its suggestions) on arbitrary text
#   table_probe  table files made of arbitrary bytes, opened and probed the
#                way the binary does (Inventory, Prober); a panic inside table
#                reading must come back as an exit-code-3 error
#   sweep_open   the streaming decoder (sweep::SweepTable) on arbitrary bytes
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and a C++ compiler. A nightly
# toolchain is used when rustup has one; otherwise the stable compiler is run
# with RUSTC_BOOTSTRAP=1, which lets it accept cargo-fuzz's -Z flags.
# The table targets read the real tables from $FIFTYMOVE_TEST_TABLES, else
# data/syzygy (scripts/install-tables.sh puts them there), and seed their
# corpus with the real files. Corpora grow in fuzz/corpus/TARGET (kept between
# runs), crashing inputs land in fuzz/artifacts/TARGET.
#
# Environment:
#   FUZZ_JOBS             libFuzzer workers per target (default 1)
#   FIFTYMOVE_FUZZ_STRICT=1
#                         table_probe treats every panic as a crash, even one
#                         that fiftymove turns into a clean error (to find them)
#   CARGO_TARGET_DIR      as usual (default: fuzz/target)
#
# Exit status: 0 if no target crashed, 1 if one did (its input is named),
# 2 on bad usage.
set -euo pipefail

# Everything below runs inside main(), which bash reads whole before running
# it: editing this file during a long run cannot derail the run.
main() {

die() { printf 'error: %s\n' "$2" >&2; exit "$1"; }

SECONDS_PER_TARGET=${1:-600}
[[ $SECONDS_PER_TARGET =~ ^[0-9]+$ && $SECONDS_PER_TARGET -gt 0 ]] ||
    die 2 "SECONDS must be a positive number of seconds, got '$SECONDS_PER_TARGET'"
shift || true
ALL_TARGETS=(fen material table_probe sweep_open)
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=("${ALL_TARGETS[@]}")
for t in "${TARGETS[@]}"; do
    [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || die 2 "unknown target '$t' (targets: ${ALL_TARGETS[*]})"
done

REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
FUZZ=$REPO/fuzz
cd "$FUZZ"

cargo fuzz --version >/dev/null 2>&1 || die 1 "cargo-fuzz is not installed (cargo install cargo-fuzz)"
TOOLCHAIN=()
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    TOOLCHAIN=(+nightly)
else
    export RUSTC_BOOTSTRAP=1
fi

TABLES=${FIFTYMOVE_TEST_TABLES:-$REPO/data/syzygy}
[[ -f $TABLES/KQvK.rtbw ]] || die 1 "no tables in $TABLES (run scripts/install-tables.sh or set FIFTYMOVE_TEST_TABLES)"
export FIFTYMOVE_TEST_TABLES=$TABLES

# --- seed corpora ---------------------------------------------------------------

seed_text() { # DIR NAME TEXT
    mkdir -p "$1"
    printf '%s' "$3" >"$1/seed-$2"
}

seed_fen() {
    local dir=$FUZZ/corpus/fen i=0 fen
    for fen in \
        "8/8/8/8/8/8/8/R3K2k w - - 0 1" \
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1" \
        "8/8/8/3pP3/8/8/8/K6k w - d6 0 1" \
        "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1" \
        "4k3/8/8/8/8/8/8/3KK3 w - - 0 1" \
        "4k3/8/8/8/8/8/8/P3K3 w - - 0 1" \
        "6kr/8/8/8/8/8/8/R3K2Q w - - 37 80" \
        "8/2k5/8/8/8/8/1PP5/K7 b - - 0 1" \
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" \
        "k7/8/8/8/8/8/8/QQQQKQQQ w - - 0 1"; do
        i=$((i + 1))
        seed_text "$dir" "$i" "$fen"
    done
}

seed_material() {
    local dir=$FUZZ/corpus/material i=0 m
    for m in KRBvKR KQPvKQ krvk KRvKX KvK KPPPPPvK KBNNvKQ KRBKR KQRBvKQRB v ""; do
        i=$((i + 1))
        seed_text "$dir" "$i" "$m"
    done
}

# The table targets: selector byte (index into FILES in
# fuzz/fuzz_targets/checks.rs) followed by the real file.
TABLE_FILES=(KQvK.rtbw KQvK.rtbz KRvK.rtbw KRvK.rtbz KPvK.rtbw KPvK.rtbz KNvK.rtbw
    KNvK.rtbz KRvKR.rtbw KRvKR.rtbz KQvKR.rtbw KPPvK.rtbw KPPvK.rtbz KBvKP.rtbz KBvKP.rtbw)
seed_tables() { # TARGET
    local dir=$FUZZ/corpus/$1 i
    mkdir -p "$dir"
    for i in "${!TABLE_FILES[@]}"; do
        # shellcheck disable=SC2059  # the format is an octal escape on purpose
        { printf "\\$(printf '%03o' "$i")"; cat "$TABLES/${TABLE_FILES[$i]}"; } >"$dir/seed-${TABLE_FILES[$i]}"
    done
}

seed_fen
seed_material
seed_tables table_probe
seed_tables sweep_open

# --- build, then run -------------------------------------------------------------

printf 'building fuzz targets (%s)...\n' "${TOOLCHAIN[*]:-stable with RUSTC_BOOTSTRAP=1}" >&2
for t in "${TARGETS[@]}"; do
    cargo "${TOOLCHAIN[@]}" fuzz build "$t" >&2
done

LOGDIR=$(mktemp -d)
trap 'rm -rf -- "$LOGDIR"' EXIT
SUMMARY=()
STATUS=0
for t in "${TARGETS[@]}"; do
    case $t in
    # Table inputs start from whole real files: let mutations keep them whole.
    table_probe | sweep_open) len_args=(-max_len=120000 -len_control=0) ;;
    *) len_args=(-max_len=4096) ;;
    esac
    mkdir -p "artifacts/$t"
    printf '\n== %s: %s s ==\n' "$t" "$SECONDS_PER_TARGET" >&2
    log=$LOGDIR/$t.log
    jobs=()
    if [[ ${FUZZ_JOBS:-1} -gt 1 ]]; then
        jobs=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
    fi
    set +e
    cargo "${TOOLCHAIN[@]}" fuzz run "$t" "corpus/$t" -- \
        -max_total_time="$SECONDS_PER_TARGET" "${len_args[@]}" -timeout=30 \
        -rss_limit_mb=4096 -print_final_stats=1 "${jobs[@]}" 2>&1 |
        tee "$log" | grep -E '^#[0-9]+.*(pulse|DONE)|ERROR|panicked|Test unit written' >&2
    rc=${PIPESTATUS[0]}
    set -e
    runs=$(awk -F: '/^stat::number_of_executed_units/ { s += $NF; n++ } END { if (n) printf "%d runs", s }' "$log")
    if [[ $rc -ne 0 ]]; then
        STATUS=1
        crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        SUMMARY+=("$(printf '%-12s CRASHED (exit %s) %s' "$t" "$rc" "${crash:-see the log above}")")
    else
        SUMMARY+=("$(printf '%-12s ok: %s' "$t" "${runs:-? runs}")")
    fi
done

printf '\nfuzz summary (%s s per target):\n' "$SECONDS_PER_TARGET"
printf '  %s\n' "${SUMMARY[@]}"
exit "$STATUS"
}

main "$@"
