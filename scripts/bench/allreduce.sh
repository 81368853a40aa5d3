#!/usr/bin/env bash
# AllReduce split benchmark (issue 9's acceptance): ResNet-50 on 2 CPU ranks
# under mpirun, traced, with the split left at DDP's default (mb:25); then
# `parity tune-allreduce` on those traces proposes a split. As a user iterates,
# the proposal is recorded and the profile tuned again with every run recorded
# so far in --costs-from (their AllReduces fill the cost tables where a
# proposal extrapolated, and their different overlap measures how much
# AllReduces slow backward down), together with two reference runs, one bucket
# (nothing reduced during backward) and no fusion (every gradient's own size
# reduced during backward), until a tuning proposes a split recorded already,
# at most 3 proposals. The last tuning predicts every split (--predict). Then
# no fusion, one bucket, DDP's default, the seeds' index:[85,160], the first
# proposal, the last tuning's optimum and its optimum for the least modelled
# step time (--objective step) are run again, round-robin, and each one's
# exposed communication is measured: per step the allreduce_wait phase of the
# rank that arrived last, pooled over the rounds (the first step of each run
# left out as warm-up), as the median and the quartiles; likewise backward
# (the slower rank's) and the step. Prints the prediction next to each
# measurement, and the simulated gain over DDP's default at 8..1024 ranks.
# Prints Markdown; copy it into docs/results.md with the machine and date.
#
#   scripts/bench/allreduce.sh [STEPS] [ROUNDS]   (default 16 steps a run, 2 rounds)
#
# Environment: PARITY_BUILD_DIR (default build), BATCH (images per rank, default 8),
# KEEP_TRACES (a folder: every run's traces and logs are copied there at the end).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${PARITY_BUILD_DIR:-$root/build}
steps=${1:-16}
rounds=${2:-2}
batch=${BATCH:-8}
parity=$build_dir/analyzer/parity
work=$(mktemp -d)
# keep_and_clean: on exit, the traces go to $KEEP_TRACES when it is set, then the work folder goes.
keep_and_clean() {
  if [ -n "${KEEP_TRACES:-}" ]; then mkdir -p "$KEEP_TRACES" && cp "$work"/*.db "$work"/*.log "$KEEP_TRACES"/; fi
  rm -rf "$work"
}
trap keep_and_clean EXIT
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
# step_times NAME: per step after the first, the least allreduce_wait (ns) over the ranks and
# the longest backward.
step_times() {
  /usr/bin/python3 - "$work/$1".rank*.db <<'PY'
import sqlite3, sys
phases = {}
for path in sys.argv[1:]:
    rows = sqlite3.connect(path).execute(
        "SELECT p.arg, s.text, w.dur_ns FROM range w JOIN range p ON p.id = w.parent_id "
        "JOIN string s ON s.id = w.name_id "
        "WHERE s.text IN ('allreduce_wait', 'backward') AND p.category = 1")
    for step, phase, ns in rows:
        phases.setdefault(step, {}).setdefault(phase, []).append(ns)
for step in sorted(phases)[1:]:
    print(min(phases[step]["allreduce_wait"]), max(phases[step]["backward"]))
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
# The reference runs: one bucket and no fusion.
echo "recording one bucket and no fusion as references ..." >&2
run reference one
run unfused none
recorded=("$work"/reference.rank*.db "$work"/unfused.rank*.db)
# Record each proposal and tune again with every run so far, until a proposal repeats.
proposals=("$tuned")
proposal=$tuned
for iteration in 1 2 3; do
  echo "recording proposal $iteration, $proposal, and tuning again ..." >&2
  run "proposal$iteration" "$proposal"
  recorded+=("$work/proposal$iteration".rank*.db)
  tune profile --costs-from "${recorded[@]}" >"$work/tune_last.json"
  proposal=$(field 'd["optimum"]["split"]' <"$work/tune_last.json")
  [[ " ${proposals[*]} " == *" $proposal "* ]] && break
  proposals+=("$proposal")
done
retuned=$proposal
tune profile --costs-from "${recorded[@]}" --objective step >"$work/tune_step.json"
step_tuned=$(field 'd["optimum"]["split"]' <"$work/tune_step.json")
"$parity" tune-allreduce "$work"/profile.rank0.db "$work"/profile.rank1.db \
  --costs-from "${recorded[@]}" >&2

splits=(none one mb:25 "index:[85,160]" "$tuned" "$retuned" "$step_tuned")
names=("no fusion" "one bucket" "DDP default" "seeds" "tuned, first proposal"
  "tuned, last tuning (${#proposals[@]} proposals)" "tuned for step time")
# Every split's prediction from the last tuning: wait, step and backward (ns).
asked=()
for split in "${splits[@]}"; do asked+=(--predict "$split"); done
declare -A predicted predicted_step predicted_backward
while IFS=' ' read -r split wait step backward; do
  predicted[$split]=$wait
  predicted_step[$split]=$step
  predicted_backward[$split]=$backward
done < <(tune profile --costs-from "${recorded[@]}" "${asked[@]}" |
  field '"\n".join(" ".join([s["split"], str(s["wait_ns"]), str(s["step_ns"]), str(s["backward_ns"])])
                  for s in d["splits"] if s["name"] == "asked")')
# The first proposal's own prediction (no reference runs yet), for the record.
first_prediction=$(field '"%.2f ms wait, %.0f ms step" % (d["optimum"]["wait_ns"] / 1e6, d["optimum"]["step_ns"] / 1e6)' <"$work/tune.json")

for round in $(seq "$rounds"); do
  for i in "${!splits[@]}"; do
    echo "round $round: ${names[$i]} (${splits[$i]}) ..." >&2
    run "case$i.round$round" "${splits[$i]}"
    # The measured block does not depend on the link; a preset lets one-bucket runs (a single
    # message size, which cannot be fitted) be read too.
    tune "case$i.round$round" --link ib | field 'd["measured"]["allreduce_wait_ns"], d["measured"]["step_ns"]' >>"$work/measured$i"
    step_times "case$i.round$round" >>"$work/times$i"
  done
done

echo "proposals in turn: ${proposals[*]}; the first tuning predicted its own proposal at $first_prediction"
echo "backward's slowdown in the last tuning: $(field 'json.dumps(d["contention"])' <"$work/tune_last.json")"
echo
echo "| split | allreduce_split | predicted exposed wait (ms) | measured (ms): median of steps | quartiles (ms) | error | predicted backward (ms) | measured backward (ms) | predicted step (ms) | measured step (ms) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for i in "${!splits[@]}"; do
  measured=$(cut -d' ' -f1 "$work/times$i" | median)
  low=$(cut -d' ' -f1 "$work/times$i" | quartile 0.25)
  high=$(cut -d' ' -f1 "$work/times$i" | quartile 0.75)
  backward=$(cut -d' ' -f2 "$work/times$i" | median)
  step=$(cut -d' ' -f2 "$work/measured$i" | median)
  prediction=${predicted[${splits[$i]}]}
  awk -v name="${names[$i]}" -v spelled="${splits[$i]}" -v p="$prediction" -v m="$measured" -v lo="$low" -v hi="$high" \
    -v b="$backward" -v pb="${predicted_backward[${splits[$i]}]}" -v s="$step" -v ps="${predicted_step[${splits[$i]}]}" 'BEGIN {
    error = m == 0 ? sprintf("%+.2f ms", p / 1e6) : sprintf("%+.0f%% (%+.2f ms)", 100 * (p - m) / m, (p - m) / 1e6)
    printf "| %s | `%s` | %.2f | %.2f | %.2f-%.2f | %s | %.1f | %.1f | %.0f | %.0f |\n", name, spelled, p / 1e6, m / 1e6, lo / 1e6, hi / 1e6, error, pb / 1e6, b / 1e6, ps / 1e6, s / 1e6
  }'
done
echo
echo "per-round medians (wait ns, step ns):"
for i in "${!splits[@]}"; do echo "  ${names[$i]}: $(tr '\n' ';' <"$work/measured$i")"; done
echo
echo "simulation (ring and tree alpha-beta models with the InfiniBand preset, the traced gradient-ready times):"
"$parity" tune-allreduce "$work"/profile.rank0.db "$work"/profile.rank1.db --simulate --link ib | sed -n '/^projection/,/^$/p'
