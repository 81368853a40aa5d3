#!/usr/bin/env bash
# Viewer benchmark (issue: parity-view): build/bench/view_bench on a synthetic
# trace (`parity synth`, default 10M events) in the real window, offscreen:
# first paint after open, frame times while zooming in across six orders of
# magnitude and back (against the same frames drawn without folding), and
# resident bytes per event. Targets: first paint <= 1 s (warm), p95 frame
# <= 16.7 ms, <= 32 bytes per event. Prints one Markdown table per round;
# copy them into docs/results.md with the machine and date.
#
#   scripts/bench/view.sh [ROUNDS] [EVENTS]   (defaults 3, 10000000)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${PARITY_BUILD_DIR:-$root/build}
rounds=${1:-3}
events=${2:-10000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
"$build/analyzer/parity" synth --events "$events" -o "$work/synth.db" >/dev/null
for ((r = 1; r <= rounds; r++)); do
  echo
  echo "round $r"
  QT_QPA_PLATFORM=offscreen "$build/bench/view_bench" "$work/synth.db" 2>/dev/null
done
