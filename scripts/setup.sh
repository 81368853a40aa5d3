#!/usr/bin/env bash
# Installs the Debian packages Parity needs and builds it (Release) into build/.
# Safe to run again: packages already present are skipped without touching the
# network, and the build is incremental.
#
#   scripts/setup.sh                 packages for building and testing, then build all
#   scripts/setup.sh TARGET...       the same packages, then build only these CMake
#                                    targets (scripts/demo.sh: parity-train parity)
#
# Environment: PARITY_BUILD_DIR (default: build), PARITY_CMAKE_ARGS (extra
# configure arguments, e.g. "-DPARITY_WITH_CUDA=OFF").
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PARITY_BUILD_DIR:-$root/build}

packages=(
  build-essential cmake ninja-build pkg-config git  # toolchain
  libsqlite3-dev sqlite3                            # trace store
  nlohmann-json3-dev libcli11-dev                   # JSON, command line
  libsimdjson-dev                                   # foreign traces (streamed Chrome trace JSON)
  libyaml-cpp-dev                                   # training configs
  zlib1g-dev dataset-fashion-mnist                  # datasets (gzip IDX files)
  libjpeg62-turbo-dev                               # ImageFolder JPEG decoding
  libdnnl-dev ocl-icd-opencl-dev                    # CPU training kernels (oneDNN 2.6; its CMake package looks for OpenCL)
  liblapack-dev                                     # THOR's Cholesky inverses
  libopenmpi-dev openmpi-bin                        # data-parallel training (mpirun)
  catch2                                            # tests
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev    # parity-view (Qt6 Widgets, Charts)
  fonts-dejavu-core                                 # its text, headless too
  protobuf-compiler                                 # encodes the MindSpore .ckpt test fixtures
  python3 python3-torch python3-torchvision         # the PyTorch peer of tests and benchmarks
)

targets=()
for arg in "$@"; do
  case "$arg" in
    --peer) ;;  # kept for old scripts: the peer is always installed now
    -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "setup.sh: unknown option '$arg' (see --help)" >&2; exit 2 ;;
    *) targets+=(--target "$arg") ;;
  esac
done

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: installing packages needs root; run: sudo apt-get install ${missing[*]}" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#packages[@]} packages present"
fi

# shellcheck disable=SC2086  # PARITY_CMAKE_ARGS is a list of arguments
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release ${PARITY_CMAKE_ARGS:-}
cmake --build "$build_dir" --parallel "$(nproc)" "${targets[@]}"
echo "setup: built into $build_dir"
