#!/usr/bin/env bash
# A 10,000-line document through `pmt-translate --input`: paragraphs of 1 to 5 verses, blank lines,
# lines with leading and trailing whitespace, and very long lines (60 verses; 8,000 characters
# without end punctuation). Checks that every line comes back (same line count, no empty
# translation of a non-empty line, exit 0) and reports time, sentences/s and peak RSS.
#   scripts/long-document.sh [MODEL] [OUT_DIR] [extra translate options]
#   (default models/small-int8.pmt, runs/long-document)
# Needs data/web-rv/{test,valid}.en (pmt-convert prepare) and a Release build in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-models/small-int8.pmt}
out=${2:-runs/long-document}
shift $(($# < 2 ? $# : 2))
mkdir -p "$out"
verses=$out/verses.en
cat data/web-rv/test.en data/web-rv/valid.en >"$verses"
doc=$out/document.en
awk -v lines=10000 '
  { v[n++] = $0 }
  function verse() { return v[k++ % n] }
  function join(m,  s, j) { s = verse(); for (j = 1; j < m; ++j) s = s " " verse(); return s }
  END {
    long = "and the"; while (length(long) < 8000) long = long " word " length(long)
    for (i = 0; i < lines; ++i) {
      if (i % 1000 == 500) print join(60)
      else if (i % 1000 == 999) print long
      else if (i % 5 == 0) print ""
      else if (i % 5 == 1) print verse()
      else if (i % 5 == 2) print join(5)
      else if (i % 5 == 3) print "   " verse() "  "
      else print join(2)
    }
  }' "$verses" >"$doc"

status=0
/usr/bin/time -f "%e s wall, %M KB peak RSS" -o "$out/time.txt" \
  build/tools/pmt-translate --model "$model" --input "$doc" --quiet "$@" >"$out/document.es" 2>"$out/stderr.txt" || status=$?
in_lines=$(wc -l <"$doc")
out_lines=$(wc -l <"$out/document.es")
lost=$(paste -d '\t' "$doc" "$out/document.es" | awk -F'\t' '$1 ~ /[^ ]/ && $2 !~ /[^ ]/' | wc -l)
echo "input: $in_lines lines, $(grep -c . "$doc") non-empty, $(wc -c <"$doc") bytes; model $model $*"
echo "output: $out_lines lines; non-empty input lines with an empty translation: $lost; exit status $status"
echo "warnings (sentences cut): $(grep -c 'warning' "$out/stderr.txt" || true); errors: $(grep -vc 'warning' "$out/stderr.txt" || true)"
echo "time: $(cat "$out/time.txt")"
[[ $status -eq 0 && $in_lines -eq $out_lines && $lost -eq 0 ]]
