#!/usr/bin/env bash
# Builds PocketMT and runs the whole doctest suite through CTest.
#   scripts/run-tests.sh              Release build in build/
#   scripts/run-tests.sh --sanitize   AddressSanitizer + UndefinedBehaviorSanitizer build in build-asan/
#   scripts/run-tests.sh --arch arm64|armhf [AREA...]
#       cross build in build-<arch>/ (cmake/toolchains/), the suite run under qemu-user, and the
#       cross_isa test against this machine's pmt-translate (built in build/ if missing). AREAs
#       (folders of tests/: runtime kernels ...) build and run only those tests, and leave out the
#       benchmarks and examples: what CI does, since qemu is slow (docs/arm.md).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build
arch=
cmake_flags=()
deps_flags=()
case "${1:-}" in
  --sanitize)
    build_dir=build-asan
    # Benchmarks and examples add nothing to a sanitizer run of the tests.
    cmake_flags=(-DPMT_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMT_BUILD_BENCH=OFF -DPMT_BUILD_EXAMPLES=OFF)
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    ;;
  --arch)
    arch=${2:?--arch needs arm64 or armhf}
    case $arch in
      arm64) triplet=aarch64-linux-gnu ;;
      armhf) triplet=arm-linux-gnueabihf ;;
      *) echo "run-tests.sh: unknown architecture $arch (arm64 or armhf)" >&2; exit 2 ;;
    esac
    shift 2
    areas=$(IFS=';'; echo "$*")
    build_dir=build-$arch
    deps_flags=(--arch "$arch")
    cmake_flags=(-DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/$triplet.cmake -DPMT_BUILD_PYTHON=OFF
                 "-DPMT_TEST_AREAS=$areas" "-DPMT_HOST_TRANSLATE=$PWD/build/tools/pmt-translate")
    whole=$([[ -n $areas ]] && echo OFF || echo ON)
    cmake_flags+=(-DPMT_BUILD_BENCH=$whole -DPMT_BUILD_EXAMPLES=$whole)
    ;;
esac
jobs=$(nproc)

echo "== [1/3] dependencies (scripts/install-deps.sh ${deps_flags[*]})"
scripts/install-deps.sh "${deps_flags[@]}"
echo "== [2/3] configure + build in ${build_dir}/ ${cmake_flags[*]}"
if [[ -n $arch ]]; then
  # The reference of the cross_isa test; nothing to do when CI's native build ran first.
  [[ -f build/CMakeCache.txt ]] || cmake -S . -B build >/dev/null
  cmake --build build -j"$jobs" --target pmt-translate
fi
cmake -S . -B "$build_dir" "${cmake_flags[@]}" >/dev/null
cmake --build "$build_dir" -j"$jobs"
echo "== [3/3] test suite (ctest)"
ctest --test-dir "$build_dir" --output-on-failure -j"$jobs"
