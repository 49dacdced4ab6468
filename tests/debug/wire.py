"""
Wrapped-client sessions for the cassette tests: real SDK clients, wrapped by `promptcache.wrap`.

Each session takes a base URL (the stub's while recording, None for the vendor's host while
replaying) and returns (results, events): what the SDK returned and the monitor's invalidations.
`REPLIES` holds the synthetic vendor answers the recorder serves, in request order.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any

import promptcache
from promptcache import Invalidation

from .._recording import (
    ANTHROPIC_HOST,
    GEMINI_HOST,
    OPENAI_HOST,
    Events,
    Reply,
    anthropic_client,
    anthropic_events,
    chat_chunks,
    gemini_client,
    openai_client,
)
from . import pairs

Session = Callable[[str | None], tuple[list[Any], list[Invalidation]]]


def _collect() -> tuple[list[Invalidation], Callable[[Invalidation], None]]:
    events: list[Invalidation] = []
    return events, events.append


MONITORS: list[promptcache.Monitor] = []  # the tests check every call was observed


def _monitor(vendor: str, events: Callable[[Invalidation], None]) -> promptcache.Monitor:
    monitor = promptcache.Monitor(vendor, on_invalidation=events, metrics=False)
    MONITORS.append(monitor)
    return monitor


# -- Anthropic --------------------------------------------------------------------------------


def _a_usage(read: int, write: int) -> dict[str, Any]:
    return {
        "input_tokens": 12,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write,
        "cache_creation": {"ephemeral_5m_input_tokens": write, "ephemeral_1h_input_tokens": 0},
        "output_tokens": 7,
    }


def _a_message(read: int, write: int) -> dict[str, Any]:
    return {
        "id": "msg_01DebugWire",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": "Check /ready."}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": _a_usage(read, write),
    }


def _a_events(read: int, write: int) -> Events:
    return anthropic_events(_a_message(read, write), "Check /ready.", {"output_tokens": 7})


def _next_turn(request: dict[str, Any], answer: str, question: str) -> dict[str, Any]:
    """Append the reply and a new question; the rolling marker moves to the new question."""
    following = copy.deepcopy(request)
    following["messages"][-1]["content"][0].pop("cache_control", None)
    following["messages"] += [
        {"role": "assistant", "content": answer},
        {
            "role": "user",
            "content": [{"type": "text", "text": question, "cache_control": {"type": "ephemeral"}}],
        },
    ]
    return following


def anthropic_sync(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """Three turns; the third renders the clock into the system prompt (goose#2434)."""
    events, sink = _collect()
    client = promptcache.wrap(anthropic_client(base_url), monitor=_monitor("anthropic", sink))
    first = pairs.anthropic(system=pairs.with_header("Today: 2026-11-29"))
    second = _next_turn(first, "Check /ready.", "It moved to /ready.")
    third = copy.deepcopy(_next_turn(second, "Fixed?", "Yes, thanks."))
    third["system"][0]["text"] = pairs.with_header("Today: 2026-11-29 20:41:07")
    results = [client.messages.create(**request) for request in (first, second, third)]
    return results, events


ANTHROPIC_SYNC = (
    Reply(_a_message(0, 2100)),
    Reply(_a_message(2100, 40)),
    Reply(_a_message(0, 2190)),
)


def anthropic_stream(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """create(stream=True) twice on an identical prefix, the second missed by the server; then
    the messages.stream() helper."""
    events, sink = _collect()
    client = promptcache.wrap(anthropic_client(base_url), monitor=_monitor("anthropic", sink))
    first = pairs.anthropic()
    second = _next_turn(first, "Check /ready.", "Still 502.")
    results: list[Any] = []
    for request in (first, second):
        with client.messages.create(**request, stream=True) as stream:
            results.append([event.type for event in stream])
    third = _next_turn(second, "Restart it.", "Done.")
    with client.messages.stream(**third) as helper:
        results.append(helper.get_final_text())
    return results, events


ANTHROPIC_STREAM = (
    Reply(events=_a_events(0, 2000)),
    Reply(events=_a_events(0, 2040)),
    Reply(events=_a_events(2040, 30)),
)


def anthropic_async(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """AsyncAnthropic: the second turn gets its tools from a HashMap (zeroclaw#10959)."""
    events, sink = _collect()

    async def run() -> list[Any]:
        client = promptcache.wrap(
            anthropic_client(base_url, is_async=True), monitor=_monitor("anthropic", sink)
        )
        first = pairs.anthropic()
        second = _next_turn(first, "Check /ready.", "Still 502.")
        second["tools"] = [second["tools"][2], second["tools"][0], second["tools"][1]]
        third = _next_turn(second, "Restart it.", "Done.")
        async with client:
            one = await client.messages.create(**first)
            two = [e.type async for e in await client.messages.create(**second, stream=True)]
            async with client.messages.stream(**third) as helper:
                three = await helper.get_final_text()
        return [one, two, three]

    return asyncio.run(run()), events


ANTHROPIC_ASYNC = (
    Reply(_a_message(0, 2000)),
    Reply(events=_a_events(0, 2040)),
    Reply(events=_a_events(2040, 30)),
)


# -- OpenAI -----------------------------------------------------------------------------------


def _chat(prompt: int, cached: int) -> dict[str, Any]:
    return {
        "id": "chatcmpl-debug",
        "object": "chat.completion",
        "created": 1796000000,
        "model": "gpt-5.4",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "Ok."},
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": 2,
            "total_tokens": prompt + 2,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


def _chat_chunks(prompt: int, cached: int) -> Events:
    return chat_chunks("chatcmpl-debug", "gpt-5.4", ("Ok.",), _chat(prompt, cached)["usage"])


def openai_chat(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """Chat Completions: turn 2 appends; turn 3 (streamed) swaps schema keys (sglang#34553)."""
    events, sink = _collect()
    client = promptcache.wrap(openai_client(base_url), monitor=_monitor("openai", sink))
    first = pairs.openai()
    second = copy.deepcopy(first)
    second["messages"] += [
        {"role": "assistant", "content": "Ok."},
        {"role": "user", "content": "It moved to /ready."},
    ]
    third = copy.deepcopy(second)
    params = third["tools"][0]["function"]["parameters"]
    third["tools"][0]["function"]["parameters"] = {
        "type": "object",
        "required": params["required"],
        "properties": params["properties"],
    }
    third["messages"] += [
        {"role": "assistant", "content": "Ok."},
        {"role": "user", "content": "Thanks."},
    ]
    results: list[Any] = [
        client.chat.completions.create(**first),
        client.chat.completions.create(**second),
    ]
    stream = client.chat.completions.create(
        **third, stream=True, stream_options={"include_usage": True}
    )
    results.append([chunk.choices[0].delta.content if chunk.choices else None for chunk in stream])
    return results, events


OPENAI_CHAT = (Reply(_chat(2200, 0)), Reply(_chat(2230, 2176)), Reply(events=_chat_chunks(2260, 0)))


def _response(total: int, cached: int) -> dict[str, Any]:
    return {
        "id": "resp_debug",
        "object": "response",
        "created_at": 1796000000,
        "status": "completed",
        "model": "gpt-5.4",
        "output": [
            {
                "type": "message",
                "id": "msg_debug",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Ok.", "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": total,
            "output_tokens": 2,
            "total_tokens": total + 2,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def openai_responses_async(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """AsyncOpenAI Responses: `instructions` carries a request id the second time."""
    events, sink = _collect()
    first = {
        "model": "gpt-5.4",
        "instructions": pairs.with_header("Session: support"),
        "input": [{"role": "user", "content": "My deploy fails with 502s."}],
    }
    second = dict(
        first,
        instructions=pairs.with_header("Session: support 3f2504e0-4f89-11d3-9a0c-0305e82c3301"),
    )

    async def run() -> list[Any]:
        client = promptcache.wrap(
            openai_client(base_url, is_async=True), monitor=_monitor("openai", sink)
        )
        async with client:
            return [await client.responses.create(**first), await client.responses.create(**second)]

    return asyncio.run(run()), events


OPENAI_RESPONSES = (Reply(_response(2100, 0)), Reply(_response(2140, 0)))


def _chat_turns(*questions: str) -> list[dict[str, Any]]:
    """The Chat Completions request of each turn: the conversation grows by one exchange."""
    turns = [pairs.openai()]
    for question in questions:
        following = copy.deepcopy(turns[-1])
        following["messages"] += [
            {"role": "assistant", "content": "Ok."},
            {"role": "user", "content": question},
        ]
        turns.append(following)
    return turns


_USAGE = {"stream_options": {"include_usage": True}}


def openai_chat_stream(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """The chat.completions.stream() helper, sync then async: turn 1 iterates the events, turn 2
    only calls get_final_completion(), turn 3 (async) gets its tools from a set (tool_order)."""
    events, sink = _collect()
    monitor = _monitor("openai", sink)
    client = promptcache.wrap(openai_client(base_url), monitor=monitor)
    first, second, third = _chat_turns("It moved to /ready.", "Thanks.")
    third["tools"] = [third["tools"][1], third["tools"][2], third["tools"][0]]
    results: list[Any] = []
    with client.chat.completions.stream(**first, **_USAGE) as stream:
        kinds = [event.type for event in stream]
        results.append((stream, kinds, stream.get_final_completion()))
    with client.chat.completions.stream(**second, **_USAGE) as stream:
        results.append((stream, None, stream.get_final_completion()))

    async def run() -> Any:
        aclient = promptcache.wrap(openai_client(base_url, is_async=True), monitor=monitor)
        async with aclient, aclient.chat.completions.stream(**third, **_USAGE) as astream:
            kinds = [event.type async for event in astream]
            return (astream, kinds, await astream.get_final_completion())

    results.append(asyncio.run(run()))
    return results, events


OPENAI_CHAT_STREAM = (
    Reply(events=_chat_chunks(2200, 0)),
    Reply(events=_chat_chunks(2230, 2176)),
    Reply(events=_chat_chunks(2260, 0)),
)


def _r_events(total: int, cached: int) -> tuple[tuple[str | None, Any], ...]:
    """A Responses stream, event by event, ending in response.completed with the usage."""
    final = _response(total, cached)
    message = final["output"][0]
    started = {**final, "status": "in_progress", "output": [], "usage": None}
    part = {"type": "output_text", "text": "", "annotations": []}
    item = {**message, "status": "in_progress", "content": []}
    sequence = [
        {"type": "response.created", "response": started},
        {"type": "response.in_progress", "response": started},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {
            "type": "response.content_part.added",
            "item_id": "msg_debug",
            "output_index": 0,
            "content_index": 0,
            "part": part,
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_debug",
            "output_index": 0,
            "content_index": 0,
            "delta": "Ok.",
            "logprobs": [],
        },
        {
            "type": "response.output_text.done",
            "item_id": "msg_debug",
            "output_index": 0,
            "content_index": 0,
            "text": "Ok.",
            "logprobs": [],
        },
        {
            "type": "response.content_part.done",
            "item_id": "msg_debug",
            "output_index": 0,
            "content_index": 0,
            "part": message["content"][0],
        },
        {"type": "response.output_item.done", "output_index": 0, "item": message},
        {"type": "response.completed", "response": final},
    ]
    return tuple(
        (event["type"], {**event, "sequence_number": n}) for n, event in enumerate(sequence)
    )


def _responses_turns() -> list[dict[str, Any]]:
    first = {
        "model": "gpt-5.4",
        "instructions": pairs.with_header("Session: support"),
        "input": [{"role": "user", "content": "My deploy fails with 502s."}],
    }
    second = copy.deepcopy(first)
    second["input"] += [
        {"role": "assistant", "content": "Ok."},
        {"role": "user", "content": "It moved to /ready."},
    ]
    third = copy.deepcopy(second)
    third["input"] += [
        {"role": "assistant", "content": "Ok."},
        {"role": "user", "content": "Thanks."},
    ]
    return [first, second, third]


def openai_responses_stream(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """The responses.stream() helper: two sync turns, then an async one whose instructions
    template lost its trailing blank line (whitespace)."""
    events, sink = _collect()
    monitor = _monitor("openai", sink)
    client = promptcache.wrap(openai_client(base_url), monitor=monitor)
    first, second, third = _responses_turns()
    third["instructions"] = third["instructions"].replace("\n\n", "\n", 1)
    results: list[Any] = []
    with client.responses.stream(**first) as stream:
        kinds = [event.type for event in stream]
        results.append((stream, kinds, stream.get_final_response()))
    with client.responses.stream(**second) as stream:
        results.append((stream, None, stream.get_final_response()))

    async def run() -> Any:
        aclient = promptcache.wrap(openai_client(base_url, is_async=True), monitor=monitor)
        async with aclient, aclient.responses.stream(**third) as astream:
            kinds = [event.type async for event in astream]
            return (astream, kinds, await astream.get_final_response())

    results.append(asyncio.run(run()))
    return results, events


OPENAI_RESPONSES_STREAM = (
    Reply(events=_r_events(2100, 0)),
    Reply(events=_r_events(2140, 2048)),
    Reply(events=_r_events(2170, 0)),
)


def openai_stream_abandoned(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """Helper streams that observe nothing: a sync chat stream and an async responses stream left
    after their first event, a chat stream read to the end without include_usage; then one
    complete chat stream, the only observation."""
    events, sink = _collect()
    monitor = _monitor("openai", sink)
    client = promptcache.wrap(openai_client(base_url), monitor=monitor)
    first, second, third = _chat_turns("It moved to /ready.", "Thanks.")
    results: list[Any] = []
    with client.chat.completions.stream(**first, **_USAGE) as stream:
        results.append((stream, next(iter(stream)).type))

    async def run() -> Any:
        aclient = promptcache.wrap(openai_client(base_url, is_async=True), monitor=monitor)
        async with aclient, aclient.responses.stream(**_responses_turns()[0]) as astream:
            async for event in astream:
                return (astream, event.type)
        return None

    results.append(asyncio.run(run()))
    with client.chat.completions.stream(**second) as stream:
        results.append((stream, [event.type for event in stream]))
    with client.chat.completions.stream(**third, **_USAGE) as stream:
        results.append((stream, stream.get_final_completion()))
    return results, events


OPENAI_STREAM_ABANDONED = (
    Reply(events=_chat_chunks(2200, 0)),
    Reply(events=_r_events(2100, 0)),
    Reply(events=_chat_chunks(2230, 2176)[:1] + _chat_chunks(2230, 2176)[2:]),
    Reply(events=_chat_chunks(2260, 2176)),
)


# -- Gemini -----------------------------------------------------------------------------------


def _g_response(prompt: int, cached: int) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": 3,
        "totalTokenCount": prompt + 3,
    }
    if cached:
        usage["cachedContentTokenCount"] = cached
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "Ok."}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": usage,
        "modelVersion": "gemini-2.5-flash",
        "responseId": "debug",
    }


def gemini_session(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """generate_content, a streamed turn, aio with a dropped earlier turn, then an aio stream."""
    events, sink = _collect()
    client = promptcache.wrap(gemini_client(base_url), monitor=_monitor("gemini", sink))
    first = pairs.gemini()
    second = copy.deepcopy(first)
    second["contents"] += [
        {"role": "model", "parts": [{"text": "Ok."}]},
        {"role": "user", "parts": [{"text": "It moved to /ready."}]},
    ]
    third = copy.deepcopy(second)
    del third["contents"][1:3]  # a history compactor dropped the tool call (content_changed)
    results: list[Any] = [client.models.generate_content(**first)]
    results.append([c.text for c in client.models.generate_content_stream(**second)])

    fourth = copy.deepcopy(third)
    fourth["contents"] += [
        {"role": "model", "parts": [{"text": "Ok."}]},
        {"role": "user", "parts": [{"text": "Thanks."}]},
    ]

    async def run() -> list[Any]:
        answer = await client.aio.models.generate_content(**third)
        chunks = [c.text async for c in await client.aio.models.generate_content_stream(**fourth)]
        return [answer, chunks]

    results.extend(asyncio.run(run()))
    return results, events


GEMINI = (
    Reply(_g_response(2300, 0)),
    Reply(events=((None, _g_response(2330, 2048)),)),
    Reply(_g_response(2250, 0)),
    Reply(events=((None, _g_response(2280, 2176)),)),
)


def gemini_chat(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """A chat session (`chats.create` + `send_message`), turn 3 stamps the system instruction."""
    events, sink = _collect()
    client = promptcache.wrap(gemini_client(base_url), monitor=_monitor("gemini", sink))
    config = {"system_instruction": pairs.GUIDE}
    chat = client.chats.create(model="gemini-2.5-flash", config=config)
    results: list[Any] = [
        chat.send_message("The deploy failed at /health.").text,
        chat.send_message("It moved to /ready.").text,
        chat.send_message(
            "Thanks.", config={"system_instruction": "Now: 2026-11-29T20:41:07Z. " + pairs.GUIDE}
        ).text,
    ]

    async def run() -> str | None:
        session = client.aio.chats.create(model="gemini-2.5-flash", config=config)
        return (await session.send_message("Is /ready up?")).text

    results.append(asyncio.run(run()))
    return results, events


GEMINI_CHAT = (
    Reply(_g_response(2300, 0)),
    Reply(_g_response(2330, 2048)),
    Reply(_g_response(2360, 0)),
    Reply(_g_response(2310, 2300)),
)


def openai_parse(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """Structured outputs: `.parse()` on chat and on Responses; turn 3 stamps the system prompt."""
    from pydantic import BaseModel

    class Verdict(BaseModel):
        answer: str

    events, sink = _collect()
    client = promptcache.wrap(openai_client(base_url), monitor=_monitor("openai", sink))
    first = pairs.openai()
    del first["tools"]  # parse() accepts only strict function tools
    second = copy.deepcopy(first)
    second["messages"] += [
        {"role": "assistant", "content": '{"answer":"Ok."}'},
        {"role": "user", "content": "It moved to /ready."},
    ]
    third = copy.deepcopy(second)
    third["messages"][0]["content"] = (
        "Now: 2026-11-29T20:41:07Z. " + third["messages"][0]["content"]
    )
    results: list[Any] = [
        client.chat.completions.parse(**request, response_format=Verdict).choices[0].message.parsed
        for request in (first, second, third)
    ]
    parsed = client.responses.parse(
        model="gpt-5.4", input="Is /ready up?", text_format=Verdict, prompt_cache_key="parse"
    )
    results.append(parsed.output_parsed)
    return results, events


def _parsed_chat(prompt: int, cached: int) -> dict[str, Any]:
    reply = _chat(prompt, cached)
    reply["choices"][0]["message"]["content"] = '{"answer":"Ok."}'
    return reply


def _parsed_response(total: int, cached: int) -> dict[str, Any]:
    reply = _response(total, cached)
    reply["output"][0]["content"][0]["text"] = '{"answer":"Ok."}'
    return reply


OPENAI_PARSE = (
    Reply(_parsed_chat(2200, 0)),
    Reply(_parsed_chat(2230, 2176)),
    Reply(_parsed_chat(2260, 0)),
    Reply(_parsed_response(40, 0)),
)


SESSIONS: dict[str, tuple[Session, tuple[Reply, ...]]] = {
    "anthropic_sync": (anthropic_sync, ANTHROPIC_SYNC),
    "anthropic_stream": (anthropic_stream, ANTHROPIC_STREAM),
    "anthropic_async": (anthropic_async, ANTHROPIC_ASYNC),
    "openai_chat": (openai_chat, OPENAI_CHAT),
    "openai_parse": (openai_parse, OPENAI_PARSE),
    "openai_responses_async": (openai_responses_async, OPENAI_RESPONSES),
    "openai_chat_stream": (openai_chat_stream, OPENAI_CHAT_STREAM),
    "openai_responses_stream": (openai_responses_stream, OPENAI_RESPONSES_STREAM),
    "openai_stream_abandoned": (openai_stream_abandoned, OPENAI_STREAM_ABANDONED),
    "gemini_session": (gemini_session, GEMINI),
    "gemini_chat": (gemini_chat, GEMINI_CHAT),
}
HOSTS = {"anthropic": ANTHROPIC_HOST, "openai": OPENAI_HOST, "gemini": GEMINI_HOST}
