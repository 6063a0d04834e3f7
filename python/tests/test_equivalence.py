"""Python results against the C++ API: the translate CLI (tools/pmt_translate.cc, TextTranslator
over pmt::Translator) run on the same model, input lines and options must give the same bytes;
model_info against `pmt-convert inspect --json`; encode/decode against Debian's spm_encode /
spm_decode on the model's vocabulary."""

import array
import json
import subprocess
import sys

import numpy as np
import pytest

import pocketmt
from conftest import BIBLE_MODEL, BIBLE_SAMPLE, DEFAULT_MODEL, DEFAULT_SPM, SOURCE_DIR, run_cli

# (CLI options, the same as Python keyword arguments)
SEARCHES = [
    ([], {}),  # the defaults of both: beam 4, the model's alpha, no_repeat_ngram 4
    (["--beam", "1", "--no-repeat-ngram", "0"], {"beam_size": 1, "no_repeat_ngram": 0}),
    (["--beam", "2", "--alpha", "1.0", "--max-len", "20"], {"beam_size": 2, "length_penalty": 1.0, "max_length": 20}),
    (["--no-shortlist"], {"shortlist": False}),  # every logit, where the model has a shortlist
    (["--no-copy-numbers"], {"copy_numbers": False}),  # digits left to the model
    (["--letter-penalty", "2.5"], {"letter_penalty": 2.5}),
]


@pytest.fixture(scope="module", params=[BIBLE_MODEL, DEFAULT_MODEL], ids=["small-int8", "en-es"])
def model(request):
    return request.param


@pytest.fixture(scope="module")
def translator(model):
    # max_tgt_len 178 (the default for max_src_len 128) holds --max-len 20 too, as the CLI's does.
    return pocketmt.Translator(model)


@pytest.mark.parametrize("cli_options,kwargs", SEARCHES, ids=["beam4", "greedy", "beam2-maxlen", "no-shortlist", "no-copy-numbers", "letter-penalty"])
def test_translate_equals_cli(translate_bin, model, translator, bible_lines, cli_options, kwargs):
    expected = run_cli(translate_bin, model, BIBLE_SAMPLE, *cli_options)
    assert len(expected) == len(bible_lines) == 48
    assert translator.translate(bible_lines, **kwargs) == expected


def test_translate_iterable_and_bytes_equal_cli(translate_bin, model, translator, bible_lines):
    expected = run_cli(translate_bin, model, BIBLE_SAMPLE)
    # Batches of 5 texts per runtime call, from a generator of bytes.
    got = list(translator.translate_iterable((line.encode() for line in bible_lines), batch_size=5))
    assert got == expected


def test_example_script_equals_cli(translate_bin, model):
    expected = run_cli(translate_bin, model, BIBLE_SAMPLE, "--beam", "2")
    out = subprocess.run([sys.executable, str(SOURCE_DIR / "examples" / "translate.py"), "--model", str(model),
                          "--beam", "2"], stdin=BIBLE_SAMPLE.open("rb"), check=True, capture_output=True)
    assert out.stdout.decode().split("\n")[:-1] == expected


def test_stream_equals_cli(translate_bin, model, translator, bible_lines):
    expected = run_cli(translate_bin, model, BIBLE_SAMPLE, "--stream")
    streamed = ["".join(translator.stream(line)) for line in bible_lines[:12]]
    assert streamed == expected[:12]
    assert any(line.count(". ") for line in bible_lines[:12])  # some of them are paragraphs


def test_no_split_and_ids_equal_cli(translate_bin, model, translator, bible_lines):
    """--no-split makes each line one sentence: the sentence-level id path must match it."""
    expected = run_cli(translate_bin, model, BIBLE_SAMPLE, "--no-split")
    assert translator.translate(bible_lines, split=False) == expected
    ids = [translator.encode(line) for line in bible_lines]
    outputs = translator.translate_ids([np.array(s, dtype=np.int32) for s in ids])
    assert [translator.decode(o) for o in outputs] == expected


