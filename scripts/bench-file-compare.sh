#!/usr/bin/env bash
# File-translation throughput, PocketMT beside PyTorch, in one run: pmt-bench --file --no-split
# on the int8 and fp32 model files and bench/torch_translate_file.py (fp32, dynamic int8 on the
# fastest quantized engine) on the checkpoint they were exported from, the same lines (one
# sentence each), greedy or beam (--beam; the peer's beam search follows the runtime's rules, so
# fp32 outputs agree where no digit is written: the peer has no number copying), no repetition
# block (the peer has none), interleaved per batch size, one
# process each so that every peak-memory figure is its own. Prints one markdown table.
#
#   scripts/bench-file-compare.sh [--input data/web-rv/test.en] [--lines N] [--threads 1[,2]]
#       [--batch 1,4,16,32] [--beam 1[,4]] [--checkpoint CKPT.safetensors] [--spm SPM.model]
#       [--int8 MODEL.pmt] [--fp32 MODEL-f32.pmt] [--out DIR] [--build-dir build]
#
# --lines N: the first N lines only (PyTorch at batch 1 is slow), stated in the table.
# Defaults: the general model (models/checkpoints/general-*, models/en-es.pmt); without --fp32
# the checkpoint is exported to DIR/model-f32.pmt. Needs python3-torch and python3-sentencepiece
# (Debian's /usr/bin/python3), the test split (build/converter/pmt-convert prepare). Exit 2 on
# bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

input=data/web-rv/test.en lines=0 threads=1 batches=1,4,16,32 beams=1 build_dir=build
checkpoint=models/checkpoints/general.safetensors spm=models/checkpoints/general-spm.model
int8=models/en-es.pmt fp32=""
out="runs/bench-file-compare-$(date +%Y%m%d-%H%M%S)"
while (($#)); do
  [[ $# -ge 2 ]] || usage
  case "$1" in
    --input) input=$2 ;;
    --lines) lines=$2 ;;
    --threads) threads=$2 ;;
    --batch) batches=$2 ;;
    --beam) beams=$2 ;;
    --checkpoint) checkpoint=$2 ;;
    --spm) spm=$2 ;;
    --int8) int8=$2 ;;
    --fp32) fp32=$2 ;;
    --out) out=$2 ;;
    --build-dir) build_dir=$2 ;;
    *) usage ;;
  esac
  shift 2
done
[[ "$threads" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ && "$batches" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ &&
   "$beams" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ &&
   "$lines" =~ ^[0-9]+$ ]] || usage
for f in "$input" "$checkpoint" "$spm" "$int8" ${fp32:+"$fp32"}; do
  [[ -r "$f" ]] || { echo "bench-file-compare: cannot read $f" >&2; exit 2; }
done

python=/usr/bin/python3  # Debian's interpreter, where python3-torch lives
"$python" -c "import torch, sentencepiece" 2>/dev/null || {
  echo "bench-file-compare: needs python3-torch and python3-sentencepiece for $python" >&2; exit 2; }
bench="$build_dir/bench/pmt-bench" convert="$build_dir/converter/pmt-convert"
[[ -x "$bench" && ( -n "$fp32" || -x "$convert" ) ]] || {
  echo "bench-file-compare: build first: cmake --build $build_dir --target pmt-bench pmt-convert" >&2; exit 2; }

mkdir -p "$out"
if [[ -z "$fp32" ]]; then
  fp32="$out/model-f32.pmt"
  "$convert" export --checkpoint "$checkpoint" --spm "$spm" --out "$fp32" --dtype f32 >/dev/null
fi
if ((lines > 0)); then
  head -n "$lines" "$input" > "$out/input.txt"
  input_note="first $lines lines of $input"
  input="$out/input.txt"
else
  input_note="$input"
fi
{
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs"
  echo "torch: $("$python" -c 'import torch; print(torch.__version__)')"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "input: $input_note ($(wc -l < "$input") lines)"
} | tee "$out/machine.txt"

pmt_args=(--file "$input" --no-split --no-repeat-ngram 0 --json)
for t in ${threads//,/ }; do
  for k in ${beams//,/ }; do
    for b in ${batches//,/ }; do
      echo "== $t thread(s), beam $k, batch $b" >&2
      run=t$t-k$k-b$b
      # Interleaved so that a change in the machine's load hits both engines alike.
      "$bench" -m "$int8" -t "$t" -b "$k" --batch "$b" "${pmt_args[@]}" > "$out/pocketmt-int8-$run.json"
      "$python" bench/torch_translate_file.py "$checkpoint" "$spm" "$input" --precision fp32 --threads "$t" \
        --beam "$k" --batch "$b" --output "$out/pytorch-fp32-$run.txt" --json "$out/pytorch-fp32-$run.json" >&2
      "$bench" -m "$fp32" -t "$t" -b "$k" --batch "$b" "${pmt_args[@]}" > "$out/pocketmt-fp32-$run.json"
      "$python" bench/torch_translate_file.py "$checkpoint" "$spm" "$input" --precision int8 --threads "$t" \
        --beam "$k" --batch "$b" --output "$out/pytorch-int8-$run.txt" --json "$out/pytorch-int8-$run.json" >&2
    done
  done
done

# One table from both engines' JSON (pmt-bench writes a list of rows, the peer one row).
"$python" - "$out"/pocketmt-*.json "$out"/pytorch-*.json <<'EOF' | tee "$out/table.md"
import json, sys
rows = []
for path in sys.argv[1:]:
    for r in (lambda j: j if isinstance(j, list) else [j])(json.load(open(path))):
        engine = "pytorch" if r.get("engine") == "pytorch" else "PocketMT"
        precision = r["precision"] + (f" ({r['qengine']})" if r.get("qengine") else "")
        rows.append((engine, precision, r["threads"], r["beam"], r["batch"], r["lines"], r["lines"] / r["seconds"],
                     r["target_tokens"] / r["seconds"], r["target_tokens"], r["peak_rss_mb"]))
rows.sort(key=lambda x: (x[2], x[3], x[0] != "PocketMT", x[1].split()[0], x[4]))
print("| engine | precision | threads | beam | batch | lines | lines/s | target tokens/s | target tokens | peak RSS MB |")
print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|")
for e, p, t, k, b, n, ls, ts, tt, rss in rows:
    print(f"| {e} | {p} | {t} | {k} | {b} | {n} | {ls:.1f} | {ts:,.0f} | {tt:,.0f} | {rss:.1f} |")
EOF
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); results in $out" >&2
