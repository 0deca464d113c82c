#!/usr/bin/env bash
# A local lila-tablebase server (the Lichess tablebase service) for the
# remote-source tests, built from YOUR OWN checkout of
# https://github.com/lichess-org/lila-tablebase (AGPL-3.0; none of its code
# is in fiftymove).
#
#   scripts/lila-tablebase.sh start DIR [TABLES] [PORT]
#       builds DIR (cargo build --release, once; installs Debian's
#       libclang-dev clang cmake first if missing, which needs root), starts
#       it on 127.0.0.1:PORT (default 9000) with TABLES (default
#       ../shared/syzygy, else data/syzygy) and waits until it answers.
#       Prints the URL.
#   scripts/lila-tablebase.sh stop DIR
#       stops the server started from DIR (by its pid).
#   scripts/lila-tablebase.sh status DIR
#
# Then: fiftymove probe --remote=http://127.0.0.1:9000 FEN, or the on-demand
# tests: FIFTYMOVE_LILA_URL=http://127.0.0.1:9000 cargo test --release \
#   --test remote -- --ignored
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: $0 start|stop|status DIR [TABLES] [PORT]" >&2; exit 2; }
[ $# -ge 2 ] || usage
action=$1
src=$(cd "$2" 2>/dev/null && pwd) || { echo "error: $2 is not a directory" >&2; exit 2; }
pidfile="$src/target/lila-tablebase.pid"
running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

case "$action" in
start)
    tables=${3:-}
    if [ -z "$tables" ]; then
        if [ -d "$here/../shared/syzygy" ]; then tables="$here/../shared/syzygy"; else tables="$here/data/syzygy"; fi
    fi
    port=${4:-9000}
    [ -f "$src/Cargo.toml" ] && grep -q 'name = "lila-tablebase"' "$src/Cargo.toml" \
        || { echo "error: $src is not a lila-tablebase checkout" >&2; exit 2; }
    [ -d "$tables" ] || { echo "error: table directory $tables does not exist" >&2; exit 2; }
    if running; then
        echo "lila-tablebase already running (pid $(cat "$pidfile")); stop it first" >&2
        exit 1
    fi
    bin="$src/target/release/lila-tablebase"
    if [ ! -x "$bin" ]; then
        if ! dpkg -s libclang-dev clang cmake >/dev/null 2>&1; then
            echo "installing Debian's libclang-dev clang cmake (the build needs them)" >&2
            apt-get update -qq && apt-get install -y -qq --no-install-recommends libclang-dev clang cmake >/dev/null
        fi
        echo "building $src (about 12 minutes on 2 cores)" >&2
        (cd "$src" && cargo build --release --quiet)
    fi
    log="$src/target/lila-tablebase.log"
    "$bin" --standard "$tables" --bind "127.0.0.1:$port" >"$log" 2>&1 &
    echo $! >"$pidfile"
    url="http://127.0.0.1:$port"
    for _ in $(seq 1 100); do
        if curl -fsS "$url/standard?fen=8/8/8/8/8/2k5/8/KQ6_w_-_-_0_1" >/dev/null 2>&1; then
            echo "$url"
            exit 0
        fi
        if ! running; then
            echo "error: lila-tablebase exited; see $log" >&2
            rm -f "$pidfile"
            exit 1
        fi
        sleep 0.2
    done
    echo "error: lila-tablebase did not answer on $url within 20 s; see $log" >&2
    kill "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile"
    exit 1
    ;;
stop)
    if running; then
        pid=$(cat "$pidfile")
        kill "$pid"
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        echo "stopped lila-tablebase (pid $pid)" >&2
    fi
    rm -f "$pidfile"
    ;;
status)
    if running; then echo "running (pid $(cat "$pidfile"))"; else echo "not running"; exit 1; fi
    ;;
*) usage ;;
esac
