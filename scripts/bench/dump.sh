#!/usr/bin/env bash
# Tensor-dump benchmark: one fully dumped ResNet-50 training step (every
# forward output, gradient flowing back, parameter gradient, and parameters
# before and after the update) by `parity-train --dump` and by PyTorch's
# samples/torch/dump_reference.py, from the same weights and batch, one
# thread each. The dump's cost is the run's time with the dump minus the
# same run without it; throughput is the .npy bytes written over that cost.
# Also the cost of --detect-anomaly over 4 steps. Prints Markdown tables
# (median of ROUNDS; peak RSS from /usr/bin/time); copy them into
# docs/results.md with the machine and date.
#
#   scripts/bench/dump.sh [ROUNDS] [BATCH] [SIZE]   (defaults 3, 16, 64)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
train=${PARITY_BUILD_DIR:-$root/build}/trainer/parity-train
reference="$root/samples/torch/dump_reference.py"
rounds=${1:-3}
batch=${2:-16}
size=${3:-64}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
echo "PyTorch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)'); ResNet-50, batch $batch, ${size}x${size}, 1 thread"
echo

/usr/bin/python3 "$reference" --model resnet50 --num-classes 10 --seed 0 --save-init "$work/init.pth" \
  --make-batch "$batch,3,$size,$size" --save-images "$work/x.npy" --save-labels "$work/y.npy"
cat > "$work/config.yaml" <<YAML
net_name: resnet50
class_num: 10
stem: imagenet
lr_decay_mode: constant
lr_max: 0.001
epoch_size: 4
save_checkpoint: false
threads: 1
YAML

# The two producers, as commands /usr/bin/time can run.
ours=("$train" train --config "$work/config.yaml" --init-weights "$work/init.pth"
  --input-batch "$work/x.npy" --input-labels "$work/y.npy")
theirs=(/usr/bin/python3 "$reference" --model resnet50 --num-classes 10 --weights "$work/init.pth"
  --images "$work/x.npy" --labels "$work/y.npy" --steps 1 --lr 0.001 --threads 1)

source "$root/scripts/bench/common.sh"

for ((r = 0; r < rounds; r++)); do
  rm -rf "$work"/d*
  timed "$work/ours.plain" "${ours[@]}" --max-steps 1
  timed "$work/ours.dump" "${ours[@]}" --max-steps 1 --dump "$work/d_ours"
  timed "$work/theirs.plain" "${theirs[@]}"
  timed "$work/theirs.dump" "${theirs[@]}" --dump "$work/d_theirs"
  timed "$work/ours.4" "${ours[@]}" --max-steps 4
  timed "$work/ours.anomaly" "${ours[@]}" --max-steps 4 --detect-anomaly
done
bytes_ours=$(du -sb "$work/d_ours/tensors" | cut -f1)
bytes_theirs=$(du -sb "$work/d_theirs/tensors" | cut -f1)
records=$(($(wc -l <"$work/d_ours/manifest.jsonl") - 1))
sec() { cut -d' ' -f1 "$work/$1" | median; }
rss() { cut -d' ' -f2 "$work/$1" | sort -g | tail -1; }

echo "| one fully dumped step | records | .npy bytes | run without dump, s | with dump, s | dump cost, s | dump throughput | peak RSS with dump |"
echo "|---|---|---|---|---|---|---|---|"
row() {  # row NAME PREFIX BYTES
  local plain dump
  plain=$(sec "$2.plain")
  dump=$(sec "$2.dump")
  awk -v n="$1" -v r="$records" -v b="$3" -v p="$plain" -v d="$dump" -v m="$(rss "$2.dump")" 'BEGIN {
    printf "| %s | %d | %.0f MB | %.2f | %.2f | %.2f | %.2f GB/s | %d MB |\n", n, r, b / 1e6, p, d, d - p, b / 1e9 / (d - p), m }'
}
row "parity-train --dump" ours "$bytes_ours"
row "dump_reference.py (PyTorch hooks, np.save)" theirs "$bytes_theirs"
echo
plain=$(sec ours.4)
anomaly=$(sec ours.anomaly)
echo "| 4 training steps | seconds | overhead |"
echo "|---|---|---|"
echo "| parity-train | $plain | |"
awk -v p="$plain" -v a="$anomaly" 'BEGIN { printf "| parity-train --detect-anomaly | %.3f | %+.1f%% |\n", a, (a - p) / p * 100 }'
