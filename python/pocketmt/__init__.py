"""PocketMT from Python: the int8 Transformer translation runtime, with an API close to
CTranslate2's ``Translator``.

    import pocketmt
    tr = pocketmt.Translator("models/en-es.pmt")
    print(tr.translate(["The file could not be opened."]))

Texts are paragraphs, translated as the ``translate`` CLI does: split into sentences, translated
in length-sorted batches of ``max_batch`` and put back with their own whitespace and line breaks.
Every call releases the GIL while the runtime works: Python threads translate in parallel on
separate ``Translator`` objects (calls on one ``Translator`` run one at a time). Errors are
``pocketmt.Error`` subclasses carrying the runtime's message (``docs/python.md``).
"""

from __future__ import annotations

import os
import queue
import threading
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from ._native import (
    BackendError,
    BadModelError,
    Error,
    InvalidArgumentError,
    InvalidUtf8Error,
    LimitExceededError,
    ModelNotFoundError,
    OutOfMemoryError,
)
from . import _native

__all__ = [
    "Translator",
    "Error",
    "InvalidArgumentError",
    "ModelNotFoundError",
    "BadModelError",
    "LimitExceededError",
    "InvalidUtf8Error",
    "OutOfMemoryError",
    "BackendError",
]
__version__: str = _native.__version__

Text = Union[str, bytes]
#: Token ids of one sentence: a list of int, or a 1-D integer array (numpy.int32 is read in place).
Ids = Sequence[int]


class _Failure:
    """An exception raised by the streaming worker thread, handed to the consuming generator."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


_END = object()  # the streaming worker is done


def _setting(name: str, value: Optional[float]) -> float:
    """A runtime setting whose negative value asks for the model's own: None does here."""
    if value is None:
        return -1.0
    if not value >= 0:
        raise InvalidArgumentError(f"{name} = {value} must be >= 0 (None: the model's own)")
    return value


