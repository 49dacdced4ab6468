"""
Self-hosted OpenAI-compatible engines: vLLM, SGLang and llama.cpp's llama-server.

All three cache prefixes automatically (vLLM in full 16-token blocks, SGLang in its radix tree,
llama.cpp per slot), so there is nothing to mark. What differs is reporting and isolation:

- usage: `prompt_tokens` INCLUDES `prompt_tokens_details.cached_tokens`, but vLLM sends the
  details only with `--enable-prompt-tokens-details` and SGLang only with `--enable-cache-report`.
  Without them the record says "unknown" (None), not 0. vLLM also reports tokens written to the
  cache as `created_cache_tokens`; llama.cpp also sends `timings.cache_n`.
- isolation: `cache_salt` (vLLM, SGLang) isolates a tenant's cache chain; llama.cpp takes
  `cache_prompt` (default true).

Their `/v1/messages` endpoints speak Anthropic's usage arithmetic: read those with the
"anthropic" adapter.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from .._errors import InputError
from .._plan import Plan
from .._prompt import Prompt
from .._usage import CacheUsage
from ..vendors import Capabilities
from ..vendors._openai import OpenAIChatStream
from ..vendors.engine import RULES, read_engine_usage
from .openai import OpenAIChatAdapter

__all__ = ["EngineAdapter"]

Engine = Literal["vllm", "sglang", "llama.cpp"]
_SALT_FORBIDDEN = ("@", "/", "\\", "\0")
_SALT_MAX = 128  # vLLM's validator; the pydantic field allows more, the validator does not


class EngineAdapter(OpenAIChatAdapter):
    """`client.chat.completions.create(**adapter.to_request(...))` against a local engine."""

    name = "engine"
    vendor = "engine"
    capabilities: ClassVar[Capabilities] = RULES.capabilities

    def to_request(
        self,
        prompt: Prompt,
        *,
        model: str,
        plan: Plan | None = None,
        engine: Engine = "vllm",
        cache_salt: str | None = None,
        cache_prompt: bool | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """
        Chat Completions kwargs; engine-specific fields go in `extra_body`, since the OpenAI SDK
        has no parameter for them. `cache_salt` works on vLLM and SGLang; `cache_prompt` on
        llama.cpp.
        """
        if engine not in ("vllm", "sglang", "llama.cpp"):
            raise InputError(f"engine must be 'vllm', 'sglang' or 'llama.cpp', got {engine!r}")
        extra = dict(options.pop("extra_body", None) or {})
        if cache_salt is not None:
            if engine == "llama.cpp":
                raise InputError("llama.cpp has no cache_salt; run one server per tenant instead")
            extra["cache_salt"] = _checked_salt(cache_salt)
        if cache_prompt is not None:
            if engine != "llama.cpp":
                raise InputError(
                    f"cache_prompt is a llama.cpp option; {engine} caches prefixes itself"
                )
            extra["cache_prompt"] = cache_prompt
        kwargs = {"model": model, **self._body(prompt, None), **options}
        if extra:
            kwargs["extra_body"] = extra
        self._stream_usage(kwargs)
        return kwargs

    def read_usage(self, response: Any) -> CacheUsage:
        """
        An engine's chat completion (SDK object or JSON dict), or llama.cpp's native
        `/completion` answer; see `promptcache.vendors.engine.read_engine_usage`.
        """
        return read_engine_usage(response)

    def accumulator(self) -> OpenAIChatStream:
        return OpenAIChatStream(vendor="engine")


def _checked_salt(salt: str) -> str:
    bad = [c for c in _SALT_FORBIDDEN if c in salt]
    if not isinstance(salt, str) or not salt or len(salt) > _SALT_MAX or bad:
        raise InputError(
            f"cache_salt must be a non-empty string of at most {_SALT_MAX} characters without "
            f"'@', '/', '\\' or NUL (vLLM rejects others); got {salt!r:.60}. Use e.g. "
            "base64.urlsafe_b64encode(os.urandom(32)).decode() per tenant"
        )
    return salt
