#!/usr/bin/env bash
# Renders the chart of `karpenter simulate --svg` to PNG with rsvg-convert
# (Debian package librsvg2-bin) and checks the PNG: proof that the SVG is
# well-formed and renderable. Usage: scripts/render_svg.sh KARPENTER OUT_DIR
set -euo pipefail
karpenter=$1
out=$2
mkdir -p "$out"
"$karpenter" simulate --until 1h --no-progress --svg "$out/simulate.svg" \
  -o json >/dev/null
rsvg-convert "$out/simulate.svg" -o "$out/simulate.png"
# A PNG starts with \x89PNG; a blank render of our chart would be tiny.
head -c 4 "$out/simulate.png" | od -An -c | grep -q 'P   N   G'
size=$(stat -c %s "$out/simulate.png")
[ "$size" -gt 5000 ] || { echo "PNG too small: $size bytes" >&2; exit 1; }
echo "rendered $out/simulate.png ($size bytes)"
