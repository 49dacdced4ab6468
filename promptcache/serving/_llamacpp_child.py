"""
The child process behind `LlamaServer`: reads `ServerSettings` as JSON on stdin, starts
xllamacpp's embedded llama-server on 127.0.0.1 and serves until SIGTERM.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any

import orjson


def _params(settings: dict[str, Any]) -> Any:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = settings["model"]
    params.hostnames = ["127.0.0.1"]
    params.port = settings["port"]
    params.n_ctx = settings["n_ctx"]
    params.n_parallel = settings["n_parallel"]
    params.cpuparams.n_threads = settings["threads"]
    params.cpuparams_batch.n_threads = settings["threads"]
    params.endpoint_metrics = settings["metrics"]
    params.model_alias = {settings["alias"]}
    params.cache_ram_mib = settings["cache_ram_mib"]
    params.warmup = False
    return params


def _exit_with_parent(stop: threading.Event) -> None:
    """A parent killed without stopping us must not leave a server behind: follow it out."""
    parent = os.getppid()
    while not stop.wait(1.0):
        if os.getppid() != parent:
            stop.set()


def main() -> int:
    import xllamacpp

    settings = orjson.loads(sys.stdin.buffer.read())
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threading.Thread(target=_exit_with_parent, args=(stop,), daemon=True).start()
    server = xllamacpp.Server(_params(settings))
    stop.wait()
    # Nothing to flush: exit at once instead of waiting on the server's own shutdown.
    os._exit(0 if server is not None else 1)


if __name__ == "__main__":
    sys.exit(main())
