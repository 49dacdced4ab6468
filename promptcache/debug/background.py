"""
A worker thread that runs the monitor's judging off the caller's path: the caller's LLM call
never waits on the state store (a slow or unreachable Redis costs the worker, not the request).
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["Background"]

_STOP = object()


class Background:
    """
    A bounded queue and one daemon thread calling `work(item)` for each item put. `put` never
    blocks: when the queue is full it returns False and the item is not observed (the monitor
    counts and says it). An item put after `close` starts a new worker. `flush` waits until
    every item put so far is done.
    """

    def __init__(
        self, work: Callable[[Any], None], *, size: int, logger: logging.Logger, name: str
    ) -> None:
        self.size = size
        self.name = name
        self._work = work
        self._logger = logger
        self._restarting = threading.Lock()
        self._start()

    def _start(self) -> None:
        self._pid = os.getpid()
        self._closed = False
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=self.size)
        self._thread = threading.Thread(
            target=self._run, args=(self._queue,), name=self.name, daemon=True
        )
        self._thread.start()

    def put(self, item: Any) -> bool:
        if os.getpid() != self._pid:
            # A forked child (a pre-forking server that built the monitor before the fork) has
            # the queue but not the thread: it gets its own of both.
            self._restarting = threading.Lock()  # a parent thread may have held it at the fork
            self._start()
        elif self._closed:
            # No thread works the queue now (an item put there would never be observed): a new
            # queue and worker, as the recorder's writer starts again after its close().
            with self._restarting:
                if self._closed:
                    self._start()
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            return False
        return True

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until the queue is worked off; False if `timeout` seconds passed first."""
        done = self._queue.all_tasks_done
        end = None if timeout is None else time.monotonic() + timeout
        with done:
            while self._queue.unfinished_tasks:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    return False
                done.wait(left)
        return True

    def close(self, timeout: float | None = None) -> None:
        """Stop the worker after what is queued, waiting at most `timeout` seconds (a full queue
        behind a stuck worker included). An item put afterwards starts a new worker."""
        self._closed = True
        if not self._thread.is_alive():
            return
        end = None if timeout is None else time.monotonic() + timeout
        try:
            self._queue.put(_STOP, timeout=timeout)
        except queue.Full:
            return  # the worker is stuck: a daemon thread, it stops with the process
        self._thread.join(None if end is None else max(0.0, end - time.monotonic()))

    def _run(self, work: queue.Queue[Any]) -> None:
        """Work off `work`, the queue this thread was started with (a restart makes another)."""
        while True:
            item = work.get()
            try:
                if item is _STOP:
                    return
                self._work(item)
            except Exception as error:  # one bad observation must not stop the worker
                # Its message may quote the prompt: the type only.
                self._logger.warning(
                    "promptcache: an observation could not be judged in the background (%s)",
                    type(error).__name__,
                )
            finally:
                work.task_done()
