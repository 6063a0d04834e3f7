#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang 14, ASan + UBSan, in build-fuzz/ and runs
# each for a time budget; the same build is the project's clang build (every target, -Werror) and
# its sanitizer run of the whole suite (CI's only one: scripts/run-tests.sh --sanitize is GCC's).
#   scripts/fuzz.sh [SECONDS]    seconds per target (default 60)
#   FUZZ_TARGETS="model_file c_api" scripts/fuzz.sh 30    only these targets
# A target's corpus (tests/fuzz/corpus/<name>/) is read, first run through as a regression test
# (ctest, with the rest of the suite), and new inputs libFuzzer finds go to build-fuzz/corpus/<name>/,
# not into the checkout.
# A crash, leak, timeout or sanitizer report stops the script with a non-zero exit; the input is
# left as build-fuzz/crash-* (add it to the corpus once fixed: it becomes a regression test).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
targets=(${FUZZ_TARGETS:-model_file translate text c_api safetensors corpus tokenizer})
jobs=$(nproc)

scripts/install-deps.sh
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
echo "== [fuzz 1/3] clang-14 build in build-fuzz/ (ASan + UBSan + libFuzzer coverage)"
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMT_FUZZ=ON "${launcher[@]}" >/dev/null
cmake --build build-fuzz -j"$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "== [fuzz 2/3] the whole suite under ASan + UBSan, every committed corpus input once included"
ctest --test-dir build-fuzz --output-on-failure -j"$jobs"
echo "== [fuzz 3/3] ${seconds} s per target: ${targets[*]}"
total=0
for t in "${targets[@]}"; do
  work=build-fuzz/corpus/$t
  mkdir -p "$work"
  log=build-fuzz/fuzz_$t.log
  # -timeout: one input taking longer than 10 s counts as a hang; -rss_limit_mb: as an OOM.
  if ! (cd build-fuzz && "./tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 "../$work" "../tests/fuzz/corpus/$t") >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: $t FAILED (log: $log)" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  total=$((total + runs))
  echo "fuzz: $t: ${runs} executions in ${seconds} s, no crash"
done
echo "fuzz: ${total} executions in all, no crash"
