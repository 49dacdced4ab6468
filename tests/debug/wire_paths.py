"""
More wrapped-client sessions (see wire.py): every other call path of the three SDKs, the
arguments the SDKs accept beyond lists and dicts, and Pydantic AI driving wrapped clients.

`SESSIONS` holds these and wire.py's; the recorder and the tests read it.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any

import promptcache
from promptcache import Invalidation

from .._recording import Reply, anthropic_client, gemini_client, openai_client
from . import pairs, wire
from .wire import (
    _a_events,
    _a_message,
    _chat,
    _chat_chunks,
    _chat_turns,
    _collect,
    _g_response,
    _monitor,
    _next_turn,
    _r_events,
    _response,
    _responses_turns,
)

# Planted personal data: no promptcache log record or event may ever carry it.
PLANTED = ("Jane Roe", "jane.roe@example.com", "Rahul Mehta", "rahul@acme-cloud.example")
ASK = "I am Jane Roe (jane.roe@example.com); my deploy fails with 502s."
ALSO = "Rahul Mehta <rahul@acme-cloud.example> saw it too."


def _verdict() -> Any:
    from pydantic import BaseModel

    class Verdict(BaseModel):
        answer: str

    return Verdict


# -- Anthropic: beta, with_options, copy, raw and streamed responses, parse ---------------------


def _anthropic_turns(count: int) -> list[dict[str, Any]]:
    turns = [pairs.anthropic()]
    for n in range(count - 1):
        turns.append(_next_turn(turns[-1], "Check /ready.", f"Step {n + 2} done."))
    return turns


def anthropic_paths(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """Seven turns of one conversation, each through another path; turn 5 stamps the clock."""
    events, sink = _collect()
    client = promptcache.wrap(anthropic_client(base_url), monitor=_monitor("anthropic", sink))
    turns = _anthropic_turns(7)
    for later in turns[4:]:
        later["system"][0]["text"] = pairs.with_header("Now: 2026-11-29T20:41:07Z")
    results: list[Any] = [client.beta.messages.create(**turns[0], betas=["files-api-2025-04-14"])]
    results.append(client.with_options(timeout=30).messages.create(**turns[1]))
    with client.copy(max_retries=0).beta.messages.stream(**turns[2]) as stream:
        results.append(stream.get_final_text())
    raw = client.messages.with_raw_response.create(**turns[3])
    results.append((raw, raw.parse()))
    with client.with_streaming_response.messages.create(**turns[4]) as response:
        results.append((response, response.parse()))
    raw_stream = client.beta.with_raw_response.messages.create(**turns[5], stream=True)
    results.append([event.type for event in raw_stream.parse()])
    results.append(client.messages.parse(**turns[6], output_format=_verdict()))
    return results, events


def _a_json(read: int, write: int) -> dict[str, Any]:
    message = _a_message(read, write)
    message["content"] = [{"type": "text", "text": '{"answer":"Ok."}'}]
    return message


ANTHROPIC_PATHS = (
    Reply(_a_message(0, 2100)),
    Reply(_a_message(2100, 40)),
    Reply(events=_a_events(2140, 30)),
    Reply(_a_message(2170, 30)),
    Reply(_a_message(0, 2230)),  # turn 5: the clock in the system prompt
    Reply(events=_a_events(2230, 30)),
    Reply(_a_json(2260, 30)),
)


def anthropic_paths_async(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """AsyncAnthropic through the same paths; turn 4 gets its tools from a set (tool_order)."""
    events, sink = _collect()
    turns = _anthropic_turns(5)
    for later in turns[3:]:
        later["tools"] = [later["tools"][1], later["tools"][0], later["tools"][2]]

    async def run() -> list[Any]:
        client = promptcache.wrap(
            anthropic_client(base_url, is_async=True), monitor=_monitor("anthropic", sink)
        )
        async with client:
            stream = await client.beta.messages.create(**turns[0], stream=True)
            one = [event.type async for event in stream]
            two = await client.with_options(max_retries=0).beta.messages.create(**turns[1])
            raw = await client.with_raw_response.messages.create(**turns[2])
            three = await raw.parse()
            async with client.beta.with_streaming_response.messages.create(**turns[3]) as r:
                four = await r.parse()
            async with client.copy().messages.stream(**turns[4]) as helper:
                five = await helper.get_final_text()
        return [one, two, (raw, three), four, five]

    return asyncio.run(run()), events


ANTHROPIC_PATHS_ASYNC = (
    Reply(events=_a_events(0, 2100)),
    Reply(_a_message(2100, 40)),
    Reply(_a_message(2140, 30)),
    Reply(_a_message(0, 2200)),  # turn 4: tools reordered
    Reply(events=_a_events(2200, 30)),
)


# -- OpenAI: with_options, copy, raw and streamed responses, parse through them ------------------


def openai_paths(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """Chat Completions, then Responses (its own `prompt_cache_key`), sync then async, each turn
    through another path; the third chat turn gets its tools from a set (tool_order)."""
    events, sink = _collect()
    monitor = _monitor("openai", sink)
    client = promptcache.wrap(openai_client(base_url), monitor=monitor)
    chats = _chat_turns("It moved to /ready.", "Thanks.")
    chats[2]["tools"] = [chats[2]["tools"][2], chats[2]["tools"][0], chats[2]["tools"][1]]
    usage = {"stream_options": {"include_usage": True}}
    results: list[Any] = [client.with_options(timeout=30).chat.completions.create(**chats[0])]
    raw = client.chat.completions.with_raw_response.create(**chats[1])
    results.append((raw, raw.parse()))
    raw_stream = client.with_raw_response.chat.completions.create(**chats[2], stream=True, **usage)
    results.append([c.choices[0].delta.content if c.choices else None for c in raw_stream.parse()])
    verdict = {k: v for k, v in chats[0].items() if k != "tools"}  # parse() takes strict tools
    parsed = client.copy().chat.completions.with_raw_response.parse(
        **verdict, response_format=_verdict(), prompt_cache_key="verdict"
    )
    results.append(parsed.parse())
    first, second, third = (dict(turn, prompt_cache_key="responses") for turn in _responses_turns())

    async def run() -> list[Any]:
        aclient = promptcache.wrap(openai_client(base_url, is_async=True), monitor=monitor)
        async with aclient:
            async with aclient.with_streaming_response.responses.create(**first) as response:
                one = await response.parse()
            raw = await aclient.responses.with_raw_response.create(**second, stream=True)
            two = [event.type async for event in raw.parse()]  # OpenAI's raw parse() is sync
            three = await aclient.with_options(max_retries=0).responses.parse(
                **third, text_format=_verdict()
            )
        return [one, two, three]

    results.extend(asyncio.run(run()))
    return results, events


def _parsed_response(total: int, cached: int) -> dict[str, Any]:
    reply = _response(total, cached)
    reply["output"][0]["content"][0]["text"] = '{"answer":"Ok."}'
    return reply


def _parsed_chat(prompt: int, cached: int) -> dict[str, Any]:
    reply = _chat(prompt, cached)
    reply["choices"][0]["message"]["content"] = '{"answer":"Ok."}'
    return reply


OPENAI_PATHS = (
    Reply(_chat(2200, 0)),
    Reply(_chat(2230, 2176)),
    Reply(events=_chat_chunks(2260, 0)),  # tools reordered: a miss
    Reply(_parsed_chat(2100, 0)),
    Reply(_response(2100, 0)),
    Reply(events=_r_events(2140, 2048)),
    Reply(_parsed_response(2170, 2048)),
)


# -- Gemini: streamed chat sessions -------------------------------------------------------------


def gemini_chat_stream(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """`chats.create` + `send_message_stream` (sync, then aio); turn 3 stamps the clock."""
    events, sink = _collect()
    client = promptcache.wrap(gemini_client(base_url), monitor=_monitor("gemini", sink))
    config = {"system_instruction": pairs.GUIDE}
    chat = client.chats.create(model="gemini-2.5-flash", config=config)
    results: list[Any] = [
        [c.text for c in chat.send_message_stream("The deploy failed at /health.")],
        [c.text for c in chat.send_message_stream("It moved to /ready.")],
    ]

    async def run() -> list[Any]:
        stamped = {"system_instruction": "Now: 2026-11-29T20:41:07Z. " + pairs.GUIDE}
        session = client.aio.chats.create(
            model="gemini-2.5-flash", config=config, history=chat.get_history()
        )
        stream = await session.send_message_stream("Thanks.", config=stamped)
        return [c.text async for c in stream]

    results.append(asyncio.run(run()))
    return results, events


def _g_stream(prompt: int, cached: int) -> Any:
    return ((None, _g_response(prompt, cached)),)


GEMINI_CHAT_STREAM = (
    Reply(events=_g_stream(2300, 0)),
    Reply(events=_g_stream(2330, 2048)),
    Reply(events=_g_stream(2360, 0)),
)


# -- what the SDKs accept beyond lists and dicts ------------------------------------------------


def anthropic_shapes(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """
    Arguments the SDK serialises from other types: `messages` as a deque, then a generator;
    `system` as `dict_values`; `tools` as a tuple, then a `dict` (sent as a JSON object, which
    promptcache cannot read as tools: said once, not observed, result untouched). Turn 3 stamps
    the clock into the system prompt: the one event. Personal data is planted in every turn.
    """
    events, sink = _collect()
    client = promptcache.wrap(anthropic_client(base_url), monitor=_monitor("anthropic", sink))
    blocks = {
        "guide": {"type": "text", "text": pairs.GUIDE},
        "people": {"type": "text", "text": ALSO, "cache_control": {"type": "ephemeral"}},
    }
    first = {"role": "user", "content": [{"type": "text", "text": ASK}]}
    history = [first, {"role": "assistant", "content": "Check /ready."}]
    ask = {"role": "user", "content": [{"type": "text", "text": "Still 502, " + ASK}]}
    base = {"model": "claude-sonnet-4-6", "max_tokens": 1024}
    results = [
        client.messages.create(
            **base,
            tools=tuple(pairs.TOOLS),
            system=blocks.values(),
            messages=collections.deque([first]),
        ),
        client.messages.create(
            **base,
            tools=tuple(pairs.TOOLS),
            system=blocks.values(),
            messages=(m for m in [*history, ask]),
        ),
    ]
    stamped = {"clock": {"type": "text", "text": "Now: 2026-11-29T20:41:07Z."}, **blocks}
    results.append(
        client.messages.create(
            **base, tools=list(pairs.TOOLS), system=stamped.values(), messages=[*history, ask]
        )
    )
    by_name = {tool["name"]: tool for tool in pairs.TOOLS}
    for _ in range(2):
        results.append(
            client.messages.create(
                **base, tools=by_name, system=list(stamped.values()), messages=[first]
            )
        )
    return results, events


ANTHROPIC_SHAPES = (
    Reply(_a_message(0, 2100)),
    Reply(_a_message(2100, 40)),
    Reply(_a_message(0, 2160)),  # the clock: a miss
    Reply(_a_message(0, 0)),
    Reply(_a_message(0, 0)),
)


def openai_shapes(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """AsyncOpenAI: `messages` as a deque then a generator, `tools` from `dict_values`, the SDK's
    `omit` for unset options; turn 3 stamps the clock into the developer message."""
    import openai

    events, sink = _collect()
    turns = _chat_turns("Still 502, " + ASK, ALSO)
    turns[0]["messages"][1]["content"] = ASK
    for turn in turns[1:]:
        turn["messages"][1]["content"] = ASK
    turns[2]["messages"][0]["content"] = "Now: 2026-11-29T20:41:07Z. " + pairs.GUIDE
    tools = {tool["function"]["name"]: tool for tool in turns[0].pop("tools")}
    for turn in turns[1:]:
        del turn["tools"]

    async def run() -> list[Any]:
        client = promptcache.wrap(
            openai_client(base_url, is_async=True), monitor=_monitor("openai", sink)
        )
        async with client:
            one = await client.chat.completions.create(
                model="gpt-5.4",
                tools=tools.values(),
                messages=collections.deque(turns[0]["messages"]),
                temperature=openai.omit,
            )
            two = await client.chat.completions.create(
                model="gpt-5.4",
                tools=tools.values(),
                messages=(m for m in turns[1]["messages"]),
                temperature=openai.omit,
            )
            three = await client.chat.completions.create(
                model="gpt-5.4", tools=list(tools.values()), messages=turns[2]["messages"]
            )
        return [one, two, three]

    return asyncio.run(run()), events


OPENAI_SHAPES = (Reply(_chat(2200, 0)), Reply(_chat(2230, 2176)), Reply(_chat(2260, 0)))


# -- Pydantic AI driving wrapped clients --------------------------------------------------------


def _agent_runs(model: Any, settings: dict[str, Any]) -> Any:
    """Three runs of an agent: the second and third render the clock into the instructions
    (a cache miss on the second); the third streams."""
    from pydantic_ai import Agent

    async def run() -> list[Any]:
        outputs = []
        for n, header in enumerate(("Today: 2026-11-29", "Now: 2026-11-29 20:41:07", None)):
            if header is not None:
                agent = Agent(
                    model, instructions=pairs.with_header(header), model_settings=settings
                )
            if n < 2:
                outputs.append((await agent.run(ASK)).output)
            else:
                async with agent.run_stream(ASK) as streamed:
                    outputs.append(await streamed.get_output())
        return outputs

    return asyncio.run(run())


def anthropic_pydantic_ai(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """Pydantic AI's AnthropicModel on a wrapped AsyncAnthropic (it calls
    `beta.messages.create`, through `with_options()` for `max_retries`)."""
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    events, sink = _collect()
    client = promptcache.wrap(
        anthropic_client(base_url, is_async=True), monitor=_monitor("anthropic", sink)
    )
    model = AnthropicModel("claude-sonnet-4-6", provider=AnthropicProvider(anthropic_client=client))
    settings = {"anthropic_cache_instructions": True, "max_retries": 0}
    return _agent_runs(model, settings), events


# Pydantic AI streams even `agent.run()` when its default max_tokens could outlast a plain call.
ANTHROPIC_PYDANTIC_AI = (
    Reply(events=_a_events(0, 2100)),
    Reply(events=_a_events(0, 2110)),  # the clock in the instructions: a miss
    Reply(events=_a_events(2110, 0)),
)


def openai_pydantic_ai(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """Pydantic AI's OpenAIChatModel on a wrapped AsyncOpenAI."""
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    events, sink = _collect()
    client = promptcache.wrap(
        openai_client(base_url, is_async=True), monitor=_monitor("openai", sink)
    )
    model = OpenAIChatModel("gpt-5.4", provider=OpenAIProvider(openai_client=client))
    return _agent_runs(model, {"max_retries": 0}), events


