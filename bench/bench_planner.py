"""
The planner, measured against the oracle under the Anthropic cache EMULATION.

Six workloads (multi-turn chat, an agent loop with parallel tool fan-outs, document Q&A, bursty
traffic with gaps past the TTL, tenants sharing a system prompt, tenants sharing only the first
of two system blocks) are sent, request by request on an emulated clock, with seven ways of
placing breakpoints:

- planner: promptcache's planner with its defaults and a `SharedPrefixes` (what it learns);
- rules_only: the planner with `conversation=False` and nothing learned;
- last_message: one marker on the last content block of the last message;
- system_and_last: one on the last system block and one on the last message;
- automatic: Anthropic's top-level `cache_control` (the API marks the last cacheable block);
- no_cache: no markers;
- oracle: for each request, every set of up to 4 breakpoints drawn from its candidate places,
  tried on a copy of the emulator; it keeps the set with the lowest cost of this request plus
  the cheapest single-marker cost of the next request of each session (up to five sessions), so
  it knows what comes next: writes that nobody reads are not made. The candidate places are the
  ends of the tools and of the system blocks, the end of the request and of its history, and the
  longest prefix it shares with the previous request of its session and with the next request
  of each session. It looks one request ahead per session, so it is a strong baseline, not a
  proven optimum: a share over 1 would mean the planner beat it.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import random
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from _workload import prose, tool_spec

from promptcache import (
    Doc,
    Message,
    Prompt,
    SharedPrefixes,
    Tool,
    ToolResult,
    ToolUse,
    get_adapter,
    load_prices,
    plan,
)
from promptcache._plan import Plan
from promptcache.sim import AnthropicEmulator, ManualClock
from promptcache.sim.anthropic import Prepared

MODEL = "claude-sonnet-4-6"
STRATEGIES = (
    "planner",
    "rules_only",
    "last_message",
    "system_and_last",
    "automatic",
    "no_cache",
    "oracle",
)


@dataclass(frozen=True, slots=True)
class Request:
    at: float
    session: str
    prompt: Prompt


# -- workloads ------------------------------------------------------------------------------------


def _base(rng: random.Random, tools: int = 8, system_tokens: int = 3000) -> Prompt:
    made = [Tool(**tool_spec(rng, i)) for i in range(tools)]
    return Prompt(volatile="ignore").add_tools(*made).add_system(prose(rng, system_tokens))


def chat(rng: random.Random) -> Iterator[Request]:
    prompt, at = _base(rng), 0.0
    for _ in range(30):
        prompt = prompt.with_tail(prose(rng, rng.randint(20, 120)))
        yield Request(at, "chat", prompt)
        prompt = prompt.commit_tail(prose(rng, rng.randint(80, 400)))
        at += rng.uniform(10, 90)


def agent(rng: random.Random) -> Iterator[Request]:
    """A question, then rounds of parallel tool calls (1 to 14 at once) and their results."""
    prompt, at, call = _base(rng, tools=14), 0.0, 0
    for _question in range(4):
        prompt = prompt.with_tail(prose(rng, 60))
        for _round in range(rng.randint(2, 4)):
            yield Request(at, "agent", prompt)
            fan = rng.choice([1, 2, 3, 6, 11, 14])
            uses = [
                ToolUse(
                    id=f"toolu_{call + i:05d}", name=f"tool_{rng.randrange(14)}", input={"q": i}
                )
                for i in range(fan)
            ]
            call += fan
            results = [ToolResult(tool_use_id=u.id, content=prose(rng, 80)) for u in uses]
            prompt = prompt.commit_tail(Message.assistant(uses)).with_tail(Message.user(results))
            at += rng.uniform(3, 15)
        yield Request(at, "agent", prompt)
        prompt = prompt.commit_tail(prose(rng, 200))
        at += rng.uniform(20, 60)


def doc_qa(rng: random.Random) -> Iterator[Request]:
    docs = [Doc(title=f"Manual part {i}", text=prose(rng, 8000)) for i in range(3)]
    base, at = _base(rng, tools=3, system_tokens=800).add_docs(*docs), 0.0
    for _ in range(25):
        yield Request(at, "docs", base.with_tail(prose(rng, 40)))
        at += rng.uniform(5, 60)


def bursty(rng: random.Random) -> Iterator[Request]:
    prompt, at = _base(rng), 0.0
    for _burst in range(5):
        for _ in range(rng.randint(3, 6)):
            prompt = prompt.with_tail(prose(rng, 50))
            yield Request(at, "bursty", prompt)
            prompt = prompt.commit_tail(prose(rng, 150))
            at += rng.uniform(2, 20)
        at += rng.uniform(400, 1200)  # past the 5-minute TTL


def _tenant_traffic(rng: random.Random, sessions: dict[str, Prompt]) -> Iterator[Request]:
    """40 turns, each of a tenant drawn at random, 1-30 s apart (within the 5-minute TTL)."""
    at = 0.0
    for _ in range(40):
        name = rng.choice(sorted(sessions))
        prompt = sessions[name].with_tail(prose(rng, 60))
        yield Request(at, name, prompt)
        sessions[name] = prompt.commit_tail(prose(rng, 200))
        at += rng.uniform(1, 30)


def tenants(rng: random.Random) -> Iterator[Request]:
    shared = _base(rng, tools=10, system_tokens=4000)
    sessions = {
        f"tenant{t}": shared.add_docs(Doc(title=f"Tenant {t} profile", text=prose(rng, 1500)))
        for t in range(4)
    }
    yield from _tenant_traffic(rng, sessions)


def tenants_split(rng: random.Random) -> Iterator[Request]:
    """Tenants share tools and a long policy block; a short second system block names the tenant."""
    tools = [Tool(**tool_spec(rng, i)) for i in range(10)]
    policy = prose(rng, 4000)
    sessions = {
        f"tenant{t}": Prompt(volatile="ignore")
        .add_tools(*tools)
        .add_system(policy, f"You serve tenant {t}. " + prose(rng, 300))
        for t in range(4)
    }
    yield from _tenant_traffic(rng, sessions)


WORKLOADS: dict[str, Callable[[random.Random], Iterator[Request]]] = {
    "chat": chat,
    "agent_fanout": agent,
    "doc_qa": doc_qa,
    "bursty": bursty,
    "tenants": tenants,
    "tenants_split": tenants_split,
}

# -- strategies -----------------------------------------------------------------------------------

_ADAPTER = get_adapter("anthropic")
_EPHEMERAL = {"type": "ephemeral"}


def bare(prompt: Prompt) -> dict[str, Any]:
    """The request with no markers, every content block in list form."""
    none = Plan(
        vendor="anthropic",
        model=MODEL,
        breakpoints=(),
        notes=(),
        prefix_tokens=0,
        min_tokens=0,
        budget=4,
    )
    body = copy.deepcopy(_ADAPTER.to_request(prompt, model=MODEL, plan=none))
    for message in body["messages"]:
        if isinstance(message["content"], str):
            message["content"] = [{"type": "text", "text": message["content"]}]
    return body


def slots(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every content block in render order (the emulator's content-block indices)."""
    out = list(body.get("tools", [])) + list(body.get("system", []))
    for message in body["messages"]:
        out.extend(message["content"])
    return out


