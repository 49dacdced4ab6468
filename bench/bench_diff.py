"""
Benchmark: `diff` of two ~1 MB requests against canonically serialising both (the baseline,
measured in the same run). Target: ratio <= 3.0. Run: .venv/bin/python bench/bench_diff.py
"""

from __future__ import annotations

import copy
import statistics
import time
from collections.abc import Callable
from typing import Any

from promptcache import canonical_bytes, diff

PARAGRAPH = (
    "The deployment controller reconciles desired and observed state; when a health check path "
    "moves, the load balancer marks every target unhealthy and returns 502 until it converges. "
)


def big_request(system_head: str = "Today is 2026-11-29.") -> dict[str, Any]:
    tools = [
        {
            "name": f"tool_{i:03d}",
            "description": PARAGRAPH * 2,
            "input_schema": {
                "type": "object",
                "properties": {
                    f"arg_{j}": {"type": "string", "description": PARAGRAPH[:80]} for j in range(6)
                },
                "required": ["arg_0"],
            },
        }
        for i in range(60)
    ]
    messages = []
    for turn in range(300):
        messages.append({"role": "user", "content": [{"type": "text", "text": PARAGRAPH * 8}]})
        messages.append({"role": "assistant", "content": PARAGRAPH * 6 + f" (turn {turn})"})
    messages[-1] = {
        "role": "user",
        "content": [{"type": "text", "text": "Why 502?", "cache_control": {"type": "ephemeral"}}],
    }
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 1024,
        "tools": tools,
        "system": [
            {
                "type": "text",
                "text": system_head + " " + PARAGRAPH * 1000,
                "cache_control": {"type": "ephemeral"},
            }
        ],
        "messages": messages,
    }


def timed(fn: Callable[[], Any], repeat: int = 15) -> float:
    fn()
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def cases() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    a = big_request()
    timestamp = big_request("Today is 2026-11-29 20:41:07.")
    last = copy.deepcopy(a)
    last["messages"][-2]["content"][0]["text"] += " edited"
    reordered = copy.deepcopy(a)
    schema = reordered["tools"][30]["input_schema"]
    reordered["tools"][30]["input_schema"] = {
        "required": schema["required"],
        "type": "object",
        "properties": schema["properties"],
    }
    one_string = {
        "model": "m",
        "system": "x" * 1_000_000 + " 10:00:01",
        "messages": [{"role": "user", "content": "hi"}],
        "cache_control": {"type": "ephemeral"},
    }
    return {
        "timestamp in system (early)": (a, timestamp),
        "edit in the last turn (late)": (a, last),
        "key order in tools[30]": (a, reordered),
        "identical": (a, copy.deepcopy(a)),
        "one 1 MB string, change at the end": (
            one_string,
            dict(one_string, system="x" * 1_000_000 + " 10:00:02"),
        ),
    }


def main() -> None:
    print(f"{'case':<38} {'size':>9} {'baseline ms':>12} {'diff ms':>9} {'ratio':>6}  result")
    worst = 0.0
    for name, (a, b) in cases().items():
        size = len(canonical_bytes(a))
        baseline = timed(lambda a=a, b=b: (canonical_bytes(a), canonical_bytes(b)))
        took = timed(lambda a=a, b=b: diff(a, b, "anthropic"))
        result = diff(a, b, "anthropic")
        ratio = took / baseline
        worst = max(worst, ratio)
        print(
            f"{name:<38} {size:>9,} {baseline * 1e3:>12.2f} {took * 1e3:>9.2f} {ratio:>6.2f}  "
            f"{result.cause} at {result.path}"
        )
    print(f"worst ratio {worst:.2f} (target <= 3.0): {'OK' if worst <= 3.0 else 'OVER'}")


if __name__ == "__main__":
    main()
