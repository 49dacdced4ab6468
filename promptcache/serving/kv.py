"""
KV-cache capacity planning: what a token, a request and a shared prefix cost in accelerator memory.

For standard (multi-head, grouped-query or multi-query) attention every layer keeps one key and one
value vector per KV head per token:

    bytes per token = 2 · layers · kv_heads · head_dim · bytes_per_element

Multi-head latent attention (DeepSeek's MLA, `kv_lora_rank` in config.json) keeps one compressed
latent plus the decoupled RoPE key per layer instead: `layers · (kv_lora_rank + rope_dim) · bytes`.
Sliding-window layers keep at most `window` tokens, so a long request costs less than the per-token
rate suggests; a request's bytes are summed layer by layer with `min(tokens, window)`.

Sizes and bandwidths are binary (GiB = 2**30 bytes), as accelerator memory is quoted. Prefill is
costed at the usual `2 · parameters · tokens` FLOPs (attention's quadratic term is left out, so
recompute times are lower bounds).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import InputError

__all__ = [
    "GIB",
    "KVShape",
    "OffloadCost",
    "offload_cost",
    "shape_from_config",
]

GIB = 2**30
_DTYPE_BYTES = {
    "float32": 4,
    "float": 4,
    "float16": 2,
    "half": 2,
    "bfloat16": 2,
    "fp8": 1,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "int8": 1,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class KVShape:
    """
    The per-token KV footprint of one model.

    `sliding_layers` of the `layers` keep at most `sliding_window` tokens each (0 when the model
    attends over the whole context). `latent_dim`, when set, is MLA's cached width per layer
    (`kv_lora_rank + qk_rope_head_dim`) and replaces `2 · kv_heads · head_dim`.
    """

    layers: int
    kv_heads: int
    head_dim: int
    bytes_per_element: float
    sliding_window: int | None = None
    sliding_layers: int = 0
    latent_dim: int | None = None
    source: str = "flags"

    def __post_init__(self) -> None:
        for name in ("layers", "kv_heads", "head_dim"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise InputError(f"{name} must be a positive integer, got {value!r}")
        if not 0 < self.bytes_per_element < math.inf:
            raise InputError(
                f"bytes per element must be positive (2 for bf16/fp16, 1 for an fp8 KV cache), "
                f"got {self.bytes_per_element!r}"
            )
        if not 0 <= self.sliding_layers <= self.layers:
            raise InputError(
                f"sliding_layers must lie between 0 and layers ({self.layers}), "
                f"got {self.sliding_layers}"
            )
        if self.sliding_layers and not (self.sliding_window and self.sliding_window > 0):
            raise InputError("sliding layers need a positive sliding_window (--sliding-window)")

    @property
    def per_layer_token_bytes(self) -> float:
        width = (
            self.latent_dim if self.latent_dim is not None else 2 * self.kv_heads * self.head_dim
        )
        return width * self.bytes_per_element

    @property
    def bytes_per_token(self) -> int:
        """Bytes one token costs while the context is within every window (all layers keep it)."""
        return math.ceil(self.layers * self.per_layer_token_bytes)

    @property
    def bytes_per_token_beyond_window(self) -> int:
        """Bytes each further token costs once past the sliding window (full layers only)."""
        return math.ceil((self.layers - self.sliding_layers) * self.per_layer_token_bytes)

    def request_bytes(self, tokens: int) -> int:
        """KV bytes of one sequence of `tokens` tokens."""
        if tokens < 0:
            raise InputError(f"a token count cannot be negative, got {tokens}")
        full = self.layers - self.sliding_layers
        kept = full * tokens
        if self.sliding_layers:
            kept += self.sliding_layers * min(tokens, self.sliding_window or 0)
        return math.ceil(kept * self.per_layer_token_bytes)

    def concurrency(self, budget_bytes: float, tokens: int) -> int:
        """How many `tokens`-long requests a KV budget holds at once."""
        _check_budget(budget_bytes)
        size = self.request_bytes(tokens)
        return int(budget_bytes // size) if size else 0

    def tokens_in(self, budget_bytes: float) -> int | None:
        """
        How many tokens of one sequence fit in `budget_bytes`; None when every layer slides, so
        any length fits once the window does.
        """
        _check_budget(budget_bytes)
        low = int(budget_bytes // self.bytes_per_token)
        window = self.sliding_window or 0
        if not self.sliding_layers or low <= window:
            return low
        beyond = self.bytes_per_token_beyond_window
        if beyond == 0:
            return None
        # Past the window only the full-attention layers grow.
        return window + int((budget_bytes - self.request_bytes(window)) // beyond)

    def to_json(self) -> dict[str, Any]:
        return {
            "layers": self.layers,
            "kv_heads": self.kv_heads,
            "head_dim": self.head_dim,
            "bytes_per_element": self.bytes_per_element,
            "sliding_window": self.sliding_window,
            "sliding_layers": self.sliding_layers,
            "latent_dim": self.latent_dim,
            "source": self.source,
            "bytes_per_token": self.bytes_per_token,
            "bytes_per_token_beyond_window": self.bytes_per_token_beyond_window,
        }


def _check_budget(budget_bytes: float) -> None:
    if not 0 < budget_bytes < math.inf:
        raise InputError(f"the KV budget must be positive and finite, got {budget_bytes!r} bytes")


@dataclass(frozen=True, slots=True, kw_only=True)
class OffloadCost:
    """Bringing a prefix's KV back over a link versus computing it again."""

    tokens: int
    bytes: int
    transfer_seconds: float
    recompute_seconds: float | None

    @property
    def offload_wins(self) -> bool | None:
        if self.recompute_seconds is None:
            return None
        return self.transfer_seconds < self.recompute_seconds


