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
                           user's next question, both new messages. Target <= 10% of the
                           request build.

Then the same prompt with a 500-turn history, against the 50-turn one: how the request build and
the append grow with ten times the history. No unchanged block is serialised or hashed again; the
append still grows a little, because the history and block tuples it returns are copied.
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


def _once(fn: Callable[[], Any]) -> float:
    gc.disable()
    start = time.perf_counter()
    fn()
    elapsed = time.perf_counter() - start
    gc.enable()
    return elapsed


def paired(
    subject: Callable[[], Any], baseline: Callable[[], Any], rounds: int = 300
) -> tuple[float, float, float]:
    """
    Time `subject` and `baseline` alternately, `rounds` times each, with the garbage collector
    held off. Returns (median subject seconds, median baseline seconds, median of the per-round
    ratios): alternating keeps a noisy machine's slow spells from landing on one side only.
    """
    subjects, baselines = [], []
    for _ in range(rounds):
        baselines.append(_once(baseline))
        subjects.append(_once(subject))
    ratios = [s / b for s, b in zip(subjects, baselines, strict=True)]
    return statistics.median(subjects), statistics.median(baselines), statistics.median(ratios)


def main() -> int:
    data = workload()
    body = final_body(data)
    size = len(orjson.dumps(body, option=orjson.OPT_SORT_KEYS))
    held = make_parts(data)
    assemble(held).render()  # first use computes each part's bytes, digest and token count

    def dump() -> bytes:
        return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)

    request, baseline, request_ratio = paired(lambda: assemble(held).render(), dump)
    cold, _, cold_ratio = paired(lambda: assemble(make_parts(data)).render(), dump, rounds=40)
    base = assemble(held)
    base.render()
    # Both arrive as strings, as they do in a chat loop: each call makes two new messages.
    reply, question = "It ships tomorrow.", "And the refund? " + data["question"]
    append, _, append_ratio = paired(
        lambda: base.commit_tail(reply).with_tail(question).render(), dump
    )
    append_share = append_ratio / request_ratio

    # Incremental rendering: with ten times the history, the request build grows with it and
    # the append should not. Each pair is timed alternately, so the ratio is of this run.
    long = make_parts(workload(turns=500))
    long_base = assemble(long)
    long_base.render()
    _, _, build_growth = paired(
        lambda: assemble(long).render(), lambda: assemble(held).render(), rounds=100
    )
    _, _, append_growth = paired(
        lambda: long_base.commit_tail(reply).with_tail(question).render(),
        lambda: base.commit_tail(reply).with_tail(question).render(),
    )

    rendered = base.render()
    print(f"workload: {len(rendered)} blocks, {rendered.tokens:,} estimated tokens, {size:,} bytes")
    print(f"orjson.dumps(body, OPT_SORT_KEYS):  {baseline * 1e3:7.3f} ms  (baseline)")
    rows = [
        (
            "request build + render (held parts)",
            request,
            f"{request_ratio:6.2f}x",
            "target <= 1.50x",
        ),
        (
            "cold build + render (from dicts)",
            cold,
            f"{cold_ratio:6.2f}x",
            "no target; for reference",
        ),
        (
            "append one turn + render",
            append,
            f"{append_share:6.1%} of the request build",
            "target <= 10%",
        ),
    ]
    for label, seconds, ratio, target in rows:
        print(f"{label + ':':<37} {seconds * 1e3:7.3f} ms  {ratio}  ({target})")
    print(f"{'':<49}{append_ratio / cold_ratio:6.1%} of the cold build")
    print(
        f"with 500 turns ({len(long_base.render())} blocks): request build {build_growth:.1f}x "
        f"the 50-turn one, append {append_growth:.2f}x, so the append is "
        f"{append_share * append_growth / build_growth:.1%} of that request build"
    )
    ok = request_ratio <= 1.5 and append_share <= 0.10
    print("targets met" if ok else "targets NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
