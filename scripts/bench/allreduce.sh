#!/usr/bin/env bash
# AllReduce split benchmark (issue 9's acceptance): ResNet-50 on 2 CPU ranks
# under mpirun, traced, with the split left at DDP's default (mb:25); then
# `parity tune-allreduce` on those traces proposes a split; then that split,
# no fusion, one bucket, DDP's default and the seeds' index:[85,160] are run
# again, round-robin, and each one's exposed communication is measured (the
# median over steps of the allreduce_wait phase of the rank that arrived
# last). Prints the tuner's prediction next to each measurement, and the
# simulated gain over DDP's default at 8..1024 ranks. Prints Markdown; copy it
# into docs/results.md with the machine and date.
#
#   scripts/bench/allreduce.sh [STEPS] [ROUNDS]   (default 16 steps a run, 2 rounds)
#
# Environment: PARITY_BUILD_DIR (default build), BATCH (images per rank, default 8).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${PARITY_BUILD_DIR:-$root/build}
steps=${1:-16}
rounds=${2:-2}
batch=${BATCH:-8}
parity=$build_dir/analyzer/parity
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=common.sh
source "$root/scripts/bench/common.sh"

cat >"$work/run.yaml" <<EOF
net_name: resnet50
dataset: synthetic
synthetic_size: 4096
train_image_size: 32
batch_size: $batch
epoch_size: 1
num_workers: 1
save_checkpoint: false
deterministic: true
EOF

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
echo "ResNet-50, 32 px synthetic images, batch $batch per rank, 2 ranks x 1 compute thread, $steps steps a run ($(mpirun --version | head -1))"
echo

# run NAME SPLIT: one traced 2-rank run into $work/NAME.rank{0,1}.db
run() {
  rm -f "$work/$1".rank*.db
  PARITY_BUILD_DIR=$build_dir "$root/scripts/run_distributed.sh" --ranks 2 --threads 1 "$work/run.yaml" \
    --max-steps "$steps" --trace "$work/$1.db" --set "allreduce_split=$2" >"$work/$1.log" 2>&1 ||
    { cat "$work/$1.log" >&2; exit 1; }
}
tune() { "$parity" tune-allreduce "$work/$1".rank0.db "$work/$1".rank1.db --format json "${@:2}"; }
field() { /usr/bin/python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }

echo "profiling with DDP's default split (mb:25) ..." >&2
run profile mb:25
tune profile >"$work/tune.json"
tuned=$(field 'd["optimum"]["split"]' <"$work/tune.json")
"$parity" tune-allreduce "$work"/profile.rank0.db "$work"/profile.rank1.db >&2

declare -A predicted
while IFS=' ' read -r split wait; do predicted[$split]=$wait; done < <(field \
  '"\n".join(s["split"] + " " + str(s["wait_ns"]) for s in d["splits"] + [d["optimum"]])' <"$work/tune.json")

splits=(none one mb:25 "index:[85,160]" "$tuned")
names=("no fusion" "one bucket" "DDP default" "seeds" "tuned")
for round in $(seq "$rounds"); do
  for i in "${!splits[@]}"; do
    echo "round $round: ${names[$i]} (${splits[$i]}) ..." >&2
    run "case$i" "${splits[$i]}"
    # The measured block does not depend on the link; a preset lets one-bucket runs (a single
    # message size, which cannot be fitted) be read too.
    tune "case$i" --link ib | field 'd["measured"]["allreduce_wait_ns"], d["measured"]["step_ns"]' >>"$work/measured$i"
  done
done

echo "| split | allreduce_split | predicted exposed wait (ms) | measured exposed wait (ms), median of rounds | error | step (ms) |"
echo "|---|---|---:|---:|---:|---:|"
for i in "${!splits[@]}"; do
  measured=$(cut -d' ' -f1 "$work/measured$i" | median)
  step=$(cut -d' ' -f2 "$work/measured$i" | median)
  prediction=${predicted[${splits[$i]}]:-}
  awk -v name="${names[$i]}" -v spelled="${splits[$i]}" -v p="$prediction" -v m="$measured" -v s="$step" 'BEGIN {
    error = (p == "" || m == 0) ? "" : sprintf("%+.0f%%", 100 * (p - m) / m)
    printf "| %s | `%s` | %s | %.2f | %s | %.0f |\n", name, spelled, p == "" ? "" : sprintf("%.2f", p / 1e6), m / 1e6, error, s / 1e6
  }'
done
echo
echo "per-round measurements (wait ns, step ns):"
for i in "${!splits[@]}"; do echo "  ${names[$i]}: $(tr '\n' ';' <"$work/measured$i")"; done
echo
echo "simulation (ring and tree alpha-beta models with the InfiniBand preset, the traced gradient-ready times):"
"$parity" tune-allreduce "$work"/profile.rank0.db "$work"/profile.rank1.db --simulate --link ib | sed -n '/^simulat\|^projection\|ranks /,$p'
