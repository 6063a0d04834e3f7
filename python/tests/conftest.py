"""Shared fixtures of the pocketmt test suite (run by ctest as `python`, see python/CMakeLists.txt).

The C++ reference is the build's own programs, run on the same model, input and options:
``pmt-translate`` (PMT_TRANSLATE_BIN), ``pmt-convert`` (PMT_CONVERT_BIN) and Debian's
``spm_encode``/``spm_decode``. ctest passes their paths; run by hand, the suite looks in build/.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import pocketmt

SOURCE_DIR = Path(os.environ.get("PMT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BIBLE_MODEL = SOURCE_DIR / "models" / "small-int8.pmt"
DEFAULT_MODEL = SOURCE_DIR / "models" / "en-es.pmt"
DEFAULT_SPM = SOURCE_DIR / "models" / "checkpoints" / "general-spm.model"  # the vocabulary in en-es.pmt
# 48 lines of the Bible test split (python/tests/data/README.md): verses of one to four sentences.
BIBLE_SAMPLE = Path(__file__).resolve().parent / "data" / "bible_test_sample.en"


def program(env_var: str, default: str) -> str:
    """Path of a C++ reference program; the test is skipped, saying why, when it is not built."""
    path = os.environ.get(env_var) or str(SOURCE_DIR / default)
    if not os.access(path, os.X_OK):
        pytest.skip(f"the C++ reference {default} is not built ({env_var} unset, {path} missing)")
    return path


@pytest.fixture(scope="session")
def translate_bin() -> str:
    return program("PMT_TRANSLATE_BIN", "build/tools/pmt-translate")


@pytest.fixture(scope="session")
def convert_bin() -> str:
    return program("PMT_CONVERT_BIN", "build/converter/pmt-convert")


@pytest.fixture(scope="session")
def spm_tools() -> tuple:
    encode, decode = shutil.which("spm_encode"), shutil.which("spm_decode")
    if not encode or not decode:
        pytest.skip("Debian's sentencepiece tools (spm_encode, spm_decode) are not installed")
    return encode, decode


@pytest.fixture(scope="session")
def bible_lines() -> list:
    return BIBLE_SAMPLE.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="session")
def default_translator() -> pocketmt.Translator:
    return pocketmt.Translator(DEFAULT_MODEL)


def run_cli(translate_bin: str, model: Path, input_path: Path, *options: str) -> list:
    """The translate CLI's output lines for input_path (batch 4, 1 thread, as Translator's defaults)."""
    out = subprocess.run(
        [translate_bin, "--model", str(model), "--input", str(input_path), "--batch", "4", "--threads", "1",
         "--quiet", *options],
        check=True, capture_output=True)
    return out.stdout.decode("utf-8", "surrogateescape").split("\n")[:-1]
