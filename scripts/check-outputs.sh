#!/usr/bin/env bash
# Behaviour check for refactors: runs a fixed quick set of commands with two
# binaries and diffs their JSON outputs (stdout and exit status of each).
#
#   scripts/check-outputs.sh OLD_BINARY NEW_BINARY [OUT_DIR]
#
# e.g. scripts/check-outputs.sh /tmp/fiftymove-base target/release/fiftymove
#
# Each binary runs with `--tables data/syzygy` (or $CHECK_TABLES) and its
# own fresh FIFTYMOVE_CACHE_DIR, so neither reads the other's cache. The
# outputs are kept in OUT_DIR (default: a new temporary directory) under
# old/ and new/, with the documents' "build" fields taken out (they name
# each binary's own build). Exit status 0 when every output is identical,
# 1 otherwise.
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 OLD_BINARY NEW_BINARY [OUT_DIR]" >&2
    exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
cd "$(dirname "$0")/.."
tables=${CHECK_TABLES:-data/syzygy}
out=${3:-$(mktemp -d /tmp/check-outputs.XXXXXX)}
mkdir -p "$out"

# name|arguments (split on spaces; FENs use '_' for spaces)
cases=(
    "probe-krk|probe 8/8/8/8/8/8/8/R3K2k_w_-_-_0_1"
    "probe-kqkr|probe 8/8/8/3k4/8/8/3r4/K2Q4_w_-_-_40_90"
    "probe-kbnk|probe 8/8/8/8/8/8/k7/B1N1K3_b_-_-_0_1"
    "line-krk|line 8/8/8/8/8/8/8/R3K2k_w_-_-_0_1"
    "line-kqkr|line 8/8/8/3k4/8/8/3r4/K2Q4_w_-_-_0_1"
    "scan|scan KRvK KQvKR"
    "solve-dtz|solve --metric dtz KQvKR"
    "solve-dtm|solve --metric dtm KQvKR"
    "solve-dtr|solve --metric dtr KQvKR"
    "claims|claims thompson-1986-kqkr kling-horwitz-1851-kbbkn"
)

run_set() {
    local bin=$1 dir=$2 cache
    mkdir -p "$dir"
    cache=$(mktemp -d /tmp/check-outputs-cache.XXXXXX)
    for case in "${cases[@]}"; do
        local name=${case%%|*} args=${case#*|} argv=() a status
        for a in $args; do argv+=("${a//_/ }"); done
        set +e
        FIFTYMOVE_CACHE_DIR=$cache "$bin" --json --quiet --tables "$tables" \
            "${argv[@]}" >"$dir/$name.json" 2>"$dir/$name.stderr"
        status=$?
        set -e
        echo "$status" >"$dir/$name.status"
    done
    rm -rf "$cache"
}

echo "== $old -> $out/old"
run_set "$old" "$out/old"
echo "== $new -> $out/new"
run_set "$new" "$out/new"
# stderr is kept for reading, not compared (it names cache files, which carry the build id).
# Documents name the build that made them ("build":"<16 hex digits>"), which differs by
# construction: it is compared as absent (a build before documents named theirs has none).
for dir in "$out/old" "$out/new"; do
    for f in "$dir"/*.json; do
        sed -E -i 's/"build":"[0-9a-f]{16}",?//g' "$f"
    done
done
if diff -r -x '*.stderr' "$out/old" "$out/new"; then
    echo "== identical: $(ls "$out/old" | grep -c '\.json$') outputs and exit statuses"
else
    echo "== outputs differ (see above; files in $out)" >&2
    exit 1
fi
