#!/usr/bin/env bash
# Builds PocketMT and runs the whole doctest suite through CTest.
#   scripts/run-tests.sh              Release build in build/
#   scripts/run-tests.sh --sanitize   AddressSanitizer + UndefinedBehaviorSanitizer build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build
cmake_flags=()
if [[ "${1:-}" == "--sanitize" ]]; then
  build_dir=build-asan
  # Benchmarks and examples add nothing to a sanitizer run of the tests.
  cmake_flags=(-DPMT_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMT_BUILD_BENCH=OFF -DPMT_BUILD_EXAMPLES=OFF)
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
jobs=$(nproc)

echo "== [1/3] dependencies (scripts/install-deps.sh)"
scripts/install-deps.sh
echo "== [2/3] configure + build in ${build_dir}/ ${cmake_flags[*]}"
cmake -S . -B "$build_dir" "${cmake_flags[@]}" >/dev/null
cmake --build "$build_dir" -j"$jobs"
echo "== [3/3] test suite (ctest)"
ctest --test-dir "$build_dir" --output-on-failure -j"$jobs"
