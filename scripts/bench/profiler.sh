#!/usr/bin/env bash
# Profiler benchmark: our recorder against PyTorch's profiler, same machine,
# same run. Prints a Markdown table; copy it into docs/results.md with the
# machine and date.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${PARITY_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" --peer >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
echo
ours=$("$build_dir/bench/profiler_bench" "$work")
echo "$ours"

peer=$(/usr/bin/python3 "$root/scripts/bench/torch_profiler_peer.py")
torch_ns=$(awk '/record_function_ns/ {print $2}' <<<"$peer")
torch_bytes=$(awk '/json_bytes_per_event/ {print $2}' <<<"$peer")
our_ns=$(awk -F'|' '/range begin\+end, median/ {gsub(/[^0-9.]/, "", $3); print $3}' <<<"$ours")
our_bytes=$(awk -F'|' '/bytes per range row/ {gsub(/[^0-9.]/, "", $3); print $3}' <<<"$ours")

echo
echo "| against PyTorch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)') profiler | Parity | PyTorch | ratio |"
echo "|---|---|---|---|"
printf "| cost of one recorded range (ns) | %s | %s | %.0fx cheaper |\n" "$our_ns" "$torch_ns" \
  "$(awk -v a="$torch_ns" -v b="$our_ns" 'BEGIN {print a / b}')"
printf "| bytes per range on disk | %s | %s (JSON) | %.1fx smaller |\n" "$our_bytes" "$torch_bytes" \
  "$(awk -v a="$torch_bytes" -v b="$our_bytes" 'BEGIN {print a / b}')"
