from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from promptcache import (
    DEFAULT_COUNTER,
    EstimateCounter,
    HFTokenizerCounter,
    InputError,
    Prompt,
    TiktokenCounter,
    TokenCounter,
)


def test_estimate_counts_ascii_and_cjk() -> None:
    assert DEFAULT_COUNTER.count("") == 0
    assert DEFAULT_COUNTER.count("a") == 1
    assert DEFAULT_COUNTER.count("x" * 400) == 100
    assert 90 <= DEFAULT_COUNTER.count("日本語" * 33) <= 110  # about a token per CJK character
    assert isinstance(DEFAULT_COUNTER, TokenCounter)
    with pytest.raises(InputError, match="chars_per_token must be positive"):
        EstimateCounter(0)


def _tiny_tiktoken(tmp_path: Path) -> Path:
    ranks = [bytes([b]) for b in range(256)] + [b"he", b"ll", b"hell", b"hello"]
    lines = [f"{base64.b64encode(tok).decode()} {rank}" for rank, tok in enumerate(ranks)]
    path = tmp_path / "tiny.tiktoken"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_tiktoken_counter_reads_a_local_file(tmp_path: Path) -> None:
    pytest.importorskip("tiktoken")
    counter = TiktokenCounter(_tiny_tiktoken(tmp_path))
    assert counter.count("hello") == 1
    assert counter.count("hello hello") == 3  # "hello", " ", "hello" under the o200k split
    assert counter.name == "tiktoken:tiny.tiktoken"


def test_tiktoken_counter_errors(tmp_path: Path) -> None:
    pytest.importorskip("tiktoken")
    with pytest.raises(InputError, match="does not exist"):
        TiktokenCounter(tmp_path / "missing.tiktoken")
    bad = tmp_path / "bad.tiktoken"
    bad.write_text("not-base64!! x\n")
    with pytest.raises(InputError, match=r"bad.tiktoken:1: expected"):
        TiktokenCounter(bad)


def test_hf_tokenizer_counter_reads_a_local_file(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    spec = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": None,
        "decoder": None,
        "model": {
            "type": "WordLevel",
            "vocab": {"[UNK]": 0, "hello": 1, "world": 2},
            "unk_token": "[UNK]",
        },
    }
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec))
    counter = HFTokenizerCounter(path)
    assert counter.count("hello world hello") == 3
    with pytest.raises(InputError, match="does not exist"):
        HFTokenizerCounter(tmp_path / "nope.json")


def test_render_uses_the_given_counter() -> None:
    class Fixed:
        name = "fixed"

        def count(self, text: str) -> int:
            return 7

    rendered = Prompt().add_system("a", "b").render(Fixed())
    assert [b.tokens for b in rendered] == [7, 7]
    assert rendered.counter == "fixed"
    assert Prompt().add_system("a", "b").render().counter == "estimate"


@pytest.mark.parametrize("chars_per_token", [4.0, 3.5])
def test_the_estimate_of_utf8_bytes_is_the_estimate_of_their_text(chars_per_token: float) -> None:
    counter = EstimateCounter(chars_per_token)
    texts = [
        "",
        "a",
        "plain ASCII " * 40,
        "Prüfung läuft",
        "顧客ファイル",
        "emoji 🙂 and 中文",
        json.dumps({"text": "Überprüfung 顧客"}, ensure_ascii=False),
        "é" * 1000,
    ]
    for text in texts:
        assert counter.utf8_count(text.encode("utf-8")) == counter.count(text), text