def strategy_body(name: str, prompt: Prompt, seen: SharedPrefixes) -> dict[str, Any]:
    if name in ("planner", "rules_only"):
        learned = seen if name == "planner" else None
        chosen = plan(
            prompt, vendor="anthropic", model=MODEL, conversation=name == "planner", seen=learned
        )
        body = _ADAPTER.to_request(prompt, model=MODEL, plan=chosen)
        for message in body["messages"]:
            if isinstance(message["content"], str):
                message["content"] = [{"type": "text", "text": message["content"]}]
        return body
    body = bare(prompt)
    if name == "last_message":
        body["messages"][-1]["content"][-1]["cache_control"] = _EPHEMERAL
    elif name == "system_and_last":
        if body.get("system"):
            body["system"][-1]["cache_control"] = _EPHEMERAL
        body["messages"][-1]["content"][-1]["cache_control"] = _EPHEMERAL
    elif name == "automatic":
        body["cache_control"] = _EPHEMERAL
    return body


# -- cost -----------------------------------------------------------------------------------------


def multipliers() -> dict[str, float]:
    rates = load_prices().rates("anthropic", MODEL)
    if rates.read is None:
        raise SystemExit(f"the price table has no read rate for {MODEL}")
    out = {ttl: rate / rates.input for ttl, rate in rates.writes.items()}
    return {**out, "read": rates.read / rates.input}


def units(outcome: Any, rates: dict[str, float]) -> float:
    writes = sum(n * rates[ttl] for ttl, n in outcome.write_by_ttl.items())
    return outcome.uncached + outcome.read * rates["read"] + writes


# -- the oracle -----------------------------------------------------------------------------------


def shared(a: Prepared, b: Prepared) -> int:
    """The last content block index two requests share (-1: none)."""
    n = 0
    for x, y in zip(a.hashes, b.hashes, strict=False):
        if x != y:
            break
        n += 1
    return n - 1


def markable_at_or_before(prepared: Prepared, index: int) -> int:
    while index >= 0 and not prepared.segments[index].markable:
        index -= 1
    return index


