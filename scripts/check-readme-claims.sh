#!/usr/bin/env bash
#
# check-readme-claims.sh: run the `claims` examples of the README and of the
# docs, and compare what they print with what the documents show.
#
# Usage:
#   scripts/check-readme-claims.sh [--bin PATH] [--list] [FILE...]
#
# Every fenced block of README.md and docs/*.md (or of the FILEs given)
# whose first line is `$ fiftymove claims ...` is a command and its expected
# output: the command is run (with `fiftymove` replaced by the release
# binary, through bash, so pipes work), and its stdout must equal the rest of
# the block. --list prints each block's file, line and command, and runs
# nothing. The first run from an empty cache is the README's main job (see
# docs/performance.md for its time), and each `claims --deep` block of
# docs/six-pieces.md starts a 6-piece solve (DTZ: about 20 minutes and
# 4.5 GB; DTM: an hour and 16.4 GB) unless it is cached; later runs read the cache and take seconds. Tables
# and cache are the user's defaults ($SYZYGY_PATH or ./data/syzygy;
# ~/.cache/fiftymove or $FIFTYMOVE_CACHE_DIR).
#
# Exit status: 0 when every block matches, 1 when one differs (a diff is
# printed), 2 for a usage error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$here/target/release/fiftymove"
list=0
files=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --bin)
            [[ $# -ge 2 ]] || { echo "error: --bin needs a PATH" >&2; exit 2; }
            bin="$2"; shift 2 ;;
        --list) list=1; shift ;;
        -h|--help) sed -n '3,22p' "$0"; exit 0 ;;
        -*) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
        *)
            [[ -f "$1" ]] || { echo "error: no such file: $1" >&2; exit 2; }
            files+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"); shift ;;
    esac
done
if [[ $list -eq 0 && ! -x "$bin" ]]; then
    (cd "$here" && cargo build --release --quiet)
fi
cd "$here"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Split the documents' `$ fiftymove claims` blocks into command, expected
# output and origin (file:line) files, numbered in document order.
python3 - "$work" "${files[@]}" <<'PY'
import sys, pathlib
work = pathlib.Path(sys.argv[1])
docs = [pathlib.Path(f) for f in sys.argv[2:]]
if not docs:
    docs = [pathlib.Path("README.md")] + sorted(pathlib.Path("docs").glob("*.md"))
n = 0
for doc in docs:
    lines = doc.read_text().split("\n")
    i = 0
    while i < len(lines):
        if lines[i] == "```" and i + 1 < len(lines) and lines[i + 1].startswith("$ fiftymove claims"):
            j = i + 2
            while j < len(lines) and lines[j] != "```":
                j += 1
            if j == len(lines):
                sys.exit(f"error: {doc}:{i + 1}: the block is not closed")
            n += 1
            (work / f"{n:03}.cmd").write_text(lines[i + 1][2:] + "\n")
            (work / f"{n:03}.want").write_text("\n".join(lines[i + 2:j]) + "\n")
            (work / f"{n:03}.at").write_text(f"{doc}:{i + 2}\n")
            i = j
        i += 1
if n == 0:
    sys.exit("error: no `$ fiftymove claims` block in " + ", ".join(map(str, docs)))
PY

if [[ $list -eq 1 ]]; then
    for cmd in "$work"/*.cmd; do
        printf '%s\t%s\n' "$(cat "${cmd%.cmd}.at")" "$(cat "$cmd")"
    done
    exit 0
fi

status=0
for cmd in "$work"/*.cmd; do
    k="${cmd%.cmd}"
    line="$(cat "$cmd")"
    at="$(cat "$k.at")"
    echo "check: $at: $line" >&2
    run="${line/#fiftymove/\"$bin\"}"
    rc=0
    bash -c "set -o pipefail; $run" > "$k.got" 2> "$k.err" || rc=$?
    if [[ $rc -ne 0 ]]; then
        echo "FAILED (exit $rc): $at: $line" >&2
        tail -5 "$k.err" >&2
        status=1
    elif diff -u "$k.want" "$k.got" > "$k.diff"; then
        echo "ok:    $at: $line" >&2
    else
        echo "DIFFERS: $at: $line" >&2
        cat "$k.diff"
        status=1
    fi
done
exit "$status"
