#!/usr/bin/env bash
# THOR against SGD with momentum on ResNet-18 / Fashion-MNIST (32x32, batch
# 128, the demo's recipe: no augmentation, no label smoothing), in two parts:
#
#   scripts/bench/thor.sh accuracy OUT [EPOCHS]
#     The learning-rate grid of each optimizer (SGD: warmup + cosine,
#     lr_max 0.05 / 0.1 / 0.2; THOR: model_zoo's get_thor_lr, lr_init
#     0.005 / 0.01 / 0.02), EPOCHS passes over the training set (default 2),
#     the test top-1 after every quarter pass (steps_per_epoch 117). Logs go to
#     OUT; thor_curves.py then prints the curves and steps to each target.
#   scripts/bench/thor.sh timing OUT [ROUNDS]
#     Traced runs of 157 steps (THOR refreshes its inverses at steps 0, 78
#     and 156), SGD and THOR in turn, ROUNDS times (default 2): the median
#     step of each, THOR's refresh steps against its others, and its ranges
#     (thor_collect, thor_factors, thor_inverse, thor_precondition) per step.
#
# The two are separate so that the accuracy runs may share the machine (steps
# to a target do not depend on the load) while the timing runs need it quiet.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${PARITY_BUILD_DIR:-$root/build}
train=$build/trainer/parity-train
base=$root/samples/configs/resnet18_fashion_mnist_demo.yaml
mode=${1:?usage: thor.sh accuracy|timing OUT [EPOCHS|ROUNDS]}
out=${2:?usage: thor.sh accuracy|timing OUT [EPOCHS|ROUNDS]}
mkdir -p "$out"

# One quarter of a pass is an "epoch" of the schedules (model_zoo's THOR
# refreshes 6 times a pass: frequency 78 of 468 steps).
common=(--set save_checkpoint=false --set steps_per_epoch=117)
sgd=(--set optimizer=Momentum --set lr_decay_mode=warmup_cosine --set warmup_epochs=0.4)
thor=(--set optimizer=Thor --set momentum=0.9 --set weight_decay=0.0005 --set lr_decay=4
  --set damping_init=0.03 --set damping_decay=0.5 --set frequency=78)

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"

if [ "$mode" = accuracy ]; then
  quarters=$((4 * ${3:-2}))
  for lr in 0.05 0.1 0.2; do
    "$train" train --config "$base" "${common[@]}" "${sgd[@]}" --set epoch_size=$quarters \
      --set lr_max=$lr --eval >"$out/sgd_lr$lr.log" 2>&1
  done
  for lr in 0.005 0.01 0.02; do
    "$train" train --config "$base" "${common[@]}" "${thor[@]}" --set epoch_size=$quarters \
      --set lr_end_epoch=$((quarters + 1)) --set lr_init=$lr --eval >"$out/thor_lr$lr.log" 2>&1
  done
  /usr/bin/python3 "$root/scripts/bench/thor_curves.py" "$out"
elif [ "$mode" = timing ]; then
  rounds=${3:-2}
  for ((r = 0; r < rounds; r++)); do
    for name in sgd thor; do
      rm -f "$out/$name$r.db"
      if [ $name = sgd ]; then args=("${sgd[@]}"); else args=("${thor[@]}" --set lr_init=0.01 --set lr_end_epoch=9); fi
      "$train" train --config "$base" "${common[@]}" "${args[@]}" --set epoch_size=8 --max-steps 157 \
        --trace "$out/$name$r.db" >/dev/null 2>&1
    done
  done
  /usr/bin/python3 "$root/scripts/bench/thor_timing.py" "$out" "$rounds"
else
  echo "thor.sh: unknown mode '$mode' (accuracy or timing)" >&2
  exit 2
fi
