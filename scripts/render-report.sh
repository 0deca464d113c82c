#!/usr/bin/env bash
# Renders a fiftymove report in headless Chromium, takes a screenshot, and
# checks that the page rendered: the screenshot exists, is a PNG of the
# requested size, and is not blank (more than a few distinct colours).
#
# Usage:
#   scripts/render-report.sh REPORT.html [SCREENSHOT.png] [WIDTHxHEIGHT]
#   scripts/render-report.sh --make DIR MATERIAL...   # run `fiftymove report` first
#
# --make runs `fiftymove report --out DIR MATERIAL...` (pass --tables etc.
# through FIFTYMOVE_ARGS, e.g. FIFTYMOVE_ARGS="--tables ../shared/syzygy";
# FIFTYMOVE_BIN picks the binary, default target/release/fiftymove).
#
# Chromium comes from the system packages (as root):
#   apt-get update && apt-get install -y chromium
# The page must be self-contained: the script also fails if report.html
# mentions a remote URL, and Chromium runs with networking features off.
set -euo pipefail

die() { echo "render-report: $*" >&2; exit 1; }

if [[ "${1:-}" == "--make" ]]; then
    shift
    [[ $# -ge 2 ]] || die "usage: $0 --make DIR MATERIAL..."
    dir=$1; shift
    bin=${FIFTYMOVE_BIN:-target/release/fiftymove}
    [[ -x "$bin" ]] || die "no binary at $bin (cargo build --release, or set FIFTYMOVE_BIN)"
    # shellcheck disable=SC2086
    "$bin" ${FIFTYMOVE_ARGS:-} report --out "$dir" "$@"
    set -- "$dir/report.html" "$dir/report.png"
fi

html=${1:?usage: $0 REPORT.html [SCREENSHOT.png] [WIDTHxHEIGHT]}
png=${2:-${html%.html}.png}
size=${3:-1280x4000}
[[ -f "$html" ]] || die "$html does not exist"
[[ "$size" =~ ^([0-9]+)x([0-9]+)$ ]] || die "size must be WIDTHxHEIGHT, got $size"
width=${BASH_REMATCH[1]}
height=${BASH_REMATCH[2]}

if grep -Eq 'https?://|src="(https?:)?//' "$html"; then
    die "$html refers to a remote resource; the report must be self-contained"
fi

chrome=""
for c in chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null 2>&1; then chrome=$c; break; fi
done
[[ -n "$chrome" ]] || die "no Chromium found; as root: apt-get update && apt-get install -y chromium"

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
rm -f "$png"
abs_html=$(cd "$(dirname "$html")" && pwd)/$(basename "$html")
abs_png=$(cd "$(dirname "$png")" && pwd)/$(basename "$png")

timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --hide-scrollbars --user-data-dir="$profile" \
    --screenshot="$abs_png" --window-size="$width,$height" \
    "file://$abs_html" >"$profile/chromium.log" 2>&1 \
    || { cat "$profile/chromium.log" >&2; die "Chromium failed"; }

[[ -s "$png" ]] || { cat "$profile/chromium.log" >&2; die "no screenshot written"; }

# Check the PNG: signature, size, and that it is not a blank page.
python3 - "$png" "$width" "$height" <<'EOF'
import struct, sys, zlib
path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit(f"render-report: {path} is not a PNG")
w, h, depth, ctype = struct.unpack(">IIBB", data[16:26])
if (w, h) != (want_w, want_h):
    sys.exit(f"render-report: screenshot is {w}x{h}, expected {want_w}x{want_h}")
# Decode the image data to count distinct colours in a sample of rows.
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
bpp = {2: 3, 6: 4}.get(ctype)
if depth != 8 or bpp is None:
    sys.exit(f"render-report: unexpected PNG format (depth {depth}, colour type {ctype})")
stride = w * bpp
prev = bytearray(stride)
colours = set()
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 7 == 0:
        for x in range(0, w, 3):
            colours.add(bytes(line[x * bpp:x * bpp + 3]))
if len(colours) < 16:
    sys.exit(f"render-report: the page looks blank ({len(colours)} colours)")
print(f"render-report: {path}: {w}x{h}, {len(colours)} colours sampled: rendered")
EOF
