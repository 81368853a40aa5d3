#!/usr/bin/env bash
# The README's main job: set-up and build, then train ResNet-50 on
# Fashion-MNIST (Debian's dataset-fashion-mnist) for a few minutes with
# tracing, evaluate the checkpoint on the 10,000 test images, summarise the
# trace with `parity info` and analyze it with `parity report` (text on the
# terminal; Markdown, HTML, JSON and JUnit in demo-output/report/).
#
#   scripts/demo.sh [MINUTES]   (default 3; output in demo-output/)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PARITY_BUILD_DIR:-$root/build}
minutes=${1:-3}
out=${PARITY_DEMO_DIR:-$root/demo-output}
config=$root/samples/configs/resnet50_fashion_mnist.yaml

"$root/scripts/setup.sh"
rm -rf "$out"
mkdir -p "$out"

echo
echo "== training ResNet-50 on Fashion-MNIST for $minutes minutes, traced to $out/run.db"
"$build_dir/trainer/parity-train" train --config "$config" --set "checkpoint_path=$out/checkpoints" \
  --trace "$out/run.db" --time-limit "$minutes" --log-every 50

checkpoint=$(ls -t "$out"/checkpoints/*.safetensors | head -1)
echo
echo "== evaluating $checkpoint"
"$build_dir/trainer/parity-train" eval --config "$config" --checkpoint "$checkpoint"

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
