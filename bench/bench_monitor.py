"""
Benchmark: the monitor's cost per observed request, and a concurrent load run.

    .venv/bin/python bench/bench_monitor.py [--threads 16 --observations 10000 --keys 1000]

1. Overhead. A 50-turn session of the shared workload (bench/_workload.py: 40 tools, ~8k-token
   system prompt, 3 documents, growing history). Each turn the request is built the way an
   application using promptcache builds it (assemble the held parts, render, adapter
   `to_request`: the baseline, measured in the same run), then `Monitor.observe(request,
   response)` runs on it with the vendor's response JSON. Target: observe <= 5% of the build.
2. Scale. 100,000 observations over 10,000 keys at the default body budget against the same
   over 100 keys (runs interleaved, min/median/max of the per-observation cost over the steady
   second half of each run). Target: the cost at 10,000 keys within 1.5x of the cost at 100 keys.
   At 10,000 keys the budget holds about a third of the bodies, so every observation also drops
   one (the least recently observed) and fingerprints its elements; at 100 keys none is ever
   dropped. Two more arms are printed as context, not targets: 100 keys with a budget that holds
   about 35 bodies, so that it drops and fingerprints one per observation too (what a drop
   costs where the working set is small); and 10,000 keys with the drop keeping nothing at all
   (no fingerprint: not a monitor that could explain a miss, a floor): what 10,000 keys cost
   with no hashing, their working set alone.
3. Load. N threads x M observations over K keys with planted misses (every 10th observation of a
   key misses; every 20th also changes the system prompt). Checks that every planted miss became
   exactly one event and that the kept bodies never exceeded the byte budget.
"""

from __future__ import annotations

import argparse
import copy
import gc
import logging
import resource
import statistics
import sys
import threading
import time
import tracemalloc
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).parent))
from _workload import workload
from bench_build import assemble, make_parts

from promptcache import Invalidation, Message, Monitor
from promptcache.adapters import get_adapter
from promptcache.debug.memory import ELEMENT_BYTES, ENTRY_BYTES, FINGERPRINT_BYTES

MODEL = "claude-sonnet-4-6"
QUIET = logging.Logger("bench")  # detached and disabled: the events are counted, not printed
QUIET.disabled = True


def _response(read: int, write: int) -> dict[str, Any]:
    return {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 20,
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": write,
            "output_tokens": 5,
        },
    }


def _session(monitor: Monitor | None) -> Iterator[dict[str, float]]:
    """A 50-turn session, one turn per `next()`: the two ways to build, and observe if monitored."""
    adapter = get_adapter("anthropic")
    held = make_parts(workload())
    prompt = assemble(held)
    prompt.render()
    read, sent = 0, deque[dict[str, Any]](maxlen=2)  # this request and the previous one
    for turn in range(50):
        gc.disable()
        start = time.perf_counter()
        adapter.to_request(assemble(held), model=MODEL)
        middle = time.perf_counter()
        sent.append(adapter.to_request(prompt, model=MODEL))  # frees the one before last
        built = time.perf_counter()
        if monitor is not None:
            monitor.observe(
                sent[-1], _response(read, 400 if turn else 20000), key="s", at=turn * 10.0
            )
        done = time.perf_counter()
        gc.enable()
        yield {
            "assembled": middle - start,
            "incremental": built - middle,
            "observe": done - built,
            "both": done - middle,
        }
        read += 400 if turn else 20000
        reply, question = f"Answer {turn}.", f"Question {turn}?"
        held["history"] = [
            *held["history"],
            Message.user(held["question"]),
            Message.assistant(reply),
        ]
        held["question"] = question
        prompt = prompt.commit_tail(reply).with_tail(Message.user(question))


