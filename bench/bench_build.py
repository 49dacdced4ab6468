"""
Build-and-render cost of a realistic agent request, as ratios against orjson.

    python bench/bench_build.py

The workload: 40 tools with nested schemas, an ~8k-token system prompt, 3 documents of ~10k
tokens, a 50-turn history with tool calls, and a question. The baseline is one
`orjson.dumps(body, option=OPT_SORT_KEYS)` of the same request as a single JSON body, measured in
the same run.

Three figures, each the median of per-round ratios with the baseline timed alternately:
  request build + render   the per-request path: the app holds its tools, system prompt,
                           documents and history as parts (they are values, made once), and
                           assembles and renders a new request from them. Target <= 1.5x.
  cold build + render      the same, but every part is made from plain dicts first (the first
                           request of a process, or an app that rebuilds everything every time).
  append one turn + render the next turn of the conversation: the assistant's reply and the
                           user's next question, both new messages. Target <= 20% of the
                           request build.

Then the same prompt with a 500-turn history, against the 50-turn one: how the request build and
the append grow with ten times the history. No unchanged block is serialised or hashed again; the
append still grows a little, because the history and block tuples it returns are copied (once
each). Target: the append at 500 turns <= 1.5x the append at 50.

Last, `canonical_bytes` of a 20-property tool schema in which one property has `"default": null`
(real schemas have them everywhere), against one sorted `orjson.dumps` of it. No target; it used
to take 13x, when every null sent the value down the slow Python walk.

Every figure is min / median / max of the per-round ratios.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).parent))
from _workload import workload

from promptcache import (
    Doc,
    Message,
    Prompt,
    SystemBlock,
    TextPart,
    Tool,
    ToolResult,
    ToolUse,
    canonical_bytes,
)


def _content(raw: Any) -> Any:
    if isinstance(raw, str):
        return raw
    parts: list[Any] = []
    for block in raw:
        if block["type"] == "text":
            parts.append(TextPart(text=block["text"]))
        elif block["type"] == "tool_use":
            parts.append(ToolUse(id=block["id"], name=block["name"], input=block["input"]))
        else:
            parts.append(ToolResult(tool_use_id=block["tool_use_id"], content=block["content"]))
    return parts


def make_parts(data: dict[str, Any]) -> dict[str, Any]:
    """The parts an application holds: made once, reused by every request."""
    return {
        "tools": [Tool(**spec) for spec in data["tools"]],
        "system": SystemBlock(text=data["system"]),
        "docs": [Doc(text=d["text"], title=d["title"]) for d in data["docs"]],
        "history": [
            Message(role=m["role"], content=_content(m["content"])) for m in data["history"]
        ],
        "question": data["question"],
    }


def assemble(parts: dict[str, Any]) -> Prompt:
    return (
        Prompt()
        .add_tools(*parts["tools"])
        .add_system(parts["system"])
        .add_docs(*parts["docs"])
        .add_history(*parts["history"])
        .with_tail(parts["question"])
    )


def final_body(data: dict[str, Any]) -> dict[str, Any]:
    """The same request as one JSON body, the thing a caller would otherwise serialise."""
    return {
        "tools": data["tools"],
        "system": [{"type": "text", "text": data["system"]}],
        "docs": data["docs"],
        "messages": [*data["history"], {"role": "user", "content": data["question"]}],
    }


def _once(fn: Callable[[], Any], inner: int = 1) -> float:
    """Seconds per call of `fn`, called `inner` times in a row (a microsecond call once is noise)."""
    gc.disable()
    start = time.perf_counter()
    for _ in range(inner):
        fn()
    elapsed = time.perf_counter() - start
    gc.enable()
    return elapsed / inner


RATIOS: dict[str, list[float]] = {}  # every per-round ratio, by figure, for min / median / max


def paired(
    subject: Callable[[], Any],
    baseline: Callable[[], Any],
    rounds: int = 300,
    name: str = "",
    inner: int = 1,
) -> tuple[float, float, float]:
    """
    Time `subject` and `baseline` alternately, `rounds` times each, with the garbage collector
    held off. Returns (median subject seconds, median baseline seconds, median of the per-round
    ratios): alternating keeps a noisy machine's slow spells from landing on one side only.
    The per-round ratios are kept in `RATIOS[name]`.
    """
    subjects, baselines = [], []
    for _ in range(rounds):
        baselines.append(_once(baseline, inner))
        subjects.append(_once(subject, inner))
    ratios = [s / b for s, b in zip(subjects, baselines, strict=True)]
    RATIOS[name] = ratios
    return statistics.median(subjects), statistics.median(baselines), statistics.median(ratios)


def spread(name: str, fmt: str = "{:.2f}x") -> str:
    ratios = RATIOS[name]
    values = (min(ratios), statistics.median(ratios), max(ratios))
    return " / ".join(fmt.format(v) for v in values)


def null_default_schema() -> dict[str, Any]:
    """A 20-property tool schema; one property says `"default": null`."""
    properties: dict[str, Any] = {
        f"field_{i}": {"type": "string", "description": f"The {i}th field of the record."}
        for i in range(20)
    }
    properties["field_7"]["default"] = None
    return {"type": "object", "properties": properties, "required": ["field_0"]}


def main() -> int:
    data = workload()
    body = final_body(data)
    size = len(orjson.dumps(body, option=orjson.OPT_SORT_KEYS))
    held = make_parts(data)
    assemble(held).render()  # first use computes each part's bytes, digest and token count

    def dump() -> bytes:
        return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)

    request, baseline, request_ratio = paired(lambda: assemble(held).render(), dump, name="request")
    cold, _, cold_ratio = paired(
        lambda: assemble(make_parts(data)).render(), dump, rounds=40, name="cold"
    )
    base = assemble(held)
    base.render()
    # Both arrive as strings, as they do in a chat loop: each call makes two new messages.
    reply, question = "It ships tomorrow.", "And the refund? " + data["question"]
    append, _, append_ratio = paired(
        lambda: base.commit_tail(reply).with_tail(question).render(),
        dump,
        name="append",
        inner=5,
    )
    append_share = append_ratio / request_ratio

    # Incremental rendering: with ten times the history, the request build grows with it and
    # the append should not. Each pair is timed alternately, so the ratio is of this run.
    long = make_parts(workload(turns=500))
    long_base = assemble(long)
    long_base.render()
    _, _, build_growth = paired(
        lambda: assemble(long).render(),
        lambda: assemble(held).render(),
        rounds=100,
        name="build growth",
    )
    _, _, append_growth = paired(
        lambda: long_base.commit_tail(reply).with_tail(question).render(),
        lambda: base.commit_tail(reply).with_tail(question).render(),
        name="append growth",
        inner=5,
    )
    schema = null_default_schema()
    schema_s, schema_base, _ = paired(
        lambda: canonical_bytes(schema),
        lambda: orjson.dumps(schema, option=orjson.OPT_SORT_KEYS),
        rounds=300,
        name="schema",
        inner=50,
    )

    rendered = base.render()
    print(f"workload: {len(rendered)} blocks, {rendered.tokens:,} estimated tokens, {size:,} bytes")
    print(f"orjson.dumps(body, OPT_SORT_KEYS):  {baseline * 1e3:7.3f} ms  (baseline)")
    print("ratios: min / median / max over the rounds")
    rows = [
        ("request build + render (held parts)", request, spread("request"), "target <= 1.50x"),
        ("cold build + render (from dicts)", cold, spread("cold"), "no target"),
        ("append one turn + render", append, spread("append"), "vs the baseline"),
    ]
    for label, seconds, ratio, target in rows:
        print(f"{label + ':':<37} {seconds * 1e3:7.3f} ms  {ratio}  ({target})")
    print(f"{'':<49}{append_share:6.1%} of the request build (medians; target <= 20%)")
    print(f"{'':<49}{append_ratio / cold_ratio:6.1%} of the cold build")
    print(
        f"with 500 turns ({len(long_base.render())} blocks): request build "
        f"{spread('build growth')} the 50-turn one; append {spread('append growth')} the "
        f"50-turn append (target median <= 1.50x), so the append is "
        f"{append_share * append_growth / build_growth:.1%} of that request build"
    )
    print(
        f"canonical_bytes, 20-property schema with a default null: {schema_s * 1e6:.1f} us, "
        f"{spread('schema')} one sorted orjson.dumps ({schema_base * 1e6:.1f} us)"
    )
    ok = request_ratio <= 1.5 and append_share <= 0.20 and append_growth <= 1.5
    print("targets met" if ok else "targets NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
