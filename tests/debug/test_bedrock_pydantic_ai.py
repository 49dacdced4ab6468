"""
Pydantic AI's Bedrock model through a wrapped boto3 client (on the Bedrock emulator): its cache
points are read as markers, the conversation's reads are judged turn by turn, and the
pydantic-ai#4121 pattern (a transient message carrying the cache point) is named by diff.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("pydantic_ai.models.bedrock")

from pydantic_ai import Agent
from pydantic_ai.models.bedrock import BedrockConverseModel, BedrockModelSettings
from pydantic_ai.providers.bedrock import BedrockProvider

from promptcache import Monitor, diff, wrap
from promptcache.sim import BedrockEmulator, ManualClock

MODEL = "global.anthropic.claude-sonnet-4-5-20250929-v1:0"
INSTRUCTIONS = "You answer for the Shipwell order desk. Refunds within 30 days. " * 120


@pytest.fixture(autouse=True)
def _own_event_loop() -> Iterator[None]:
    """Pydantic AI's `run_sync` runs on the main thread's current loop, making and setting one
    when there is none, and never closes it: the garbage collector then reports an unclosed loop
    in whichever later test is running (a LiteLLM test failed so). The loop is this test's own."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        yield
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def _agent(client: Any) -> Agent[None, str]:
    model = BedrockConverseModel(MODEL, provider=BedrockProvider(bedrock_client=client))
    settings = BedrockModelSettings(bedrock_cache_instructions=True, bedrock_cache_messages=True)
    return Agent(model, instructions=INSTRUCTIONS, model_settings=settings)


def _conversation() -> None:
    """Three turns of a Pydantic AI agent on a wrapped boto3 client; asserts as it goes."""
    clock = ManualClock()
    events: list[Any] = []
    sent: list[dict[str, Any]] = []
    monitor = Monitor("bedrock", on_invalidation=events.append, clock=clock, metrics=False)
    real = monitor.observe

    def spy(request: Any, response: Any = None, **kw: Any) -> Any:
        sent.append(request)
        return real(request, response, **kw)

    monitor.observe = spy  # type: ignore[method-assign]
    client = wrap(BedrockEmulator(clock=clock).client(), monitor=monitor)
    agent = _agent(client)
    history: list[Any] = []
    reads = []
    for question in ("Where is SH-1?", "And the refund?", "Thanks. And SH-2?"):
        clock.advance(20)
        result = agent.run_sync(question, message_history=history)
        history = result.all_messages()
        reads.append(result.usage.cache_read_tokens)
    # Pydantic AI's second cache point (the last message) lies a few tokens after the first:
    # Bedrock counts the minimum per cache point, so it is not written, and each turn reads the
    # instructions' entry (sim/bedrock.py; the Anthropic API would read it all)
    assert reads[0] == 0 and reads[1] > 1000 and reads[2] >= reads[1]
    assert len(sent) == 3 and events == []
    assert any("cachePoint" in block for block in sent[0]["system"])
    # each turn's request begins with the one before: nothing lost between them
    assert not diff(sent[0], sent[1]).invalidated
    assert not diff(sent[1], sent[2]).invalidated


def test_a_pydantic_ai_conversation_reads_its_cache_turn_by_turn() -> None:
    # In a process of its own: after a Pydantic AI agent run (its anyio worker threads and
    # instrumentation state), CPython 3.11.7 raised "AST constructor recursion depth mismatch"
    # in a later test's threaded ast.parse (tests/test_import_graph.py)
    import subprocess
    import sys

    script = "from tests.debug.test_bedrock_pydantic_ai import _conversation; _conversation()"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_4121_pattern_is_named() -> None:
    """
    pydantic-ai#4121 (fixed in pydantic-ai 1.x by PR #4152): with bedrock_cache_messages, a
    message with no text got a transient user message appended to carry the cache point; it was
    not kept in the history, so the next request diverged where the previous entry ended.
    """
    system = [{"text": INSTRUCTIONS}, {"cachePoint": {"type": "default"}}]
    tool_turn = [
        {"role": "user", "content": [{"text": "Where is SH-1?"}]},
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "t1", "name": "track", "input": {"id": "SH-1"}}}],
        },
        {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": "t1", "content": [{"json": {}}]}}],
        },
    ]
    transient = {"role": "user", "content": [{"text": "\n"}, {"cachePoint": {"type": "default"}}]}
    first = {"modelId": MODEL, "system": system, "messages": [*tool_turn, transient]}
    answer = {"role": "assistant", "content": [{"text": "It shipped."}]}
    question = {
        "role": "user",
        "content": [{"text": "Refund?"}, {"cachePoint": {"type": "default"}}],
    }
    second = {"modelId": MODEL, "system": system, "messages": [*tool_turn, answer, question]}
    result = diff(first, second)
    assert result.invalidated and result.path.startswith("messages[3]")
    assert result.tokens_lost > 0