def offload_cost(
    shape: KVShape,
    tokens: int,
    *,
    bandwidth_bytes_per_s: float,
    params: float | None = None,
    flops_per_s: float | None = None,
) -> OffloadCost:
    """Transfer time of a prefix's KV against its prefill time (`2 · params · tokens` FLOPs)."""
    if not 0 < bandwidth_bytes_per_s < math.inf:
        raise InputError(f"bandwidth must be positive and finite, got {bandwidth_bytes_per_s!r}")
    size = shape.request_bytes(tokens)
    recompute = None
    if params is not None and flops_per_s is not None:
        for flag, value in (("--params", params), ("--tflops", flops_per_s)):
            if not 0 < value < math.inf:
                raise InputError(f"{flag} must be positive and finite, got {value!r}")
        recompute = 2 * params * tokens / flops_per_s
    return OffloadCost(
        tokens=tokens,
        bytes=size,
        transfer_seconds=size / bandwidth_bytes_per_s,
        recompute_seconds=recompute,
    )


def shape_from_config(
    config: Mapping[str, Any], *, bytes_per_element: float | None = None
) -> KVShape:
    """
    A `KVShape` from a Hugging Face `config.json`. Reads `text_config` when the model nests its
    language model (multimodal models). Refuses, naming the field, what it cannot cost correctly.
    """
    cfg: Mapping[str, Any] = config.get("text_config") or config
    layers = _int_field(cfg, "num_hidden_layers", "n_layer", "num_layers")
    heads = _int_field(cfg, "num_attention_heads", "n_head")
    kv_heads = _optional_int(cfg, "num_key_value_heads") or heads
    head_dim = _optional_int(cfg, "head_dim") or _derived_head_dim(cfg, heads)
    size = bytes_per_element if bytes_per_element is not None else _dtype_bytes(cfg, config)
    latent = _mla_width(cfg)
    window, sliding, assumed = _sliding(cfg, layers)
    notes = [note for note in ("MLA" if latent else "", assumed) if note]
    return KVShape(
        layers=layers,
        kv_heads=kv_heads,
        head_dim=head_dim,
        bytes_per_element=size,
        sliding_window=window,
        sliding_layers=sliding,
        latent_dim=latent,
        source="config.json" + (f" ({'; '.join(notes)})" if notes else ""),
    )