OPENAI_PYDANTIC_AI = (
    Reply(_chat(2200, 0)),
    Reply(_chat(2210, 0)),  # the clock in the instructions: a miss
    Reply(events=_chat_chunks(2210, 2176)),
)


def openai_responses_pydantic_ai(base_url: str | None) -> tuple[list[Any], list[Invalidation]]:
    """Pydantic AI's OpenAIResponsesModel on a wrapped AsyncOpenAI (`responses.create`)."""
    from pydantic_ai.models.openai import OpenAIResponsesModel
    from pydantic_ai.providers.openai import OpenAIProvider

    events, sink = _collect()
    client = promptcache.wrap(
        openai_client(base_url, is_async=True), monitor=_monitor("openai", sink)
    )
    model = OpenAIResponsesModel("gpt-5.4", provider=OpenAIProvider(openai_client=client))
    return _agent_runs(model, {"max_retries": 0}), events


OPENAI_RESPONSES_PYDANTIC_AI = (
    Reply(_response(2200, 0)),
    Reply(_response(2210, 0)),  # the clock in the instructions: a miss
    Reply(events=_r_events(2210, 2176)),
)


SESSIONS: dict[str, tuple[wire.Session, tuple[Reply, ...]]] = {
    **wire.SESSIONS,
    "anthropic_paths": (anthropic_paths, ANTHROPIC_PATHS),
    "anthropic_paths_async": (anthropic_paths_async, ANTHROPIC_PATHS_ASYNC),
    "openai_paths": (openai_paths, OPENAI_PATHS),
    "gemini_chat_stream": (gemini_chat_stream, GEMINI_CHAT_STREAM),
    "anthropic_shapes": (anthropic_shapes, ANTHROPIC_SHAPES),
    "openai_shapes": (openai_shapes, OPENAI_SHAPES),
    "anthropic_pydantic_ai": (anthropic_pydantic_ai, ANTHROPIC_PYDANTIC_AI),
    "openai_pydantic_ai": (openai_pydantic_ai, OPENAI_PYDANTIC_AI),
    "openai_responses_pydantic_ai": (openai_responses_pydantic_ai, OPENAI_RESPONSES_PYDANTIC_AI),
}
