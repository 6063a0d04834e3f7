#!/usr/bin/env python3
"""translate.py: the translate CLI's main use from Python, one output line per input line.

    python3 examples/translate.py --model models/en-es.pmt < input.en > output.es
    echo "Save your changes. Then close the program." | python3 examples/translate.py --stream

Needs the pocketmt package (README "From Python": pip install ./python, or
PYTHONPATH=build/python after a CMake build). Each line is a paragraph: split into sentences and
put back with its own whitespace. Lines are read and translated 256 at a time
(Translator.translate_iterable), so memory stays bounded on any input. A line that cannot be
translated stops the program with the runtime's message and exit code 2.
"""

import argparse
import sys

import pocketmt


def main() -> int:
    p = argparse.ArgumentParser(description="Translate stdin line by line with a PocketMT model.")
    p.add_argument("--model", default="models/en-es.pmt", help="the .pmt model (default %(default)s)")
    p.add_argument("--beam", type=int, default=4, help="beam size, 1 = greedy (default 4)")
    p.add_argument("--threads", type=int, default=1, help="threads (default 1)")
    p.add_argument("--stream", action="store_true", help="write each token as soon as it is final")
    a = p.parse_args()

    try:
        translator = pocketmt.Translator(a.model, threads=a.threads, max_beam=a.beam)
        # Bytes: a line that is not UTF-8 reaches the runtime, which names the bad byte.
        lines = (line.rstrip(b"\n") for line in sys.stdin.buffer)
        if a.stream:
            for line in lines:
                for piece in translator.stream(line, beam_size=a.beam):
                    sys.stdout.write(piece)
                    sys.stdout.flush()
                sys.stdout.write("\n")
        else:
            for translation in translator.translate_iterable(lines, batch_size=256, beam_size=a.beam):
                sys.stdout.write(translation + "\n")
    except pocketmt.Error as e:  # a missing or bad model, a line that is not UTF-8, a bad option
        print(f"translate.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
