#!/usr/bin/env bash
# Runs the real infercap-gui window under Xvfb through a scripted session
# (scripts/gui_session.txt: inputs changed, a re-solve with its sensitivity, a CSV export, the
# report in HTML, PDF (Chinese), XLSX and Markdown, a saved YAML) and writes a screenshot of every
# tab at 1280x720 (scale 1) and 1920x1080 (scale 2) into OUT_DIR, with the exported files.
# Usage: scripts/gui_screenshots.sh [BUILD_DIR] [OUT_DIR]   (defaults: build, BUILD_DIR/screenshots)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
out="${2:-$build/screenshots}"
gui="$build/gui/infercap-gui"
[ -x "$gui" ] || { echo "gui_screenshots: $gui not built (cmake --build $build --target infercap-gui)" >&2; exit 2; }
command -v xvfb-run > /dev/null || { echo "gui_screenshots: xvfb-run missing (apt install xvfb)" >&2; exit 2; }
mkdir -p "$out"
cd "$root"  # the session names repository paths (tests/data/gui/...)
for cfg in "1280x720 1 1280x720" "1920x1080 2 1920x1080@2"; do
  set -- $cfg
  size=$1 scale=$2 tag=$3
  session="$out/session-$tag.txt"
  sed -e "s|OUT|$out|g" -e "s|TAG|$tag|g" "$root/scripts/gui_session.txt" > "$session"
  xvfb-run -a -s "-screen 0 1920x1080x24" "$gui" --size "$size" --scale "$scale" --script "$session"
done
ls -1 "$out"/*.png "$out"/*-report*
