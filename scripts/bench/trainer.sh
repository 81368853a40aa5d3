#!/usr/bin/env bash
# Trainer benchmark: ResNet-50 training steps, ours (oneDNN, blocked layouts
# kept) against Debian's PyTorch (torchvision resnet50), same threads, same
# batch, same machine, alternating in one run. Also counts oneDNN reorders per
# steady-state step in both (ONEDNN_VERBOSE / DNNL_VERBOSE). Prints a
# Markdown table; copy it into docs/results.md with the machine and date.
#
#   scripts/bench/trainer.sh [ROUNDS]   (default 2 rounds of each case)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${PARITY_BUILD_DIR:-$root/build}
rounds=${1:-2}
threads=$(nproc)
export OMP_NUM_THREADS=$threads
"$root/scripts/setup.sh" >/dev/null

echo "machine: $threads cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
echo "oneDNN $(dpkg-query -W -f='${Version}' libdnnl2), PyTorch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)')"
echo

value() { awk -v key="$1" '$1 == key {print $2}'; }

# Reorders PyTorch executes in one steady-state step: those of 2 steps less
# those of 1 (the first step also converts what it sees for the first time).
reorders_in_steps() {
  ONEDNN_VERBOSE=1 DNNL_VERBOSE=1 /usr/bin/python3 "$root/scripts/bench/torch_resnet_peer.py" \
    50 "$2" "$3" "$1" 0 "$threads" 2>/dev/null | grep -E '^(onednn|dnnl)_verbose,exec' | grep -c ',reorder,' || true
}
count_reorders_peer() {
  echo $(($(reorders_in_steps 2 "$1" "$2") - $(reorders_in_steps 1 "$1" "$2")))
}

echo "| ResNet-50 training step | Parity (img/s) | PyTorch (img/s) | ratio | Parity reorders/step (activation, weight) | PyTorch reorders/step |"
echo "|---|---|---|---|---|---|"
for case in "32 128 6" "224 16 4"; do
  read -r size batch steps <<<"$case"
  ours=() peer=()
  for ((r = 0; r < rounds; r++)); do
    out=$("$build_dir/bench/trainer_bench" 50 "$size" "$batch" "$steps" 2)
    ours+=("$(value images_per_second <<<"$out")")
    activation=$(value activation_reorders_per_step <<<"$out")
    weight=$(value weight_reorders_per_step <<<"$out")
    peer+=("$(/usr/bin/python3 "$root/scripts/bench/torch_resnet_peer.py" 50 "$size" "$batch" "$steps" 2 "$threads" | value images_per_second)")
  done
  best_ours=$(printf '%s\n' "${ours[@]}" | sort -g | tail -1)
  best_peer=$(printf '%s\n' "${peer[@]}" | sort -g | tail -1)
  peer_reorders=$(count_reorders_peer "$size" "$batch")
  printf "| %sx%s, batch %s, %s threads | %s | %s | %.2fx | %s, %s | %s |\n" "$size" "$size" "$batch" \
    "$threads" "$best_ours" "$best_peer" "$(awk -v a="$best_ours" -v b="$best_peer" 'BEGIN {print a / b}')" \
    "$activation" "$weight" "$peer_reorders"
done
echo
echo "(best of $rounds rounds each, alternating; reorders: oneDNN reorder primitives run in one steady-state step)"
