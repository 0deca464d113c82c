#!/usr/bin/env bash
#
# check-readme-claims.sh: run the README's `claims` examples and compare what
# they print with what the README shows.
#
# Usage:
#   scripts/check-readme-claims.sh [--bin PATH]
#
# Every fenced block of README.md whose first line is `$ fiftymove claims ...`
# is a command and its expected output: the command is run (with `fiftymove`
# replaced by the release binary, through bash, so pipes work), and its
# stdout must equal the rest of the block. The first run from an empty cache
# is the README's main job (see docs/performance.md for its time); later runs
# read the cache and take seconds. Tables and cache are the user's defaults
# ($SYZYGY_PATH or ./data/syzygy; ~/.cache/fiftymove or $FIFTYMOVE_CACHE_DIR).
#
# Exit status: 0 when every block matches, 1 when one differs (a diff is
# printed), 2 for a usage error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$here/target/release/fiftymove"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --bin) bin="$2"; shift 2 ;;
        -h|--help) sed -n '3,20p' "$0"; exit 0 ;;
        *) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
if [[ ! -x "$bin" ]]; then
    (cd "$here" && cargo build --release --quiet)
fi
cd "$here"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Split the README's `$ fiftymove claims` blocks into command and output files.
python3 - "$work" <<'PY'
import sys, pathlib
work = pathlib.Path(sys.argv[1])
lines = pathlib.Path("README.md").read_text().split("\n")
n, i = 0, 0
while i < len(lines):
    if lines[i] == "```" and i + 1 < len(lines) and lines[i + 1].startswith("$ fiftymove claims"):
        j = i + 2
        while lines[j] != "```":
            j += 1
        n += 1
        (work / f"{n}.cmd").write_text(lines[i + 1][2:] + "\n")
        (work / f"{n}.want").write_text("\n".join(lines[i + 2:j]) + "\n")
        i = j
    i += 1
if n == 0:
    sys.exit("error: README.md has no `$ fiftymove claims` block")
PY

status=0
for cmd in "$work"/*.cmd; do
    k="${cmd%.cmd}"
    line="$(cat "$cmd")"
    echo "check: $line" >&2
    run="${line/#fiftymove/\"$bin\"}"
    rc=0
    bash -c "set -o pipefail; $run" > "$k.got" 2> "$k.err" || rc=$?
    if [[ $rc -ne 0 ]]; then
        echo "FAILED (exit $rc): $line" >&2
        tail -5 "$k.err" >&2
        status=1
    elif diff -u "$k.want" "$k.got" > "$k.diff"; then
        echo "ok:    $line" >&2
    else
        echo "DIFFERS: $line" >&2
        cat "$k.diff"
        status=1
    fi
done
exit "$status"
