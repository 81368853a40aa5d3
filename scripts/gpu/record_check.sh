#!/usr/bin/env bash
# `parity record` on the lent GPU, with gpu-stage/ carried (scripts/gpu/build.sh
# with the targets parity and parity_cuda_inject):
#
#   bash scripts/gpu/record_check.sh [ROUNDS [BATCH [STEPS]]]   default: 2 rounds, batch 256, 30 steps
#
# Records a PyTorch training script of the machine's own torch
# (torch_resnet_peer.py: ResNet-50, bfloat16 autocast, NVTX ranges per step)
# and runs it unrecorded, alternating, and prints the overhead on the median
# step; then checks the recording with `parity info` and `parity report`, a
# capture limited to the NVTX range "train_step", and that the program's
# exit status comes back. Logs and the traces (gzipped) go to $OUT.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
stage=$root/gpu-stage
out=${OUT:-$root/out}
rounds=${1:-2} batch=${2:-256} steps=${3:-30}
warmup=10
mkdir -p "$out"
parity=$stage/bin/parity
if [ ! -x "$parity" ] || [ ! -f "$stage/bin/libparity_cuda_inject.so" ]; then
  echo "record_check.sh: stage parity and parity_cuda_inject first (scripts/gpu/build.sh)" >&2
  exit 2
fi
source "$root/scripts/gpu/device_env.sh"
peer=("python3" "$root/scripts/gpu/torch_resnet_peer.py" bfloat16 "$batch" "$steps" "$warmup")
value() { awk -v key="$1" '$1 == key {print $2}'; }
status=0

plain=() recorded=()
for ((r = 0; r < rounds; r++)); do
  "${peer[@]}" >"$out/record-plain-$r.log" 2>&1 || { tail "$out/record-plain-$r.log"; exit 1; }
  plain+=("$(value median_step_ms <"$out/record-plain-$r.log")")
  "$parity" record --force -o "$out/torch.db" --nvtx-step train_step -- "${peer[@]}" >"$out/record-traced-$r.log" 2>&1 ||
    { tail "$out/record-traced-$r.log"; exit 1; }
  recorded+=("$(value median_step_ms <"$out/record-traced-$r.log")")
done
fastest_plain=$(printf '%s\n' "${plain[@]}" | sort -g | head -1)
fastest_recorded=$(printf '%s\n' "${recorded[@]}" | sort -g | head -1)
echo "median step, unrecorded: ${plain[*]} ms; recorded: ${recorded[*]} ms"
awk -v t="$fastest_recorded" -v u="$fastest_plain" \
  'BEGIN {printf "parity record overhead on the median step: %+.1f%%\n", 100 * (t - u) / u}'
grep '^parity record' "$out/record-traced-0.log"

"$parity" info "$out/torch.db" >"$out/record-info.log" 2>&1 || status=1
head -40 "$out/record-info.log"
"$parity" report "$out/torch.db" >"$out/record-report.log" 2>&1 || status=1
head -60 "$out/record-report.log"

echo "== capture inside NVTX train_step only"
"$parity" record --force -o "$out/nvtx.db" --capture-range nvtx --nvtx-capture train_step -- \
  python3 "$root/scripts/gpu/torch_resnet_peer.py" bfloat16 64 3 2 2>&1 | grep -v '^device' || status=1

echo "== the program's exit status comes back"
"$parity" record --force -o "$out/exit.db" -- python3 -c \
  'import torch; torch.ones(4, device="cuda").sum().item(); raise SystemExit(3)'
echo "exit status: $? (want 3)"


exit $status
