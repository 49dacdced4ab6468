"""
Benchmark: what `wrap()` costs per call on top of observing the same call by hand.

    .venv/bin/python bench/bench_wrap.py [--rounds 6]

The 50 requests of the shared workload's session (bench/_workload.py: 40 tools, ~8k-token
system prompt, 3 documents, a history growing to 50 turns), as the Anthropic adapter writes
them, are sent to a client whose `messages.create` returns the vendor's response JSON at once
(no network, so only promptcache's work is timed). Two ways to observe each call:

- by hand (the baseline): `client.messages.create(**request)`, then
  `monitor.observe(request, response)`;
- wrapped: `promptcache.wrap(client).messages.create(**request)`, which also reads the request
  as the SDK would send it before handing it to its monitor: one orjson pass when it is plain
  JSON (`lists`), the full walk when it is not (`messages as a deque`: drains iterators, turns
  views and models into JSON), then a check of the vendor's shape.

Each round runs both sessions in lockstep, turn by turn, the order alternating, with fresh
monitors. Printed: per-call cost of each (median), and the wrapped/by-hand ratio per turn as
min/median/max over every turn of every round.
"""

from __future__ import annotations

import argparse
import collections
import gc
import logging
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _workload import workload
from bench_build import assemble, make_parts
from bench_monitor import MODEL, _response

from promptcache import Message, Monitor, wrap
from promptcache.adapters import get_adapter

QUIET = logging.Logger("bench")
QUIET.disabled = True


def _requests() -> list[dict[str, Any]]:
    adapter = get_adapter("anthropic")
    held = make_parts(workload())
    prompt = assemble(held)
    out = []
    for turn in range(50):
        out.append(adapter.to_request(prompt, model=MODEL))
        reply, question = f"Answer {turn}.", f"Question {turn}?"
        held["history"] = [
            *held["history"],
            Message.user(held["question"]),
            Message.assistant(reply),
        ]
        held["question"] = question
        prompt = prompt.commit_tail(reply).with_tail(Message.user(question))
    return out


class _Client:
    """`messages.create` answers with turn n's response JSON: a read of everything before it."""

    def __init__(self) -> None:
        self.turn = 0
        client = self

        class Messages:
            def create(self, **kwargs: Any) -> dict[str, Any]:
                return _response(400 * client.turn, 400 if client.turn else 20000)

        self.messages = Messages()


def _call(
    requests: list[dict[str, Any]], turn: int, wrapped: bool, state: Any, deque_: bool = False
) -> float:
    client, monitor, proxy = state
    client.turn = turn
    request = requests[turn]
    if deque_:  # the SDK sends any iterable: wrap() then walks the request as the SDK would
        request = {**request, "messages": collections.deque(request["messages"])}
    gc.disable()
    start = time.perf_counter()
    if wrapped:
        proxy.messages.create(**request)
    else:
        response = client.messages.create(**request)
        monitor.observe(request, response, at=turn * 10.0)
    spent = time.perf_counter() - start
    gc.enable()
    return spent


def run(rounds: int, deque_: bool = False) -> dict[str, list[float]]:
    requests = _requests()
    samples: dict[str, list[float]] = {"hand": [], "wrapped": [], "ratio": []}
    for _ in range(rounds):
        ticks = iter(range(10**9))
        hand_client, wrap_client = _Client(), _Client()
        hand = (hand_client, Monitor("anthropic", metrics=False, logger=QUIET), None)
        watched = Monitor(
            "anthropic", metrics=False, logger=QUIET, clock=lambda t=ticks: next(t) * 10.0
        )
        proxy = wrap(wrap_client, vendor="anthropic", monitor=watched, key="anthropic:bench")
        wrapped = (wrap_client, watched, proxy)
        for turn in range(len(requests)):
            if turn % 2:
                a = _call(requests, turn, False, hand)
                b = _call(requests, turn, True, wrapped, deque_)
            else:
                b = _call(requests, turn, True, wrapped, deque_)
                a = _call(requests, turn, False, hand)
            samples["hand"].append(a)
            samples["wrapped"].append(b)
            samples["ratio"].append(b / a)
        assert watched.stats()["observations"] == len(requests), watched.stats()
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args(argv)
    median = statistics.median
    for deque_, label in ((False, "lists"), (True, "messages as a deque")):
        samples = run(args.rounds, deque_)
        ratio = samples["ratio"]
        print(
            f"{label}: per call, median over {len(ratio)} calls: by hand "
            f"{median(samples['hand']) * 1e6:.0f} µs, wrapped "
            f"{median(samples['wrapped']) * 1e6:.0f} µs; wrapped / by hand per turn: "
            f"min {min(ratio):.2f}x  median {median(ratio):.2f}x  max {max(ratio):.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
