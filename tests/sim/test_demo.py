"""The demo session over the emulators: what it must not hide, and what it must not leak."""

from __future__ import annotations

import logging
import warnings
from typing import Any

import pytest

import promptcache._demo as demo


def test_a_warning_from_the_builder_reaches_the_demo_caller(monkeypatch: Any) -> None:
    adapter = demo.get_adapter("anthropic")
    to_request = adapter.to_request

    def warning_to_request(prompt: Any, **kwargs: Any) -> Any:
        warnings.warn("prefix below the cache minimum", UserWarning, stacklevel=2)
        return to_request(prompt, **kwargs)

    monkeypatch.setattr(demo, "get_adapter", lambda name: adapter)
    monkeypatch.setattr(adapter, "to_request", warning_to_request)
    with pytest.warns(UserWarning, match="below the cache minimum"):
        demo.run_demo("anthropic")


def test_the_demo_session_prompt_trips_no_builder_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        steps = demo.run_demo("openai")
    assert steps[-1].broken and steps[-1].invalidation is not None


def test_repeated_demo_runs_do_not_stack_log_handlers() -> None:
    demo.run_demo("anthropic")
    demo.run_demo("anthropic")
    handlers = logging.getLogger("promptcache.demo").handlers
    assert sum(isinstance(h, logging.NullHandler) for h in handlers) == 1
