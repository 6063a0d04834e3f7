#!/usr/bin/env bash
# Runs the Google Benchmark suites (JSON into the output folder, the console table on screen)
# and pmt-bench on the same model files, then checks that the two agree:
#   bench_linear      XNNPACK linear layers vs the measured per-core peak and cache streaming rate
#   bench_kernels     attention, layer norm, softmax, top-k, (de)quantize, embedding (GB/s)
#   bench_translator  encoder, decoder step per position, whole sentences (needs the models)
#   pmt-bench         the user tool, greedy and beam 4, threads 1 and 2
#
#   scripts/bench-suites.sh [--fp32 MODEL-f32.pmt --int8 MODEL-int8.pmt] [--clock wall|cpu] [--out DIR]
#       [--build-dir build]
#
# Without model files only the first two suites run. --clock cpu: pmt-bench times with process
# CPU time and the agreement check uses the suite's CPU time (for a busy machine). Exit 2 on bad
# usage.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

fp32="" int8="" clock=wall build_dir=build
out="runs/bench-suites-$(date +%Y%m%d-%H%M%S)"
while (($#)); do
  [[ $# -ge 2 ]] || usage
  case "$1" in
    --fp32) fp32=$2 ;;
    --int8) int8=$2 ;;
    --clock) clock=$2 ;;
    --out) out=$2 ;;
    --build-dir) build_dir=$2 ;;
    *) usage ;;
  esac
  shift 2
done
[[ -z "$fp32" && -z "$int8" ]] || [[ -n "$fp32" && -n "$int8" ]] || usage
[[ "$clock" =~ ^(wall|cpu)$ ]] || usage
for f in $fp32 $int8; do [[ -r "$f" ]] || { echo "bench-suites: cannot read $f" >&2; exit 2; }; done

echo "== building the benchmarks in $build_dir/"
cmake -S . -B "$build_dir" -DPMT_BUILD_BENCH=ON >/dev/null
cmake --build "$build_dir" --target bench_linear bench_kernels bench_translator pmt-bench -j"$(nproc)"
mkdir -p "$out"
lscpu > "$out/lscpu.txt"

suite() {  # suite NAME: console to the terminal, JSON to $out/NAME.json
  echo "== $1"
  # Medians of 5 repetitions: robust to the other processes of a shared machine.
  "$build_dir/bench/$1" --benchmark_out="$out/$1.json" --benchmark_out_format=json \
    --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
}
suite bench_linear
suite bench_kernels
if [[ -n "$int8" ]]; then
  PMT_BENCH_FP32=$fp32 PMT_BENCH_INT8=$int8 suite bench_translator
  echo "== pmt-bench"
  "$build_dir/bench/pmt-bench" -m "$int8" -m "$fp32" -s 8,32,128 -n 32,128 -b 1,4 -t 1,2 -r 10 \
    --clock "$clock" --json > "$out/pmt-bench.json"
  "$build_dir/bench/pmt-bench" -m "$int8" -m "$fp32" -s 32 -n 128 -b 1,4 -t 1,2 -r 10 --clock "$clock" |
    tee "$out/pmt-bench.md"
  echo "== agreement: pmt-bench vs bench_translator"
  /usr/bin/python3 bench/agreement.py --gbench "$out/bench_translator.json" --pmt-bench "$out/pmt-bench.json" |
    tee "$out/agreement.md"
fi
echo "== results in $out/"
