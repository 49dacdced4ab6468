"""
Assertions for your own test suite: keep the cacheable prefix stable.

    from promptcache.testing import assert_prefix_stable, assert_no_volatile

    def test_system_prompt_is_cacheable():
        a = build_request(user="ann", question="hi")
        b = build_request(user="bob", question="other")
        assert_prefix_stable(a, b)          # tools, system and docs render to the same bytes
        assert_no_volatile(a)               # no timestamp, UUID or nonce in a stable layer

Failures name the first block that differs and show the bytes around the first difference, the
way `promptcache diff` does for raw requests. Every assertion takes a `Prompt`, a rendered prompt
or the plain keyword arguments of an SDK call (a dict; the vendor is detected, or pass
`vendor=`).

With pytest, the plugin (`promptcache.pytest_plugin`, registered through the `pytest11` entry
point) adds the fixtures `cache_emulator` and `manual_clock`; see `assert_cache_hits`,
`assert_stable_across_inputs` and `assert_stable_across_hashseeds`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ._errors import InputError
from ._prompt import Block, Layer, Prompt, Rendered

__all__ = [
    "assert_cache_hits",
    "assert_no_volatile",
    "assert_prefix_stable",
    "assert_stable_across_hashseeds",
    "assert_stable_across_inputs",
]

PromptLike = Prompt | Rendered | Mapping[str, Any]


def assert_prefix_stable(
    first: PromptLike,
    second: PromptLike,
    *,
    through: Layer = Layer.DOCS,
    vendor: str | None = None,
) -> None:
    """Fail unless both prompts render identical blocks for every layer up to `through`."""
    a, b = _blocks(first, through, vendor), _blocks(second, through, vendor)
    for left, right in zip(a, b, strict=False):
        if left.hash != right.hash:
            raise AssertionError(_divergence(left, right))
    if len(a) != len(b):
        longer, side = (a, "first") if len(a) > len(b) else (b, "second")
        extra = longer[min(len(a), len(b))]
        raise AssertionError(
            f"the {side} prompt has an extra block {extra.path} in the stable prefix "
            f"({len(a)} vs {len(b)} blocks through the {through} layer)"
        )


def assert_no_volatile(prompt: Prompt | Mapping[str, Any], *, vendor: str | None = None) -> None:
    """Fail if any tools, system or docs text looks like it changes per request."""
    found = [
        f"{path} offset {match.offset}: {match.label} {match.value!r}"
        for path, match in _prompt(prompt, vendor).volatile_values()
    ]
    if found:
        raise AssertionError(
            "volatile values in the stable layers (move them to the tail):\n  " + "\n  ".join(found)
        )


def assert_stable_across_inputs(
    build: Callable[[Any], PromptLike],
    inputs: Iterable[Any],
    *,
    through: Layer = Layer.DOCS,
    vendor: str | None = None,
) -> None:
    """Fail unless `build(x)` gives the same stable prefix for every `x` in `inputs`."""
    made = [(x, build(x)) for x in inputs]
    if len(made) < 2:
        raise InputError("assert_stable_across_inputs needs at least two inputs to compare")
    first_input, first = made[0]
    for other_input, other in made[1:]:
        try:
            assert_prefix_stable(first, other, through=through, vendor=vendor)
        except AssertionError as exc:
            raise AssertionError(
                f"inputs {first_input!r:.60} and {other_input!r:.60} give different prefixes: {exc}"
            ) from None


def assert_stable_across_hashseeds(
    target: str,
    *,
    args: Sequence[Any] = (),
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    through: Layer = Layer.DOCS,
    vendor: str | None = None,
    cwd: str | None = None,
) -> None:
    """
    Fail unless the prompt built by `target` ("package.module:function", called with `args`)
    has the same stable prefix in fresh interpreters under each `PYTHONHASHSEED` in `seeds`
    (set iteration order, and so anything built from a set, changes with it).
    """
    if ":" not in target:
        raise InputError(f"target must be 'package.module:function', got {target!r}")
    digests = {
        seed: _prefix_in_subprocess(target, args, seed, through, vendor, cwd) for seed in seeds
    }
    if len(set(digests.values())) > 1:
        shown = ", ".join(f"PYTHONHASHSEED={s}: {d[:12]}" for s, d in digests.items())
        raise AssertionError(
            f"{target} builds a different stable prefix under different hash seeds ({shown}): "
            "something in it iterates a set or a dict built from one; sort it"
        )


_CHILD = """
import sys, hashlib, orjson
from importlib import import_module
from promptcache import Layer
from promptcache.testing import _blocks
module, name = sys.argv[1].split(":")
built = getattr(import_module(module), name)(*orjson.loads(sys.argv[2]))
vendor = sys.argv[4] or None
blocks = _blocks(built, Layer(int(sys.argv[3])), vendor)
print(hashlib.sha256(b"".join(b.hash for b in blocks)).hexdigest())
"""


def _prefix_in_subprocess(
    target: str, args: Sequence[Any], seed: int, through: Layer, vendor: str | None, cwd: str | None
) -> str:
    import orjson

    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            target,
            orjson.dumps(list(args)).decode(),
            str(int(through)),
            vendor or "",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(
            f"building {target} under PYTHONHASHSEED={seed} failed:\n{done.stderr.strip()[-2000:]}"
        )
    return done.stdout.strip()


def assert_cache_hits(
    requests: Sequence[PromptLike],
    *,
    vendor: str = "anthropic",
    model: str | None = None,
    emulator: Any = None,
    gap_seconds: float = 1.0,
    **options: Any,
) -> list[Any]:
    """
    Send `requests` in order through the vendor's real SDK client to its cache EMULATION
    (`promptcache.sim`), and fail unless every request from the second on reads from the cache.
    A `Prompt` becomes a request through the adapter `vendor` with `model` (and `options`); a dict
    is sent as the SDK keyword arguments it is. Returns each request's `CacheUsage`.

    `emulator` may be one you made (to set its clock or capacity); each request moves a
    `ManualClock` on by `gap_seconds`.
    """
    from .adapters import get_adapter
    from .sim import ManualClock, emulator_for, send

    adapter = get_adapter(vendor)
    if emulator is None:
        emulator = emulator_for(vendor, clock=ManualClock())
    client = emulator.client()
    usages = []
    for number, item in enumerate(requests, 1):
        if isinstance(emulator.clock, ManualClock):
            emulator.clock.advance(gap_seconds)
        usage = adapter.read_usage(send(client, vendor, _request(adapter, item, model, options)))
        usages.append(usage)
        if number > 1 and not usage.cache_read:
            raise AssertionError(
                f"request {number} of {len(requests)} read nothing from the {vendor} cache "
                f"(emulated): {usage.cache_write or 0} tokens written, {usage.uncached_input} "
                "uncached; compare it with the request before using promptcache.diff(...)"
            )
    return usages


def _request(adapter: Any, item: PromptLike, model: str | None, options: Any) -> Mapping[str, Any]:
    if isinstance(item, Mapping):
        return item
    if not isinstance(item, Prompt):
        raise InputError(f"expected a Prompt or SDK keyword arguments, got {type(item).__name__}")
    if model is None:
        raise InputError("assert_cache_hits needs model=... to turn a Prompt into a request")
    request: dict[str, Any] = adapter.to_request(item, model=model, **options)
    return request


def _prompt(prompt: Prompt | Mapping[str, Any], vendor: str | None) -> Prompt:
    if isinstance(prompt, Prompt):
        return prompt
    if isinstance(prompt, Mapping):
        from ._ingest import prompt_from_request

        return prompt_from_request(prompt, vendor).prompt
    raise InputError(
        f"expected a Prompt or the keyword arguments of an SDK call (a dict), got "
        f"{type(prompt).__name__}"
    )


def _blocks(prompt: PromptLike, through: Layer, vendor: str | None = None) -> list[Block]:
    rendered = prompt if isinstance(prompt, Rendered) else _prompt(prompt, vendor).render()
    return [block for block in rendered if block.layer <= through]


def _divergence(left: Block, right: Block) -> str:
    if left.path != right.path or left.role != right.role:
        return f"the stable prefix differs at block {left.path} ({left.role}) vs {right.path} ({right.role})"
    offset = next(
        (i for i, (x, y) in enumerate(zip(left.data, right.data, strict=False)) if x != y),
        min(len(left.data), len(right.data)),
    )
    start = max(0, offset - 30)
    before = left.data[start : offset + 30].decode("utf-8", "replace")
    after = right.data[start : offset + 30].decode("utf-8", "replace")
    return (
        f"the stable prefix differs in {left.path} at byte {offset}:\n"
        f"  first:  …{before}…\n  second: …{after}…"
    )