def overhead(rounds: int = 6) -> dict[str, float]:
    """
    Two baselines, both real ways to build the request: `assembled` is bench_build's
    per-request path (assemble the held parts, history included, render, `to_request`);
    `incremental` grows the previous prompt (`commit_tail().with_tail()`), which reuses every
    block already rendered, the cheapest build promptcache offers.

    The monitor holds the previous request until the next one replaces it. So that freeing a
    request (about half as long as building it) happens at the same place with and without the
    monitor, both sessions keep the last two requests, as an application with a request in flight
    does: the one before last is freed in the build, never inside `observe`.

    `marginal` is measured A/B: an unmonitored and a monitored session run in lockstep, turn by
    turn (which one goes first alternates), and each turn's build-and-observe minus the same
    turn's unmonitored build is one sample, so it also counts what observing does to the next
    build (a colder cache). Pairing the turns keeps a noisy machine's slow spells out of it.
    """
    samples: dict[str, list[float]] = {k: [] for k in ("assembled", "incremental", "observe")}
    marginal: list[float] = []
    for _ in range(rounds):
        monitor = Monitor("anthropic", metrics=False, logger=QUIET)
        plain, watched = _session(None), _session(monitor)
        for turn in range(50):
            if turn % 2:
                bare, seen = next(plain), next(watched)
            else:
                seen, bare = next(watched), next(plain)
            samples["assembled"].append(bare["assembled"])
            samples["incremental"].append(bare["incremental"])
            samples["observe"].append(seen["observe"])
            marginal.append(seen["both"] - bare["incremental"])
        assert monitor.stats()["events"] == 0, monitor.stats()
    median = statistics.median
    return {**{k: median(v) for k, v in samples.items()}, "marginal": median(marginal)}


def _key_requests(keys: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    base = {
        "model": MODEL,
        "max_tokens": 512,
        "tools": [
            {
                "name": f"tool_{i}",
                "description": "Looks things up. " * 20,
                "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
            }
            for i in range(8)
        ],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Hello " * 200, "cache_control": {"type": "ephemeral"}}
                ],
            }
        ],
    }
    out = []
    for k in range(keys):
        request = copy.deepcopy(base)
        request["system"] = [
            {
                "type": "text",
                "text": f"Tenant {k}. " + "Policy text. " * 400,
                "cache_control": {"type": "ephemeral"},
            }
        ]
        changed = copy.deepcopy(request)
        changed["system"][0]["text"] = (
            f"Tenant {k} at 2026-11-29 20:41:07. " + "Policy text. " * 400
        )
        out.append((request, changed))
    return out


_POLICY = "Policy text. " * 400
_TOOLS = _key_requests(1)[0][0]["tools"]


def _tenant_request(k: int, n: int) -> dict[str, Any]:
    """Key k's n-th request: shared tools, the tenant's system prompt, a growing conversation."""
    history = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"Turn {i} of tenant {k}."}
        for i in range(2 * (n % 4))
    ]
    return {
        "model": MODEL,
        "max_tokens": 512,
        "tools": _TOOLS,
        "system": [
            {
                "type": "text",
                "text": f"Tenant {k}. " + _POLICY,
                "cache_control": {"type": "ephemeral"},
            }
        ],
        "messages": [*history, {"role": "user", "content": f"Question {n}?"}],
    }


# A body budget that holds about 35 of the scale run's requests (about 9.7 KB each, as the
# monitor estimates them): with 100 keys it is full, so every observation drops a body, as every
# one does with 10,000 keys at the default budget.
SMALL_BUDGET = 340_000


def scale_run(
    keys: int, observations: int, budget: int = 32 * 1024 * 1024, *, bare: bool = False
) -> float:
    """
    Seconds per observation over the second half of one run (the budget full by then). `bare`:
    a dropped body leaves nothing behind (the floor arm).
    """
    monitor = Monitor("anthropic", metrics=False, logger=QUIET, body_budget=budget)
    if bare:
        monitor._shrink = lambda entry: None  # type: ignore[method-assign]
    hit = _response(2400, 20)
    first = _response(0, 2400)
    seen = [0] * keys
    half = observations // 2
    start = 0.0
    gc.collect()
    for i in range(observations):
        if i == half:
            start = time.perf_counter()
        k = (i * 7919) % keys  # every key in turn, not in key order
        n = seen[k]
        seen[k] += 1
        monitor.observe(_tenant_request(k, n), first if n == 0 else hit, key=f"t{k}", at=float(i))
    took = time.perf_counter() - start
    held = monitor.memory()
    assert held["body_bytes"] <= held["body_budget"], held
    return took / (observations - half)


