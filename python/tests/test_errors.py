"""Bad input raises: the runtime's errors as pocketmt.Error subclasses carrying its message (the
same message pmt-translate prints for the same file or line), wrong Python types as
TypeError before the runtime is reached."""

import subprocess

import pytest

import pocketmt
from conftest import DEFAULT_MODEL


def cli_message(translate_bin, *args, stdin=b"") -> str:
    """What the CLI prints on stderr for the same input, without its "pmt-translate: " prefix."""
    out = subprocess.run([translate_bin, *args], input=stdin, capture_output=True)
    assert out.returncode == 2
    return out.stderr.decode().strip().removeprefix("pmt-translate: ")


def test_missing_file(translate_bin, tmp_path):
    path = tmp_path / "missing.pmt"
    with pytest.raises(pocketmt.ModelNotFoundError) as info:
        pocketmt.Translator(path)
    assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, pocketmt.Error)
    assert info.value.code == 2
    assert str(info.value) == cli_message(translate_bin, "--model", str(path))


@pytest.mark.parametrize("damage", ["flipped byte", "truncated", "empty", "not a model"])
def test_corrupt_file(translate_bin, tmp_path, damage):
    data = bytearray(DEFAULT_MODEL.read_bytes())
    if damage == "flipped byte":
        data[len(data) // 2] ^= 0xFF  # inside the weights: only the CRC can tell
    elif damage == "truncated":
        del data[len(data) // 3:]
    elif damage == "empty":
        data = bytearray()
    else:
        data = bytearray(b"Hello, world.\n" * 100)
    path = tmp_path / "bad.pmt"
    path.write_bytes(bytes(data))
    with pytest.raises(pocketmt.BadModelError) as info:
        pocketmt.Translator(path)
    assert info.value.code == 3
    assert str(info.value) == cli_message(translate_bin, "--model", str(path))


def test_invalid_utf8(translate_bin, default_translator):
    bad = b"Save your \xc3( work."
    expected = cli_message(translate_bin, "--model", str(DEFAULT_MODEL), stdin=b"Fine.\n" + bad + b"\n")
    assert expected.startswith("line 2: ")  # the CLI numbers lines from 1, Python texts from 0
    for texts in ([b"Fine.", bad], ["Fine.", bad.decode("utf-8", "surrogateescape")]):
        with pytest.raises(pocketmt.InvalidUtf8Error) as info:
            default_translator.translate(texts)
        assert isinstance(info.value, ValueError)
        assert str(info.value) == "text 1: " + expected.removeprefix("line 2: ")
    with pytest.raises(pocketmt.InvalidUtf8Error):
        list(default_translator.stream(bad))
    with pytest.raises(pocketmt.InvalidUtf8Error):
        default_translator.translate(["lone surrogate \ud800 here"])


def test_wrong_types(default_translator):
    t = default_translator
    cases = [
        lambda: t.translate("Hello."),              # one str, not a list of them
        lambda: t.translate(b"Hello."),
        lambda: t.translate(None),
        lambda: t.translate([1, 2]),
        lambda: t.translate([["Hello."]]),
        lambda: t.translate(["Hello."], beam_size="4"),
        lambda: t.translate(["Hello."], length_penalty="0.6"),
        lambda: t.translate(["Hello."], letter_penalty="1"),
        lambda: t.stream(42).__next__(),
        lambda: t.translate_ids("1 2 3"),
        lambda: t.translate_ids([[1.5, 2]]),
        lambda: t.translate_ids([["1"]]),
        lambda: t.translate_ids([b"\x01\x02"]),
        lambda: t.translate_ids([None]),
        lambda: t.score([[5]], 7),
        lambda: t.encode(5),
        lambda: t.decode("abc"),
        lambda: t.decode([None]),
        lambda: pocketmt.Translator(12),
        lambda: pocketmt.Translator(DEFAULT_MODEL, max_batch="16"),
    ]
    for i, case in enumerate(cases):
        with pytest.raises(TypeError):
            case()
            pytest.fail(f"case {i} did not raise")


def test_values_out_of_range(default_translator):
    t = default_translator
    with pytest.raises(pocketmt.InvalidArgumentError, match=r"beam = 9 is outside \[1, 4\]"):
        t.translate(["Hello."], beam_size=9)
    with pytest.raises(pocketmt.InvalidArgumentError):
        t.translate(["Hello."], length_penalty=-1.0)
    with pytest.raises(pocketmt.InvalidArgumentError, match="letter_penalty = -1.0 must be >= 0"):
        t.translate(["Hello."], letter_penalty=-1.0)
    with pytest.raises(pocketmt.InvalidArgumentError, match=r"letter_penalty = 101 is outside \[0, 100\]"):
        t.translate_ids([[5, 6]], letter_penalty=101.0)
    with pytest.raises(pocketmt.InvalidArgumentError):
        t.translate(["Hello."], max_length=1000)  # above max_tgt_len
    vocab_size = t.model_info["vocab_size"]
    with pytest.raises(pocketmt.InvalidArgumentError, match=f"sequence 1: token id {vocab_size}"):
        t.translate_ids([[5, 6], [vocab_size]])
    with pytest.raises(pocketmt.InvalidArgumentError):
        t.translate_ids([[-1]])
    with pytest.raises(OverflowError):
        t.translate_ids([[2 ** 40]])
    with pytest.raises(pocketmt.LimitExceededError, match="text 0: "):
        t.translate(["word " * 200], split=False)
    with pytest.raises(pocketmt.LimitExceededError):
        t.translate_ids([[5] * 200])
    with pytest.raises(ValueError, match="2 sources but 1 targets"):
        t.score([[5], [6]], [[7]])
    with pytest.raises(ValueError):
        next(t.translate_iterable(["Hello."], batch_size=0))
    # Two-pass int8 was removed in 0.2.0: its option is an error, not silently ignored.
    with pytest.raises(TypeError, match="int8_passes"):
        pocketmt.Translator(DEFAULT_MODEL, int8_passes=2)
    with pytest.raises(pocketmt.InvalidArgumentError):
        pocketmt.Translator(DEFAULT_MODEL, max_batch=0)


def test_translator_still_works_after_errors(default_translator):
    """An error leaves the Translator usable, and the long text that split=False rejects is
    cut and translated with splitting on."""
    assert default_translator.translate(["word " * 200])[0]
    assert default_translator.translate([""]) == [""]
    assert default_translator.translate([]) == []
