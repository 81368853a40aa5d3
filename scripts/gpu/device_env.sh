# Sourced by the scripts that run on the lent GPU machine: LD_LIBRARY_PATH
# gets gpu-stage/lib (our non-NVIDIA libraries) and every lib folder of the
# machine's PyTorch `nvidia` package (cuDNN, cuBLAS, NCCL, CUPTI, the CUDA
# runtime); then the GPU and driver are printed. Needs $stage.
# build.sh compressed the large libraries to fit the device tool's limit.
# Python's lzma: the machine's image need not have xz.
for packed in "$stage"/lib/*.xz; do
  [ -e "$packed" ] || continue
  python3 -c 'import lzma, shutil, sys
with lzma.open(sys.argv[1]) as source, open(sys.argv[1][:-3], "wb") as target:
    shutil.copyfileobj(source, target)' "$packed" && rm -f "$packed"
done
# PyTorch's wheels put each NVIDIA library under site-packages/nvidia/.../lib.
nvidia_dirs=$(python3 - <<'PY'
import os, sys
try:
    import nvidia
except ImportError:
    sys.exit("device_env.sh: python3 has no 'nvidia' package (PyTorch's CUDA wheels); "
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
  echo "device_env.sh: nvidia-smi failed: no GPU here? GPU tests will report SKIPPED"
