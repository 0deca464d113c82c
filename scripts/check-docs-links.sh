#!/usr/bin/env bash
#
# check-docs-links.sh: check that every relative Markdown link of README.md,
# CHANGELOG.md and docs/*.md (or of the FILEs given) points to a file of the
# repository, and that its #anchor, if any, is a heading of that file (as
# GitHub makes anchors: lower case, punctuation dropped, spaces to hyphens).
# Links to http(s) and mailto addresses are not followed. Code spans and
# fenced blocks are skipped.
#
# Usage:
#   scripts/check-docs-links.sh [FILE...]
#
# Exit status: 0 when every link resolves, 1 when one does not (each is
# printed as FILE:LINE: LINK: why).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python3 - "$@" <<'PY'
import pathlib, re, sys

def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")

def anchors(path):
    seen, out, fence = {}, set(), False
    for line in path.read_text().split("\n"):
        if line.startswith("```"):
            fence = not fence
        if fence or not re.match(r"#{1,6} ", line):
            continue
        base = slug(line.lstrip("#"))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out

files = [pathlib.Path(f) for f in sys.argv[1:]] or (
    [pathlib.Path("README.md"), pathlib.Path("CHANGELOG.md")] + sorted(pathlib.Path("docs").glob("*.md")))
bad = 0
for f in files:
    fence = False
    for no, line in enumerate(f.read_text().split("\n"), 1):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        text = re.sub(r"`[^`]*`", "", line)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"(https?|mailto):", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (f.parent / path).resolve() if path else f.resolve()
            why = None
            if not dest.exists():
                why = "no such file"
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                why = "no such heading"
            if why:
                print(f"{f}:{no}: {target}: {why}")
                bad += 1
sys.exit(1 if bad else 0)
PY
