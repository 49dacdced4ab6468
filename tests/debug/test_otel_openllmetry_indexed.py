"""
`MonitorSpanProcessor` under OpenLLMetry's indexed-attribute releases (Traceloop's
`opentelemetry-instrumentation-openai` 0.54.0 and `-anthropic` 0.53.4, the last before the GenAI
conventions' `gen_ai.input.messages`): the prompt as `gen_ai.prompt.N.role` / `.content`, the
tools as `llm.request.functions.N.*`. The real instrumentation traces the real SDK client against
the stub on 127.0.0.1, in a child process (`openllmetry_indexed`), since the test environment's
own OpenLLMetry is a current release. Each session: a write, a read-back, then one change; the
cause and its path must be named from the rebuilt (partial) request, and a planted name and
e-mail address must appear in nothing the child printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .._recording import Reply, stub_server
from .openllmetry_indexed import INDEXED_DIR, INSTALL

# the planted name and e-mail address, the models and the stub's answers of the current
# releases' tests: the same sessions, run under the indexed releases
from .test_otel_instrumentations import (
    ANTHROPIC_REPLIES,
    CHANGED,
    CLAUDE,
    EMAIL,
    GPT,
    NAME,
    OPENAI_REPLIES,
    SYSTEM,
)

pytest.importorskip("opentelemetry.sdk")

ROOT = Path(__file__).resolve().parents[2]
USER = f"Hi, I am {NAME}, write to {EMAIL}."


def _session(
    vendor: str, calls: list[dict[str, Any]], replies: list[Reply], *, content: bool = True
) -> dict[str, Any]:
    """The child's answer for `calls`; every byte it printed is checked for the planted text."""
    if not (INDEXED_DIR / "opentelemetry" / "instrumentation" / vendor).is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI must install OpenLLMetry's indexed-attribute releases: {INSTALL}")
        pytest.skip(f"OpenLLMetry's indexed-attribute release is not installed: {INSTALL}")
    environment = {**os.environ, "TRACELOOP_TRACE_CONTENT": "true" if content else "false"}
    with stub_server() as stub:
        stub.serve(replies)
        job = json.dumps({"vendor": vendor, "url": stub.url, "calls": calls})
        done = subprocess.run(
            [sys.executable, "-m", "tests.debug.openllmetry_indexed"],
            input=job,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=environment,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert not stub.replies, "every request reached the stub"
    for planted in (NAME, EMAIL, "Quackenbush", "Policy clause", "Polic y"):
        assert planted not in done.stdout + done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    for names in answer["attribute_names"]:  # the spans are of the indexed form, not the new one
        assert "gen_ai.input.messages" not in names
        assert ("gen_ai.prompt.0.role" in names) is content
    return answer


def _named(answer: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["cause"], e["path"]) for e in answer["events"]]


def _judged_all(answer: dict[str, Any]) -> None:
    assert answer["unjudged"] == {} and answer["observations"] == 3
    # the invalidation only: no "hit rates only", nothing left unobserved
    others = [said for said in answer["logged"] if not said.startswith("prompt cache miss")]
    assert others == [] and len(answer["logged"]) == len(answer["events"]), answer["logged"]


def test_openai_names_the_changed_system_prompt() -> None:
    calls = [
        {
            "model": GPT,
            "messages": [{"role": "system", "content": s}, {"role": "user", "content": USER}],
        }
        for s in (SYSTEM, SYSTEM, CHANGED)
    ]
    answer = _session("openai", calls, OPENAI_REPLIES)
    assert _named(answer) == [("whitespace", "messages[0].content")]
    assert answer["rates"][f"openai/{GPT}"] == {
        "spans": 3,
        "cache_read": 1920,
        "cache_write": 0,
        "uncached_input": 6000 - 1920,
        "unreported_spans": 0,
    }
    _judged_all(answer)


def test_anthropic_names_the_changed_system_prompt() -> None:
    """Its system blocks are recorded joined into one string: the change is named at `system`."""
    calls = [
        {
            "model": CLAUDE,
            "max_tokens": 64,
            "system": [{"type": "text", "text": s, "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": USER}],
        }
        for s in (SYSTEM, SYSTEM, CHANGED)
    ]
    answer = _session("anthropic", calls, ANTHROPIC_REPLIES)
    assert _named(answer) == [("whitespace", "system")]
    event = answer["events"][0]
    assert (event["expected_read"], event["actual_read"]) == (1800, 0)
    rates = answer["rates"][f"anthropic/{CLAUDE}"]
    assert (rates["spans"], rates["cache_read"], rates["cache_write"]) == (3, 1800, 3600)
    _judged_all(answer)


