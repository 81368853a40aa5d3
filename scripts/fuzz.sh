#!/usr/bin/env bash
# Builds every libFuzzer target with clang, ASan and UBSan (in build-fuzz/),
# then runs each for a bounded time on a copy of its committed seed corpus.
# Any crash, hang (-timeout), memory blow-up (-rss_limit_mb) or sanitizer
# report fails the script; the reproducer is left in build-fuzz/findings/.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default: 60, all targets
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
build=build-fuzz
sanitize="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="$sanitize" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DPARITY_BUILD_FUZZERS=ON -DPARITY_BUILD_TESTS=OFF -DPARITY_BUILD_BENCH=OFF \
  -DPARITY_WITH_CUDA=OFF -DPARITY_WITH_GUI=OFF -DPARITY_WITH_MPI=OFF >/dev/null

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for dir in fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi
ninja -C "$build" "${targets[@]/%/_fuzz}"

mkdir -p "$build/findings"
for target in "${targets[@]}"; do
  work="$build/corpus/$target"
  rm -rf "$work" && mkdir -p "$work"
  cp fuzz/corpus/"$target"/* "$work"/
  echo "== $target: ${seconds}s"
  "$build/fuzz/${target}_fuzz" "$work" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$build/findings/${target}-" 2>&1 | tail -n 12
done
echo "no crash, hang or sanitizer report in ${#targets[@]} target(s)"
