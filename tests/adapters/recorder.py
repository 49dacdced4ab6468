"""
Record the wire cassettes: real SDK clients -> a stub vendor on 127.0.0.1 -> vcrpy.

    .venv/bin/python -m tests.adapters.recorder            # re-record every scenario
    .venv/bin/python -m tests.adapters.recorder chat_stream  # just one

The stub answers each request with the scenario's next synthetic reply (JSON or SSE). While
recording, each request's URI is rewritten from the stub's address to the vendor's real host, so
the replay tests run the SDK clients with their default base URL. Credentials are filtered out
of the recorded headers. See cassettes/README.md.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .._recording import Stub, recorder, stub_server
from .._recording import replayer as _replayer
from .scenarios import SCENARIOS, Scenario

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"

__all__ = ["CASSETTES", "main", "record", "replayer"]


def replayer() -> Any:
    return _replayer(CASSETTES)


def record(scenario: Scenario, stub: Stub) -> Any:
    stub.serve(scenario.replies)
    path = CASSETTES / scenario.cassette
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    with recorder(CASSETTES, stub.url, scenario.host).use_cassette(scenario.cassette):
        result = scenario.call(stub.url)
    if stub.replies:
        raise RuntimeError(f"{scenario.name}: {len(stub.replies)} replies were not requested")
    return result


def main(names: list[str]) -> int:
    chosen = [s for s in SCENARIOS if not names or s.name in names]
    with stub_server() as stub:
        for scenario in chosen:
            usage = record(scenario, stub)
            print(f"{scenario.cassette}: {[m + ' ' + p for m, p in stub.seen]} -> {usage}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
