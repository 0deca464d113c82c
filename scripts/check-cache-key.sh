#!/usr/bin/env bash
#
# check-cache-key.sh: rebuild fiftymove with one changed line of the solver and
# show that `claims` computes its results again instead of reading what the
# first build cached (the cache is keyed by the build id, src/build_id).
#
# Usage:
#   scripts/check-cache-key.sh [CLAIM_ID]      (default thompson-1986-kqkr)
#
# On demand: two release builds of a scratch copy of the sources in a temporary
# directory (a few minutes; the first builds the dependencies), with the tables
# of data/syzygy. The changed line keeps the arithmetic's value (x + 1 becomes
# x + 2 - 1), so the second build must recompute and print the same verdict.
#
# Exit status: 0 when the second build removed the first one's cache files,
# recomputed and printed the same output; 1 otherwise; 2 for a usage error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${1:-}" in
    -h|--help) sed -n '3,17p' "$0"; exit 0 ;;
    -*) echo "error: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac
claim="${1:-thompson-1986-kqkr}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

(cd "$here" && tar -cf - src data/*.toml data/*.txt data/*.tsv Cargo.toml Cargo.lock build.rs benches) |
    tar -C "$work" -xf -
export CARGO_TARGET_DIR="$work/target" FIFTYMOVE_CACHE_DIR="$work/cache"
bin="$work/target/release/fiftymove"
build() { (cd "$work" && cargo build --release --quiet --bin fiftymove); }
run() { "$bin" --tables "$here/data/syzygy" --json claims "$claim" 2>"$work/stderr.$1"; }

build
first="$(run 1)"
id1="$("$bin" --version)"
line='usize::from(MAX_LEVEL) + 1'
grep -q "$line" "$work/src/solve/retro.rs" || { echo "error: src/solve/retro.rs has no '$line'" >&2; exit 1; }
sed -i "0,/$line/s//usize::from(MAX_LEVEL) + 2 - 1/" "$work/src/solve/retro.rs"
build
id2="$("$bin" --version)"
second="$(run 2)"
echo "first build:  $id1"
echo "second build: $id2 (src/solve/retro.rs: '$line' -> '+ 2 - 1')"
echo "second run's stderr:"
sed 's/^/  /' "$work/stderr.2"
status=0
[[ "$id1" != "$id2" ]] || { echo "FAIL: the build id did not change"; status=1; }
grep -q '^note: removed [1-9][0-9]* cached result(s) of other builds' "$work/stderr.2" ||
    { echo "FAIL: no note that the first build's results were removed"; status=1; }
grep -q '^done: ' "$work/stderr.2" || { echo "FAIL: nothing was computed again"; status=1; }
[[ "$first" == "$second" ]] || { echo "FAIL: the output changed"; status=1; }
[[ $status -eq 0 ]] && echo "OK: the second build recomputed '$claim' and printed the same output"
exit $status
