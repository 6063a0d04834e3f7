#!/usr/bin/env bash
# Runs the command-line programs on hostile input, as an attacker or a careless user would:
# corrupted, truncated and special model files (FIFO, directory, device), bad arguments, odd text
# (invalid UTF-8, NUL bytes, a huge line, empty lines, CR LF, no final newline) and a full disk
# (/dev/full). Every case must end within a timeout, by no signal; a failure must exit non-zero
# with a message on stderr; a text input must give exactly one output line per input line.
#   scripts/hostile-inputs.sh [BUILD_DIR]   (default build/; needs pmt-translate and pmt-convert, and
#   checks pmt-bench when built)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
translate=$build/tools/pmt-translate
convert=$build/converter/pmt-convert
bench=$build/bench/pmt-bench
model=models/small-int8.pmt
for f in "$translate" "$convert" "$model"; do
  [[ -e $f ]] || { echo "hostile-inputs: $f is missing (build first)" >&2; exit 2; }
done
limit=${HOSTILE_TIMEOUT:-60}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
passed=0 failed=0

# run NAME EXPECT INPUT_FILE CMD...: EXPECT is ok (exit 0), fail (non-zero exit and a message),
# or lines (exit 0 or 2, a message if 2, and as many output lines as the input has).
run() {
  local name=$1 expect=$2 input=$3
  shift 3
  timeout -k 5 "$limit" "$@" <"$input" >"$scratch/out" 2>"$scratch/err"
  local rc=$? why=""
  if ((rc == 124 || rc == 137)); then
    why="no exit within ${limit} s"
  elif ((rc > 128)); then
    why="killed by signal $((rc - 128))"
  elif grep -q -e "runtime error:" -e "AddressSanitizer" "$scratch/err"; then
    why="sanitizer report"
  else
    case $expect in
      ok) ((rc == 0)) || why="exit $rc, expected 0" ;;
      fail) if ((rc == 0)); then why="exit 0, expected a failure"; elif [[ ! -s $scratch/err ]]; then why="exit $rc without a message"; fi ;;
      lines)
        local want got
        want=$(awk 'END { print NR }' "$input")
        got=$(awk 'END { print NR }' "$scratch/out")
        if ((rc != 0 && rc != 2)); then why="exit $rc"
        elif ((rc == 2)) && [[ ! -s $scratch/err ]]; then why="exit 2 without a message"
        elif ((want != got)); then why="$got output lines for $want input lines"
        fi ;;
    esac
  fi
  if [[ -z $why ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name: $why"
    head -c 600 "$scratch/err" | sed 's/^/    stderr: /'
  fi
}

one=$scratch/one.en
echo "In the beginning God created the heaven and the earth." >"$one"
empty=$scratch/empty
: >"$empty"

# Model files: missing, empty, special, damaged. Each through translate and inspect.
bad=$scratch/models
mkdir -p "$bad/dir.pmt"
mkfifo "$bad/fifo.pmt"
: >"$bad/empty.pmt"
echo "not a model" >"$bad/text.pmt"
head -c 100000 /dev/urandom >"$bad/random.pmt"
size=$(stat -c %s "$model")
for cut in 7 8 64 4096 $((size / 2)) $((size - 1)); do head -c "$cut" "$model" >"$bad/cut-$cut.pmt"; done
for at in 0 5 100 1000 $((size / 3)) $((size - 3)); do
  cp "$model" "$bad/flip-$at.pmt"
  printf '\xa5' | dd of="$bad/flip-$at.pmt" bs=1 seek="$at" conv=notrunc status=none
done
{ cat "$model"; head -c 4096 /dev/zero; } >"$bad/padded.pmt"
models=("$bad"/*.pmt /dev/null /dev/zero "$bad/missing.pmt")
for m in "${models[@]}"; do
  run "translate --model $(basename "$m")" fail "$one" "$translate" --model "$m"
  run "inspect $(basename "$m")" fail "$empty" "$convert" inspect "$m"
done
ln -s "$(realpath "$model")" "$bad/link.pmt"
run "translate through a symbolic link" lines "$one" "$translate" --model "$bad/link.pmt" --beam 1

# Bad arguments: each refused with a message.
for args in "--beam 0" "--beam -1" "--beam x" "--beam 99999999999" "--threads 0" "--threads 100000" \
  "--batch 0" "--batch 5000" "--max-len 0" "--max-len 100000" "--max-src-len 1" "--max-src-len 2147483647" \
  "--alpha -1" "--alpha nan" "--alpha inf" "--int8-passes 2" "--no-repeat-ngram -1" "--no-repeat-ngram 100000" \
  "--bogus" "--beam" "--input"; do
  # shellcheck disable=SC2086
  run "translate $args" fail "$one" "$translate" --model "$model" $args
done
run "translate without --model, no models/en-es.pmt here" fail "$one" sh -c "cd '$scratch' && '$PWD/$translate'"
run "pmt-convert without a command" fail "$empty" "$convert"
[[ -x $bench ]] && run "pmt-bench --bogus" fail "$empty" "$bench" --bogus
for cmd in "$translate" "$convert" "$convert inspect" "$convert train" $([[ -x $bench ]] && echo "$bench"); do
  # shellcheck disable=SC2086
  run "$(basename "${cmd%% *}")${cmd#*pmt-convert} --version" ok "$empty" $cmd --version
done
run "inspect --json before the file" ok "$empty" "$convert" inspect --json "$model"
run "pmt-convert inspect --bogus" fail "$empty" "$convert" inspect --bogus "$model"
run "pmt-convert bogus command" fail "$empty" "$convert" bogus
run "inspect without a file" fail "$empty" "$convert" inspect
run "export without arguments" fail "$empty" "$convert" export
run "train --steps zero" fail "$empty" "$convert" train --steps zero
run "score without files" fail "$empty" "$convert" score
run "translate --threads 64 (capped, with a warning)" lines "$one" "$translate" --model "$model" --threads 64 --beam 1
grep -q "warning: 64 threads" "$scratch/err" || { failed=$((failed + 1)); echo "FAIL --threads 64: no warning"; }

# Inputs: a directory, a missing file, a FIFO with a writer (a pipe is a fine input).
run "translate --input <directory>" fail "$empty" "$translate" --model "$model" --input "$scratch"
run "translate --input <missing>" fail "$empty" "$translate" --model "$model" --input "$scratch/missing.en"
mkfifo "$scratch/input.fifo"
(cat "$one" >"$scratch/input.fifo" &)
run "translate --input <FIFO with a writer>" lines "$one" "$translate" --model "$model" --beam 1 --input "$scratch/input.fifo"

# Odd text: one output line per input line, whatever the line holds.
text=$scratch/text
mkdir -p "$text"
printf 'good line\n\xff\xfe invalid UTF-8\nover\xc0\xaflong\nhalf \xe2\x82\n' >"$text/invalid-utf8.en"
printf 'a NUL\0 inside\n\0\nafter\n' >"$text/nul.en"
printf '\n\n\nJesus wept.\n\n' >"$text/empty-lines.en"
printf 'windows line\r\nanother\r\n\r\n' >"$text/crlf.en"
printf 'first\nno final newline' >"$text/no-final-newline.en"
printf '\r\n' >"$text/cr-only.en"
{ head -c 10000 /dev/zero | tr '\0' 'a'; echo; echo "short"; } >"$text/huge-line.en"
{ for i in $(seq 300); do echo "And God said, Let there be light: and there was light $i."; done; } >"$text/many.en"
head -c 20000 /dev/urandom >"$text/random.en"
for f in "$text"/*.en; do
  run "translate $(basename "$f") (batch 1)" lines "$f" "$translate" --model "$model" --beam 1 --max-len 8
  run "translate $(basename "$f") (batch 7, beam 2)" lines "$f" "$translate" --model "$model" --beam 2 --batch 7 --max-len 8
done
run "translate --stream on odd bytes" lines "$text/invalid-utf8.en" "$translate" --model "$model" --stream --beam 1

# A full disk: every program that writes must say so and fail.
full_run() {
  local name=$1
  shift
  timeout -k 5 "$limit" "$@" >/dev/full 2>"$scratch/err" </dev/null
  local rc=$?
  if ((rc == 0 || rc > 128)) || [[ ! -s $scratch/err ]]; then
    failed=$((failed + 1))
    echo "FAIL $name > /dev/full: exit $rc"
  else
    passed=$((passed + 1))
  fi
}
full_run "translate" "$translate" --model "$model" --beam 1 --input "$text/many.en"
full_run "translate --stream" "$translate" --model "$model" --beam 1 --stream --input "$one"
full_run "inspect" "$convert" inspect "$model"
full_run "inspect --json" "$convert" inspect --json "$model"
full_run "pmt-convert --help" "$convert" --help
full_run "translate --help" "$translate" --help
full_run "translate --version" "$translate" --version
[[ -x $bench ]] && full_run "pmt-bench --help" "$bench" --help
# The exporter must not replace what is not a file (a FIFO stands in for a device).
run "export --out <FIFO>" fail "$empty" "$convert" export --checkpoint "$bad/missing.safetensors" --spm x --dtype f32 --out "$bad/fifo.pmt"
[[ -p $bad/fifo.pmt ]] || { failed=$((failed + 1)); echo "FAIL export replaced a FIFO"; }
run "export --checkpoint <FIFO>" fail "$empty" "$convert" export --checkpoint "$bad/fifo.pmt" --spm x --dtype f32 --out "$scratch/x.pmt"

echo "hostile-inputs: $passed passed, $failed failed"
((failed == 0))
