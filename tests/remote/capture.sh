#!/usr/bin/env bash
# Captures the response bodies in this folder from a real lila-tablebase
# server (scripts/lila-tablebase.sh start DIR, with ../shared/syzygy as its
# tables). The unit tests of src/tables/remote read them. Usage:
#   tests/remote/capture.sh [URL]        (default http://127.0.0.1:9000)
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
