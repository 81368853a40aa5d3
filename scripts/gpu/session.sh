#!/usr/bin/env bash
# One call of the device tool that does a GPU session's whole check, each part
# time-boxed so that one hang cannot spend the lease, with gpu-stage/ carried:
#
#   bash scripts/gpu/session.sh [TEST_SECONDS [BENCH_SECONDS [RECORD_SECONDS]]]
#     default: 150 s per test binary, 200 s for the benchmark (1 round of
#     batch 256, 20 steps), 200 s for `parity record` (2 rounds)
#
# Runs every staged test binary (on_device.sh), the benchmark (bench.sh),
# THOR against SGD (thor_check.sh), `parity record` on a PyTorch script
# (record_check.sh) and PyTorch's own
# 16-bit spread (amp_gradient_spread.py), then packs the logs into
# $OUT/logs.tar.gz and gzips each trace: the device tool brings back at most
# 8 files.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${OUT:-$root/out}
test_seconds=${1:-150} bench_seconds=${2:-200} record_seconds=${3:-200}
mkdir -p "$out"
summary=()
stage=$root/gpu-stage
source "$root/scripts/gpu/device_env.sh"  # for the parity binary called here

PARITY_TEST_TIMEOUT=$test_seconds bash "$root/scripts/gpu/on_device.sh"
summary+=("tests: exit $?")

# Each part runs only where its binaries were staged.
if [ -x "$root/gpu-stage/bin/gpu_trainer_bench" ]; then
  timeout -k 10 "$bench_seconds" bash "$root/scripts/gpu/bench.sh" 1 256 20
  summary+=("bench: exit $?")
  # Our own report of the traced float16 run: where its step goes.
  if [ -x "$root/gpu-stage/bin/parity" ] && [ -f "$out/trace-float16.db" ]; then
    "$root/gpu-stage/bin/parity" report "$out/trace-float16.db" >"$out/report-float16.log" 2>&1
    summary+=("report of the traced float16 run: exit $?")
    head -40 "$out/report-float16.log"
  fi
fi
if [ -x "$root/gpu-stage/bin/parity-train" ]; then
  timeout -k 10 "$bench_seconds" bash "$root/scripts/gpu/thor_check.sh" 128 float16
  summary+=("THOR against SGD: exit $?")
fi
if [ -x "$root/gpu-stage/bin/parity" ]; then
  timeout -k 10 "$record_seconds" bash "$root/scripts/gpu/record_check.sh" 2 256 30
  summary+=("record: exit $?")
fi
timeout -k 10 120 python3 "$root/scripts/gpu/amp_gradient_spread.py" 2>&1 |
  tee "$out/amp_gradient_spread.log"
summary+=("amp spread: exit ${PIPESTATUS[0]}")

(cd "$out" && for db in *.db; do [ -e "$db" ] && gzip -f "$db"; done
 logs=$(ls ./*.log 2>/dev/null); [ -n "$logs" ] && tar czf logs.tar.gz $logs && rm -f $logs)
ls -la "$out"
printf '== %s\n' "${summary[@]}"
