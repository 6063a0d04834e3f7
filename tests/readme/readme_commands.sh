#!/usr/bin/env bash
# Issue 16: the commands of README.md and docs/*.md work as typed after the README's set-up.
# Takes the ```sh blocks, runs the set-up's install lines as written (with HOME in a scratch
# folder, so ~/.local is scratch; `build` is BUILD_DIR), then every cheap command: pmt-translate,
# pmt-convert inspect/--help/--version, pmt-bench --help/--version, man, and echo ... | pmt-translate.
# Commands run in a scratch view of the checkout (every top-level entry linked), where the input
# files they name (input.en, document.txt) exist; the rest (training, corpus building, scripts)
# is listed as skipped.
#   tests/readme/readme_commands.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HOME=$scratch/home MANPAGER=cat PAGER=cat MANWIDTH=80
unset MANPATH
mkdir -p "$HOME" "$scratch/work"
work=$scratch/work
for entry in "$src"/*; do ln -s "$entry" "$work/$(basename "$entry")"; done
rm -f "$work/build"
ln -s "$build" "$work/build"
cd "$work"
printf 'The file could not be opened.\nSave your changes.\n' >input.en
cp "$src/examples/sample.en" document.txt

# The sh blocks, continuation lines joined.
commands=$(for f in "$src/README.md" "$src"/docs/*.md; do
  awk '/^```(sh|bash)[ ]*$/ { f = 1; next } /^```/ { f = 0 } f' "$f"
done | sed -e ':a' -e '/\\$/N; s/\\\n[ ]*/ /; ta')

ran=0 skipped=0 failed=0
while IFS= read -r line; do
  trimmed=${line#"${line%%[! ]*}"}
  [[ -z $trimmed || $trimmed == \#* ]] && continue
  case $line in
    "cmake --install build "* | "export PATH="*)
      # The set-up: run in this shell, as typed, so PATH carries over.
      echo "setup: $line"
      eval "$line" >/dev/null
      continue ;;
    pmt-translate* | "pmt-convert inspect"* | "pmt-convert --help"* | "pmt-convert --version"* | \
      pmt-convert\ [a-z]*\ --help* | "pmt-bench --help"* | "pmt-bench --version"* | "man pmt-"* | \
      echo*\|\ pmt-translate*) ;;
    *)
      skipped=$((skipped + 1))
      echo "skip:  $line"
      continue ;;
  esac
  ran=$((ran + 1))
  if timeout 300 bash -c "set -o pipefail; $line" >"$scratch/out" 2>"$scratch/err" </dev/null; then
    echo "ok:    $line"
  else
    failed=$((failed + 1))
    echo "FAIL:  $line (exit $?)"
    head -c 600 "$scratch/err" | sed 's/^/       stderr: /'
  fi
done <<<"$commands"

echo "readme commands: $ran run, $failed failed, $skipped skipped"
((failed == 0 && ran >= 8))
