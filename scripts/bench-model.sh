#!/usr/bin/env bash
# Speed and memory of one model, int8 beside fp32, in one script run (issue 12's tables): per
# token and per sentence on real text with and without the vocabulary shortlist, the encoder on
# 32-token random sources, where loading goes, and the peak RSS of pmt-translate on a whole file.
#   scripts/bench-model.sh --int8 MODEL.pmt --fp32 MODEL-f32.pmt --text FILE [--lines 100]
#       [--out DIR] [--build-dir build]
# Writes DIR/machine.txt, tokens.md, encoder.md, load.md, rss.md (default DIR:
# runs/bench-model-DATE). Run it on a quiet machine: times are wall clock. Exit 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

int8="" fp32="" text="" lines=100 build_dir=build
out="runs/bench-model-$(date +%Y%m%d-%H%M%S)"
while (($#)); do
  [[ $# -ge 2 ]] || usage
  case "$1" in
    --int8) int8=$2 ;;
    --fp32) fp32=$2 ;;
    --text) text=$2 ;;
    --lines) lines=$2 ;;
    --out) out=$2 ;;
    --build-dir) build_dir=$2 ;;
    *) usage ;;
  esac
  shift 2
done
for f in "$int8" "$fp32" "$text"; do
  [[ -n "$f" ]] || usage
  [[ -r "$f" ]] || { echo "bench-model: cannot read $f" >&2; exit 2; }
done
[[ "$lines" =~ ^[1-9][0-9]*$ ]] || usage
bench="$build_dir/bench/pmt-bench" translate="$build_dir/tools/pmt-translate"
for tool in "$bench" "$translate"; do
  [[ -x "$tool" ]] || { echo "bench-model: build $tool first (cmake --build $build_dir)" >&2; exit 2; }
done
command -v /usr/bin/time >/dev/null || { echo "bench-model: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

mkdir -p "$out"
{
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs"
  echo "simd: $(grep -owE 'fma|avx2|avx512[a-z0-9_]*|amx[a-z0-9_]*|asimd[a-z]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "models: $int8, $fp32; text: $text (first $lines lines for tokens.md)"
} > "$out/machine.txt"
cat "$out/machine.txt"

head -n "$lines" "$text" > "$out/sentences.txt"
echo "== per token, real sentences"
"$bench" -m "$int8" -m "$fp32" -i "$out/sentences.txt" -b 1,4 --shortlist 0,1 -r 1 | tee "$out/tokens.md"
echo "== encoder, 32-token random sources"
"$bench" -m "$int8" -m "$fp32" -s 32 -n 2 -r 50 -t 1,2 | tee "$out/encoder.md"
echo "== load"
"$bench" -m "$int8" -m "$fp32" --loads 15 -t 1,2 | tee "$out/load.md"
echo "== peak RSS of pmt-translate --input $text (CLI defaults: batch 4, beam 4)"
{
  echo "| model | options | peak RSS MB |"
  echo "|---|---|--:|"
  for model in "$int8" "$fp32"; do
    for options in "" "--batch 1 -b 1"; do
      # shellcheck disable=SC2086  # the options are words
      kb=$(/usr/bin/time -f %M "$translate" -m "$model" -q $options --input "$text" 2>&1 >/dev/null | tail -n 1)
      echo "| $model | ${options:-defaults} | $(awk -v kb="$kb" 'BEGIN { printf "%.1f", kb * 1024 / 1e6 }') |"
    done
  done
} | tee "$out/rss.md"
echo "== written to $out"
