#!/usr/bin/env bash
# Issue 14, finding 8: installs the build into a scratch prefix, builds examples/c_api_example.c
# in a plain-C CMake project against it (libm and the C++ runtime must come with the exported
# target) and translates one sentence with the shipped model.
#   tests/package/c_consumer.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$src/tests/package/c_consumer" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" \
  -DPMT_EXAMPLE_SOURCE="$src/examples/c_api_example.c" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$scratch/build" >/dev/null
out=$("$scratch/build/c_consumer" "$src/models/small-int8.pmt" "Jesus wept.")
echo "$out"
[[ -n "$out" ]]
