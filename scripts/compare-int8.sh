#!/usr/bin/env bash
# Exports a checkpoint to fp32 and int8 .pmt files and compares the two runtimes on the test
# split: greedy outputs identical line for line, and BLEU / chrF of each against the reference.
#   scripts/compare-int8.sh CHECKPOINT [OUT_DIR]    (default OUT_DIR: runs/compare-int8)
set -euo pipefail
cd "$(dirname "$0")/.."
ckpt=${1:?usage: scripts/compare-int8.sh CHECKPOINT [OUT_DIR]}
out=${2:-runs/compare-int8}
pair=data/web-rv
convert=build/converter/pmt-convert
translate=build/examples/translate
mkdir -p "$out"

for dtype in f32 int8; do
  echo "== export $dtype"
  "$convert" export --checkpoint "$ckpt" --spm "$pair/spm.model" --out "$out/model-$dtype.pmt" \
    --dtype "$dtype" --calib-data "$pair/train"
  echo "== translate $pair/test.en (greedy, $dtype)"
  "$translate" --model "$out/model-$dtype.pmt" --input "$pair/test.en" --beam 1 --batch 8 >"$out/test.greedy.$dtype.es"
done
"$translate" --model "$out/model-int8.pmt" --input "$pair/test.en" --beam 4 --batch 8 >"$out/test.beam4.int8.es"

total=$(wc -l <"$pair/test.en")
same=$(paste -d '\t' "$out/test.greedy.f32.es" "$out/test.greedy.int8.es" | awk -F'\t' '$1 == $2' | wc -l)
echo "== int8 greedy identical to fp32 greedy on $same of $total sentences ($(( 100 * same / total ))%)"
for f in greedy.f32 greedy.int8 beam4.int8; do
  echo "-- $f:"
  "$convert" score --hyp "$out/test.$f.es" --ref "$pair/test.es"
done
ls -l "$out"/model-*.pmt
