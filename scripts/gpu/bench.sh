#!/usr/bin/env bash
# The GPU benchmark, on the lent machine with gpu-stage/ carried (made by
# scripts/gpu/build.sh, whose default targets include gpu_trainer_bench):
#
#   bash scripts/gpu/bench.sh [ROUNDS [BATCH [STEPS]]]   default: 2 rounds, batch 256, 30 steps
#
# ResNet-50 training steps at 224x224 on synthetic data in float16 and
# bfloat16: ours (gpu_trainer_bench) untraced and fully traced (CUPTI
# kernels, copies, runtime and driver API, layer ranges), and PyTorch eager
# with AMP and channels_last (torch_resnet_peer.py, the machine's own torch
# and torchvision), alternating in one run. Prints a Markdown table of the
# best round of each (images/s from the median step) and the tracing
# overhead on the median step; logs and traces go to $OUT.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
stage=$root/gpu-stage
out=${OUT:-$root/out}
rounds=${1:-2} batch=${2:-256} steps=${3:-30}
warmup=10
mkdir -p "$out"
if [ ! -x "$stage/bin/gpu_trainer_bench" ]; then
  echo "bench.sh: no gpu-stage/bin/gpu_trainer_bench: run scripts/gpu/build.sh here, carry gpu-stage" >&2
  exit 2
fi
cat "$stage/BUILD"
source "$root/scripts/gpu/device_env.sh"

value() { awk -v key="$1" '$1 == key {print $2}'; }
# Runs one side, keeps its log in $OUT, prints its output; fails with the log's tail.
side() {
  local log=$1; shift
  if ! "$@" >"$out/$log" 2>&1; then
    echo "bench.sh: '$*' failed:" >&2
    tail -n 20 "$out/$log" >&2
    return 1
  fi
  cat "$out/$log"
}
best() { sort -g | tail -1; }
lowest() { sort -g | head -1; }

echo "date: $(date -u +%F), batch $batch, $steps timed steps after $warmup, best of $rounds rounds"
echo
echo "| precision | Parity (img/s) | PyTorch AMP (img/s) | ratio | Parity traced (img/s) | tracing overhead (median step) | dropped records |"
echo "|---|---|---|---|---|---|---|"
for precision in float16 bfloat16; do
  ours=() traced=() peer=() ours_ms=() traced_ms=() dropped=()
  for ((r = 0; r < rounds; r++)); do
    o=$(side "ours-$precision-$r.log" "$stage/bin/gpu_trainer_bench" "$precision" "$batch" "$steps" \
      "$warmup") || exit 1
    ours+=("$(value images_per_second <<<"$o")") ours_ms+=("$(value median_step_ms <<<"$o")")
    rm -f "$out/trace-$precision.db"
    t=$(side "traced-$precision-$r.log" "$stage/bin/gpu_trainer_bench" "$precision" "$batch" "$steps" \
      "$warmup" --trace "$out/trace-$precision.db") || exit 1
    traced+=("$(value images_per_second <<<"$t")") traced_ms+=("$(value median_step_ms <<<"$t")")
    dropped+=("$(value dropped_records <<<"$t")")
    # A skipped step runs no update and would read as a faster one.
    for side_output in "$o" "$t"; do
      if [ "$(value skipped_steps <<<"$side_output")" != 0 ]; then
        echo "bench.sh: $precision round $r skipped steps for overflow (loss scale too high):" \
          "its times are not comparable; see $out/ours-$precision-$r.log" >&2
        exit 1
      fi
    done
    p=$(side "torch-$precision-$r.log" python3 "$root/scripts/gpu/torch_resnet_peer.py" "$precision" \
      "$batch" "$steps" "$warmup") || exit 1
    peer+=("$(value images_per_second <<<"$p")")
  done
  best_ours=$(printf '%s\n' "${ours[@]}" | best)
  best_peer=$(printf '%s\n' "${peer[@]}" | best)
  best_traced=$(printf '%s\n' "${traced[@]}" | best)
  fastest_untraced=$(printf '%s\n' "${ours_ms[@]}" | lowest)
  fastest_traced=$(printf '%s\n' "${traced_ms[@]}" | lowest)
  printf "| %s | %s | %s | %.2fx | %s | %+.1f%% | %s |\n" "$precision" "$best_ours" "$best_peer" \
    "$(awk -v a="$best_ours" -v b="$best_peer" 'BEGIN {print a / b}')" "$best_traced" \
    "$(awk -v t="$fastest_traced" -v u="$fastest_untraced" 'BEGIN {print 100 * (t - u) / u}')" \
    "$(printf '%s\n' "${dropped[@]}" | best)"
done
echo
grep -h '^device' "$out/ours-float16-0.log" "$out/torch-float16-0.log"
