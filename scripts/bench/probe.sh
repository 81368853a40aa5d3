#!/usr/bin/env bash
# Cost of the step-by-step debugging aids of parity-train: a ResNet training
# step plain, with --probe-grads all (every gradient element's sign, every
# step) and with a statistics-only dump of every step (--dump
# --dump-stats-only: every tensor's min/max/mean/std/L2 and NaN/Inf counts).
# The three run in turn, ROUNDS times, on one fixed batch from PyTorch's
# initial weights; a step's time is the trainer's "epoch time" line (a fixed
# batch is one step an epoch), the first step of each run left out as
# warm-up. Prints a Markdown table of median step times and their ratios to
# the plain run; copy it into docs/results.md with the machine and date.
#
#   scripts/bench/probe.sh [ROUNDS] [STEPS] [MODEL] [BATCH] [SIZE] [THREADS]
#   (defaults 3, 8, resnet18, 16, 64, all cores)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${PARITY_BUILD_DIR:-$root/build}
train=$build/trainer/parity-train
reference="$root/samples/torch/dump_reference.py"
rounds=${1:-3}
steps=${2:-8}
model=${3:-resnet18}
batch=${4:-16}
size=${5:-64}
threads=${6:-$(nproc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
echo "$model, batch $batch, ${size}x${size}, $threads threads, $steps steps a run (first left out), $rounds rounds"
echo

/usr/bin/python3 "$reference" --model "$model" --num-classes 10 --seed 0 --save-init "$work/init.pth" \
  --make-batch "$batch,3,$size,$size" --save-images "$work/x.npy" --save-labels "$work/y.npy" 2>/dev/null
cat > "$work/config.yaml" <<YAML
net_name: $model
class_num: 10
stem: imagenet
lr_decay_mode: constant
lr_max: 0.001
epoch_size: $steps
save_checkpoint: false
threads: $threads
YAML
run=("$train" train --config "$work/config.yaml" --init-weights "$work/init.pth"
  --input-batch "$work/x.npy" --input-labels "$work/y.npy")

source "$root/scripts/bench/common.sh"

# step_times NAME ARGS...: one run; appends its step times but the first (ms) to $work/NAME.
step_times() {
  local name=$1; shift
  rm -rf "$work/out"
  "${run[@]}" "$@" 2>/dev/null | awk '/^epoch time:/ {print $3}' | tail -n +2 >>"$work/$name"
}
for ((r = 0; r < rounds; r++)); do
  step_times plain
  step_times probe --probe-grads all --probe-dir "$work/out"
  probe_bytes=$(stat -c %s "$work/out/signs.bin")
  step_times stats --dump "$work/out" --dump-stats-only
  records=$(($(wc -l <"$work/out/manifest.jsonl") - 1))
done

plain=$(median <"$work/plain")
echo "| $model training step | median ms | ratio to plain | written a step |"
echo "|---|---|---|---|"
row() {  # row NAME FILE WRITTEN
  awk -v n="$1" -v t="$(median <"$work/$2")" -v p="$plain" -v w="$3" 'BEGIN {
    printf "| %s | %.1f | %.3fx | %s |\n", n, t, t / p, w }'
}
row "plain" plain ""
row "--probe-grads all" probe "$((probe_bytes / steps / 1024)) KiB (signs of every gradient element)"
row "--dump --dump-stats-only, every step" stats "$((records / steps)) manifest records"
