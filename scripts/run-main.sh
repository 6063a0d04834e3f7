#!/usr/bin/env bash
# The main job on a fresh Debian bookworm machine: install what is missing, build, rebuild the
# corpus from the SWORD modules, and translate English into Spanish with the shipped model.
#   scripts/run-main.sh [sentences.en]   (default: examples/sample.en)
set -euo pipefail
cd "$(dirname "$0")/.."
input=${1:-examples/sample.en}
model=models/small-int8.pmt
convert=build/converter/pmt-convert
translate=build/examples/translate
pair=data/web-rv

echo "== [1/5] dependencies (scripts/install-deps.sh)"
scripts/install-deps.sh
echo "== [2/5] configure + build (Release, build/)"
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" --target pmt-convert translate
echo "== [3/5] corpus: WEB <-> Reina-Valera 1909 pairs from the SWORD modules -> $pair/"
"$convert" prepare --out "$pair"
echo "== [4/5] model: $model"
"$convert" inspect "$model" | sed -n "1,12p"
echo "== [5/5] translate"
start=$(date +%s%N)
"$translate" --model "$model" --input "$pair/test.en" --beam 4 >"$pair/test.hyp.es"
end=$(date +%s%N)
lines=$(wc -l <"$pair/test.en")
echo "-- test split: $lines verses translated in $(( (end - start) / 1000000 )) ms (beam 4, 1 thread)"
score=$("$convert" score --hyp "$pair/test.hyp.es" --ref "$pair/test.es")
echo "$score"
echo "-- sample sentences ($input):"
paste -d '\n' "$input" <("$translate" --model "$model" --input "$input" --beam 4) | sed 'n;s/^/   -> /'
echo "== summary: corpus $pair ($(wc -l <"$pair/train.en") train / $(wc -l <"$pair/valid.en") valid / $lines test pairs);" \
  "model $model ($(stat -c %s "$model") bytes, int8); test split $(echo "$score" | head -n 1 | cut -d' ' -f1-3)," \
  "$(( (end - start) / 1000000 )) ms for $lines verses"