class Translator:
    """A loaded ``.pmt`` model. Loading makes every allocation (the model mapping, XNNPACK's
    packed weights, one arena sized by the limits below); translating then reuses them.

    Args:
        model_path: the ``.pmt`` file (str or path-like).
        threads: threads per call, the caller's included (capped at the CPUs available).
        max_batch: sentences the runtime translates together (a call may hold any number of
            texts: their sentences go in batches of this size). Sizes the arena.
        max_src_len: source tokens per sentence, EOS included; 0 = min(128, the model's
            max_len). Longer sentences are cut at clauses, then by tokens.
        max_tgt_len: output tokens per sentence, EOS included; 0 = min(max_src_len + 50, the
            model's max_len). The upper bound of ``max_length``.
        max_beam: the largest ``beam_size`` a call may ask for.

    Raises:
        ModelNotFoundError: (a FileNotFoundError) the file does not exist or cannot be read.
        BadModelError: the file is not a valid PocketMT model.
        InvalidArgumentError: (a ValueError) a limit out of range.
    """

    def __init__(
        self,
        model_path: Union[str, "os.PathLike[str]"],
        threads: int = 1,
        max_batch: int = 4,
        max_src_len: int = 0,
        max_tgt_len: int = 0,
        max_beam: int = 4,
    ) -> None:
        self.model_path = os.fspath(model_path)
        self._impl = _native.Translator(self.model_path, max_batch, max_src_len, max_tgt_len, max_beam, threads)

    def translate(
        self,
        texts: Iterable[Text],
        beam_size: int = 4,
        length_penalty: Optional[float] = None,
        max_length: int = 0,
        no_repeat_ngram: int = 4,
        return_scores: bool = False,
        split: bool = True,
        language: str = "en",
        shortlist: bool = True,
        copy_numbers: bool = True,
        letter_penalty: Optional[float] = None,
    ) -> Union[List[str], List[Tuple[str, float]]]:
        """Translates texts (str, or bytes holding UTF-8), one result per text, in order.

        Args:
            texts: the texts; each one a paragraph, a line or a whole document (its line breaks
                are kept). Use ``translate_iterable`` for inputs too large to hold at once.
            beam_size: 1 = greedy; up to ``max_beam``.
            length_penalty: alpha of Wu et al. 2016 (hypotheses ranked by
                log_prob / ((5 + n) / 6) ** alpha); 0 ranks by log-probability alone; None:
                the model's own (``model_info["default_length_penalty"]``).
            max_length: most output tokens per sentence, EOS included, at most ``max_tgt_len``;
                0 = 2 x source tokens + 10 (a bound relative to the source).
            no_repeat_ngram: n > 0 forbids any output n-gram from occurring twice in a sentence
                (n-grams with digits exempt); 0 = off. 4 as in the CLI.
            return_scores: also return each text's log-probability: the sum over its sentences
                of the natural-log probability of their output tokens, EOS included, less
                ``letter_penalty`` per letter piece.
            split: False = each text is one sentence, never cut (a text longer than
                ``max_src_len`` raises LimitExceededError).
            language: ISO 639-1 code of the source language, for the sentence splitter's
                abbreviations ("en", "es").
            shortlist: where the model has a vocabulary shortlist (``model_info["shortlist"]``),
                score only its candidates for the batch; False scores every token.
            copy_numbers: the numbers of each output are exactly its source's (each as often,
                with separators where the source has them, "," and "." interchangeable); the
                model places them. False leaves digits to the model.
            letter_penalty: subtracted from the log-probability of every one-letter piece
                inside a word, so that the model spells unknown words letter by letter less
                ("arrrepepsa"); above 0 no piece inside a word makes three of one letter in
                a row, and no piece with a letter at either end (a syllable or a whole word)
                comes a third time in a row; 0 = off, at most 100; None: the model's own
                (``model_info["default_letter_penalty"]``).

        Returns:
            list of str, or of (str, float) with ``return_scores``.

        Raises:
            TypeError: ``texts`` is a single str/bytes, or holds something else.
            InvalidUtf8Error: (a ValueError) a text is not valid UTF-8 (bytes, or a str holding
                surrogate escapes); the message names the text's index.
            InvalidArgumentError: (a ValueError) a search option out of range.
        """
        return self._impl.translate_texts(
            texts, beam_size, _setting("length_penalty", length_penalty), max_length, no_repeat_ngram, shortlist,
            copy_numbers, _setting("letter_penalty", letter_penalty), split, language, return_scores,
        )

    def translate_iterable(
        self, iterable: Iterable[Text], batch_size: int = 64, **options
    ) -> Iterator[Union[str, Tuple[str, float]]]:
        """Translates texts from any iterable (a file object, a generator) ``batch_size`` texts
        per runtime call, yielding the results in order: memory stays bounded by the batch.

        ``options`` are those of ``translate``. Raises as ``translate`` does, when the batch
        holding the faulty text is reached.
        """
        if isinstance(iterable, (str, bytes)):
            raise TypeError("translate_iterable takes an iterable of texts, not a single " + type(iterable).__name__)
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, not {batch_size!r}")
        batch: List[Text] = []
        for text in iterable:
            batch.append(text)
            if len(batch) == batch_size:
                yield from self.translate(batch, **options)
                batch = []
        if batch:
            yield from self.translate(batch, **options)

    def stream(
        self,
        text: Text,
        beam_size: int = 4,
        length_penalty: Optional[float] = None,
        max_length: int = 0,
        no_repeat_ngram: int = 4,
        split: bool = True,
        language: str = "en",
        shortlist: bool = True,
        copy_numbers: bool = True,
        letter_penalty: Optional[float] = None,
    ) -> Iterator[str]:
        """Yields the translation of one text piece by piece as the decoder decides it: each
        token's text (a word-initial token starts with a space) and the whitespace between
        sentences. The pieces joined equal ``translate([text])[0]`` except for normalization
        details only the full result has right. Options as for ``translate``.

        The runtime works on a thread of its own meanwhile; closing the generator early waits
        for the translation in progress to finish (the runtime cannot be interrupted).
        """
        pieces: "queue.SimpleQueue[object]" = queue.SimpleQueue()

        def work() -> None:
            try:
                self._impl.stream_text(
                    text,
                    beam_size,
                    _setting("length_penalty", length_penalty),
                    max_length,
                    no_repeat_ngram,
                    shortlist,
                    copy_numbers,
                    _setting("letter_penalty", letter_penalty),
                    split,
                    language,
                    pieces.put,
                )
            except BaseException as exc:  # handed to the consumer, raised there
                pieces.put(_Failure(exc))
            else:
                pieces.put(_END)

        worker = threading.Thread(target=work, name="pocketmt-stream", daemon=True)
        worker.start()
        try:
            while True:
                item = pieces.get()
                if item is _END:
                    return
                if isinstance(item, _Failure):
                    raise item.exc
                yield item  # type: ignore[misc]
        finally:
            worker.join()

    def translate_ids(
        self,
        sources: Iterable[Ids],
        beam_size: int = 4,
        length_penalty: Optional[float] = None,
        max_length: int = 0,
        no_repeat_ngram: int = 4,
        return_scores: bool = False,
        shortlist: bool = True,
        copy_numbers: bool = True,
        letter_penalty: Optional[float] = None,
    ) -> Union[List[List[int]], List[Tuple[List[int], float]]]:
        """Translates sentences given as token ids (without EOS, which the runtime appends),
        ``max_batch`` per runtime call; no sentence splitting or cutting.

        Args:
            sources: one sequence of ids per sentence, each id in [0, vocab_size). A 1-D
                C-contiguous numpy.int32 array (or array.array("i")) is read in place, without
                a copy; lists and other integer arrays are copied.
            beam_size, length_penalty, max_length, no_repeat_ngram, shortlist, copy_numbers,
                letter_penalty: as for ``translate``.
            return_scores: also return the log-probability of each output (EOS included).

        Returns:
            the output ids of each sentence (without BOS/EOS), or (ids, log_prob) pairs.

        Raises:
            TypeError: an id is not an int (float, str), or a sequence is a str/bytes.
            LimitExceededError: (a ValueError) a sentence longer than ``max_src_len`` - 1.
            InvalidArgumentError: (a ValueError) an id outside the vocabulary, or bad options.
        """
        return self._impl.translate_ids(
            sources, beam_size, _setting("length_penalty", length_penalty), max_length, no_repeat_ngram, shortlist,
            copy_numbers, _setting("letter_penalty", letter_penalty), return_scores,
        )

    def score(self, sources: Iterable[Ids], targets: Iterable[Ids]) -> List[float]:
        """Teacher forcing: log P(target + EOS | source), natural log, for each pair.

        ``sources`` as for ``translate_ids``; ``targets`` likewise (without BOS/EOS, at most
        ``max_tgt_len`` - 1 ids each). Raises ValueError when their counts differ.
        """
        return self._impl.score(sources, targets)

    def encode(self, text: Text) -> List[int]:
        """The model's SentencePiece ids of ``text`` (without EOS)."""
        return self._impl.encode(text)

    def decode(self, ids: Ids) -> str:
        """The text of token ids (the inverse of ``encode`` up to normalization)."""
        return self._impl.decode(ids)

    @property
    def model_info(self) -> dict:
        """What ``pmt-convert inspect`` reports of the model, and the limits set at load:
        ``path``, ``quantized`` (int8 weights), ``vocab_size``, ``arena_bytes`` (the one
        activation/cache allocation), ``default_length_penalty`` (the alpha stored in the
        model file, else 0.6), ``shortlist`` (the file has a vocabulary shortlist), ``config`` (d_model, n_heads, d_ff, layers, max_len,
        pre_ln, ln_eps, special ids) and ``limits`` (max_batch, max_src_len, max_tgt_len,
        max_beam, threads as resolved at load)."""
        return self._impl.model_info()

    def __repr__(self) -> str:
        return f"pocketmt.Translator({self.model_path!r})"
