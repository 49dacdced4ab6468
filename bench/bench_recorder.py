"""
Benchmark: what `Recorder.record` costs on the caller's thread, background (the default: a
snapshot queued for the writer thread) against synchronous (`background=False`: redacted,
serialised and appended on the caller's thread, as every record was before), and what both cost
in all, so the writer thread is not hiding a slowdown.

    .venv/bin/python bench/bench_recorder.py [--rounds 6] [--processes 2]

The 50 requests of the shared workload's session (bench/_workload.py: 40 tools, ~8k-token
system prompt, 3 documents, a history growing to 50 turns; ~300 KB a request at the end), as
the Anthropic adapter writes them, each with its response JSON, recorded the way
`Monitor(recorder=...)` records them (`content="hashes"`, the default; default `max_bytes`, so
no rotation in the timed calls); and 50 turns of a short chat (lines of ~0.4 KB).

- caller's thread: each round runs both in lockstep, record by record, the order alternating,
  each into its own fresh file, after the round's lines were made once (the placeholder memo is
  shared by both, and a conversation resends the same texts). The background recorder's queue is
  flushed after each timed call, untimed, so no timed call competes with the writer for the GIL.
  Printed: per-record cost of each (median), and background/synchronous per record as
  min/median/max over every record of every round.
- in all: per round, the 50 records and `close()` (every line written), each mode once, the
  order alternating; wall time and the process's CPU time (the writer thread's included),
  printed per session (median) and background/synchronous min/median/max. For a short session
  the wall time is mostly the writer waiting for the GIL (the interpreter hands it over every
  5 ms), not work; the CPU time is the cost.

With `--processes N` (default 2; 0 to skip), N processes record the short chat 40 times each
synchronously, at once, into one shared file (each write waits for the others' holds of the
lock), against the same N processes each into its own file, the two alternating round by round:
per-record median of each process. On a machine with fewer cores than N the processes also wait
for the CPU.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
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


def background(path: Path) -> Recorder:
    return Recorder(path)


def synchronous(path: Path) -> Recorder:
    return Recorder(path, background=False)


def _call(writer: Any, request: Any, response: Any, turn: int) -> float:
    gc.disable()
    start = time.perf_counter()
    writer.record(request, response, key="session-1", at=turn * 10.0)
    spent = time.perf_counter() - start
    gc.enable()
    writer.flush()  # untimed: the writer thread done before the next timed call
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
    subject: Any = background,
    baseline: Any = synchronous,
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
            assert ours.dropped == theirs.dropped == 0
    return samples


def throughput(
    rounds: int, requests: list[dict[str, Any]]
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """
    Seconds for the whole session recorded and closed (every line written), each mode: wall
    time, and the process's CPU time (every thread's, the writer's included).
    """
    responses = [_response(400 * t, 400 if t else 20000) for t in range(len(requests))]
    samples: dict[str, list[float]] = {"baseline": [], "subject": [], "ratio": []}
    cpu: dict[str, list[float]] = {"baseline": [], "subject": [], "ratio": []}
    with tempfile.TemporaryDirectory() as folder:
        for n in range(rounds):
            spent, used = {}, {}
            modes = [("subject", background), ("baseline", synchronous)]
            for name, make in modes if n % 2 == 0 else modes[::-1]:
                recorder = make(Path(folder, f"{name}{n}.jsonl"))
                start, start_cpu = time.perf_counter(), time.process_time()
                for turn, (request, response) in enumerate(zip(requests, responses, strict=True)):
                    recorder.record(request, response, key="session-1", at=turn * 10.0)
                recorder.close()
                spent[name] = time.perf_counter() - start
                used[name] = time.process_time() - start_cpu
                assert recorder.dropped == 0
            samples["baseline"].append(spent["baseline"])
            samples["subject"].append(spent["subject"])
            samples["ratio"].append(spent["subject"] / spent["baseline"])
            cpu["baseline"].append(used["baseline"])
            cpu["subject"].append(used["subject"])
            cpu["ratio"].append(used["subject"] / max(used["baseline"], 1e-9))
    return samples, cpu


def _worker(path: str, out: Any, start: Any, repeats: int) -> None:
    """One app process: the short chat `repeats` times; sends its per-record seconds back."""
    requests = small_requests()
    responses = [_response(400 * t, 400 if t else 20000) for t in range(len(requests))]
    recorder = Recorder(path, background=False)  # the lock's cost, on the caller's thread
    start.wait()
    spent = [
        _call(recorder, request, response, turn)
        for _ in range(repeats)
        for turn, (request, response) in enumerate(zip(requests, responses, strict=True))
    ]
    recorder.close()
    out.put((statistics.median(spent), recorder.dropped))


def processes(count: int, rounds: int, repeats: int = 40) -> dict[str, list[float]]:
    """
    `count` processes recording at once into one shared file (the lock contended) and, as the
    baseline, each into its own file; the two alternate round by round. Per round: the median
    per-record seconds of each process.
    """
    context = multiprocessing.get_context("fork")
    samples: dict[str, list[float]] = {"own files": [], "one file": []}
    with tempfile.TemporaryDirectory() as folder:
        for n in range(rounds):
            for shared in (n % 2 == 0, n % 2 == 1):
                out, start = context.Queue(), context.Event()
                paths = [
                    Path(folder, f"r{n}-{'shared' if shared else w}.jsonl") for w in range(count)
                ]
                workers = [
                    context.Process(target=_worker, args=(str(p), out, start, repeats))
                    for p in paths
                ]
                for worker in workers:
                    worker.start()
                start.set()
                results = [out.get(timeout=300) for _ in workers]
                for worker in workers:
                    worker.join()
                assert all(dropped == 0 for _, dropped in results)
                samples["one file" if shared else "own files"] += [m for m, _ in results]
    return samples


def report(samples: dict[str, list[float]], unit: str, scale: float) -> str:
    median, ratio = statistics.median, samples["ratio"]
    return (
        f"median over {len(ratio)}: synchronous {median(samples['baseline']) * scale:.1f} {unit}, "
        f"background {median(samples['subject']) * scale:.1f} {unit}; background / synchronous: "
        f"min {min(ratio):.2f}x  median {median(ratio):.2f}x  max {max(ratio):.2f}x"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args(argv)
    for label, requests in (("workload session", _requests()), ("short chat", small_requests())):
        samples = run(args.rounds, requests=requests)
        print(f"{label}, caller's thread per record: " + report(samples, "µs", 1e6))
        wall, cpu = throughput(args.rounds, requests)
        print(f"{label}, 50 records + close, wall: " + report(wall, "ms", 1e3))
        print(f"{label}, 50 records + close, process CPU: " + report(cpu, "ms", 1e3))
    if args.processes > 1:
        found = processes(args.processes, args.rounds)
        own, one = found["own files"], found["one file"]
        print(
            f"short chat, {args.processes} processes at once: per record, median of the "
            f"processes' medians over {args.rounds} rounds: each into its own file "
            f"{statistics.median(own) * 1e6:.1f} µs (min {min(own) * 1e6:.1f}, max "
            f"{max(own) * 1e6:.1f}), all into one file {statistics.median(one) * 1e6:.1f} µs "
            f"(min {min(one) * 1e6:.1f}, max {max(one) * 1e6:.1f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
