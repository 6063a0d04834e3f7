#!/usr/bin/env bash
# Paragraph translation measured: the Bible test split joined 5 verses to a line, translated as
# paragraphs (split into sentences, translated, joined back), scored against the joined
# references beside the same verses translated one per line; greedy and beam 4. Also counts
# rejected lines and looping output (a line where one word 3-gram occurs 3 times or more).
#   scripts/joined-verses.sh [MODEL] [OUT_DIR]   (default models/small-int8.pmt, runs/joined)
# Needs data/web-rv/test.{en,es} (pmt-convert prepare) and a Release build in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-models/small-int8.pmt}
out=${2:-runs/joined}
convert=build/converter/pmt-convert
translate=build/tools/pmt-translate
test=data/web-rv/test
[[ -f $test.en ]] || { echo "joined-verses.sh: $test.en missing (run build/converter/pmt-convert prepare)" >&2; exit 2; }
mkdir -p "$out"

join5() { paste -d ' ' - - - - - <"$1" | sed 's/ *$//'; }
join5 "$test.en" >"$out/joined.en"
join5 "$test.es" >"$out/joined.es"

# Lines where some word 3-gram occurs at least 3 times: the signature of a decoding loop.
loops() {
  awk '{ delete seen; hit = 0
         for (i = 1; i + 2 <= NF; ++i) if (++seen[$i " " $(i+1) " " $(i+2)] >= 3) hit = 1
         n += hit } END { print n + 0 }' "$1"
}

echo "| decoding | input | lines | rejected | looping lines | BLEU | chrF2 |"
echo "|---|---|--:|--:|--:|--:|--:|"
echo "| (reference) | one verse a line | $(wc -l <"$test.es") | | $(loops "$test.es") | | |"
echo "| (reference) | 5 verses a line | $(wc -l <"$out/joined.es") | | $(loops "$out/joined.es") | | |"
for beam in 1 4; do
  "$translate" --model "$model" --beam "$beam" --quiet <"$test.en" >"$out/verses.beam$beam.es" 2>"$out/verses.beam$beam.log" || true
  join5 "$out/verses.beam$beam.es" >"$out/verses-joined.beam$beam.es"
  "$translate" --model "$model" --beam "$beam" --quiet <"$out/joined.en" >"$out/joined.beam$beam.es" 2>"$out/joined.beam$beam.log" || true
  for kind in verses joined; do
    hyp=$out/$kind.beam$beam.es
    ref=$test.es
    [[ $kind == joined ]] && ref=$out/joined.es
    rejected=$(grep -c '^translate: line' "$out/$kind.beam$beam.log" || true)
    scores=$("$convert" score --hyp "$hyp" --ref "$ref" | awk '{ printf "%s | ", $3 }')
    label="one verse a line"
    [[ $kind == joined ]] && label="5 verses a line"
    echo "| $([[ $beam == 1 ]] && echo greedy || echo "beam $beam") | $label | $(wc -l <"$hyp") | $rejected | $(loops "$hyp") | ${scores% | } |"
  done
done
