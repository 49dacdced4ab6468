"""
Benchmark: prefix-affinity routing versus round-robin versus random, over N engine replicas and a
multi-tenant, multi-turn workload, in a block-hash model of a vLLM-style prefix cache.

    .venv/bin/python bench/bench_routing.py [--replicas 4 --tenants 8 --sessions 6 --turns 6]

The model is the library's vLLM emulation (`promptcache.sim.VLLMEmulator`), one per replica: it
caches full 16-token blocks under chained hashes (a block's hash covers every token before it, and
the tenant's `cache_salt` is mixed into the first), evicting least recently used blocks past
`--capacity` blocks. A request hits the longest run of its leading blocks found on the replica it
lands on; everything after is recomputed and then cached there. Each tenant has its own system
prompt (its static prefix); each session adds turns to its own history. Requests arrive in a
random interleaving of all sessions, the same sequence for every policy within a run.

Policies: `affinity` routes by promptcache's default key, `routing_key()` (static-prefix hash and
tenant salt: every session of a tenant on one replica) on the library's consistent-hash ring
(`promptcache.serving.HashRing`); `affinity+session` adds the session id to the key (sessions of a
tenant spread); `round-robin`; `random`. The model has no load: it shows where prefixes are
cached, not queueing (the fleet's bounded load spills a hot key in practice).
Printed: hit rate (cached / prompt tokens) and recomputed tokens, per policy, and the ratio of
each baseline's recomputed tokens to affinity's, min/median/max over `--runs` seeds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from promptcache import Prompt
from promptcache.serving import HashRing, routing_key
from promptcache.sim import VLLMEmulator
from promptcache.sim._core import BYTES_PER_TOKEN

BLOCK = 16


def prompt_bytes(pieces: tuple[str, ...]) -> bytes:
    """The token stream `pieces` as the emulator's bytes: one piece fills exactly one block."""
    size = BLOCK * BYTES_PER_TOKEN
    assert all(len(piece) < size for piece in pieces), "a piece must fit in one block"
    return b"".join(piece.encode().ljust(size, b".") for piece in pieces)


@dataclass(frozen=True)
class Request:
    tenant: int
    session: int
    turn: int
    pieces: tuple[str, ...]
    static_blocks: int


def workload(args: argparse.Namespace, rng: random.Random) -> list[Request]:
    static = args.static_tokens // BLOCK
    turn_blocks = max(1, args.turn_tokens // BLOCK)
    per_session = []
    for t in range(args.tenants):
        system = [f"t{t}-sys{i}" for i in range(static)]
        for s in range(args.sessions):
            history: list[str] = []
            turns = []
            for k in range(args.turns):
                tail = [f"t{t}-s{s}-k{k}-q{i}" for i in range(turn_blocks)]
                turns.append(Request(t, s, k, tuple(system + history + tail), static))
                history += tail + [f"t{t}-s{s}-k{k}-a{i}" for i in range(turn_blocks)]
            per_session.append(turns)
    # A random interleaving that keeps each session's turns in order.
    order: list[Request] = []
    cursors = [0] * len(per_session)
    live = list(range(len(per_session)))
    while live:
        pick = rng.choice(live)
        order.append(per_session[pick][cursors[pick]])
        cursors[pick] += 1
        if cursors[pick] == len(per_session[pick]):
            live.remove(pick)
    return order


def simulate(
    requests: list[Request], replicas: int, capacity: int, route: Callable[[Request, int], int]
) -> tuple[int, int]:
    fleet = [VLLMEmulator(capacity_blocks=capacity) for _ in range(replicas)]
    cached = total = 0
    for n, request in enumerate(requests):
        replica = fleet[route(request, n)]
        read, written = replica.serve(prompt_bytes(request.pieces), f"salt-{request.tenant}")
        cached += read
        total += read + written
    return cached, total


def policies(replicas: int, seed: int) -> dict[str, Callable[[Request, int], int]]:
    urls = [f"http://replica-{i}:8000" for i in range(replicas)]
    ring = HashRing(urls)
    index = {url: i for i, url in enumerate(urls)}
    rng = random.Random(seed)

    def key(request: Request, session: bool) -> str:
        system = " ".join(request.pieces[: request.static_blocks])
        return routing_key(
            Prompt().add_system(system),
            salt=f"salt-{request.tenant}",
            session=str(request.session) if session else None,
        )

    return {
        "affinity": lambda r, n: index[ring.order(key(r, False))[0]],
        "affinity+session": lambda r, n: index[ring.order(key(r, True))[0]],
        "round-robin": lambda r, n: n % replicas,
        "random": lambda r, n: rng.randrange(replicas),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=4)
    parser.add_argument("--tenants", type=int, default=8)
    parser.add_argument("--sessions", type=int, default=6, help="sessions per tenant")
    parser.add_argument("--turns", type=int, default=6, help="turns per session")
    parser.add_argument("--static-tokens", type=int, default=2048, help="system prompt per tenant")
    parser.add_argument("--turn-tokens", type=int, default=128, help="question and answer each")
    parser.add_argument(
        "--capacity", type=int, default=2048, help="KV blocks per replica (16 tokens each)"
    )
    parser.add_argument("--runs", type=int, default=3, help="seeds")
    args = parser.parse_args()

    rows: dict[str, list[tuple[float, int]]] = {}
    for seed in range(args.runs):
        requests = workload(args, random.Random(seed))
        for name, route in policies(args.replicas, seed).items():
            cached, total = simulate(requests, args.replicas, args.capacity, route)
            rows.setdefault(name, []).append((cached / total, total - cached))
            print(
                f"seed {seed} {name:>15}: hit rate {cached / total:6.1%}, "
                f"recomputed {total - cached:9,d} of {total:,d} prompt tokens"
            )
    base = [recomputed for _, recomputed in rows["affinity"]]
    print(
        f"\n{len(requests)} requests per run, {args.replicas} replicas of {args.capacity} blocks, "
        f"{args.tenants} tenants x {args.sessions} sessions x {args.turns} turns"
    )
    for name, results in rows.items():
        rates = [rate for rate, _ in results]
        ratio = [recomputed / b for (_, recomputed), b in zip(results, base, strict=True)]
        print(
            f"{name:>15}: hit rate min {min(rates):.1%} median {statistics.median(rates):.1%} "
            f"max {max(rates):.1%}; recomputed tokens vs affinity: min {min(ratio):.2f}x "
            f"median {statistics.median(ratio):.2f}x max {max(ratio):.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
