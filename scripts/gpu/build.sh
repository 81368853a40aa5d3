#!/usr/bin/env bash
# Builds the GPU targets here (CUDA 13 toolkit, no GPU needed) and stages them
# for the lent GPU machine, which has the NVIDIA driver and PyTorch's NVIDIA
# libraries but none of our Debian libraries:
#
#   scripts/gpu/build.sh [TARGET...]
#     default: cupti_tests cuda_backend_tests gpu_trainer_bench parity parity_cuda_inject parity-train
#
# Writes gpu-stage/ (git-ignored): bin/ with the targets, lib/ with every
# shared library they need that is neither glibc's nor NVIDIA's (those come
# from the GPU machine). Then, with the device tool:
#   run(command="bash scripts/gpu/on_device.sh", carry=["gpu-stage"])
# See docs/gpu.md.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${PARITY_GPU_BUILD_DIR:-$root/build-gpu}
stage=$root/gpu-stage
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
  targets=(cupti_tests cuda_backend_tests gpu_trainer_bench parity parity_cuda_inject parity-train)

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "gpu/build.sh: no nvcc: the CUDA 13 toolkit is needed to build the GPU targets" >&2
  exit 2
fi

# No Qt and no MPI on the GPU machine: the GUI is not built, and NCCL is
# tested there in a single-rank group (cuda_backend_tests), as far as one GPU
# allows; the machine's PyTorch brings libnccl.
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPARITY_WITH_CUDA=ON -DPARITY_WITH_GUI=OFF -DPARITY_WITH_MPI=OFF
cmake --build "$build_dir" --parallel "$(nproc)" --target "${targets[@]}"

rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/lib"
# Libraries that the GPU machine provides itself: glibc's, the C++ runtime
# (newer there: Python 3.12's image; an older copy of ours first on the path
# could break its NVIDIA libraries), the driver's and the NVIDIA libraries of
# its PyTorch install.
provided='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libutil|libgcc_s|libstdc\+\+|libcuda|libcudart|libcupti|libcudnn|libcublas|libcublasLt|libcusolver|libcusparse|libnccl|libnvrtc|libnvJitLink)\.so'
for target in "${targets[@]}"; do
  # An executable, or a shared library (parity_cuda_inject), which goes into
  # bin/ beside parity, where `parity record` looks for it.
  binary=$(find "$build_dir" -type f \( -name "$target" -o -name "lib$target.so" \) -perm -u+x |
    head -1)
  if [ -z "$binary" ]; then
    echo "gpu/build.sh: built target '$target' not found under $build_dir" >&2
    exit 2
  fi
  cp "$binary" "$stage/bin/"
  ldd "$binary" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
    if [[ ! $name =~ $provided ]]; then cp -L "$path" "$stage/lib/"; fi
  done
done
# The device tool carries at most 64 MiB with the working tree: the large
# libraries (oneDNN's is 38 MiB) travel xz-compressed, and device_env.sh
# unpacks them there.
find "$stage/lib" -type f -size +4M -exec xz -T0 -6 {} +
{
  echo "built_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit=$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo -dirty)"
  echo "targets=${targets[*]}"
} > "$stage/BUILD"
du -sh "$stage"
echo "gpu/build.sh: staged ${targets[*]} in $stage (carry it: the limit is 64 MiB)"
