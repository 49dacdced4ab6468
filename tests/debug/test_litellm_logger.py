"""
`MonitorLogger` under real LiteLLM: `litellm.completion` drives its OpenAI provider against a
stub on 127.0.0.1, and the callback must hand each call to the monitor.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from typing import Any

import pytest

import promptcache
from promptcache import Invalidation

from .._recording import stub_server
from .test_otel import EMAIL, MODEL, NAME, SYSTEM, completion

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch at import
litellm = pytest.importorskip("litellm")
from promptcache.debug.litellm_logger import MonitorLogger  # noqa: E402

# LiteLLM's own pydantic models warn when first built; not ours to fix
pytestmark = pytest.mark.filterwarnings("ignore:.*using the `ReadOnly` qualifier")


# LiteLLM keeps the callbacks it has set up: one logger for the module, a fresh monitor per test
LOGGER = MonitorLogger(promptcache.Monitor(metrics=False))


@pytest.fixture
def logged() -> Iterator[tuple[list[Invalidation], MonitorLogger]]:
    events: list[Invalidation] = []
    LOGGER.monitor = promptcache.Monitor(on_invalidation=events.append, metrics=False)
    before = list(litellm.callbacks)
    litellm.callbacks = [LOGGER]
    try:
        yield events, LOGGER
    finally:
        litellm.callbacks = before


def _observed(logger: MonitorLogger, count: int) -> int:
    """LiteLLM runs success callbacks on its own thread pool: wait (at most 10 s) for them."""
    deadline = time.monotonic() + 10
    while logger.monitor.stats()["observations"] < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return int(logger.monitor.stats()["observations"])


def _calls(stub: Any, systems: list[str]) -> None:
    stub.serve([completion(1, 2000, 0), completion(2, 2000, 0)])
    for system in systems:
        litellm.completion(
            model=f"openai/{MODEL}",
            api_base=f"{stub.url}/v1",
            api_key="sk-test",
            messages=[
                {"role": "system", "content": system},
                {"role": "user", "content": f"Hi, I am {NAME}."},
            ],
            prompt_cache_key="tenant-7",
        )


def test_litellm_calls_name_the_field_that_broke_the_cache(
    logged: tuple[list[Invalidation], MonitorLogger], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="promptcache")
    events, logger = logged
    with stub_server() as stub:
        _calls(stub, [SYSTEM, SYSTEM.replace("Policy", "Polic y", 1)])
        assert len(stub.seen) == 2
        assert _observed(logger, 2) == 2
    assert [(event.cause, event.path) for event in events] == [
        ("whitespace", "messages[0].content")
    ]
    assert NAME not in caplog.text and EMAIL not in caplog.text


def test_identical_litellm_calls_that_miss_are_server_side(
    logged: tuple[list[Invalidation], MonitorLogger],
) -> None:
    events, logger = logged
    with stub_server() as stub:
        _calls(stub, [SYSTEM, SYSTEM])
        assert _observed(logger, 2) == 2
    assert [(event.cause, event.path) for event in events] == [("none", None)]
