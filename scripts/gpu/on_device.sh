#!/usr/bin/env bash
# Runs on the lent GPU machine (device tool), from the repository root, with
# gpu-stage/ carried (scripts/gpu/build.sh made it):
#
#   bash scripts/gpu/on_device.sh [TEST_BINARY [CATCH2 ARGS...]]
#
# Default: every staged test binary, all its cases. Finds the NVIDIA
# libraries of the machine's PyTorch install, prints the GPU and driver, runs
# the tests, and leaves their logs in $OUT.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
stage=$root/gpu-stage
out=${OUT:-$root/out}
mkdir -p "$out"
if [ ! -d "$stage/bin" ]; then
  echo "on_device.sh: no gpu-stage/: run scripts/gpu/build.sh here, and carry gpu-stage" >&2
  exit 2
fi
cat "$stage/BUILD"

source "$root/scripts/gpu/device_env.sh"

status=0
run_binary() {
  local binary=$1; shift
  local name; name=$(basename "$binary")
  echo "== $name $*"
  # A hung test must not spend the lease: each binary gets PARITY_TEST_TIMEOUT seconds.
  timeout -k 10 "${PARITY_TEST_TIMEOUT:-600}" "$binary" "$@" --reporter compact 2>&1 | tee "$out/$name.log" | tail -n 40
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}
if [ $# -gt 0 ]; then
  binary=$1; shift
  run_binary "$stage/bin/$binary" "$@"
else
  for binary in "$stage"/bin/*_tests; do run_binary "$binary"; done
fi
exit $status
