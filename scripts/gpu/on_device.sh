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

# PyTorch's wheels put each NVIDIA library under site-packages/nvidia/.../lib.
nvidia_dirs=$(python3 - <<'PY'
import os, sys
try:
    import nvidia
except ImportError:
    sys.exit("on_device.sh: python3 has no 'nvidia' package (PyTorch's CUDA wheels); "
             "using the system's NVIDIA libraries")
dirs = set()
for base in nvidia.__path__:
    for folder, _, files in os.walk(base):
        if any(f.startswith("lib") and ".so" in f for f in files):
            dirs.add(folder)
print(":".join(sorted(dirs)))
PY
)
export LD_LIBRARY_PATH="$stage/lib:$nvidia_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader ||
  echo "on_device.sh: nvidia-smi failed: no GPU here? GPU tests will report SKIPPED"


status=0
run_binary() {
  local binary=$1; shift
  local name; name=$(basename "$binary")
  echo "== $name $*"
  "$binary" "$@" --reporter compact 2>&1 | tee "$out/$name.log" | tail -n 40
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}
if [ $# -gt 0 ]; then
  binary=$1; shift
  run_binary "$stage/bin/$binary" "$@"
else
  for binary in "$stage"/bin/*_tests; do run_binary "$binary"; done
fi
exit $status
