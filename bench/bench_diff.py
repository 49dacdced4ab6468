"""
Benchmark: `diff` of two ~1 MB requests against canonically serialising both (the baseline,
measured in the same run). Target: median ratio <= 3.0. Run: .venv/bin/python bench/bench_diff.py

Baseline and subject run alternately, run by run (baseline, diff, baseline, diff, ...), and each
run gives one ratio: a noisy machine's slow spell then lands on both sides of a pair instead of
on one side of the comparison. A garbage collection runs before each timed call, so that the
collection the previous call's garbage sets off is not charged to the next one. Figures are
min / median / max of the per-run ratios.
"""

from __future__ import annotations

import copy
import gc
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


def _once(fn: Callable[[], Any]) -> float:
    # Collect first: a full collection that the previous call's garbage would set off (several
    # ms over two 1 MB requests' objects) otherwise lands on whichever call comes next.
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def paired(
    subject: Callable[[], Any], baseline: Callable[[], Any], repeat: int = 15
) -> tuple[list[float], list[float], list[float]]:
    """Subject and baseline times and their per-run ratios, the two run alternately."""
    subject()
    baseline()
    subjects, baselines = [], []
    for _ in range(repeat):
        baselines.append(_once(baseline))
        subjects.append(_once(subject))
    ratios = [s / b for s, b in zip(subjects, baselines, strict=True)]
    return subjects, baselines, ratios


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
    print("ratio: min / median / max of the per-run ratios (baseline and diff alternate)")
    print(f"{'case':<38} {'size':>9} {'baseline ms':>12} {'diff ms':>9}  {'ratio':<22} result")
    worst = 0.0
    for name, (a, b) in cases().items():
        size = len(canonical_bytes(a))
        took, baseline, ratios = paired(
            lambda a=a, b=b: diff(a, b, "anthropic"),
            lambda a=a, b=b: (canonical_bytes(a), canonical_bytes(b)),
        )
        result = diff(a, b, "anthropic")
        median = statistics.median(ratios)
        worst = max(worst, median)
        spread = f"{min(ratios):.2f} / {median:.2f} / {max(ratios):.2f}"
        print(
            f"{name:<38} {size:>9,} {statistics.median(baseline) * 1e3:>12.2f} "
            f"{statistics.median(took) * 1e3:>9.2f}  {spread:<22} {result.cause} at {result.path}"
        )
    print(f"worst median ratio {worst:.2f} (target <= 3.0): {'OK' if worst <= 3.0 else 'OVER'}")


if __name__ == "__main__":
    main()
