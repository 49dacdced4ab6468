"""
Benchmark: the path users run every turn, per vendor, at 50 and at 500 turns of history.

    .venv/bin/python bench/bench_request.py [--turns 20] [--runs 3] [--vendor anthropic ...]

A chat loop holds its prompt and grows it each turn: `commit_tail(reply).with_tail(question)`
(build), then `adapter.to_request(prompt, model=...)`, which plans the breakpoints and writes the
SDK's keyword arguments. That whole turn is the subject. Two baselines are measured on the same
turn, interleaved with it (baseline, subject, baseline, in turn):

  dumps   one `orjson.dumps` of the keyword arguments the subject returned: the least any SDK
          does with them before it sends them;
  naive   the loop an application writes without promptcache: append the reply and the question
          to a list of message dicts and `orjson.dumps` the whole request.

The 50-turn and 500-turn sessions of one vendor run in lockstep, turn by turn (which goes first
alternates), so `growth` (the 500-turn turn over the 50-turn turn) compares turns timed side by
side. Each turn is timed 5 times from the same prompt and averaged (a single call is too short
to time on a busy machine). Every figure is min / median / max over all turns of all runs.

Targets: growth <= 1.5x (a turn costs the new blocks and the breakpoint moves, not the history),
and the subject <= 1.5x dumps (promptcache costs at most half again what serialising its output
costs).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).parent))
from _workload import workload
from bench_build import assemble, make_parts

from promptcache.adapters import get_adapter

MODELS = {
    "anthropic": "claude-sonnet-4-6",
    "openai": "gpt-5.6",
    "openai-responses": "gpt-5.6",
    "gemini": "gemini-2.5-pro",
    "engine": "qwen3-32b",
}
SCALES = (50, 500)


def _timed(fn: Callable[[], Any], inner: int) -> tuple[float, Any]:
    """Seconds per call of `fn`, called `inner` times in a row, and its last result."""
    gc.disable()
    start = time.perf_counter()
    for _ in range(inner):
        out = fn()
    took = time.perf_counter() - start
    gc.enable()
    return took / inner, out


def session(vendor: str, turns: int, inner: int = 5) -> Iterator[dict[str, float]]:
    """
    A chat loop that starts with `turns` turns of history; one timed turn per `next()`. Each
    turn is timed `inner` times from the same prompt (one call is too short to time on a busy
    machine), and the loop goes on from the last of them.
    """
    adapter = get_adapter(vendor)
    model = MODELS[vendor]
    data = workload(turns=turns)
    prompt = assemble(make_parts(data))
    adapter.to_request(prompt, model=model)  # the first request of a process: parts made, hashed
    naive: dict[str, Any] = {
        "model": model,
        "tools": data["tools"],
        "system": [{"type": "text", "text": data["system"]}],
        "messages": [*data["history"], {"role": "user", "content": data["question"]}],
    }
    messages: list[dict[str, Any]] = naive["messages"]
    turn = 0
    while True:
        reply, question = f"Answer {turn}.", f"Question {turn}? " + data["question"]

        def subject(reply: str = reply, question: str = question, parent: Any = prompt) -> Any:
            nonlocal prompt
            prompt = parent.commit_tail(reply).with_tail(question)
            return adapter.to_request(prompt, model=model)

        def loop(reply: str = reply, question: str = question) -> bytes:
            messages.append({"role": "assistant", "content": reply})
            messages.append({"role": "user", "content": question})
            body = orjson.dumps(naive)
            del messages[-2:]  # timed again from the same history; kept after the last time
            return body

        naive_s, _ = _timed(loop, inner)
        subject_s, kwargs = _timed(subject, inner)
        dumps_s, _ = _timed(lambda kwargs=kwargs: orjson.dumps(kwargs), inner)
        messages.extend(
            [{"role": "assistant", "content": reply}, {"role": "user", "content": question}]
        )
        turn += 1
        yield {"subject": subject_s, "dumps": dumps_s, "naive": naive_s}


def spread(values: list[float], scale: float = 1.0, fmt: str = "{:.3f}") -> str:
    low, mid, high = min(values), statistics.median(values), max(values)
    return " / ".join(fmt.format(v * scale) for v in (low, mid, high))


def measure(vendor: str, turns: int, runs: int) -> dict[str, Any]:
    rows: dict[int, dict[str, list[float]]] = {
        scale: {"subject": [], "dumps": [], "naive": [], "vs_dumps": [], "vs_naive": []}
        for scale in SCALES
    }
    growth: list[float] = []
    for _ in range(runs):
        short, long = session(vendor, SCALES[0]), session(vendor, SCALES[1])
        for turn in range(turns):
            if turn % 2:
                a, b = next(short), next(long)
            else:
                b, a = next(long), next(short)
            for scale, sample in ((SCALES[0], a), (SCALES[1], b)):
                row = rows[scale]
                row["subject"].append(sample["subject"])
                row["dumps"].append(sample["dumps"])
                row["naive"].append(sample["naive"])
                row["vs_dumps"].append(sample["subject"] / sample["dumps"])
                row["vs_naive"].append(sample["subject"] / sample["naive"])
            growth.append(b["subject"] / a["subject"])
    return {"rows": rows, "growth": growth}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the per-turn request path, per vendor")
    parser.add_argument("--turns", type=int, default=20, help="timed turns per run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--vendor", action="append", choices=sorted(MODELS))
    args = parser.parse_args(argv)
    ok = True
    print("figures: min / median / max over every timed turn")
    for vendor in args.vendor or list(MODELS):
        result = measure(vendor, args.turns, args.runs)
        print(f"{vendor} ({MODELS[vendor]}):")
        for scale in SCALES:
            row = result["rows"][scale]
            print(
                f"  {scale:>3} turns: turn {spread(row['subject'], 1e3)} ms; "
                f"dumps {spread(row['dumps'], 1e3)} ms; naive {spread(row['naive'], 1e3)} ms"
            )
            print(
                f"             turn / dumps {spread(row['vs_dumps'], fmt='{:.2f}x')}  "
                f"(target median <= 1.50x); turn / naive {spread(row['vs_naive'], fmt='{:.2f}x')}"
            )
            ok = ok and statistics.median(row["vs_dumps"]) <= 1.5
        growth = result["growth"]
        print(
            f"  growth, 500-turn turn / 50-turn turn: {spread(growth, fmt='{:.2f}x')}  "
            "(target median <= 1.50x)"
        )
        ok = ok and statistics.median(growth) <= 1.5
    print("targets met" if ok else "targets NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
