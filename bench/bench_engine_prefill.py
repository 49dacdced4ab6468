"""
Benchmark: prefill time on a real llama.cpp server, promptcache-ordered versus naively ordered
prompts, over a multi-turn session.

    .venv/bin/python bench/bench_engine_prefill.py [--runs 3 --turns 6 --sections 32 --threads 2]

Both layouts carry the same content: an operations manual (the system prompt), the conversation
so far and the new question with the current time. The naive layout puts "Current time: ..." at
the top of the system prompt, as many applications do; promptcache's builder puts it in the tail.
Each run plays one session per layout, interleaved, on one llama.cpp server (SmolLM2-135M,
xllamacpp, default settings), with a manual of its own so no run starts warm from another. Prefill
time is the server's own `timings.prompt_ms` (wall time is printed beside it). Ratios are naive
over ordered: the whole session, and the turns after the first (where a session lives).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from promptcache import Message, Prompt
from promptcache.adapters import get_adapter
from promptcache.serving.llamacpp import LlamaServer


def _manual(run: int, sections: int) -> str:
    return "\n".join(
        f"Manual edition {run}, section {i}: pallets in aisle {i} are scanned twice, "
        f"weighed, and labelled with the carrier code before they ship."
        for i in range(sections)
    )


def _chat(url: str, body: dict[str, Any]) -> tuple[float, int, int, float]:
    request = urllib.request.Request(
        f"{url}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as response:
        answer = json.loads(response.read())
    wall = time.perf_counter() - started
    timings = answer["timings"]
    return float(timings["prompt_ms"]), int(timings["prompt_n"]), int(timings["cache_n"]), wall


def _ordered_turn(manual: str, history: list[Message], stamp: str, question: str) -> dict[str, Any]:
    prompt = Prompt().add_system(manual).add_history(*history).with_tail(f"{stamp} {question}")
    body = get_adapter("engine").to_request(prompt, model="smollm2", engine="llama.cpp")
    return {**body, "max_tokens": 4, "temperature": 0}


def _naive_turn(manual: str, history: list[Message], stamp: str, question: str) -> dict[str, Any]:
    messages = [{"role": "system", "content": f"{stamp}\n{manual}"}]
    messages += [{"role": m.role, "content": str(m.content)} for m in history]
    messages.append({"role": "user", "content": question})
    return {"model": "smollm2", "messages": messages, "max_tokens": 4, "temperature": 0}


def _session(url: str, layout: str, manual: str, turns: int) -> list[tuple[float, int, int, float]]:
    history: list[Message] = []
    results = []
    build = _ordered_turn if layout == "ordered" else _naive_turn
    for turn in range(turns):
        stamp = f"Current time: 2026-11-30T06:{turn:02d}:{turn * 7 % 60:02d}Z."
        question = f"Turn {turn}: where is shipment SH-{turn:04d} and when does it leave?"
        results.append(_chat(url, build(manual, history, stamp, question)))
        history += [
            Message(role="user", content=question),
            Message(role="assistant", content=f"Shipment SH-{turn:04d} leaves from aisle {turn}."),
        ]
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--sections", type=int, default=32, help="manual size (~24 tokens each)")
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    args = parser.parse_args()

    session_ratio, warm_ratio = [], []
    with LlamaServer(n_ctx=8192, threads=args.threads) as server:
        _chat(server.url, _naive_turn("warm-up", [], "", "hello"))  # one-time setup cost
        for run in range(args.runs):
            totals = {}
            for layout in ("ordered", "naive"):  # interleaved, run by run
                manual = _manual(run * 2 + (layout == "naive"), args.sections)
                turns = _session(server.url, layout, manual, args.turns)
                totals[layout] = turns
                prompt_ms = [t[0] for t in turns]
                print(
                    f"run {run} {layout:>7}: prefill {sum(prompt_ms):8.0f} ms "
                    f"(first turn {prompt_ms[0]:6.0f} ms, later turns {sum(prompt_ms[1:]):7.0f} ms); "
                    f"tokens evaluated {sum(t[1] for t in turns):6d}, "
                    f"reused {sum(t[2] for t in turns):6d}; wall {sum(t[3] for t in turns):6.2f} s"
                )
            ordered = [t[0] for t in totals["ordered"]]
            naive = [t[0] for t in totals["naive"]]
            session_ratio.append(sum(naive) / sum(ordered))
            warm_ratio.append(sum(naive[1:]) / sum(ordered[1:]))

    for name, ratios in (("whole session", session_ratio), ("turns after the first", warm_ratio)):
        print(
            f"naive / ordered prefill time, {name}: min {min(ratios):.1f}x  "
            f"median {statistics.median(ratios):.1f}x  max {max(ratios):.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
