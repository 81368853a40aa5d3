#!/usr/bin/env bash
# AllReduce split benchmark (issue 9's acceptance): ResNet-50 on 2 CPU ranks
# under mpirun, traced, with the split left at DDP's default (mb:25); then
# `parity tune-allreduce` on those traces proposes a split, which is recorded
# once, with two reference runs (one bucket and no fusion), and tuned again
# with their traces (--costs-from: the AllReduce costs of the proposal's bucket
# sizes and of every single gradient, and backward's slowdown
# under AllReduce from the runs' different overlap); then both proposals,
# no fusion, one bucket, DDP's default and the seeds' index:[85,160] are run
# again, round-robin, and each one's exposed communication is measured: per
# step the allreduce_wait phase of the rank that arrived last, pooled over the
# rounds (the first step of each run left out as warm-up), as the median and
# the quartiles; and the second tuning's split for the least modelled step time
# (--objective step) likewise. Prints the tuner's prediction next to each measurement, and
# the simulated gain over DDP's default at 8..1024 ranks. Prints Markdown;
# copy it into docs/results.md with the machine and date.
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
# step_waits NAME: per step after the first, the least allreduce_wait (ns) over the ranks.
step_waits() {
  /usr/bin/python3 - "$work/$1".rank*.db <<'PY'
import sqlite3, sys
waits = {}
for path in sys.argv[1:]:
    rows = sqlite3.connect(path).execute(
        "SELECT p.arg, w.dur_ns FROM range w JOIN range p ON p.id = w.parent_id "
        "JOIN string s ON s.id = w.name_id WHERE s.text = 'allreduce_wait' AND p.category = 1")
    for step, ns in rows:
        waits.setdefault(step, []).append(ns)
for step in sorted(waits)[1:]:
    print(min(waits[step]))
PY
}
# quartile Q: the Q-quantile (0..1, nearest rank) of the numbers on stdin.
quartile() { sort -g | awk -v q="$1" '{v[NR] = $1} END {i = int(q * (NR - 1) + 1.5); print v[i]}'; }
field() { /usr/bin/python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }

# A first run after the machine idled (or ran something else) is slower throughout: warm up.
echo "warming up ..." >&2
run warm-up mb:25
echo "profiling with DDP's default split (mb:25) ..." >&2
run profile mb:25
tune profile >"$work/tune.json"
tuned=$(field 'd["optimum"]["split"]' <"$work/tune.json")
"$parity" tune-allreduce "$work"/profile.rank0.db "$work"/profile.rank1.db >&2
# The second iteration: record the proposed split once, one bucket (no AllReduce during
# backward: backward's own time) and no fusion (every gradient's size reduced during backward),
# and tune again with their traces: their AllReduces fill the cost tables where the first
# proposal extrapolated, and the runs' different overlap measures how much AllReduces slow
# backward down.
echo "recording the proposed split $tuned, one bucket and no fusion for a second tuning ..." >&2
run proposal "$tuned"
run reference one
run unfused none
references=("$work"/proposal.rank*.db "$work"/reference.rank*.db "$work"/unfused.rank*.db)
tune profile --costs-from "${references[@]}" >"$work/tune2.json"
retuned=$(field 'd["optimum"]["split"]' <"$work/tune2.json")
tune profile --costs-from "${references[@]}" --objective step >"$work/tune_step.json"
step_tuned=$(field 'd["optimum"]["split"]' <"$work/tune_step.json")
"$parity" tune-allreduce "$work"/profile.rank0.db "$work"/profile.rank1.db \
  --costs-from "${references[@]}" >&2

# Predictions by split: the second tuning's, which has the better cost tables, and the
# first tuning's for its own proposal.
declare -A predicted predicted_step
# read_predictions JSON: predicted[split] and predicted_step[split] = predicted wait and step
# (ns) of every split in a tuning.
read_predictions() {
  while IFS=' ' read -r split wait step; do
    predicted[$split]=$wait
    predicted_step[$split]=$step
  done < <(field '"\n".join(s["split"] + " " + str(s["wait_ns"]) + " " + str(s["step_ns"])
                            for s in d["splits"] + [d["optimum"]])' <"$1")
}
read_predictions "$work/tune.json"
first_proposal=${predicted[$tuned]}
first_proposal_step=${predicted_step[$tuned]}
read_predictions "$work/tune_step.json"
step_tuned_wait=${predicted[$step_tuned]}
step_tuned_step=${predicted_step[$step_tuned]}
read_predictions "$work/tune2.json"
predicted[$step_tuned]=$step_tuned_wait
predicted_step[$step_tuned]=$step_tuned_step
if [ "$tuned" != "$retuned" ]; then
  predicted[$tuned]=$first_proposal
  predicted_step[$tuned]=$first_proposal_step
fi

splits=(none one mb:25 "index:[85,160]" "$tuned" "$retuned" "$step_tuned")
names=("no fusion" "one bucket" "DDP default" "seeds" "tuned, first" "tuned, second"
  "tuned for step time")
for round in $(seq "$rounds"); do
  for i in "${!splits[@]}"; do
    echo "round $round: ${names[$i]} (${splits[$i]}) ..." >&2
    run "case$i" "${splits[$i]}"
    # The measured block does not depend on the link; a preset lets one-bucket runs (a single
    # message size, which cannot be fitted) be read too.
    tune "case$i" --link ib | field 'd["measured"]["allreduce_wait_ns"], d["measured"]["step_ns"]' >>"$work/measured$i"
    step_waits "case$i" >>"$work/waits$i"
  done
done

echo "| split | allreduce_split | predicted exposed wait (ms) | measured (ms): median of steps | quartiles (ms) | error | predicted step (ms) | measured step (ms) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for i in "${!splits[@]}"; do
  measured=$(median <"$work/waits$i")
  low=$(quartile 0.25 <"$work/waits$i")
  high=$(quartile 0.75 <"$work/waits$i")
  step=$(cut -d' ' -f2 "$work/measured$i" | median)
  prediction=${predicted[${splits[$i]}]:-}
  step_prediction=${predicted_step[${splits[$i]}]:-}
  awk -v name="${names[$i]}" -v spelled="${splits[$i]}" -v p="$prediction" -v m="$measured" -v lo="$low" -v hi="$high" -v s="$step" -v ps="$step_prediction" 'BEGIN {
    error = (p == "") ? "" : (m == 0 ? sprintf("%+.2f ms", p / 1e6) : sprintf("%+.0f%% (%+.2f ms)", 100 * (p - m) / m, (p - m) / 1e6))
    printf "| %s | `%s` | %s | %.2f | %.2f-%.2f | %s | %s | %.0f |\n", name, spelled, p == "" ? "" : sprintf("%.2f", p / 1e6), m / 1e6, lo / 1e6, hi / 1e6, error, ps == "" ? "" : sprintf("%.0f", ps / 1e6), s / 1e6
  }'
done
echo
echo "per-round medians (wait ns, step ns):"
for i in "${!splits[@]}"; do echo "  ${names[$i]}: $(tr '\n' ';' <"$work/measured$i")"; done
echo
echo "simulation (ring and tree alpha-beta models with the InfiniBand preset, the traced gradient-ready times):"
"$parity" tune-allreduce "$work"/profile.rank0.db "$work"/profile.rank1.db --simulate --link ib | sed -n '/^simulat\|^projection\|ranks /,$p'
