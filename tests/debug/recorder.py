"""
Record the wrapper cassettes: wrapped real SDK clients -> a stub vendor on 127.0.0.1 -> vcrpy.

    .venv/bin/python -m tests.debug.recorder                  # every session in wire.SESSIONS
    .venv/bin/python -m tests.debug.recorder openai_chat      # just one

The stub answers each request with the session's next synthetic reply (JSON or SSE). Recorded
URIs are rewritten from the stub's address to the vendor's real host, so the replay tests run
the SDK clients with their default base URLs; credentials are filtered out of the headers.
See cassettes/wrap/README.md.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .._recording import recorder, stub_server
from .._recording import replayer as _replayer
from .wire import HOSTS
from .wire_paths import SESSIONS

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes" / "wrap"

__all__ = ["CASSETTES", "host_of", "main", "replayer"]


def replayer() -> Any:
    return _replayer(CASSETTES)


def host_of(name: str) -> str:
    return HOSTS[name.split("_", 1)[0]]


def main(names: list[str]) -> int:
    with stub_server() as stub:
        for name, (session, replies) in SESSIONS.items():
            if names and name not in names:
                continue
            stub.serve(replies)
            (CASSETTES / f"{name}.yaml").unlink(missing_ok=True)
            with recorder(CASSETTES, stub.url, host_of(name)).use_cassette(f"{name}.yaml"):
                _, events = session(stub.url)
            left = len(stub.replies)
            print(f"{name}: {len(replies) - left} requests, events {[e.cause for e in events]}")
            if left:
                raise RuntimeError(f"{name}: {left} replies were not requested")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
