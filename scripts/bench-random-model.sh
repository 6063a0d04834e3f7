#!/usr/bin/env bash
# A randomly initialised model of a preset, exported fp32 and int8 like a trained one, so the
# latency and memory benchmarks run before (or without) training: speed depends on the shapes,
# not on the weights' values (except where a trained model stops at EOS earlier).
# Uses the prepared corpus for the tokenizer and the int8 calibration sentences, making it
# (pmt-convert prepare, vocab) when it is missing.
#
#   scripts/bench-random-model.sh [--preset small] [--data data/web-rv] [--out runs/random-small]
#       [--build-dir build]
#
# Writes OUT.safetensors (checkpoint), OUT-f32.pmt and OUT-int8.pmt. Exit 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

preset=small data=data/web-rv out="" build_dir=build
while (($#)); do
  [[ $# -ge 2 ]] || usage
  case "$1" in
    --preset) preset=$2 ;;
    --data) data=$2 ;;
    --out) out=$2 ;;
    --build-dir) build_dir=$2 ;;
    *) usage ;;
  esac
  shift 2
done
out=${out:-runs/random-$preset}
convert="$build_dir/converter/pmt-convert"

cmake -S . -B "$build_dir" >/dev/null
cmake --build "$build_dir" --target pmt-convert bench_random_checkpoint -j"$(nproc)"
[[ -r "$data/train.en" ]] || "$convert" prepare --out "$data"
[[ -r "$data/spm.model" ]] || "$convert" vocab --data "$data"

mkdir -p "$(dirname "$out")"
"$build_dir/bench/bench_random_checkpoint" --preset "$preset" "$out.safetensors"
"$convert" export --checkpoint "$out.safetensors" --spm "$data/spm.model" --dtype f32 --out "$out-f32.pmt"
"$convert" export --checkpoint "$out.safetensors" --spm "$data/spm.model" --dtype int8 \
  --calib-data "$data/train" --out "$out-int8.pmt"
