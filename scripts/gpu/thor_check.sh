#!/usr/bin/env bash
# THOR against SGD with momentum on the GPU, on the lent machine with
# gpu-stage/ carried (scripts/gpu/build.sh stages parity-train):
#
#   bash scripts/gpu/thor_check.sh [BATCH [PRECISION]]   default: batch 128, float16
#
# ResNet-50 at 224x224 on synthetic images, 157 traced steps of each, as
# scripts/bench/thor.sh timing does on the CPU (THOR refreshes its inverses
# at steps 0, 78 and 156, on the CUDA KroneckerEngine), then
# thor_timing.py's table: the median step of each, THOR's refresh steps and
# its ranges per step. Traces and logs go to $OUT (thor_sgd0.db, thor_thor0.db).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
stage=$root/gpu-stage
out=${OUT:-$root/out}
batch=${1:-128} precision=${2:-float16}
mkdir -p "$out/thor"
if [ ! -x "$stage/bin/parity-train" ]; then
  echo "thor_check.sh: no gpu-stage/bin/parity-train: run scripts/gpu/build.sh here, carry gpu-stage" >&2
  exit 2
fi
source "$root/scripts/gpu/device_env.sh"

common=(--set device_target=GPU --set precision="$precision" --set net_name=resnet50 --set class_num=1000
  --set dataset=synthetic --set synthetic_size=$((batch * 160)) --set train_image_size=224
  --set batch_size="$batch" --set save_checkpoint=false --set steps_per_epoch=117 --set epoch_size=8
  --set num_workers=4 --max-steps 157)
[ "$precision" = float16 ] && common+=(--set loss_scale=1024)
sgd=(--set optimizer=Momentum --set lr_decay_mode=warmup_cosine --set warmup_epochs=0.4 --set lr_max=0.1)
thor=(--set optimizer=Thor --set momentum=0.9 --set weight_decay=0.0005 --set lr_decay=4 --set lr_init=0.01
  --set lr_end_epoch=9 --set damping_init=0.03 --set damping_decay=0.5 --set frequency=78)
status=0
for name in sgd thor; do
  if [ $name = sgd ]; then args=("${sgd[@]}"); else args=("${thor[@]}"); fi
  rm -f "$out/thor/${name}0.db"
  if ! "$stage/bin/parity-train" train --config "$root/samples/configs/resnet18_fashion_mnist_demo.yaml" \
      "${common[@]}" "${args[@]}" --trace "$out/thor/${name}0.db" >"$out/thor_$name.log" 2>&1; then
    echo "thor_check.sh: the $name run failed:" >&2
    tail -n 20 "$out/thor_$name.log" >&2
    status=1
  fi
done
[ $status = 0 ] && python3 "$root/scripts/bench/thor_timing.py" "$out/thor" 1 | tee "$out/thor_timing.log"
(cd "$out/thor" && for db in *.db; do [ -e "$db" ] && mv "$db" "../thor_$db"; done) && rmdir "$out/thor"
exit $status
