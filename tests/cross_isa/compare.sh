#!/usr/bin/env bash
# Issue 13: a translation does not depend on the instruction set. The first 16 sentences of the
# everyday set and 8 of the numbers set, translated with both shipped int8 models, greedy and
# beam 4 (the default), by two pmt-translate builds (this machine's, and a
# cross build's under qemu): the outputs must be byte-identical.
#   tests/cross_isa/compare.sh SOURCE_DIR REFERENCE_TRANSLATE -- TRANSLATE_COMMAND...
set -euo pipefail
src=$1 reference=$2
[[ ${3:-} == -- ]] || { echo "usage: $0 SOURCE_DIR REFERENCE_TRANSLATE -- TRANSLATE_COMMAND..." >&2; exit 2; }
shift 3
input=$(mktemp)
trap 'rm -f "$input"' EXIT
{ head -n 16 "$src/tests/data/everyday/everyday.en"; head -n 8 "$src/tests/data/numbers/numbers.en"; } >"$input"

status=0
for model in en-es small-int8; do
  for options in "--beam 1" "--beam 4"; do
    # shellcheck disable=SC2086  # options are words
    want=$("$reference" -q -m "$src/models/$model.pmt" $options <"$input")
    # shellcheck disable=SC2086
    got=$("$@" -q -m "$src/models/$model.pmt" $options <"$input")
    if [[ $want == "$got" ]]; then
      echo "identical: $model.pmt $options ($(wc -l <"$input") lines)"
    else
      echo "DIFFERENT: $model.pmt $options (< reference, > target)"
      diff <(echo "$want") <(echo "$got") || true
      status=1
    fi
  done
done
exit $status
