"""
EMULATION of vLLM's automatic prefix cache (its OpenAI-compatible `/v1/chat/completions`).

The prompt is rendered into one byte string (the emulator's own stand-in for a chat template) and
cut into KV blocks of the engine adapter's `increment_tokens` (vLLM's 16) tokens; only full blocks
are hashed, each hash chained on the one before, and `cache_salt` folded into the first, so a
tenant's chain shares nothing with another's. A request reads its leading blocks that are still in
the pool and adds the rest; the pool holds `capacity_blocks` blocks and evicts the least recently
used. Usage: `prompt_tokens_details.cached_tokens` and `created_cache_tokens`, sent only when
`prompt_tokens_details=True` (vLLM's `--enable-prompt-tokens-details`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, ClassVar

from .._errors import InputError
from ._base import Emulator, Rejected, chat_completion, need
from ._core import BYTES_PER_TOKEN, EMULATION, canonical, chain, tokens_of
from ._rules import engine_block_tokens

__all__ = ["VLLMEmulator"]


class VLLMEmulator(Emulator):
    """EMULATION of a vLLM server's prefix cache; talk to it with the OpenAI SDK."""

    vendor: ClassVar[str] = "engine"
    sdk_client = ("openai", "openai", "engines", "OpenAI")

    def __init__(
        self, *, capacity_blocks: int = 4096, prompt_tokens_details: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        if capacity_blocks < 1:
            raise InputError(f"capacity_blocks must be >= 1, got {capacity_blocks}")
        self.capacity_blocks = capacity_blocks
        self.prompt_tokens_details = prompt_tokens_details
        self.pool: OrderedDict[bytes, None] = OrderedDict()  # least recently used first
        self.evicted = 0
        self._ids = 0

    def client(self, *, is_async: bool = False, **kwargs: Any) -> Any:
        kwargs.setdefault("base_url", "http://vllm.emulated/v1")
        return super().client(is_async=is_async, **kwargs)

    def route(self, method: str, path: str, body: Any) -> dict[str, Any]:
        if method == "POST" and path.rstrip("/").endswith("/chat/completions"):
            return self.chat(need(body, dict, "request body"))
        raise Rejected(404, f"the vLLM emulator serves POST /v1/chat/completions, not {path}")

    def error_body(self, refused: Rejected) -> dict[str, Any]:
        return {
            "error": {"message": refused.message, "type": "BadRequestError", "code": refused.status}
        }

    def chat(self, body: Mapping[str, Any]) -> dict[str, Any]:
        if body.get("stream"):
            raise Rejected(400, "the promptcache emulator does not stream; call without stream")
        model = need(body.get("model"), str, "model")
        salt = body.get("cache_salt")
        if salt is not None and (not isinstance(salt, str) or not salt):
            raise Rejected(400, "cache_salt: expected a non-empty string")
        prompt = _render(body)
        cached, created = self.serve(prompt, salt)
        text = self.reply_content(body, EMULATION)
        output = tokens_of(canonical(text))
        total = tokens_of(prompt)
        usage: dict[str, Any] = {
            "prompt_tokens": total,
            "completion_tokens": output,
            "total_tokens": total + output,
        }
        if self.prompt_tokens_details:
            usage["prompt_tokens_details"] = {
                "cached_tokens": cached,
                "created_cache_tokens": created,
            }
        self._ids += 1
        return chat_completion(self._ids, self.clock(), model, text, usage)

    def serve(self, prompt: bytes, salt: str | None) -> tuple[int, int]:
        """(tokens read from the pool, tokens newly cached) for one rendered prompt."""
        step = engine_block_tokens()
        size = step * BYTES_PER_TOKEN
        blocks = [prompt[i : i + size] for i in range(0, len(prompt) - size + 1, size)]
        hashes = chain(canonical(["vllm", salt]), blocks)
        hit = 0
        for link in hashes:
            if link not in self.pool:
                break
            hit += 1
        for link in hashes:
            if link in self.pool:
                self.pool.move_to_end(link)
            else:
                self.pool[link] = None
                if len(self.pool) > self.capacity_blocks:
                    self.pool.popitem(last=False)
                    self.evicted += 1
        return hit * step, (len(hashes) - hit) * step


def _render(body: Mapping[str, Any]) -> bytes:
    """The prompt as one byte string: the tools, then each message (a chat template's stand-in)."""
    pieces = [canonical({"tools": body.get("tools") or []})]
    for m, message in enumerate(need(body.get("messages"), list, "messages")):
        need(message, dict, f"messages[{m}]")
        pieces.append(
            canonical({k: v for k, v in message.items() if k != "prompt_cache_breakpoint"})
        )
    return b"\n".join(pieces)
