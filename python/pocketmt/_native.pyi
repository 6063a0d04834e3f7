"""Type stubs of pocketmt._native, the compiled half of the package (python/src/module.cc).
Use the documented API in pocketmt/__init__.py; these signatures may change between versions."""

from typing import Any, Callable, Dict, Iterable, List, Sequence, Tuple, Union

__version__: str  # the runtime library's version, "major.minor.patch"

_Text = Union[str, bytes]
_Ids = Sequence[int]

class Error(Exception):
    """Base class of every PocketMT error; ``code`` is the runtime's ErrorCode."""
    code: int

class InvalidArgumentError(Error, ValueError):
    """An option outside its documented range."""

class ModelNotFoundError(Error, FileNotFoundError):
    """The model file does not exist or cannot be read."""

class BadModelError(Error):
    """The file is not a valid PocketMT model (truncated, corrupt, wrong format)."""

class LimitExceededError(Error, ValueError):
    """Input beyond a limit fixed at load (max_src_len, max_tgt_len)."""

class InvalidUtf8Error(Error, ValueError):
    """A text that is not valid UTF-8."""

class OutOfMemoryError(Error, MemoryError):
    """The arena or XNNPACK's weights could not be allocated."""

class BackendError(Error, RuntimeError):
    """XNNPACK failed (e.g. an unsupported CPU)."""

class Translator:
    """A loaded model; see pocketmt.Translator."""
    def __init__(self, path: str, max_batch: int, max_src_len: int, max_tgt_len: int, max_beam: int,
                 threads: int) -> None:
        """Loads and verifies the model; every allocation happens here."""
    def translate_texts(self, texts: Iterable[_Text], beam: int, alpha: float, max_len: int, no_repeat_ngram: int,
                        split: bool, language: str, scores: bool) -> Union[List[str], List[Tuple[str, float]]]:
        """Translates paragraphs as the translate CLI does; list[str] or list[tuple[str, float]]."""
    def stream_text(self, text: _Text, beam: int, alpha: float, max_len: int, no_repeat_ngram: int, split: bool,
                    language: str, on_piece: Callable[[str], Any]) -> None:
        """Translates one text, calling on_piece(str) for each part as soon as it is final."""
    def translate_ids(self, sources: Iterable[_Ids], beam: int, alpha: float, max_len: int, no_repeat_ngram: int,
                      scores: bool) -> Union[List[List[int]], List[Tuple[List[int], float]]]:
        """Sentence-level search on token ids (EOS appended by the runtime)."""
    def score(self, sources: Iterable[_Ids], targets: Iterable[_Ids]) -> List[float]:
        """log P(target + EOS | source) per pair, natural log."""
    def encode(self, text: _Text) -> List[int]:
        """The model's SentencePiece ids of a text."""
    def decode(self, ids: _Ids) -> str:
        """The text of token ids."""
    def model_info(self) -> Dict[str, Any]:
        """Config, quantization, arena size and load limits."""
