"""
Assertions for your own test suite: keep the cacheable prefix stable.

    from promptcache.testing import assert_prefix_stable, assert_no_volatile

    def test_system_prompt_is_cacheable():
        a = build_request(user="ann", question="hi")
        b = build_request(user="bob", question="other")
        assert_prefix_stable(a, b)          # tools, system and docs render to the same bytes
        assert_no_volatile(a)               # no timestamp, UUID or nonce in a stable layer

Failures name the first block that differs and show the bytes around the first difference, the
way `promptcache diff` does for raw requests.
"""

from __future__ import annotations

from ._prompt import Block, Layer, Prompt, Rendered

__all__ = ["assert_no_volatile", "assert_prefix_stable"]


def assert_prefix_stable(
    first: Prompt | Rendered, second: Prompt | Rendered, *, through: Layer = Layer.DOCS
) -> None:
    """Fail unless both prompts render identical blocks for every layer up to `through`."""
    a, b = _blocks(first, through), _blocks(second, through)
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


def assert_no_volatile(prompt: Prompt) -> None:
    """Fail if any tools, system or docs text looks like it changes per request."""
    found = [
        f"{path} offset {match.offset}: {match.label} {match.value!r}"
        for path, match in prompt.volatile_values()
    ]
    if found:
        raise AssertionError(
            "volatile values in the stable layers (move them to the tail):\n  " + "\n  ".join(found)
        )


def _blocks(prompt: Prompt | Rendered, through: Layer) -> list[Block]:
    rendered = prompt.render() if isinstance(prompt, Prompt) else prompt
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
