#!/usr/bin/env python3
"""Python overhead per call: pocketmt.Translator.translate against the C++ API it wraps
(TextTranslator::translate, timed by build/bench/bench_text_call), batch 1 and batch 32.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--build build] [--model M]

Both sides load the model with the package's defaults (max_batch 4, beam 4, alpha 0.6,
no_repeat_ngram 4, 1 thread), translate the first B lines of the Bible test sample, and report
the median CPU time of the process per call over the repeats (the first call untimed): CPU time
is not inflated by other processes' load. C++ and Python alternate for --rounds rounds and the
median of the rounds' medians is reported, so that a slow spell of the machine does not land on
one side only. Two kinds of call:
  sentences  real verses: what a user pays, overhead = Python - C++ (noise included);
  empty      B empty texts, which run no model: the fixed cost of the call itself.
Prints a Markdown table (docs/python.md).
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pocketmt

ROOT = Path(__file__).resolve().parent.parent


def python_median(translator, texts, repeats):
    translator.translate(texts)  # warm-up, untimed, as on the C++ side
    seconds = []
    for _ in range(repeats):
        start = time.process_time()
        translator.translate(texts)
        seconds.append(time.process_time() - start)
    return statistics.median(seconds)


def cpp_median(binary, model, lines_file, batch, repeats, empty):
    args = [str(binary), str(model), str(lines_file), str(batch), str(repeats)] + (["--empty"] if empty else [])
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)["median_s"]


def duration(seconds):
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.2f} us"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", type=Path, default=ROOT / "build", help="the CMake build holding bench/bench_text_call")
    p.add_argument("--model", type=Path, default=ROOT / "models" / "en-es.pmt")
    p.add_argument("--lines", type=Path, default=ROOT / "python" / "tests" / "data" / "bible_test_sample.en")
    p.add_argument("--repeats", type=int, default=7, help="timed calls per round with sentences (odd: a true median)")
    p.add_argument("--rounds", type=int, default=3, help="alternations of C++ and Python per row")
    p.add_argument("--empty-repeats", type=int, default=2001, help="timed calls per round with empty texts")
    a = p.parse_args()
    binary = a.build / "bench" / "bench_text_call"
    if not binary.exists():
        sys.exit(f"{binary} is missing: build the bench target (cmake --build {a.build} --target bench_text_call)")

    lines = a.lines.read_text(encoding="utf-8").splitlines()
    translator = pocketmt.Translator(a.model)
    print(f"model {a.model.name}, {a.lines.name}, pocketmt {pocketmt.__version__}, Python {sys.version.split()[0]}")
    print("| call | batch | C++ median | Python median | overhead per call | overhead |")
    print("|---|--:|--:|--:|--:|--:|")
    for empty, repeats in ((False, a.repeats), (True, a.empty_repeats)):
        for batch in (1, 32):
            texts = [""] * batch if empty else lines[:batch]
            cpp_rounds, py_rounds = [], []
            for _ in range(a.rounds):
                cpp_rounds.append(cpp_median(binary, a.model, a.lines, batch, repeats, empty))
                py_rounds.append(python_median(translator, texts, repeats))
            cpp, py = statistics.median(cpp_rounds), statistics.median(py_rounds)
            print(f"| {'empty' if empty else 'sentences'} | {batch} | {duration(cpp)} | {duration(py)} "
                  f"| {(py - cpp) * 1e6:+.2f} us | {(py - cpp) / cpp * 100:+.1f}% |")


if __name__ == "__main__":
    main()
