#!/usr/bin/env bash
# The README's main job: set-up and build, then train ResNet-18 on
# Fashion-MNIST (Debian's dataset-fashion-mnist) with tracing, evaluate the
# checkpoint on the 10,000 test images, summarise the trace with `parity info`
# and analyze it with `parity report` (text on the terminal; Markdown, HTML,
# JSON and JUnit in demo-output/report/).
#
#   scripts/demo.sh [MINUTES]   (default 5; output in demo-output/)
#
# The recipe (samples/configs/resnet18_fashion_mnist_demo.yaml) is one epoch,
# about 4 minutes on 2 cores, to about 89% test top-1. MINUTES caps the
# training: a slower machine stops after the step that passes it (the
# learning rate then has not decayed to its end, and accuracy is lower).
# PARITY_DEMO_CONFIG picks another config, e.g. ResNet-50's 93.66% recipe
# samples/configs/resnet50_fashion_mnist_64px.yaml (2 h 12 min on 2 cores:
# give MINUTES 140).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PARITY_BUILD_DIR:-$root/build}
minutes=${1:-5}
out=${PARITY_DEMO_DIR:-$root/demo-output}
config=${PARITY_DEMO_CONFIG:-$root/samples/configs/resnet18_fashion_mnist_demo.yaml}

case "$minutes" in
  -h|--help) sed -n '2,15p' "${BASH_SOURCE[0]}"; exit 0 ;;
  '' | *[!0-9.]* | *.*.*) echo "demo.sh: MINUTES must be a number, got '$minutes' (see --help)" >&2; exit 2 ;;
esac

"$root/scripts/setup.sh" parity-train parity  # the tests are built by scripts/test.sh
rm -rf "$out"
mkdir -p "$out"

echo
echo "== training on Fashion-MNIST ($(basename "$config"), at most $minutes minutes), traced to $out/run.db"
start=$(date +%s)
"$build_dir/trainer/parity-train" train --config "$config" --set "checkpoint_path=$out/checkpoints" \
  --trace "$out/run.db" --time-limit "$minutes" --log-every 100
train_seconds=$(( $(date +%s) - start ))

checkpoint=$(ls -t "$out"/checkpoints/*.safetensors | head -1)
echo
echo "== evaluating $checkpoint on the test split"
"$build_dir/trainer/parity-train" eval --config "$config" --checkpoint "$checkpoint" | tee "$out/eval.txt"

echo
echo "== the trace"
"$build_dir/analyzer/parity" info "$out/run.db"

echo
echo "== the report (all formats in $out/report/)"
# Exit code 1 means the report has an error-level finding: still a report to show.
status=0
"$build_dir/analyzer/parity" report "$out/run.db" --format text,md,html,json,junit -o "$out/report" ||
  status=$?
[ "$status" -le 1 ] || exit "$status"
cat "$out/report/report.txt"

echo
echo "== demo: trained for $((train_seconds / 60)) min $((train_seconds % 60)) s (start-up and checkpoints included); $(grep -m1 -i 'top-1' "$out/eval.txt" || echo 'no accuracy line')"
