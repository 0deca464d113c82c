#!/usr/bin/env bash
#
# check-cache-key.sh: rebuild fiftymove twice and show that the cache is keyed by
# the code that computes results, and by nothing else (src/build_id):
#   1. one changed line of a test-only file (src/tables/reader/tests.rs) and of an
#      engine file's test module keeps the build id: `claims` reads what the first
#      build cached and computes nothing;
#   2. one changed line of the solver gives another build id: `claims` computes its
#      results again instead of reading the first build's, keeps the first build's
#      files (never read, never removed unprompted), and says in one note how much
#      they hold; `fiftymove cache clean --other-builds` then removes exactly them.
#
# Usage:
#   scripts/check-cache-key.sh [CLAIM_ID]      (default thompson-1986-kqkr)
#
# On demand: three release builds of a scratch copy of the sources in a temporary
# directory (a few minutes; the first builds the dependencies), with the tables
# of data/syzygy. The changed solver line keeps the arithmetic's value (x + 1
# becomes x + 2 - 1), so the third build must recompute and print the same verdict.
#
# Exit status: 0 when all of that holds; 1 otherwise; 2 for a usage error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${1:-}" in
    -h|--help) sed -n '3,21p' "$0"; exit 0 ;;
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
files1="$(cd "$work/cache" && find . -type f | sort)"
status=0

# 1. Test-only code: the same id, the cache read.
test_line='pub(crate) fn tables_dir() -> PathBuf {'
grep -qF "$test_line" "$work/src/tables/reader/tests.rs" ||
    { echo "error: src/tables/reader/tests.rs has no '$test_line'" >&2; exit 1; }
sed -i "s|^$test_line|$test_line\n    // edited by check-cache-key.sh|" "$work/src/tables/reader/tests.rs"
module_line='// A bare king can take only the rook'
grep -qF "$module_line" "$work/src/model/dtz.rs" ||
    { echo "error: src/model/dtz.rs has no '$module_line'" >&2; exit 1; }
sed -i "s|$module_line|// A lone king can take only the rook|" "$work/src/model/dtz.rs"
build
id_tests="$("$bin" --version)"
tests_run="$(run tests)"
echo "first build:        $id1"
echo "test code edited:   $id_tests"
[[ "$id1" == "$id_tests" ]] || { echo "FAIL: editing test-only code changed the build id"; status=1; }
grep -q '^done: ' "$work/stderr.tests" && { echo "FAIL: the cache was not read after a test-only edit"; status=1; }
[[ "$first" == "$tests_run" ]] || { echo "FAIL: the output changed after a test-only edit"; status=1; }

# 2. Engine code: another id, everything computed again, the old files kept.
line='usize::from(MAX_LEVEL) + 1'
grep -q "$line" "$work/src/solve/retro.rs" || { echo "error: src/solve/retro.rs has no '$line'" >&2; exit 1; }
sed -i "0,/$line/s//usize::from(MAX_LEVEL) + 2 - 1/" "$work/src/solve/retro.rs"
build
id2="$("$bin" --version)"
second="$(run 2)"
echo "engine code edited: $id2 (src/solve/retro.rs: '$line' -> '+ 2 - 1')"
echo "its run's stderr:"
sed 's/^/  /' "$work/stderr.2"
[[ "$id1" != "$id2" ]] || { echo "FAIL: the build id did not change"; status=1; }
grep -q '^done: ' "$work/stderr.2" || { echo "FAIL: nothing was computed again"; status=1; }
grep -q '^note: .* of results of 1 other build(s) of fiftymove' "$work/stderr.2" ||
    { echo "FAIL: no note of what the first build holds"; status=1; }
[[ "$first" == "$second" ]] || { echo "FAIL: the output changed"; status=1; }
for f in $files1; do
    [[ -e "$work/cache/$f" ]] || { echo "FAIL: the first build's $f was removed"; status=1; }
done
"$bin" --cache-dir "$work/cache" cache clean --other-builds
for f in $files1; do
    [[ -e "$work/cache/$f" && "$f" == ./verified-md5.tsv ]] && continue
    [[ -e "$work/cache/$f" ]] && { echo "FAIL: cache clean --other-builds left $f"; status=1; }
done
[[ $status -eq 0 ]] && echo "OK: a test-only edit kept the cache; an engine edit recomputed '$claim' with the same output, kept the old build's files until cache clean removed them"
exit $status
