#!/usr/bin/env bash
# Analyzer benchmark: `parity report` (every analysis, every rule, every
# format) on synthetic traces of 1M and 10M events (`parity synth`), against
# scripts/bench/report_peer.py, which computes a subset of the same statistics
# (ops, kernels with launch latency, step phases) the way SQL-over-the-export
# scripts do. Targets (issue 6): a full report of 1M events in at most 3 s, of
# 10M events in at most 30 s and 4 GB peak RSS. Prints a Markdown table
# (median of ROUNDS; peak RSS from /usr/bin/time); copy it into
# docs/results.md with the machine and date.
#
#   scripts/bench/report.sh [ROUNDS] [SIZES...]   (defaults 3, 1000000 10000000)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
parity=${PARITY_BUILD_DIR:-$root/build}/analyzer/parity
peer="$root/scripts/bench/report_peer.py"
rounds=${1:-3}
shift || true
sizes=("${@:-1000000 10000000}")
read -r -a sizes <<<"${sizes[*]}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
echo

source "$root/scripts/bench/common.sh"

echo "| events | trace size | parity report (all 5 formats), s | peak RSS | peer (subset), s | peer peak RSS | peer / parity | target |"
echo "|---|---|---|---|---|---|---|---|"
for events in "${sizes[@]}"; do
  trace="$work/synth-$events.db"
  "$parity" synth --events "$events" -o "$trace" >/dev/null
  for ((r = 0; r < rounds; r++)); do
    rm -rf "$work/out"
    timed "$work/ours.$events" "$parity" report "$trace" --format text,md,html,json,junit -o "$work/out"
    timed "$work/peer.$events" /usr/bin/python3 "$peer" "$trace"
  done
  ours=$(cut -d' ' -f1 "$work/ours.$events" | median)
  theirs=$(cut -d' ' -f1 "$work/peer.$events" | median)
  ours_rss=$(cut -d' ' -f2 "$work/ours.$events" | sort -g | tail -1)
  theirs_rss=$(cut -d' ' -f2 "$work/peer.$events" | sort -g | tail -1)
  target=$(awk -v e="$events" 'BEGIN { print (e <= 1000000 ? "<= 3 s" : "<= 30 s, 4 GB") }')
  awk -v e="$events" -v size="$(stat -c %s "$trace")" -v o="$ours" -v t="$theirs" -v orss="$ours_rss" \
    -v trss="$theirs_rss" -v target="$target" 'BEGIN {
    printf "| %dM | %.0f MB | %.2f | %d MB | %.2f | %d MB | %.1fx | %s |\n", e / 1e6, size / 1e6, o, orss, t, trss, t / o, target }'
  rm -f "$trace"
done
