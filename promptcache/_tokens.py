"""
Token counting.

`TokenCounter` is the one method promptcache needs. The default `EstimateCounter` works offline
with no files at all; `TiktokenCounter` and `HFTokenizerCounter` are exact and read a local file.
Nothing here touches the network, at import time or later.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ._errors import InputError, MissingDependencyError

__all__ = [
    "DEFAULT_COUNTER",
    "EstimateCounter",
    "HFTokenizerCounter",
    "TiktokenCounter",
    "TokenCounter",
]

# The split pattern of OpenAI's o200k encodings, for tiktoken files that carry only the ranks.
O200K_PATTERN = "|".join(
    [
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"\p{N}{1,3}",
        r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
        r"\s*[\r\n]+",
        r"\s+(?!\S)",
        r"\s+",
    ]
)


@runtime_checkable
class TokenCounter(Protocol):
    """Counts the tokens of a piece of text. Implementations must be thread-safe."""

    name: str

    def count(self, text: str) -> int:
        """Return the number of tokens in `text`."""
        ...


class EstimateCounter:
    """
    Offline estimate: about four ASCII characters a token, about one token per CJK character.

    Within roughly 15% of real BPE tokenizers on English prose and JSON; use an exact counter when
    a number has to match the vendor's bill.
    """

    name = "estimate"

    def __init__(self, chars_per_token: float = 4.0) -> None:
        if chars_per_token <= 0:
            raise InputError(f"chars_per_token must be positive, got {chars_per_token!r}")
        self.chars_per_token = chars_per_token

    def count(self, text: str) -> int:
        if text.isascii():
            return self.ascii_count(len(text))
        extra_bytes = len(text.encode("utf-8")) - len(text)
        return max(1, round(len(text) / self.chars_per_token + extra_bytes / 3))

    def utf8_count(self, data: bytes) -> int:
        """`count` of the text whose UTF-8 is `data` (JSON as orjson writes it), from one decode:
        `count` would encode the decoded text again to weigh its extra bytes."""
        if data.isascii():
            return self.ascii_count(len(data))
        chars = len(data.decode("utf-8"))
        return max(1, round(chars / self.chars_per_token + (len(data) - chars) / 3))

    def ascii_count(self, length: int) -> int:
        """The count of an ASCII text of `length` characters (a dropped body keeps only sizes)."""
        return max(1, round(length / self.chars_per_token)) if length else 0

    def __repr__(self) -> str:
        return f"EstimateCounter(chars_per_token={self.chars_per_token})"


DEFAULT_COUNTER: TokenCounter = EstimateCounter()


class TiktokenCounter:
    """
    Exact counts with tiktoken from a local `.tiktoken` ranks file (no download).

    `pattern` is the encoding's split regex; the default is the o200k pattern used by current
    OpenAI models. Needs `pip install 'promptcache-sdk[tokenizers]'`.
    """

    def __init__(self, path: str | Path, *, pattern: str = O200K_PATTERN, name: str = "") -> None:
        tiktoken = _require("tiktoken", "TiktokenCounter")
        ranks = _read_tiktoken_ranks(Path(path))
        self.name = name or f"tiktoken:{Path(path).name}"
        self._encoding: Any = tiktoken.Encoding(
            name=self.name, pat_str=pattern, mergeable_ranks=ranks, special_tokens={}
        )

    def count(self, text: str) -> int:
        return len(self._encoding.encode_ordinary(text))


class HFTokenizerCounter:
    """Exact counts with a Hugging Face `tokenizer.json` read from disk (no hub access)."""

    def __init__(self, path: str | Path, *, name: str = "") -> None:
        tokenizers = _require("tokenizers", "HFTokenizerCounter")
        file = Path(path)
        if not file.is_file():
            raise InputError(f"tokenizer file {str(file)!r} does not exist; pass a tokenizer.json")
        self.name = name or f"tokenizers:{file.name}"
        self._tokenizer: Any = tokenizers.Tokenizer.from_file(str(file))

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


def _require(module: str, purpose: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependencyError(module, "tokenizers", purpose) from None


def _read_tiktoken_ranks(path: Path) -> dict[bytes, int]:
    if not path.is_file():
        raise InputError(f"tiktoken ranks file {str(path)!r} does not exist; pass a .tiktoken file")
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(path.read_text("ascii").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except ValueError:
            raise InputError(
                f"{path}:{number}: expected '<base64 token> <rank>', got {line[:40]!r}"
            ) from None
    return ranks
