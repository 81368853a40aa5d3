#!/usr/bin/env bash
# Weight-diff benchmark: `parity diff` on two ResNet-50 checkpoints (about
# 100 MB each) in three format pairs, against the same comparison in
# Debian's PyTorch (scripts/bench/torch_diff_peer.py), alternating in one run.
# Files are read once first, so every run reads from the page cache. Prints a
# Markdown table (median of ROUNDS runs; peak RSS from /usr/bin/time); copy it
# into docs/results.md with the machine and date.
#
#   scripts/bench/diff.sh [ROUNDS]   (default 5)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
parity=${PARITY_BUILD_DIR:-$root/build}/analyzer/parity
rounds=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
echo "PyTorch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)')"
echo

# Two ResNet-50s (different seeds: every element differs), as PyTorch files,
# safetensors and a MindSpore model_zoo checkpoint.
checkpoints="$root/tests/analyzer/weights/resnet_checkpoints.py"
/usr/bin/python3 "$checkpoints" "$work" --seed 0 --name a.safetensors >/dev/null
/usr/bin/python3 "$checkpoints" "$work" --seed 1 --name b.safetensors >/dev/null
/usr/bin/python3 - "$work" "$root/tests/support" <<'PY'
import sys, torch
sys.path.insert(0, sys.argv[2])
import torch_safetensors
for name in ("a", "b"):
    torch.save(torch_safetensors.read(f"{sys.argv[1]}/{name}.safetensors"), f"{sys.argv[1]}/{name}.pth")
PY
"$parity" convert "$work/a.pth" "$work/a.ckpt" --map torch-to-modelzoo >/dev/null
cat "$work"/* >/dev/null  # into the page cache

source "$root/scripts/bench/common.sh"
# Runs a command ROUNDS times; prints "median_seconds peak_rss_mb". The exit
# code is not checked: parity diff exits 1 because the two checkpoints differ.
measure() {
  local times=() rss=()
  for ((r = 0; r < rounds; r++)); do
    local start end
    start=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$work/rss" "$@" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    times+=("$(awk -v ns=$((end - start)) 'BEGIN {printf "%.3f", ns / 1e9}')")
    rss+=("$(tail -1 "$work/rss")")
  done
  echo "$(printf '%s\n' "${times[@]}" | median) $(($(printf '%s\n' "${rss[@]}" | sort -g | tail -1) / 1024))"
}
peer_seconds() {
  local times=()
  for ((r = 0; r < rounds; r++)); do
    times+=("$(/usr/bin/python3 "$root/scripts/bench/torch_diff_peer.py" "$@" "$(nproc)" | awk '$1 == "seconds" {print $2}')")
  done
  printf '%s\n' "${times[@]}" | median
}

bytes=$(( $(stat -c %s "$work/a.safetensors") + $(stat -c %s "$work/b.safetensors") ))
echo "| diff of two ResNet-50 checkpoints | parity diff (s) | GB/s | peak RSS (MB) | PyTorch peer (s) | speed-up |"
echo "|---|---|---|---|---|---|"
peer=$(peer_seconds "$work/a.pth" "$work/b.pth")
for case in "a.pth b.pth" "a.safetensors b.safetensors" "a.ckpt b.pth"; do
  read -r a b <<<"$case"
  read -r seconds rss < <(measure "$parity" diff "$work/$a" "$work/$b" --format json -o /dev/null)
  printf "| %s vs %s | %s | %.2f | %s | %s | %.1fx |\n" "$a" "$b" "$seconds" \
    "$(awk -v b="$bytes" -v s="$seconds" 'BEGIN {print b / 1e9 / s}')" "$rss" "$peer" \
    "$(awk -v p="$peer" -v s="$seconds" 'BEGIN {print p / s}')"
done
echo
echo "(median of $rounds runs, warm page cache; parity diff: whole process, pairing included;"
echo " PyTorch peer: torch.load of both .pth files and the same metrics per pair in float64, interpreter start excluded)"
