#!/usr/bin/env bash
# Scores a model on every evaluation set beside Apertium (rule-based, Debian apertium-eng-spa), in
# one run, with the project's scorer (BLEU and chrF2, sacreBLEU defaults), and checks the shared
# normalization end to end: curly vs keyboard quotes, ALL-CAPS input, numbers kept.
#   scripts/evaluate.sh --int8 MODEL.pmt [--fp32 MODEL.pmt] [--out DIR] [--no-apertium]
#   scripts/evaluate.sh --checkpoint CKPT --spm SPM [--calib PREFIX] [--alpha A] [--out DIR]
#     (exports both as the shipped file is: calibrated and shortlisted on PREFIX, default
#     data/en-es/train; length penalty A, else the runtime's default)
# Sets: data/en-es/test.{gettext,help,libreoffice,bible,everyday} (pmt-convert corpus; test.everyday
# is held out of the written everyday pairs, "everyday-written") and tests/data/everyday/everyday.
# Writes DIR/<set>.<system>.es and DIR/results.md (default DIR: runs/evaluate).
set -euo pipefail
cd "$(dirname "$0")/.."
convert=build/converter/pmt-convert
translate=build/tools/pmt-translate
int8="" fp32="" ckpt="" spm="" calib=data/en-es/train alpha=() out=runs/evaluate apertium=1
while (($#)); do
  case "$1" in
    --int8) int8=$2; shift 2 ;;
    --fp32) fp32=$2; shift 2 ;;
    --checkpoint) ckpt=$2; shift 2 ;;
    --spm) spm=$2; shift 2 ;;
    --calib) calib=$2; shift 2 ;;
    --alpha) alpha=(--alpha "$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-apertium) apertium=0; shift ;;
    *) echo "evaluate.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