def scale(rounds: int, observations: int, keys: int) -> dict[str, list[float]]:
    """The four arms, interleaved (the order rotates each round)."""
    default = 32 * 1024 * 1024
    arms = {
        "few": (100, default, False),
        "many": (keys, default, False),
        "few_full": (100, SMALL_BUDGET, False),
        "many_bare": (keys, default, True),
    }
    samples: dict[str, list[float]] = {name: [] for name in arms}
    names = list(arms)
    for r in range(rounds):
        turn = r % len(names)
        for name in names[turn:] + names[:turn]:
            keys_in, budget, bare = arms[name]
            samples[name].append(scale_run(keys_in, observations, budget, bare=bare))
    return samples


def load(threads: int, observations: int, keys: int, budget: int) -> dict[str, Any]:
    requests = _key_requests(keys)
    events: list[Invalidation] = []
    sink_lock = threading.Lock()

    def sink(event: Invalidation) -> None:
        with sink_lock:
            events.append(event)

    monitor = Monitor(
        "anthropic",
        on_invalidation=sink,
        metrics=False,
        body_budget=budget,
        max_keys=keys,
        logger=QUIET,
    )
    hit, miss = _response(6000, 0), _response(0, 6000)
    planted = [0] * threads
    peak = [0]
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], monitor.memory()["body_bytes"])
            time.sleep(0.005)

    def worker(t: int) -> None:
        mine = [k for k in range(keys) if k % threads == t]
        seen = dict.fromkeys(mine, 0)
        for i in range(observations):
            k = mine[i % len(mine)]
            n = seen[k]
            seen[k] += 1
            is_miss = n % 10 == 9
            request = requests[k][1] if n % 20 == 19 else requests[k][0]
            monitor.observe(request, miss if is_miss else hit, key=f"key-{k}", at=float(n))
            planted[t] += is_miss

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    start = time.perf_counter()
    pool = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    took = time.perf_counter() - start
    stop.set()
    watcher.join()
    stats = monitor.stats()
    actual = _kept_body_bytes(monitor)
    return {
        "actual_body_bytes": actual,
        "observations": stats["observations"],
        "planted_misses": sum(planted),
        "events_delivered": len(events),
        "events_counted": stats["events"],
        "by_cause": stats["by_cause"],
        "seconds": took,
        "peak_body_bytes": peak[0],
        "final": monitor.memory(),
        "budget": budget,
        "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _kept_body_bytes(monitor: Monitor) -> int:
    """The real serialised size of the bodies the monitor still holds (its accounting estimates)."""
    total = 0
    for entry in list(monitor._keys.entries.values()):
        if entry.body is not None:
            total += len(orjson.dumps(entry.body))
    return total


def _held_per_key(extra_tools: int, *, body_budget: int, keys: int = 2000) -> tuple[float, float]:
    """Bytes traced per key (tracemalloc) and element hashes per key, bodies dropped."""
    hit = _response(2400, 20)
    requests = []
    for k in range(keys):
        request = _tenant_request(k, 3)
        extra = [dict(_TOOLS[0], name=f"extra_{i}") for i in range(extra_tools)]
        request["tools"] = [*request["tools"], *extra]
        requests.append(request)
    monitor = Monitor("anthropic", metrics=False, logger=QUIET, body_budget=body_budget)
    monitor.observe(requests[0], hit, key="warm", at=0.0)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for k, request in enumerate(requests):
        monitor.observe(request, hit, key=f"t{k}", at=float(k))
    del request
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    held = monitor.memory()
    return (after - before) / keys, held["hashes"] / held["keys"]


def memory_per_key() -> None:
    """What a key whose body was dropped holds, against the constants `memory()` estimates with."""
    small, large = _held_per_key(0, body_budget=0), _held_per_key(40, body_budget=0)
    element = (large[0] - small[0]) / (large[1] - small[1])
    fixed = small[0] - small[1] * element
    print(
        f"memory, bodies dropped (fingerprints): {fixed:.0f} B per key and {element:.1f} B per "
        f"element measured; estimated {ENTRY_BYTES + FINGERPRINT_BYTES} B and {ELEMENT_BYTES} B"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--observations", type=int, default=10_000)
    parser.add_argument("--keys", type=int, default=1_000)
    parser.add_argument("--budget", type=int, default=16 * 1024 * 1024)
    parser.add_argument("--scale-observations", type=int, default=100_000)
    parser.add_argument("--scale-keys", type=int, default=10_000)
    parser.add_argument("--scale-rounds", type=int, default=3)
    parser.add_argument("--only-scale", action="store_true")
    parser.add_argument("--memory", action="store_true", help="only the bytes a key holds")
    args = parser.parse_args()
    if args.memory:
        memory_per_key()
        return 0

    samples = scale(args.scale_rounds, args.scale_observations, args.scale_keys)
    few, many = sorted(samples["few"]), sorted(samples["many"])
    full, bare = sorted(samples["few_full"]), sorted(samples["many_bare"])
    median = statistics.median
    scale_ratio = median(many) / median(few)
    print(
        f"scale: {args.scale_observations:,} observations, default budget; per observation "
        f"(min/median/max): 100 keys {few[0] * 1e6:.1f}/{median(few) * 1e6:.1f}/"
        f"{few[-1] * 1e6:.1f} us (baseline), {args.scale_keys:,} keys {many[0] * 1e6:.1f}/"
        f"{median(many) * 1e6:.1f}/{many[-1] * 1e6:.1f} us; ratio of medians {scale_ratio:.2f}x "
        "(target <= 1.5x)"
    )
    print(
        f"  context: 100 keys with a budget of {SMALL_BUDGET:,} bytes (full: a body dropped and "
        f"fingerprinted per observation, as with {args.scale_keys:,} keys) {full[0] * 1e6:.1f}/"
        f"{median(full) * 1e6:.1f}/{full[-1] * 1e6:.1f} us = {median(full) / median(few):.2f}x "
        "the baseline"
    )
    print(
        f"  floor: {args.scale_keys:,} keys, a dropped body leaving nothing (no fingerprint) "
        f"{bare[0] * 1e6:.1f}/{median(bare) * 1e6:.1f}/{bare[-1] * 1e6:.1f} us = "
        f"{median(bare) / median(few):.2f}x the baseline (the working set alone)"
    )
    if args.only_scale:
        return 0 if scale_ratio <= 1.5 else 1

    times = overhead()
    marginal, observe = times["marginal"], times["observe"]
    ratio = marginal / times["assembled"]
    print(
        f"build, per-request path (assemble held parts + render + to_request): "
        f"{times['assembled'] * 1e3:7.3f} ms  (baseline)"
    )
    print(
        f"build, incremental (commit_tail + with_tail + to_request):           "
        f"{times['incremental'] * 1e3:7.3f} ms  (second baseline)"
    )
    print(f"observe, timed alone:                                         {observe * 1e3:7.3f} ms")
    print(
        f"observe, marginal cost (monitored minus unmonitored session):  {marginal * 1e3:7.3f} ms"
        f"  = {ratio:6.1%} of the per-request build, "
        f"{marginal / times['incremental']:6.1%} of the incremental build  (target <= 5%)"
    )
    result = load(args.threads, args.observations, args.keys, args.budget)
    lost = result["planted_misses"] - result["events_delivered"]
    print(
        f"load: {args.threads} threads x {args.observations:,} observations over {args.keys:,} "
        f"keys in {result['seconds']:.1f} s"
    )
    print(
        f"  observations {result['observations']:,}; planted misses {result['planted_misses']:,}; "
        f"events delivered {result['events_delivered']:,}; counted {result['events_counted']:,}; "
        f"lost {lost}"
    )
    print(f"  by cause {result['by_cause']}")
    print(
        f"  body bytes: peak {result['peak_body_bytes']:,}, final {result['final']['body_bytes']:,}"
        f" of budget {result['budget']:,} (accounted); measured size of the kept bodies "
        f"{result['actual_body_bytes']:,}; keys {result['final']['keys']:,}; "
        f"max RSS {result['max_rss_mib']:.0f} MiB"
    )
    ok = (
        ratio <= 0.05
        and scale_ratio <= 1.5
        and lost == 0
        and result["events_counted"] == result["planted_misses"]
        and result["peak_body_bytes"] <= result["budget"]
        and result["actual_body_bytes"] <= result["budget"]
    )
    print("targets met" if ok else "targets NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
