#!/bin/sh
# Writes a help2man include file with a COMMANDS section: the --help of every command of
# TOOL (the names listed under "Subcommands:" in TOOL --help), for the tool's man page.
#   cmake/man-commands.sh TOOL OUTPUT
set -eu
tool=$1 out=$2
{
  echo "[COMMANDS]"
  "$tool" --help | awk '/^Subcommands:/ { f = 1; next } f && NF { print $1 }' | while read -r command; do
    echo ".SS $command"
    echo ".nf"
    "$tool" "$command" --help | sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/"
    echo ".fi"
  done
} >"$out"
