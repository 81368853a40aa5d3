#!/usr/bin/env bash
# Data-parallel training on one machine: the seeds' run_distribute_train.sh
# (CPU) and run_distribute_train_gpu.sh (--gpu) for Parity. Starts N ranks of
# `parity-train train` under Open MPI's mpirun; each trains on its shard of
# the data (num_shards = N, shard_id = rank), gradients are averaged in
# buckets (config key allreduce_split), and rank 0 logs and writes
# checkpoints. See docs/distributed.md.
#
#   scripts/run_distributed.sh [--gpu] [--ranks N] [--threads T] [--logs DIR] CONFIG [TRAIN OPTIONS...]
#
#   --gpu         GPU ranks: device_target GPU, each rank on the GPU of its local
#                 rank, gradients averaged by NCCL (bootstrapped over MPI); needs a
#                 build with the CUDA backend and NCCL
#   --ranks N     ranks (default 2; with --gpu, the GPUs nvidia-smi lists)
#   --threads T   compute threads per rank (default: cores / ranks, at least 1)
#   --logs DIR    every rank's stdout and stderr in DIR/1/rank.R/ (default: on the terminal)
#   TRAIN OPTIONS go to parity-train train: --set k=v, --trace RUN.db (one file
#                 per rank: RUN.rank0.db, ...), --max-steps, --time-limit, --eval, ...
#
# Example: the seeds' split on ResNet-50, traced, then tuned:
#   scripts/run_distributed.sh --ranks 2 samples/configs/resnet50_fashion_mnist.yaml \
#       --set allreduce_split=index:[85,160] --trace run.db --max-steps 20
#   build/analyzer/parity tune-allreduce run.rank0.db run.rank1.db
#
# Environment: PARITY_BUILD_DIR (default build), MPIRUN_ARGS (extra mpirun
# arguments, e.g. "--bind-to none"). Runs as root too (CI containers).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PARITY_BUILD_DIR:-$root/build}
ranks=
gpu=false
threads=
logs=

usage() { sed -n '2,26p' "${BASH_SOURCE[0]}"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) gpu=true; shift ;;
    --ranks) ranks=${2:?--ranks needs a number}; shift 2 ;;
    --threads) threads=${2:?--threads needs a number}; shift 2 ;;
    --logs) logs=${2:?--logs needs a folder}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "run_distributed.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 1 ]; then
  echo "run_distributed.sh: give a training config (see --help)" >&2
  exit 2
fi
config=$1
shift
gpus=
if $gpu; then
  command -v nvidia-smi > /dev/null || { echo "run_distributed.sh: --gpu needs an NVIDIA driver (nvidia-smi not found)" >&2; exit 2; }
  gpus=$(nvidia-smi -L | grep -c '^GPU ' || true)
  [ "$gpus" -ge 1 ] || { echo "run_distributed.sh: --gpu: nvidia-smi lists no GPU" >&2; exit 2; }
  ranks=${ranks:-$gpus}
  [[ ! "$ranks" =~ ^[0-9]+$ ]] || [ "$ranks" -le "$gpus" ] || { echo "run_distributed.sh: --ranks $ranks: this machine has $gpus GPUs, one per rank" >&2; exit 2; }
fi
ranks=${ranks:-2}
[[ "$ranks" =~ ^[1-9][0-9]*$ ]] || { echo "run_distributed.sh: --ranks must be a positive number, got '$ranks'" >&2; exit 2; }
[ -f "$config" ] || { echo "run_distributed.sh: no config file '$config'" >&2; exit 2; }
command -v mpirun > /dev/null || { echo "run_distributed.sh: mpirun not found (Debian: openmpi-bin; scripts/setup.sh installs it)" >&2; exit 2; }
trainer=$build_dir/trainer/parity-train
[ -x "$trainer" ] || { echo "run_distributed.sh: $trainer is not built (run scripts/setup.sh)" >&2; exit 2; }
if [ -z "$threads" ]; then
  threads=$(( $(nproc) / ranks ))
  [ "$threads" -ge 1 ] || threads=1
fi

# Root is refused by default; shared memory between the ranks of one
# machine; waiting ranks yield their core to the compute threads.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}

launcher=(mpirun -np "$ranks" --oversubscribe)
[ -z "$logs" ] || launcher+=(--output-filename "$logs")
# shellcheck disable=SC2206  # MPIRUN_ARGS is a list of arguments
launcher+=(${MPIRUN_ARGS:-})

train=(train --config "$config" --threads "$threads")
! $gpu || train+=(--set device_target=GPU)
echo "run_distributed.sh: $ranks ranks x $threads threads${gpus:+ on $gpus GPUs}: $trainer ${train[*]} $*"
exec "${launcher[@]}" "$trainer" "${train[@]}" "$@"
