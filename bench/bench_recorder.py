"""
Benchmark: what the recorder's lock between processes costs per record, on the caller's thread.

    .venv/bin/python bench/bench_recorder.py [--rounds 6]

The 50 requests of the shared workload's session (bench/_workload.py: 40 tools, ~8k-token
system prompt, 3 documents, a history growing to 50 turns), as the Anthropic adapter writes
them, each with its response JSON, recorded the way `Monitor(recorder=...)` records them
(`content="hashes"`, the default; default `max_bytes`, so no rotation in the timed calls); and
50 turns of a short chat (lines of ~0.4 KB, where the lock's fixed cost shows most). Two
ways to append each:

- unlocked (the baseline): the same line (`Recorder.line`) appended with one buffered write and
  a flush, as the recorder did before it took a lock: nothing between processes;
- `Recorder.record`: the line, then under the sidecar `flock` a stat of the path (was it
  rotated by another process?) and one O_APPEND write.

Each round runs both in lockstep, record by record, the order alternating, each into its own
fresh file, after the round's lines were made once (the placeholder memo is shared by both, and
a conversation resends the same texts). Printed: per-record cost of each (median), and recorded/unlocked per record as
min/median/max over every record of every round.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_monitor import MODEL, _response
from bench_wrap import _requests

from promptcache import Recorder


class Unlocked:
    """The baseline: `Recorder.line`, then a plain buffered append with no lock."""

    def __init__(self, path: Path) -> None:
        self._lines = Recorder(path.with_suffix(".unused"))
        self._handle = path.open("ab")

    def record(self, request: Any, response: Any, *, key: str, at: float) -> None:
        data = self._lines.line(request, response, key=key, at=at, vendor="anthropic")
        self._handle.write(data)
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()


def _call(writer: Any, request: Any, response: Any, turn: int) -> float:
    gc.disable()
    start = time.perf_counter()
    writer.record(request, response, key="session-1", at=turn * 10.0)
    spent = time.perf_counter() - start
    gc.enable()
    return spent


def small_requests() -> list[dict[str, Any]]:
    """50 turns of a short chat: a one-sentence system prompt, one question a turn."""
    system = [{"type": "text", "text": "You are a terse assistant for the billing desk."}]
    return [
        {
            "model": MODEL,
            "max_tokens": 256,
            "system": system,
            "messages": [
                {"role": "user", "content": f"Question {turn}: what is invoice {turn} for?"}
            ],
        }
        for turn in range(50)
    ]


def run(
    rounds: int,
    subject: Any = Recorder,
    baseline: Any = Unlocked,
    requests: list[dict[str, Any]] | None = None,
) -> dict[str, list[float]]:
    """Per-record seconds of `subject(path)` and `baseline(path)`, interleaved record by record."""
    requests = _requests() if requests is None else requests
    responses = [_response(400 * t, 400 if t else 20000) for t in range(len(requests))]
    samples: dict[str, list[float]] = {"baseline": [], "subject": [], "ratio": []}
    with tempfile.TemporaryDirectory() as folder:
        for n in range(rounds):
            warm = Recorder(Path(folder, "unused"))  # the placeholder memo is shared: fill it
            for turn, (request, response) in enumerate(zip(requests, responses, strict=True)):
                warm.line(request, response, key="session-1", at=turn * 10.0, vendor="anthropic")
            ours, theirs = subject(Path(folder, f"s{n}.jsonl")), baseline(Path(folder, f"b{n}"))
            for turn, (request, response) in enumerate(zip(requests, responses, strict=True)):
                if turn % 2:
                    a = _call(theirs, request, response, turn)
                    b = _call(ours, request, response, turn)
                else:
                    b = _call(ours, request, response, turn)
                    a = _call(theirs, request, response, turn)
                samples["baseline"].append(a)
                samples["subject"].append(b)
                samples["ratio"].append(b / a)
            ours.close()
            theirs.close()
            assert getattr(ours, "dropped", 0) == 0
    return samples


def report(samples: dict[str, list[float]], subject: str, baseline: str) -> str:
    median, ratio = statistics.median, samples["ratio"]
    return (
        f"per record, median over {len(ratio)} records: {baseline} "
        f"{median(samples['baseline']) * 1e6:.1f} µs, {subject} "
        f"{median(samples['subject']) * 1e6:.1f} µs; {subject} / {baseline} per record: "
        f"min {min(ratio):.2f}x  median {median(ratio):.2f}x  max {max(ratio):.2f}x"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args(argv)
    for label, requests in (("workload session", _requests()), ("short chat", small_requests())):
        samples = run(args.rounds, requests=requests)
        print(f"{label}: " + report(samples, "Recorder.record", "unlocked"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
