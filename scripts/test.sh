#!/usr/bin/env bash
# The README's test command: set-up (packages and build), then the whole ctest
# suite except the tests labelled slow. Pass --slow to run those too.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PARITY_BUILD_DIR:-$root/build}

label_filter=(-LE slow)
if [ "${1:-}" = "--slow" ]; then label_filter=(); fi

"$root/scripts/setup.sh"
ctest --test-dir "$build_dir" "${label_filter[@]}" --output-on-failure --parallel "$(nproc)"
