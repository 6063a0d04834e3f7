#!/usr/bin/env python3
"""Regenerates tests/fixtures/tiny_spm64.model, the runtime tests' tokenizer: a unigram
SentencePiece model with exactly 64 pieces (the tiny preset's vocabulary), PocketMT's special
ids (pad 0, unk 1, bos 2, eos 3) and identity normalization (no 250 KB NFKC table), trained on
made-up words over a small alphabet. Needs the `spm_train` program (Debian: sentencepiece).

    tests/runtime/make_tiny_spm64.py tests/fixtures/tiny_spm64.model
"""
import os
import random
import subprocess
import sys
import tempfile


def main() -> None:
    out = sys.argv[1]
    rng = random.Random(7)
    letters = "abcdefghiklmnoprstu"
    with tempfile.TemporaryDirectory() as tmp:
        text = os.path.join(tmp, "text.txt")
        with open(text, "w") as f:
            for _ in range(400):
                words = ["".join(rng.choice(letters) for _ in range(1 + rng.randrange(6)))
                         for _ in range(2 + rng.randrange(8))]
                f.write(" ".join(words) + "\n")
        prefix = os.path.join(tmp, "spm")
        subprocess.run(["spm_train", f"--input={text}", f"--model_prefix={prefix}", "--vocab_size=64",
                        "--model_type=unigram", "--character_coverage=1.0", "--pad_id=0", "--unk_id=1",
                        "--bos_id=2", "--eos_id=3", "--normalization_rule_name=identity",
                        "--minloglevel=2", "--num_threads=1"], check=True)
        os.replace(prefix + ".model", out)


if __name__ == "__main__":
    main()