def candidates(requests: Sequence[Request], prepared: Sequence[Prepared], i: int) -> list[int]:
    body_i, mine = slots(bare(requests[i].prompt)), prepared[i]
    tools = len(requests[i].prompt.tools)
    system = (
        tools
        + len(body_i)
        - tools
        - sum(len(m["content"]) for m in bare(requests[i].prompt)["messages"])
    )
    last = len(mine.segments) - 1
    tail = len(bare(requests[i].prompt)["messages"][-1]["content"])
    places = {tools - 1, system - 1, last, last - tail}
    session = requests[i].session
    before = [j for j in range(i) if requests[j].session == session][-1:]
    after = [j for j in range(i + 1, len(requests)) if requests[j].session == session][:1]
    for j in before + after + lookahead(requests, i):
        places.add(shared(mine, prepared[j]))
    spots = {markable_at_or_before(mine, p) for p in places if p >= 0}
    return sorted(s for s in spots if s >= 0)


LOOKAHEAD_SESSIONS = 5


def lookahead(requests: Sequence[Request], i: int) -> list[int]:
    """The next request of each session, soonest first, up to `LOOKAHEAD_SESSIONS` sessions."""
    seen: dict[str, int] = {}
    for j in range(i + 1, len(requests)):
        seen.setdefault(requests[j].session, j)
        if len(seen) == LOOKAHEAD_SESSIONS:
            break
    return sorted(seen.values())


def oracle_choice(
    emulator: AnthropicEmulator,
    requests: Sequence[Request],
    prepared: Sequence[Prepared],
    places: Sequence[Sequence[int]],
    i: int,
    rates: dict[str, float],
) -> tuple[int, ...]:
    ttl = emulator.rules.default_ttl or ""
    future = lookahead(requests, i)
    best: tuple[float, tuple[int, ...]] = (float("inf"), ())
    options = places[i]
    for size in range(min(emulator.rules.max_breakpoints, len(options)) + 1):
        for chosen in itertools.combinations(options, size):
            points = [(p, ttl) for p in chosen]
            change = emulator.what_if(prepared[i], points, requests[i].at)
            total = units(change.outcome, rates)
            if future:
                trial = emulator.fork()
                trial.apply(change, requests[i].at)
                for j in future:
                    total += min(
                        units(trial.what_if(prepared[j], pts, requests[j].at).outcome, rates)
                        for pts in [[]] + [[(p, ttl)] for p in places[j]]
                    )
            if total < best[0] - 1e-9:
                best = (total, chosen)
    return best[1]


# -- running --------------------------------------------------------------------------------------


def run(strategy: str, requests: Sequence[Request], rates: dict[str, float]) -> float:
    clock = ManualClock(0.0)
    emulator = AnthropicEmulator(clock=clock)
    spent = 0.0
    if strategy == "oracle":
        prepared = [emulator.prepare(bare(r.prompt)) for r in requests]
        places = [candidates(requests, prepared, i) for i in range(len(requests))]
        ttl = emulator.rules.default_ttl or ""
        for i, request in enumerate(requests):
            clock.now = request.at
            chosen = oracle_choice(emulator, requests, prepared, places, i, rates)
            change = emulator.what_if(prepared[i], [(p, ttl) for p in chosen], request.at)
            emulator.apply(change, request.at)
            spent += units(change.outcome, rates)
        return spent
    seen = SharedPrefixes()  # what the application's planner has seen, one per run
    for request in requests:
        clock.now = request.at
        spent += units(emulator.serve(strategy_body(strategy, request.prompt, seen)), rates)
    return spent


def measure(name: str, seed: int) -> dict[str, Any]:
    requests = list(WORKLOADS[name](random.Random(seed)))
    rates = multipliers()
    costs = {s: run(s, requests, rates) for s in STRATEGIES}
    base = costs["no_cache"]
    savings = {s: (base - c) / base for s, c in costs.items()}
    oracle = base - costs["oracle"]
    shares = {
        s: round((base - costs[s]) / oracle, 4) if oracle > 0 else float("nan")
        for s in ("planner", "rules_only")
    }
    return {
        "share_of_oracle": shares["planner"],
        "share_of_oracle_rules_only": shares["rules_only"],
        "savings": savings,
        "requests": len(requests),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--only", choices=sorted(WORKLOADS), action="append")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    started = time.perf_counter()
    results = {name: measure(name, args.seed) for name in args.only or WORKLOADS}
    print(
        f"Anthropic cache EMULATION, {MODEL}, seed {args.seed}, "
        f"{time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    names = list(STRATEGIES)
    header = f"{'workload':<13}{'reqs':>5}" + "".join(f"{s:>16}" for s in names)
    print(header + f"{'share':>8}{'share(rules_only)':>18}")
    for name, result in results.items():
        row = f"{name:<13}{result['requests']:>5}"
        row += "".join(f"{result['savings'][s]:>16.1%}" for s in STRATEGIES)
        row += f"{result['share_of_oracle']:>8.3f}{result['share_of_oracle_rules_only']:>18.3f}"
        print(row)
    if args.format == "json":
        print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
