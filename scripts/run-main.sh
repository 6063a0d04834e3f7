#!/usr/bin/env bash
# The main job on a fresh Debian bookworm machine: install what is missing, build, and translate
# English into Spanish with the default model, models/en-es.pmt; then score it on the everyday
# test set (tests/data/everyday) beside Apertium, the rule-based translator Debian ships.
#   scripts/run-main.sh [sentences.en]   (default: examples/sample.en)
set -euo pipefail
cd "$(dirname "$0")/.."
input=${1:-examples/sample.en}
model=models/en-es.pmt
# The tools by name, from an install prefix on PATH, as the README's set-up has them.
prefix=${PMT_PREFIX:-$PWD/build/install}
convert=pmt-convert
translate=pmt-translate
everyday=tests/data/everyday/everyday

echo "== [1/4] dependencies (scripts/install-deps.sh)"
scripts/install-deps.sh
echo "== [2/4] configure + build (Release, build/), install into $prefix"
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" --target pmt-convert pmt-translate pmt-bench pmt_man_pages
cmake --install build --prefix "$prefix" >/dev/null
export PATH=$prefix/bin:$PATH
echo "== [3/4] model: $model"
"$convert" inspect "$model" | sed -n "1,12p"
echo "== [4/4] translate ($input, beam 4, 1 thread)"
paste -d '\n' "$input" <("$translate" --model "$model" --input "$input") | sed 'n;s/^/   -> /'
mkdir -p runs/main
start=$(date +%s%N)
"$translate" --model "$model" --input "$everyday.en" >runs/main/everyday.es
end=$(date +%s%N)
lines=$(wc -l <"$everyday.en")
apertium -u eng-spa <"$everyday.en" >runs/main/everyday.apertium.es
echo "-- everyday test set ($lines sentences, references written for the project), $(( (end - start) / 1000000 )) ms:"
echo "   PocketMT: $("$convert" score --hyp runs/main/everyday.es --ref "$everyday.es" | tr '\n' ' ')"
echo "   Apertium: $("$convert" score --hyp runs/main/everyday.apertium.es --ref "$everyday.es" | tr '\n' ' ')"
