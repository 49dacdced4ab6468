"""The monitor's background worker: a stuck judge or a closed worker neither hangs nor loses."""

from __future__ import annotations

import logging
import threading
import time

from promptcache.debug.background import Background

_LOGGER = logging.getLogger("promptcache.test.background")


def test_close_keeps_to_its_timeout_when_the_worker_is_stuck_and_the_queue_full() -> None:
    # close() put its stop mark with a blocking put: a full queue behind a worker stuck on a
    # store call held Monitor.close(timeout=5.0) up for as long as the worker was stuck.
    stuck = threading.Event()
    worker = Background(lambda item: stuck.wait(30), size=1, logger=_LOGGER, name="test-stuck")
    assert worker.put("taken")
    deadline = time.monotonic() + 10
    while worker._queue.qsize() and time.monotonic() < deadline:
        time.sleep(0.01)  # the worker took it and is now stuck on it
    assert worker.put("waiting")  # the queue is full
    closing = threading.Thread(target=worker.close, args=(0.2,), daemon=True)
    start = time.monotonic()
    closing.start()
    closing.join(5)
    try:
        assert not closing.is_alive() and time.monotonic() - start < 5
    finally:
        stuck.set()


def test_an_item_put_after_close_is_judged_not_silently_lost() -> None:
    # After close() no thread worked the queue: an observation put then was never judged, and
    # put() said True, so the monitor neither judged, counted nor said it.
    judged: list[object] = []
    worker = Background(judged.append, size=4, logger=_LOGGER, name="test-closed")
    assert worker.put("before")
    assert worker.flush(5)
    worker.close(5)
    assert worker.put("after")
    assert worker.flush(5)
    assert judged == ["before", "after"]
    worker.close(5)
