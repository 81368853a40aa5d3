#!/usr/bin/env bash
# Import benchmark: `parity import` of Kineto-layout PyTorch profiler traces
# (scripts/bench/kineto_trace.py) of SIZES megabytes, against loading the
# same file the way HTA-style Python tools do (json.load, then columns of the
# events), and `parity report` on the imported trace against the same report
# on a native trace of about as many events (`parity synth`). Targets (issue
# 30): at least 100 MB/s of JSON on 2 cores, at most 1 GB peak RSS for a 1 GB
# trace, and the report on the imported trace within 2x of the native one.
# Prints Markdown tables (median of ROUNDS; peak RSS from /usr/bin/time);
# copy them into docs/results.md with the machine and date.
#
#   scripts/bench/import.sh [ROUNDS] [SIZES_MB...]   (defaults 3, 100 1000)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
parity=${PARITY_BUILD_DIR:-$root/build}/analyzer/parity
rounds=${1:-3}
shift || true
sizes=("${@:-100 1000}")
read -r -a sizes <<<"${sizes[*]}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
echo

source "$root/scripts/bench/common.sh"

peer='import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
columns = {key: [event.get(key) for event in events] for key in ("ph", "cat", "name", "pid", "tid", "ts", "dur")}
print(len(events))'

echo "| trace | events | parity import, s | MB/s | peak RSS | Python json.load peer, s | peer peak RSS | peer / parity | target |"
echo "|---|---|---|---|---|---|---|---|---|"
rows=()
for size in "${sizes[@]}"; do
  trace="$work/kineto-$size.json"
  /usr/bin/python3 "$root/scripts/bench/kineto_trace.py" "$trace" --megabytes "$size"
  cat "$trace" >/dev/null  # into the page cache
  events=$(grep -c '"ph"' "$trace")
  for ((r = 0; r < rounds; r++)); do
    rm -f "$work/imported.db"
    timed "$work/ours.$size" "$parity" import "$trace" -o "$work/imported.db"
    timed "$work/peer.$size" /usr/bin/python3 -c "$peer" "$trace"
  done
  ours=$(cut -d' ' -f1 "$work/ours.$size" | median)
  theirs=$(cut -d' ' -f1 "$work/peer.$size" | median)
  ours_rss=$(cut -d' ' -f2 "$work/ours.$size" | sort -g | tail -1)
  theirs_rss=$(cut -d' ' -f2 "$work/peer.$size" | sort -g | tail -1)
  awk -v size="$(stat -c %s "$trace")" -v e="$events" -v o="$ours" -v t="$theirs" -v orss="$ours_rss" \
    -v trss="$theirs_rss" 'BEGIN {
    printf "| %.0f MB | %.2fM | %.2f | %.0f | %d MB | %.2f | %d MB | %.1fx | >= 100 MB/s, <= 1 GB |\n",
      size / 1e6, e / 1e6, o, size / 1e6 / o, orss, t, trss, t / o }'
  # The report on what was imported, against a native trace of as many rows.
  imported_rows=$(sqlite3 "$work/imported.db" "SELECT (SELECT count(*) FROM range) + (SELECT count(*) FROM gpu_activity) + (SELECT count(*) FROM api_call)")
  "$parity" synth --events "$imported_rows" -o "$work/native.db" >/dev/null
  for ((r = 0; r < rounds; r++)); do
    timed "$work/report_imported.$size" "$parity" report "$work/imported.db" --format json -o "$work/r1"
    timed "$work/report_native.$size" "$parity" report "$work/native.db" --format json -o "$work/r2"
  done
  rows+=("$(awk -v n="$imported_rows" -v i="$(cut -d' ' -f1 "$work/report_imported.$size" | median)" \
    -v nat="$(cut -d' ' -f1 "$work/report_native.$size" | median)" 'BEGIN {
    printf "| %.2fM | %.2f | %.2f | %.2fx | <= 2x |", n / 1e6, i, nat, i / nat }')")
  rm -f "$trace" "$work/imported.db" "$work/native.db"
done
echo
echo "| rows | parity report on the imported trace, s | on a native trace (parity synth), s | ratio | target |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "(median of $rounds runs, warm page cache; parity import: the whole process, from JSON to a"
echo " finished trace database; peer: Python's json.load and the event columns, interpreter start included)"
