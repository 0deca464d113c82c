#!/usr/bin/env bash
# Captures the response bodies in this folder from a real lila-tablebase
# server (scripts/lila-tablebase.sh start DIR, with ../shared/syzygy as its
# tables). The unit tests of src/tables/remote read the six bodies below;
# the replay tests of tests/remote.rs serve the bodies under replay/ from a
# listener on 127.0.0.1 to the real binary's --remote. Usage:
#   tests/remote/capture.sh [URL]        (default http://127.0.0.1:9000)
# $FIFTYMOVE_BIN names the fiftymove binary to run for replay/ (default:
# cargo build --release, then target/release/fiftymove).
set -euo pipefail
cd "$(dirname "$0")"
url=${1:-http://127.0.0.1:9000}
get() { curl -fsS "$url/standard?fen=$(echo "$2" | tr ' ' _)" >"$1"; echo "$1: $2"; }
# KQ v K, White wins in 11 plies; the best move's DTZ is rounded.
get kqk-win.json '8/8/8/8/8/2k5/8/KQ6 w - - 0 1'
# KBB v KN, White to move, a cursed win (after the generator's longest
# blessed loss, 8/8/8/1B6/8/8/8/1KBk2n1 b, 1...Ne2).
get kbbkn-cursed.json '8/8/8/1B6/8/8/4n3/1KBk4 w - - 0 1'
# Black is checkmated.
get checkmate.json 'k7/1Q6/1K6/8/8/8/8/8 b - - 0 1'
# The 517-move record: a 7-piece table the server does not have.
get unknown.json '8/1r6/8/6n1/5k2/1b6/3K3N/7Q b - - 0 1'
# KQ v K at clock 89: the server cannot tell a win from a cursed win.
get syzygy-win.json '8/8/8/8/8/2k5/8/KQ6 w - - 89 1'
# KNN v KNN, the 6-piece table, White to move.
get knnknn.json '7n/8/8/8/2N5/8/4N3/knK5 w - - 0 1'

# The replay set: every body that the commands of replay/commands.txt ask
# for. Each command runs with --remote against the server, with a fresh
# cache; the cache then names every position the client asked for (one file
# per request: FIFTYMOVE_CACHE_DIR/remote/<md5 of URL>/<md5 of FEN>.json),
# and each body is fetched again with curl, exactly as the server sends it,
# and must equal the one the client received and cached.
# replay/manifest.tsv maps each request (path and decoded query, as the
# client sends it: spaces in the FEN as underscores) to its body file.
root=$(cd ../.. && pwd)
bin=${FIFTYMOVE_BIN:-}
if [ -z "$bin" ]; then
    (cd "$root" && cargo build --release --quiet --bin fiftymove)
    bin=$root/target/release/fiftymove
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -f replay/*.json replay/manifest.tsv
n=0
while IFS=$'\t' read -r cmd fen; do
    case "$cmd" in ''|'#'*) continue ;; esac
    n=$((n + 1))
    cache=$work/cache$n
    FIFTYMOVE_CACHE_DIR=$cache "$bin" --json "$cmd" "--remote=$url" "$fen" \
        >"$work/out$n" 2>"$work/err$n" \
        || { cat "$work/err$n" >&2; echo "error: $cmd $fen failed" >&2; exit 1; }
    summary=$(grep '^remote: ' "$work/err$n" | tail -n 1)
    for f in "$cache"/remote/*/*.json; do
        [ "$(jq -r .url "$f")" = "$url" ] || { echo "error: $f is not from $url" >&2; exit 1; }
        qfen=$(jq -r .fen "$f" | tr ' ' _)
        name=$(printf '%s' "$qfen" | md5sum | cut -c1-16).json
        if [ ! -f "replay/$name" ]; then
            curl -fsS -G "$url/standard" --data-urlencode "fen=$qfen" >"replay/$name"
            printf '/standard?fen=%s\t%s\n' "$qfen" "$name" >>replay/manifest.tsv
        fi
        jq -j .body "$f" | cmp -s - "replay/$name" \
            || { echo "error: the server's body for $qfen differs from the client's" >&2; exit 1; }
    done
    echo "replay: $cmd $fen: ${summary#remote: }"
done <replay/commands.txt
sort -o replay/manifest.tsv replay/manifest.tsv
echo "replay: $(wc -l <replay/manifest.tsv) bodies in replay/"