if [[ -z "$ckpt" && ${#alpha[@]} -gt 0 ]]; then
  echo "evaluate.sh: --alpha is stored at export: give it with --checkpoint (a .pmt file carries its own)" >&2
  exit 2
fi
if [[ -n "$ckpt" ]]; then
  [[ -n "$spm" ]] || { echo "evaluate.sh: --checkpoint needs --spm" >&2; exit 2; }
  for dtype in f32 int8; do
    "$convert" export --checkpoint "$ckpt" --spm "$spm" --out "$out/model-$dtype.pmt" --dtype "$dtype" \
      --calib-data "$calib" --shortlist "$calib" "${alpha[@]}" | tail -n 1
  done
  fp32=$out/model-f32.pmt int8=$out/model-int8.pmt
fi
[[ -n "$int8" || -n "$fp32" ]] || { echo "evaluate.sh: give --int8, --fp32 or --checkpoint" >&2; exit 2; }
if ((apertium)) && ! command -v apertium >/dev/null; then
  echo "evaluate.sh: apertium not installed (apt-get install apertium-eng-spa), or pass --no-apertium" >&2
  exit 2
fi

identical=()
sets=(gettext:data/en-es/test.gettext help:data/en-es/test.help libreoffice:data/en-es/test.libreoffice
  bible:data/en-es/test.bible everyday:tests/data/everyday/everyday everyday-written:data/en-es/test.everyday)
# A line longer than the model's 256 positions is left empty (exit 2, named on stderr) and scores
# as a miss; any other failure stops the run.
run_translate() { "$translate" "$@" || (($? == 2)); }
score() { "$convert" score --hyp "$1" --ref "$2" | awk '/^BLEU/{b=$3} /^chrF2/{c=$3} END{printf "%s | %s", b, c}'; }
{
  echo "| set | lines | system | BLEU | chrF2 |"
  echo "|---|--:|---|--:|--:|"
} >"$out/results.md"
for entry in "${sets[@]}"; do
  name=${entry%%:*} prefix=${entry#*:}
  [[ -f "$prefix.en" ]] || { echo "evaluate.sh: $prefix.en missing (run pmt-convert corpus)" >&2; exit 2; }
  lines=$(wc -l <"$prefix.en")
  systems=()
  if ((apertium)); then
    apertium -u eng-spa <"$prefix.en" >"$out/$name.apertium.es"
    systems+=(apertium)
  fi
  for model in fp32:"$fp32" int8:"$int8"; do
    [[ -n "${model#*:}" ]] || continue
    for beam in 1 4; do
      sys=${model%%:*}-beam$beam
      run_translate --model "${model#*:}" --input "$prefix.en" --beam $beam --batch 8 --max-src-len 256 \
        >"$out/$name.$sys.es"
      systems+=("$sys")
    done
  done
  for sys in "${systems[@]}"; do
    echo "| $name | $lines | $sys | $(score "$out/$name.$sys.es" "$prefix.es") |" >>"$out/results.md"
  done
  if [[ -n "$fp32" && -n "$int8" ]]; then
    same=$(paste -d '\t' "$out/$name.fp32-beam1.es" "$out/$name.int8-beam1.es" | awk -F'\t' '$1 == $2' | wc -l)
    identical+=("$name: $same of $lines")
  fi
done

# Normalization end to end, on the everyday set with the int8 model (or the fp32 one).
model=${int8:-$fp32}
everyday=tests/data/everyday/everyday.en
sed "s/'/\xe2\x80\x99/g; s/\"\([^\"]*\)\"/\xe2\x80\x9c\1\xe2\x80\x9d/g" "$everyday" >"$out/everyday.curly.en"
"$translate" --model "$model" --input "$out/everyday.curly.en" --beam 4 >"$out/everyday.curly.es"
if [[ -n "$int8" ]]; then base=$out/everyday.int8-beam4.es; else base=$out/everyday.fp32-beam4.es; fi
same_quotes=$(paste -d '\t' "$base" "$out/everyday.curly.es" | awk -F'\t' '$1 == $2' | wc -l)
sed 's/.*/\U&/' "$everyday" >"$out/everyday.caps.en"
"$translate" --model "$model" --input "$out/everyday.caps.en" --beam 4 >"$out/everyday.caps.es"
same_caps=$(paste -d '\t' "$base" "$out/everyday.caps.es" | LC_ALL=C.UTF-8 awk -F'\t' 'tolower($1) == tolower($2)' | wc -l)
numbers=tests/data/numbers/numbers.en
"$translate" --model "$model" --input "$numbers" --beam 4 >"$out/numbers.es"
# A number is kept when each digit run of the source (separators between digits removed) is a
# digit run of the output, counted with multiplicity (tests/data/numbers/README.md).
kept=$(paste -d '\t' "$numbers" "$out/numbers.es" | awk -F'\t' '
  function runs(s, out,   n) {
    while (match(s, /[0-9][.,][0-9]/)) s = substr(s, 1, RSTART) substr(s, RSTART + 2)
    n = 0
    while (match(s, /[0-9]+/)) { out[++n] = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH) }
    return n
  }
  { split("", en); split("", es); ne = runs($1, en); nh = runs($2, es); ok = 1
    for (i = 1; i <= ne; i++) { found = 0; for (j = 1; j <= nh && !found; j++) if (en[i] == es[j]) { found = 1; es[j] = "" } if (!found) ok = 0 }
    kept += ok }
  END { print kept + 0 }')
{
  echo
  if ((${#identical[@]})); then
    echo "int8 greedy output identical to fp32 greedy: ${identical[*]}"
    echo
  fi
  echo "Normalization checks ($model, beam 4):"
  echo "- curly quotes and apostrophes vs keyboard ones: identical output on $same_quotes of $(wc -l <"$everyday") everyday sentences"
  echo "- ALL-CAPS input: same words as the normal-case output (case-insensitive) on $same_caps of $(wc -l <"$everyday")"
  echo "- numbers: every digit run kept on $kept of $(wc -l <"$numbers") sentences"
} >>"$out/results.md"
cat "$out/results.md"
