#!/usr/bin/env bash
# PocketMT against PyTorch on the same weights, in one script run so the ratio is fair: the
# same machine state, thread count, source length and number of generated tokens (batch 1,
# greedy). Runs pmt-bench on the fp32 and int8 model files and bench/torch_decode_bench.py (fp32
# and dynamic int8, KV-cached incremental decoder) on the checkpoint they were exported from,
# interleaved, one process each so that every peak-memory figure is its own. PyTorch's int8 runs
# on every quantized engine this torch has (onednn and qnnpack on x86), as the fastest counts.
# Then prints the table with the speed-up, and writes results.json, results.csv and latency.png.
#
#   scripts/bench-compare.sh --checkpoint CKPT.safetensors --fp32 MODEL-f32.pmt --int8 MODEL-int8.pmt \
#       [--threads 1,2] [--src-len 32] [--gen-len 128] [--repeats 10] [--clock wall|cpu] [--out DIR]
#       [--build-dir build]
#
# --clock cpu times with process CPU time instead of wall time: on a machine busy with other
# work it gives the uncontended latency of both engines (use it with --threads 1).
# Needs python3-torch and python3-matplotlib (scripts/install-deps.sh --torch). Exit 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

checkpoint="" fp32="" int8="" threads="1" src_len=32 gen_len=128 repeats=10 clock=wall build_dir=build
out="runs/bench-compare-$(date +%Y%m%d-%H%M%S)"
while (($#)); do
  [[ $# -ge 2 ]] || usage
  case "$1" in
    --checkpoint) checkpoint=$2 ;;
    --fp32) fp32=$2 ;;
    --int8) int8=$2 ;;
    --threads) threads=$2 ;;
    --src-len) src_len=$2 ;;
    --gen-len) gen_len=$2 ;;
    --repeats) repeats=$2 ;;
    --clock) clock=$2 ;;
    --out) out=$2 ;;
    --build-dir) build_dir=$2 ;;
    *) usage ;;
  esac
  shift 2
done
for f in "$checkpoint" "$fp32" "$int8"; do
  [[ -n "$f" ]] || usage
  [[ -r "$f" ]] || { echo "bench-compare: cannot read $f" >&2; exit 2; }
done
[[ "$threads" =~ ^[0-9]+(,[0-9]+)*$ && "$clock" =~ ^(wall|cpu)$ ]] || usage

python=/usr/bin/python3  # Debian's interpreter, where python3-torch lives
"$python" -c "import torch, matplotlib" 2>/dev/null || {
  echo "bench-compare: needs python3-torch and python3-matplotlib (scripts/install-deps.sh --torch)" >&2; exit 2; }

bench="$build_dir/bench/pmt-bench"
if [[ ! -x "$bench" ]]; then
  echo "== building pmt-bench in $build_dir/"
  cmake -S . -B "$build_dir" >/dev/null
  cmake --build "$build_dir" --target pmt-bench -j"$(nproc)"
fi

mkdir -p "$out"
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
{
  echo "cpu: $cpu, $(nproc) CPUs"
  echo "simd: $(grep -owE 'fma|avx2|avx512[a-z0-9_]*|asimd[a-z]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
  echo "torch: $("$python" -c 'import torch; print(torch.__version__)')"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "clock: $clock"
} > "$out/machine.txt"
cat "$out/machine.txt"

engines=$("$python" -c 'import torch; print(" ".join(e for e in torch.backends.quantized.supported_engines if e != "none"))')
torch_args=(--src-len "$src_len" --gen-len "$gen_len" --repeats "$repeats" --clock "$clock")
for t in ${threads//,/ }; do
  echo "== $t thread(s)"
  # Interleaved so that a change in the machine's load hits both engines alike.
  "$bench" -m "$int8" -t "$t" -s "$src_len" -n "$gen_len" -r "$repeats" --clock "$clock" --json \
    > "$out/pocketmt-int8-t$t.json"
  "$python" bench/torch_decode_bench.py "$checkpoint" --precision fp32 --threads "$t" "${torch_args[@]}" \
    --check --json "$out/pytorch-fp32-t$t.json"
  "$bench" -m "$fp32" -t "$t" -s "$src_len" -n "$gen_len" -r "$repeats" --clock "$clock" --json \
    > "$out/pocketmt-fp32-t$t.json"
  for e in $engines; do
    "$python" bench/torch_decode_bench.py "$checkpoint" --precision int8 --qengine "$e" --threads "$t" \
      "${torch_args[@]}" --json "$out/pytorch-int8-$e-t$t.json"
  done
done

echo "== results ($out)"
"$python" bench/compare_report.py "$out"/pocketmt-*.json "$out"/pytorch-*.json \
  --json "$out/results.json" --csv "$out/results.csv" | tee "$out/table.md"
"$python" bench/plot_latency.py "$out/results.json" -o "$out/latency.png" \
  --title "Per-token latency ($clock clock), batch 1, greedy, source $src_len tokens - $cpu"