def _int_field(cfg: Mapping[str, Any], *names: str) -> int:
    for name in names:
        value = _optional_int(cfg, name)
        if value is not None:
            return value
    raise InputError(
        f"config.json has no {names[0]}; pass the shape as flags "
        "(--layers L --kv-heads N --head-dim D --bytes B)"
    )


def _optional_int(cfg: Mapping[str, Any], name: str) -> int | None:
    value = cfg.get(name)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise InputError(f"config.json {name} must be a positive integer, got {value!r}")
    return value


def _derived_head_dim(cfg: Mapping[str, Any], heads: int) -> int:
    hidden = _int_field(cfg, "hidden_size", "n_embd", "d_model")
    if hidden % heads:
        raise InputError(
            f"config.json hidden_size {hidden} is not a multiple of num_attention_heads {heads} "
            "and there is no head_dim; pass --head-dim"
        )
    return hidden // heads


def _dtype_bytes(cfg: Mapping[str, Any], top: Mapping[str, Any]) -> float:
    dtype = cfg.get("torch_dtype") or cfg.get("dtype") or top.get("torch_dtype") or top.get("dtype")
    if dtype is None:
        raise InputError(
            "config.json names no torch_dtype; pass --bytes (2 for bf16/fp16, 1 for an fp8 KV cache)"
        )
    key = str(dtype).removeprefix("torch.")
    if key not in _DTYPE_BYTES:
        raise InputError(f"config.json dtype {dtype!r} is not one promptcache knows; pass --bytes")
    return _DTYPE_BYTES[key]


def _mla_width(cfg: Mapping[str, Any]) -> int | None:
    rank = cfg.get("kv_lora_rank")
    if rank is None:
        return None
    rope = cfg.get("qk_rope_head_dim")
    if not isinstance(rank, int) or not isinstance(rope, int) or rank <= 0 or rope < 0:
        raise InputError(
            f"config.json has MLA's kv_lora_rank ({rank!r}) but no usable qk_rope_head_dim "
            f"({rope!r}); the cached latent width is kv_lora_rank + qk_rope_head_dim"
        )
    return rank + rope


def _sliding(cfg: Mapping[str, Any], layers: int) -> tuple[int | None, int, str]:
    """
    (window, sliding layer count, the assumption made or "") from whichever fields the model
    family uses.
    """
    window = cfg.get("sliding_window")
    if window is None or cfg.get("use_sliding_window") is False:
        if "layer_types" in cfg and "sliding_attention" in (cfg.get("layer_types") or ()):
            raise InputError("config.json lists sliding_attention layers but no sliding_window")
        return None, 0, ""
    if not isinstance(window, int) or isinstance(window, bool) or window <= 0:
        raise InputError(f"config.json sliding_window must be a positive integer, got {window!r}")
    types = cfg.get("layer_types")
    if isinstance(types, Sequence) and not isinstance(types, str):
        if len(types) != layers:
            raise InputError(
                f"config.json layer_types has {len(types)} entries for {layers} layers"
            )
        return window, sum(1 for t in types if t == "sliding_attention"), ""
    pattern = cfg.get("sliding_window_pattern")
    if isinstance(pattern, int) and pattern > 0:
        return window, layers - layers // pattern, ""  # every pattern-th layer is global
    if "max_window_layers" in cfg:
        raise InputError(
            "config.json sets use_sliding_window with max_window_layers; which layers slide "
            "depends on the serving engine. Pass the shape as flags with --sliding-window W "
            "--sliding-layers N"
        )
    # Mistral-style: nothing says which layers slide, so all of them are taken to. Say so: a
    # family that alternates (an older Gemma 2 config) is costed far too low under this reading.
    return (
        window,
        layers,
        (
            "every layer assumed sliding: no layer_types or sliding_window_pattern; "
            "pass --sliding-layers N if fewer slide"
        ),
    )
