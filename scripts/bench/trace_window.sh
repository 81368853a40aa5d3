#!/usr/bin/env bash
# What tracing costs a CPU training run: images/s of ResNet-50 (32 px
# synthetic images, batch 4, one thread, 40 steps) untraced, traced with a
# capture window that closes after step 1 (--trace-steps 0-1), and traced
# throughout, alternating in each round. Prints a Markdown table and the
# medians; copy them into docs/results.md with the machine and date.
#
#   scripts/bench/trace_window.sh [ROUNDS]   (default 4)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${PARITY_BUILD_DIR:-$root/build}
rounds=${1:-4}
train=$build_dir/trainer/parity-train
[ -x "$train" ] || { echo "trace_window.sh: no $train: build first (scripts/setup.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$root/scripts/bench/common.sh"

cat >"$work/run.yaml" <<'YAML'
net_name: resnet50
class_num: 10
dataset: synthetic
synthetic_size: 160
train_image_size: 32
eval_image_size: 32
batch_size: 4
epoch_size: 1
lr_decay_mode: constant
lr_max: 0.01
threads: 1
num_workers: 1
save_checkpoint: false
YAML

images_per_second() { grep -o '[0-9.]* images/s' | head -1 | cut -d' ' -f1; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
echo
echo "| round | untraced | window 0-1 | fully traced |"
echo "|---:|---:|---:|---:|"
for round in $(seq "$rounds"); do
  row="| $round"
  for mode in none window full; do
    rm -f "$work/t.db"
    case $mode in
      none) args=() ;;
      window) args=(--trace "$work/t.db" --trace-steps 0-1) ;;
      full) args=(--trace "$work/t.db") ;;
    esac
    rate=$("$train" train --config "$work/run.yaml" "${args[@]}" 2>/dev/null | images_per_second)
    echo "$rate" >>"$work/$mode"
    row="$row | $rate"
  done
  echo "$row |"
done
echo
echo "medians (images/s): untraced $(median <"$work/none"), window $(median <"$work/window"), traced $(median <"$work/full")"