def test_id_containers(translate_bin, model, translator, bible_lines):
    """Every form of token ids gives the CLI's output: int32 arrays and array.array("i") (read in
    place), lists, int64 arrays and strided views (copied)."""
    lines = bible_lines[:6]
    expected = run_cli(translate_bin, model, BIBLE_SAMPLE, "--no-split")[:6]
    ids = [translator.encode(line) for line in lines]
    width = max(len(s) for s in ids)
    padded = np.zeros((len(ids), 2 * width), dtype=np.int32)  # each sentence at every other column
    for row, s in enumerate(ids):
        padded[row, :2 * len(s):2] = s
    forms = {
        "list": ids,
        "int32": [np.asarray(s, dtype=np.int32) for s in ids],
        "array.array": [array.array("i", s) for s in ids],
        "int64": [np.asarray(s, dtype=np.int64) for s in ids],
        "strided": [padded[row, :2 * len(s):2] for row, s in enumerate(ids)],
    }
    for name, sources in forms.items():
        assert [translator.decode(o) for o in translator.translate_ids(sources)] == expected, name


def test_scores_and_teacher_forcing(model, translator, bible_lines):
    """The search's log-probability of its output equals the teacher-forced one (two paths of
    the runtime) when both score the whole vocabulary; with the shortlist the search normalizes
    over the candidates only, which can only raise it; and a paragraph's score is the sum of its
    sentences' scores. The letter penalty is off: with it the search's log_prob includes it."""
    ids = [translator.encode(line) for line in bible_lines[:10]]  # three runtime calls of max_batch 4
    results = translator.translate_ids(ids, return_scores=True, shortlist=False, letter_penalty=0)
    forced = translator.score(ids, [tokens for tokens, _ in results])
    assert forced == pytest.approx([log_prob for _, log_prob in results], rel=1e-4, abs=1e-3)
    shortlisted = translator.translate_ids(ids, return_scores=True, letter_penalty=0)
    forced = translator.score(ids, [tokens for tokens, _ in shortlisted])
    for full, (_, restricted) in zip(forced, shortlisted):
        assert restricted >= full - 1e-3
    sentences = ["In the beginning God created the heavens and the earth.", "God saw the light, and saw that it was good."]
    whole = translator.translate([" ".join(sentences)], return_scores=True)[0]
    parts = translator.translate(sentences, return_scores=True)
    assert whole[0] == " ".join(text for text, _ in parts)
    assert whole[1] == pytest.approx(sum(score for _, score in parts), rel=1e-5)


def test_model_info_equals_inspect(convert_bin, model, translator):
    inspect = json.loads(subprocess.run([convert_bin, "inspect", str(model), "--json"], check=True,
                                        capture_output=True).stdout)
    info = translator.model_info
    assert info["quantized"] == inspect["quantized"]
    assert info["vocab_size"] == inspect["config"]["vocab_size"] == inspect["tokenizer"]["pieces"]
    for key, value in inspect["config"].items():
        assert info["config"][key] == pytest.approx(value), key
    assert info["limits"] == {"max_batch": 4, "max_src_len": 128, "max_tgt_len": 178, "max_beam": 4,
                              "threads": 1}
    assert info["arena_bytes"] > 0
    assert info["path"] == str(model)
    stored = inspect["metadata"].get("decode.alpha")
    assert info["default_length_penalty"] == pytest.approx(float(stored) if stored else 0.6)
    stored = inspect["metadata"].get("decode.letter_penalty")
    assert info["default_letter_penalty"] == pytest.approx(float(stored) if stored else 0.0)
    assert info["shortlist"] == (inspect["shortlist"] is not None)


def test_encode_decode_equal_sentencepiece(spm_tools, default_translator, bible_lines):
    spm_encode, spm_decode = spm_tools
    text = "\n".join(bible_lines) + "\n"
    out = subprocess.run([spm_encode, "--model", str(DEFAULT_SPM), "--output_format=id"], input=text.encode(),
                         check=True, capture_output=True).stdout.decode()
    expected = [[int(i) for i in line.split()] for line in out.splitlines()]
    assert [default_translator.encode(line) for line in bible_lines] == expected
    decoded = subprocess.run([spm_decode, "--model", str(DEFAULT_SPM), "--input_format=id"], input=out.encode(),
                             check=True, capture_output=True).stdout.decode().splitlines()
    assert [default_translator.decode(ids) for ids in expected] == decoded
