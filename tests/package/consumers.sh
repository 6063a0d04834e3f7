#!/usr/bin/env bash
# The installed package, as a user gets it: `cmake --install BUILD --prefix P` into a scratch
# prefix, then
#  - the tools (pmt-convert, pmt-translate, pmt-bench) run from P/bin: --help, --version, and
#    pmt-translate finds the installed default model with no --model;
#  - the man pages (when help2man was found) read with man -l;
#  - examples/c_api_example.c in a plain-C CMake project (libm and the C++ runtime must come with
#    the exported target), examples/translate_minimal.cc in a C++ CMake project, and both built
#    with pkg-config alone; each translates one sentence with the shipped model.
#   tests/package/consumers.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix
model=$src/models/small-int8.pmt
cmake --install "$build" --prefix "$prefix" >/dev/null
step() { echo "== $*"; }

step "installed tools"
for tool in pmt-convert pmt-translate pmt-bench; do
  [[ -x $prefix/bin/$tool ]] || { echo "missing $prefix/bin/$tool" >&2; exit 1; }
  "$prefix/bin/$tool" --help >/dev/null
done
[[ -f $prefix/share/pocketmt/en-es.pmt ]]
out=$(cd "$scratch" && echo "Jesus wept." | "$prefix/bin/pmt-translate" --beam 1 --quiet)
echo "pmt-translate (installed model): $out"
[[ -n $out ]]

if [[ -d $prefix/share/man/man1 ]]; then
  step "man pages"
  for tool in pmt-convert pmt-translate pmt-bench; do
    page=$prefix/share/man/man1/$tool.1
    [[ -s $page ]] || { echo "missing $page" >&2; exit 1; }
    MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q "$tool" || { echo "man -l $page shows nothing" >&2; exit 1; }
  done
fi

# A downstream CMake project (tests/package/<name>/) built against the installed prefix, run once.
cmake_consumer() {
  local name=$1 example=$2
  cmake -S "$src/tests/package/$name" -B "$scratch/$name" -DCMAKE_PREFIX_PATH="$prefix" \
    -DPMT_EXAMPLE_SOURCE="$src/examples/$example" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$scratch/$name" >/dev/null
  out=$("$scratch/$name/$name" "$model" "Jesus wept.")
  echo "$out"
  [[ -n $out ]]
}

step "C, CMake"
cmake_consumer c_consumer c_api_example.c

step "C++, CMake"
cmake_consumer cxx_consumer translate_minimal.cc

step "pkg-config (C and C++)"
export PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name pocketmt.pc)")
pkg-config --modversion pocketmt
# shellcheck disable=SC2046
cc -o "$scratch/c_pc" "$src/examples/c_api_example.c" $(pkg-config --cflags --libs --static pocketmt)
# shellcheck disable=SC2046
c++ -std=c++20 -o "$scratch/cxx_pc" "$src/examples/translate_minimal.cc" $(pkg-config --cflags --libs --static pocketmt)
out=$("$scratch/c_pc" "$model" "Jesus wept.")
echo "$out"
[[ -n $out ]]
out=$("$scratch/cxx_pc" "$model" "Jesus wept.")
echo "$out"
[[ -n $out ]]
echo "consumers: all passed"