def test_openai_content_parts_and_a_changed_tool_are_named() -> None:
    """Content sent as parts is recorded as JSON; the tools as `llm.request.functions.N.*`."""

    def call(text: str, description: str) -> dict[str, Any]:
        return {
            "model": GPT,
            "messages": [
                {"role": "system", "content": [{"type": "text", "text": SYSTEM}]},
                {"role": "user", "content": [{"type": "text", "text": text}]},
            ],
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "lookup_order",
                        "description": description,
                        "parameters": {"type": "object", "properties": {}},
                    },
                }
            ],
        }

    parts = _session(
        "openai",
        [call(USER, "Find."), call(USER, "Find."), call(USER + " ", "Find.")],
        OPENAI_REPLIES,
    )
    assert _named(parts) == [("whitespace", "messages[1].content[0].text")]
    _judged_all(parts)
    tools = _session(
        "openai",
        [call(USER, "Find."), call(USER, "Find."), call(USER, "Find an order.")],
        OPENAI_REPLIES,
    )
    assert _named(tools) == [("tools_changed", "tools[0].function.description")]
    _judged_all(tools)


def test_openai_a_base64_image_that_cuts_the_prompt_short_is_said_not_judged() -> None:
    """OpenLLMetry's OpenAI 0.54, as instrumented by default, fails on a base64 image part (its
    default upload_base64_image is not awaitable) and records that message's role only and none
    after it: read as the request, a change after the image went unseen, and a miss was judged
    against a prompt cut short."""
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    calls = [
        {
            "model": GPT,
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": [{"type": "text", "text": "Look."}, image]},
                {"role": "assistant", "content": "A chart."},
                {"role": "user", "content": question},
            ],
        }
        for question in (USER, USER, USER + " ")
    ]
    answer = _session("openai", calls, OPENAI_REPLIES)
    assert answer["events"] == [] and answer["observations"] == 0
    (reason,) = answer["unjudged"]
    assert (
        reason.startswith("its gen_ai.prompt.*.content is missing")
        and answer["unjudged"][reason] == 3
    )
    assert sum("hit rates only" in said for said in answer["logged"]) == 1


def test_anthropic_tool_turns_and_a_changed_tool_are_named() -> None:
    """A tool turn's blocks are recorded as JSON (markers and all): read as blocks, no markers."""

    def call(result: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "model": CLAUDE,
            "max_tokens": 64,
            "system": SYSTEM,
            "tools": [{"name": "lookup_order", "description": "Find.", "input_schema": schema}],
            "messages": [
                {"role": "user", "content": USER},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Looking."},
                        {"type": "tool_use", "id": "toolu_1", "name": "lookup_order", "input": {}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_1",
                            "content": result,
                            "cache_control": {"type": "ephemeral"},
                        }
                    ],
                },
            ],
        }

    plain = {"type": "object"}
    turns = _session(
        "anthropic",
        [call(USER, plain), call(USER, plain), call(USER + " ", plain)],
        ANTHROPIC_REPLIES,
    )
    assert _named(turns) == [("whitespace", "messages[2].content[0].content")]
    _judged_all(turns)
    widened = {"type": "object", "properties": {"id": {"type": "string"}}}
    tools = _session(
        "anthropic",
        [call(USER, plain), call(USER, plain), call(USER, widened)],
        ANTHROPIC_REPLIES,
    )
    assert [cause for cause, _ in _named(tools)] == ["tools_changed"]
    assert _named(tools)[0][1].startswith("tools[0].input_schema")
    _judged_all(tools)


def test_without_content_it_gives_hit_rates_only_said_once() -> None:
    calls = [
        {
            "model": GPT,
            "messages": [{"role": "system", "content": s}, {"role": "user", "content": USER}],
        }
        for s in (SYSTEM, SYSTEM, CHANGED)
    ]
    answer = _session("openai", calls, OPENAI_REPLIES, content=False)
    assert answer["events"] == [] and answer["observations"] == 0
    assert answer["unjudged"] == {"it carries no request (content capture off?)": 3}
    assert sum("hit rates only" in said for said in answer["logged"]) == 1
    assert answer["rates"][f"openai/{GPT}"]["cache_read"] == 1920
