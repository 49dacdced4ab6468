"""`diff`: every cause from a realistic pair (peers.md §4), in Anthropic, OpenAI and Gemini shapes."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from promptcache import InputError, diff
from promptcache.debug.causes import CAUSES

from . import pairs

Shape = Callable[..., dict[str, Any]]
SHAPES: dict[str, tuple[str, Shape]] = {
    "anthropic": ("anthropic", pairs.anthropic),
    "openai": ("openai", pairs.openai),
    # Gemini 2.5 Flash's 2,048-token minimum is over these ~1,750-token pairs (nothing cached):
    # a model with a 1,024-token minimum keeps them about what a change loses.
    "gemini": ("gemini", lambda **kw: {**pairs.gemini(**kw), "model": "gemini-3-flash"}),
}
SYSTEM_PATH = {
    "anthropic": "system[0].text",
    "openai": "messages[0].content",
    "gemini": "config.system_instruction",
}
ALL = pytest.mark.parametrize("shape", sorted(SHAPES))


def _pair(shape: str, **kw_b: Any) -> tuple[dict[str, Any], dict[str, Any], str]:
    vendor, build = SHAPES[shape]
    return build(), build(**kw_b), vendor


# -- timestamp: goose#2434, pi_agent_rust#103, open-chat-studio#3625 ------------------------


@ALL
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Current time: 2026-06-09 15:04:20", "Current time: 2026-06-09 15:04:21"),  # A1
        (
            "Now: Tuesday, June 9, 2026, 03:04:20 PM +03:00",  # A2
            "Now: Tuesday, June 9, 2026, 03:05:47 PM +03:00",
        ),
        (
            "Today is Tuesday, 09 June 2026 15:04:20 UTC",
            "Today is Tuesday, 09 June 2026 15:09:02 UTC",
        ),
    ],
)
def test_timestamp_in_system(shape: str, first: str, second: str) -> None:
    vendor, build = SHAPES[shape]
    result = diff(
        build(system=pairs.with_header(first)), build(system=pairs.with_header(second)), vendor
    )
    assert result.invalidated
    assert (result.cause, result.layer, result.path) == ("timestamp", "system", SYSTEM_PATH[shape])
    assert result.offset == next(
        i for i, (x, y) in enumerate(zip(first, second, strict=False)) if x != y
    )
    assert result.before is not None and result.after is not None
    assert first[result.offset :][:2] in result.before
    assert result.tokens_lost and result.tokens_lost > 500


@ALL
@pytest.mark.parametrize(
    ("first", "second"),
    [("Current Time: 14:03", "Current Time: 14:04"), ("Time: 9:59", "Time: 10:00")],
)
def test_bare_clock_in_system_is_a_timestamp(shape: str, first: str, second: str) -> None:
    # A minute-precision clock with no date and no seconds: "HH:MM" rendered from now().
    vendor, build = SHAPES[shape]
    a, b = build(system=pairs.with_header(first)), build(system=pairs.with_header(second))
    result = diff(a, b, vendor)
    assert (result.cause, result.layer, result.path) == ("timestamp", "system", SYSTEM_PATH[shape])
    assert "clock time" in result.detail


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Keep a 3:4 aspect ratio.", "Keep a 3:5 aspect ratio."),  # not a clock: one minute digit
        ("Final score 24:10.", "Final score 24:11."),  # no 24th hour
        ("Room B14:03 is free.", "Room B14:04 is free."),  # glued to a word
    ],
)
def test_colon_numbers_that_are_not_clocks_stay_content(first: str, second: str) -> None:
    a = pairs.anthropic(system=pairs.with_header(first))
    b = pairs.anthropic(system=pairs.with_header(second))
    assert diff(a, b, "anthropic").cause == "content_changed"


def test_date_rollover_before_history_is_a_timestamp() -> None:
    # openclaw#148304: "Current date: YYYY-MM-DD" after the system boundary, before history.
    a = pairs.anthropic(system=pairs.with_header("Current date: 2026-11-28"))
    b = pairs.anthropic(system=pairs.with_header("Current date: 2026-11-29"))
    result = diff(a, b, "anthropic")
    assert (result.cause, result.offset) == ("timestamp", len("Current date: 2026-11-2"))


# -- random_id: request ids in the prompt, regenerated tool_use ids on resume ---------------


@ALL
def test_uuid_in_system_is_a_random_id(shape: str) -> None:
    vendor, build = SHAPES[shape]
    a = build(system=pairs.with_header("Request 3f2504e0-4f89-11d3-9a0c-0305e82c3301"))
    b = build(system=pairs.with_header("Request 7c9e6679-7425-40de-944b-e07fc1f90ae7"))
    result = diff(a, b, vendor)
    assert (result.cause, result.layer, result.path) == ("random_id", "system", SYSTEM_PATH[shape])


def test_regenerated_tool_use_id_is_a_random_id() -> None:
    a = pairs.anthropic()
    b = pairs.anthropic()
    for block in (b["messages"][1]["content"][1], b["messages"][2]["content"][0]):
        key = "id" if "id" in block else "tool_use_id"
        block[key] = "toolu_01Zx7KQbW3mN8pL2vR5tY9cD"
    result = diff(a, b, "anthropic")
    assert (result.cause, result.layer) == ("random_id", "messages")
    assert result.path == "messages[1].content[1].id"


# -- key_order: dspy#10216 (tool-call args), sglang#34553 (schema keys swapped) ------------


def test_tool_use_input_key_order_anthropic() -> None:
    b = pairs.anthropic()
    b["messages"][1]["content"][1]["input"] = {"limit": 3, "query": "deployment 502"}
    result = diff(pairs.anthropic(), b, "anthropic")
    assert (result.cause, result.layer, result.path) == (
        "key_order",
        "messages",
        "messages[1].content[1].input",
    )
    assert (result.before, result.after) == ("query, limit", "limit, query")


@ALL
def test_schema_properties_and_required_swapped(shape: str) -> None:
    swapped = copy.deepcopy(pairs.TOOLS)
    schema = swapped[0]["input_schema"]
    swapped[0]["input_schema"] = {
        "type": "object",
        "required": schema["required"],
        "properties": schema["properties"],
    }
    vendor, build = SHAPES[shape]
    result = diff(build(), build(tools=swapped), vendor)
    assert (result.cause, result.layer) == ("key_order", "tools")
    assert result.path is not None and result.path.endswith(
        {
            "anthropic": "tools[0].input_schema",
            "openai": "tools[0].function.parameters",
            "gemini": "config.tools[0].function_declarations[0].parameters",
        }[shape]
    )


ARGS = '{"query": "deployment 502", "limit": 3}'
ARGS_SWAPPED = '{"limit": 3, "query": "deployment 502"}'
RESULT = '{"section": "4.2", "hits": [{"title": "502 after deploy", "score": 0.91}]}'
RESULT_SWAPPED = '{"hits": [{"score": 0.91, "title": "502 after deploy"}], "section": "4.2"}'


def test_openai_serialised_arguments_key_order() -> None:
    # The arguments are a JSON *string* on OpenAI; dspy#10216 re-serialised them without
    # sort_keys. Same value, keys in another order: key_order, located at the string.
    a = pairs.openai(messages=pairs.openai_turns(ARGS))
    b = pairs.openai(messages=pairs.openai_turns(ARGS_SWAPPED))
    result = diff(a, b, "openai")
    assert result.path == "messages[2].tool_calls[0].function.arguments"
    assert result.cause == "key_order" and result.invalidated
    assert (result.before, result.after, result.offset) == ("query, limit", "limit, query", 2)


@pytest.mark.parametrize(
    ("vendor", "build", "path"),
    [
        (
            "openai",
            lambda r: pairs.openai(messages=pairs.openai_turns(result=r)),
            "messages[3].content",
        ),
        (
            "engine",
            lambda r: pairs.engine(messages=pairs.openai_turns(result=r)),
            "messages[3].content",
        ),
        (
            "anthropic",
            lambda r: pairs.anthropic(messages=pairs.anthropic_turns(result=r)),
            "messages[2].content[0].content",
        ),
        ("openai", lambda r: pairs.openai_responses(output=r), "input[2].output"),
    ],
    ids=["openai-tool-message", "engine-tool-message", "anthropic-tool-result", "responses"],
)
def test_serialised_tool_result_key_order(vendor: str, build: Shape, path: str) -> None:
    result = diff(build(RESULT), build(RESULT_SWAPPED), vendor)
    assert (result.cause, result.path, result.invalidated) == ("key_order", path, True)
    assert (result.before, result.after) == ("section, hits", "hits, section")
    # A different value in the same JSON is an edit, whatever order its keys come in.
    edited = RESULT_SWAPPED.replace("0.91", "0.42")
    assert diff(build(RESULT), build(edited), vendor).cause == "content_changed"


def test_responses_function_call_arguments_key_order() -> None:
    a = pairs.openai_responses(arguments=ARGS)
    b = pairs.openai_responses(arguments=ARGS_SWAPPED)
    result = diff(a, b, "openai")
    assert (result.cause, result.layer, result.path) == (
        "key_order",
        "messages",
        "input[1].arguments",
    )


def test_serialised_arguments_nested_key_order_names_the_object() -> None:
    a = pairs.openai(messages=pairs.openai_turns('{"filter": {"env": "prod", "since": "noon"}}'))
    b = pairs.openai(messages=pairs.openai_turns('{"filter": {"since": "noon", "env": "prod"}}'))
    result = diff(a, b, "openai")
    assert (result.cause, result.before, result.after) == ("key_order", "env, since", "since, env")
    assert "filter" in result.detail


def test_serialised_arguments_respaced_is_whitespace() -> None:
    # json.dumps(separators=(",", ":")) on one side: only the spacing differs, keys as before.
    a = pairs.openai(messages=pairs.openai_turns(ARGS))
    b = pairs.openai(messages=pairs.openai_turns('{"query":"deployment 502","limit":3}'))
    assert diff(a, b, "openai").cause == "whitespace"


# -- tool_order: zeroclaw#10959 (HashMap), term-llm#113 (Go map), Gemini declarations -------


@ALL
def test_same_tools_permuted(shape: str) -> None:
    vendor, build = SHAPES[shape]
    result = diff(build(), build(tools=[pairs.STATUS, pairs.SEARCH, pairs.TICKET]), vendor)
    assert (result.cause, result.layer, result.invalidated) == ("tool_order", "tools", True)
    assert result.tokens_lost and result.tokens_lost > 500  # everything after the tools


# -- block_order: system sections from a map or set (Go map iteration, Python set of parts) ----


@pytest.mark.parametrize(
    ("shape", "vendor", "path"),
    [
        (pairs.anthropic_sections, "anthropic", "system[0]"),
        (pairs.openai_sections, "openai", "messages[0].content"),
        (pairs.openai_sections, "engine", "messages[0].content"),
    ],
    ids=["anthropic", "openai", "engine"],
)
def test_system_sections_permuted(shape: Shape, vendor: str, path: str) -> None:
    a = shape(pairs.PERSONA, pairs.POLICY, pairs.STYLE)
    result = diff(a, shape(pairs.POLICY, pairs.PERSONA, pairs.STYLE), vendor)
    assert (result.cause, result.layer, result.path) == ("block_order", "system", path)
    assert result.invalidated and result.tokens_lost and result.tokens_lost > 500
    assert result.before is not None and result.before.startswith("You are a support agent")
    assert result.after is not None and result.after.startswith("Escalation")
    later = diff(a, shape(pairs.PERSONA, pairs.STYLE, pairs.POLICY), vendor)
    assert (later.cause, later.path) == ("block_order", path.replace("[0]", "[1]", 1))


def test_system_sections_permuted_and_edited_is_content() -> None:
    a = pairs.anthropic_sections(pairs.PERSONA, pairs.POLICY)
    b = pairs.anthropic_sections(pairs.POLICY, pairs.PERSONA + " Be brief.")
    assert diff(a, b, "anthropic").cause == "content_changed"


# -- tools_changed: schema drift (hermes#100336), MCP tool added -----------------------------


@ALL
def test_tool_schema_edited(shape: str) -> None:
    edited = copy.deepcopy(pairs.TOOLS)
    edited[1]["input_schema"]["properties"]["severity"]["enum"] = ["low", "high"]
    vendor, build = SHAPES[shape]
    result = diff(build(), build(tools=edited), vendor)
    assert (result.cause, result.layer) == ("tools_changed", "tools")
    assert result.path is not None and result.path.endswith("properties.severity.enum")
    assert "open_ticket" in diff(build(), build(tools=edited), vendor).detail


@ALL
def test_tool_added(shape: str) -> None:
    extra = {
        "name": "zz_restart",
        "description": "Restart a service.",
        "input_schema": {"type": "object"},
    }
    vendor, build = SHAPES[shape]
    result = diff(build(), build(tools=[*pairs.TOOLS, extra]), vendor)
    assert (result.cause, result.layer, result.invalidated) == ("tools_changed", "tools", True)


# -- model_changed: hermes#100336 (/model) ----------------------------------------------------


@ALL
def test_model_switch_loses_everything(shape: str) -> None:
    vendor, build = SHAPES[shape]
    a = build()
    b = dict(build(), model="other-model-2")
    result = diff(a, b, vendor)
    assert (result.cause, result.layer, result.path) == ("model_changed", "model", "model")
    assert (result.before, result.after) == (a["model"], "other-model-2")
    whole = diff(a, dict(a, tools=[]), vendor).tokens_lost
    assert whole is not None and result.tokens_lost is not None and result.tokens_lost >= whole


# -- whitespace: a Jinja template that stopped trimming a newline ---------------------------


@ALL
def test_whitespace_only(shape: str) -> None:
    vendor, build = SHAPES[shape]
    a = build(system=pairs.with_header("Policies:"))
    b = build(system=pairs.with_header("Policies:").replace("\n\n", "\n\n\n", 1))
    result = diff(a, b, vendor)
    assert (result.cause, result.layer) == ("whitespace", "system")


# -- content_changed: claude-code#43657 (messages[0] loses a block on resume) ---------------


def test_resume_moves_a_reminder_block() -> None:
    reminder = {
        "type": "text",
        "text": "<system-reminder>Skills: deploy, rollback</system-reminder>",
    }
    a = pairs.anthropic()
    a["messages"][0] = {"role": "user", "content": [reminder, {"type": "text", "text": "Hi"}]}
    b = copy.deepcopy(a)
    b["messages"][0] = {"role": "user", "content": [{"type": "text", "text": "Hi"}]}
    result = diff(a, b, "anthropic")
    assert (result.cause, result.layer, result.path) == (
        "content_changed",
        "messages",
        "messages[0].content[0].text",
    )
    assert result.invalidated


@ALL
def test_earlier_turn_edited(shape: str) -> None:
    vendor, build = SHAPES[shape]
    a = build()
    b = copy.deepcopy(a)
    turns = b["contents"] if shape == "gemini" else b["messages"]
    first = turns[1] if shape == "openai" else turns[0]
    if shape == "gemini":
        first["parts"][0]["text"] = "Hello! I need help with my deployment."
    else:
        first["content"] = "Hello! I need help with my deployment."
    result = diff(a, b, vendor)
    assert (result.cause, result.layer, result.invalidated) == ("content_changed", "messages", True)


def test_engine_think_block_dropped() -> None:
    # Crow#60 / Qwen3 templates: the client drops reasoning_content, the template renders an empty
    # think block, and the prefix diverges at that assistant turn.
    a = pairs.openai()
    a["messages"][4] = {
        "role": "assistant",
        "content": "Runbook 4.2 says ...",
        "reasoning_content": "The user has 502s; check the runbook.",
    }
    b = copy.deepcopy(a)
    del b["messages"][4]["reasoning_content"]
    result = diff(a, b, "engine")
    assert (result.cause, result.path) == ("content_changed", "messages[4].reasoning_content")
    assert result.before is not None and result.after is None


# -- tool_choice_changed / thinking_changed: Anthropic's invalidation table ------------------


def test_tool_choice_drops_messages_keeps_system() -> None:
    a = pairs.anthropic(tool_choice={"type": "auto"})
    b = pairs.anthropic(tool_choice={"type": "any"})
    result = diff(a, b, "anthropic")
    assert (result.cause, result.layer, result.path) == (
        "tool_choice_changed",
        "messages",
        "tool_choice",
    )
    # The system breakpoint survives: only the messages tier is lost.
    whole = diff(a, dict(a, model="x"), "anthropic").tokens_lost
    assert result.tokens_lost is not None and whole is not None and 0 < result.tokens_lost < whole


def test_tool_choice_without_message_breakpoints_loses_nothing() -> None:
    a = pairs.anthropic(tool_choice={"type": "auto"})
    a["messages"][-1]["content"][0].pop("cache_control")
    b = dict(a, tool_choice={"type": "any"})
    result = diff(a, b, "anthropic")
    assert not result.invalidated and result.cause == "none" and result.path == "tool_choice"


def test_thinking_toggle_anthropic() -> None:
    a = pairs.anthropic()
    b = pairs.anthropic(thinking={"type": "enabled", "budget_tokens": 2048})
    result = diff(a, b, "anthropic")
    assert (result.cause, result.layer) == ("thinking_changed", "messages")


def test_reasoning_effort_openai() -> None:
    result = diff(
        pairs.openai(reasoning_effort="low"), pairs.openai(reasoning_effort="high"), "openai"
    )
    assert (result.cause, result.invalidated) == ("thinking_changed", True)


def test_engine_enable_thinking_template_kwarg() -> None:
    # DeepSeek DGX Spark#144: reasoning on/off changed what the chat template rendered.
    a = pairs.openai(chat_template_kwargs={"enable_thinking": False})
    b = pairs.openai(chat_template_kwargs={"enable_thinking": True})
    assert diff(a, b, "engine").cause == "thinking_changed"


def test_engine_enable_thinking_in_extra_body() -> None:
    # Where the OpenAI SDK takes engine-only fields, and where EngineAdapter puts them.
    a = pairs.engine(extra_body={"chat_template_kwargs": {"enable_thinking": False}})
    b = pairs.engine(extra_body={"chat_template_kwargs": {"enable_thinking": True}})
    result = diff(a, b, "engine")
    assert (result.cause, result.invalidated) == ("thinking_changed", True)
    assert result.path == "extra_body.chat_template_kwargs"


def test_engine_reasoning_effort() -> None:
    # gpt-oss on vLLM: the effort is rendered into the system turn by the chat template.
    a, b = pairs.engine(reasoning_effort="low"), pairs.engine(reasoning_effort="high")
    result = diff(a, b, "engine")
    assert (result.cause, result.invalidated, result.path) == (
        "thinking_changed",
        True,
        "reasoning_effort",
    )


# -- cache_salt_changed: vLLM / SGLang per-tenant cache isolation -----------------------------


def test_engine_cache_salt_from_the_adapter() -> None:
    from promptcache import Prompt
    from promptcache.adapters import get_adapter

    prompt = Prompt().add_system(pairs.GUIDE).with_tail("My deploy fails with 502s since noon.")
    adapter = get_adapter("engine")
    a = adapter.to_request(prompt, model="qwen3-8b", cache_salt="tenant-a-7Qm2")
    b = adapter.to_request(prompt, model="qwen3-8b", cache_salt="tenant-b-9Xk4")
    result = diff(a, b, "engine")
    assert (result.cause, result.path, result.invalidated) == (
        "cache_salt_changed",
        "extra_body.cache_salt",
        True,
    )
    assert (result.before, result.after) == ("tenant-a-7Qm2", "tenant-b-9Xk4")
    assert result.tokens_lost and result.tokens_lost > 500  # the salt seeds every block hash


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (pairs.engine(cache_salt="tenant-a"), pairs.engine(cache_salt="tenant-b")),  # raw body
        (pairs.engine(), pairs.engine(extra_body={"cache_salt": "tenant-a"})),  # salt added
    ],
    ids=["top-level", "added"],
)
def test_engine_cache_salt_changed(a: dict[str, Any], b: dict[str, Any]) -> None:
    result = diff(a, b, "engine")
    assert (result.cause, result.layer, result.invalidated) == ("cache_salt_changed", "model", True)


def test_engine_setting_moved_into_extra_body_is_the_same_request() -> None:
    # The SDK merges extra_body into the body: the server sees the same request.
    a = pairs.engine(cache_salt="tenant-a", chat_template_kwargs={"enable_thinking": False})
    b = pairs.engine(
        extra_body={"cache_salt": "tenant-a", "chat_template_kwargs": {"enable_thinking": False}}
    )
    assert diff(a, b, "engine").to_json()["invalidated"] is False


def test_content_divergence_before_table_change_wins() -> None:
    a = pairs.anthropic(tool_choice={"type": "auto"})
    b = pairs.anthropic(
        system=pairs.with_header("Current time: 15:04:21"), tool_choice={"type": "any"}
    )
    assert diff(a, b, "anthropic").cause == "timestamp"


# -- none: what does not invalidate ----------------------------------------------------------


@ALL
def test_sampling_and_limits_do_not_invalidate(shape: str) -> None:
    vendor, build = SHAPES[shape]
    a = build()
    b = dict(
        build(),
        temperature=0.2,
        top_p=0.9,
        max_tokens=10,
        stream=True,
        metadata={"user_id": "u-42"},
        stop_sequences=["END"],
    )
    result = diff(a, b, vendor)
    assert result.to_json() == {
        "invalidated": False,
        "layer": None,
        "cause": "none",
        "path": None,
        "offset": None,
        "before": None,
        "after": None,
        "tokens_lost": 0,
    }


@ALL
def test_next_turn_appends_and_keeps_everything(shape: str) -> None:
    vendor, build = SHAPES[shape]
    a = build()
    b = copy.deepcopy(a)
    key = "contents" if shape == "gemini" else "messages"
    if shape == "gemini":
        b[key] += [
            {"role": "model", "parts": [{"text": "Check /healthz."}]},
            {"role": "user", "parts": [{"text": "It moved to /ready."}]},
        ]
    else:
        b[key] += [
            {"role": "assistant", "content": "Check /healthz."},
            {"role": "user", "content": "It moved to /ready."},
        ]
    assert not diff(a, b, vendor).invalidated


def test_rolling_breakpoint_moves_without_invalidating() -> None:
    a = pairs.anthropic()
    b = copy.deepcopy(a)
    b["messages"][-1]["content"][0].pop("cache_control")
    b["messages"] += [
        {"role": "assistant", "content": "Check /healthz."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "It moved.", "cache_control": {"type": "ephemeral"}}
            ],
        },
    ]
    assert diff(a, b, "anthropic").to_json()["invalidated"] is False


def test_change_after_the_last_breakpoint_is_not_an_invalidation() -> None:
    a = pairs.anthropic()
    a["messages"][-1]["content"][0].pop("cache_control")  # only the system block is marked
    b = copy.deepcopy(a)
    b["messages"][-1]["content"][0]["text"] = "Different question at 2026-06-09 15:04:21"
    result = diff(a, b, "anthropic")
    assert not result.invalidated and result.cause == "none"
    assert result.path == "messages[4].content[0].text"  # still located, for the person reading
    assert "after the last breakpoint" in result.detail


def test_automatic_mode_marks_the_last_block() -> None:
    a = pairs.anthropic(cache_control={"type": "ephemeral"})
    a["system"][0].pop("cache_control")
    a["messages"][-1]["content"][0].pop("cache_control")
    b = copy.deepcopy(a)
    b["messages"][3]["content"] = "edited"
    assert diff(a, b, "anthropic").invalidated
    a.pop("cache_control")
    assert not diff(a, dict(b, cache_control=None), "anthropic").invalidated


def test_mcp_tool_order_stable_negative_control() -> None:
    # qwen-code#4518: the array is captured once; identical requests must not be flagged.
    a, b = pairs.anthropic(), pairs.anthropic()
    assert diff(a, b, "anthropic").cause == "none"


# -- the contract and the errors --------------------------------------------------------------


def test_json_contract_keys_exactly() -> None:
    result = diff(pairs.anthropic(), pairs.anthropic(system="changed"), "anthropic")
    assert list(result.to_json()) == pairs.DIFF_JSON_KEYS


def test_every_cause_is_asserted_by_a_test_here() -> None:
    # The causes this module's assertions expect (string constants inside an `assert` that
    # mentions `cause`), so deleting the last test of a cause fails here.
    import ast
    from pathlib import Path

    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    asserted = {
        node.value
        for statement in ast.walk(tree)
        if isinstance(statement, ast.Assert) and "cause" in ast.unparse(statement.test)
        for node in ast.walk(statement.test)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert set(CAUSES) <= asserted, sorted(set(CAUSES) - asserted)
    # The vocabulary itself is a contract (the JSON output of `promptcache diff`).
    assert CAUSES == (
        "timestamp",
        "random_id",
        "key_order",
        "tools_changed",
        "tool_order",
        "block_order",
        "model_changed",
        "whitespace",
        "unicode_normalization",
        "content_changed",
        "tool_choice_changed",
        "thinking_changed",
        "cache_salt_changed",
        "not_cached",
        "below_minimum",
        "none",
    )


def test_unknown_vendor_names_the_choices() -> None:
    with pytest.raises(
        InputError,
        match=r"unknown vendor 'palm'.*anthropic, openai, openai-responses, gemini, engine",
    ):
        diff({}, {}, "palm")


def test_bad_shape_names_the_path() -> None:
    with pytest.raises(InputError, match="tools: expected a list"):
        diff({"messages": [], "tools": {"a": 1}}, {"messages": []}, "anthropic")


def test_non_utf8_safe_offsets_count_bytes() -> None:
    a = pairs.anthropic(system="Olá, é hora: 2026-06-09 15:04:20\n" + pairs.GUIDE)
    b = pairs.anthropic(system="Olá, é hora: 2026-06-09 15:04:21\n" + pairs.GUIDE)
    result = diff(a, b, "anthropic")
    prefix = "Olá, é hora: 2026-06-09 15:04:2"
    assert result.offset == len(prefix.encode("utf-8")) and result.cause == "timestamp"


def test_openai_responses_shape() -> None:
    a = {
        "model": "gpt-5.6-terra",
        "instructions": pairs.with_header("Time 10:00:01"),
        "input": [{"role": "user", "content": "hi"}],
    }
    b = dict(a, instructions=pairs.with_header("Time 10:00:02"))
    result = diff(a, b, "openai")
    assert (result.path, result.cause, result.layer) == ("instructions", "timestamp", "system")


def test_openai_explicit_mode_only_marked_prefixes_count() -> None:
    a = pairs.openai(prompt_cache_options={"mode": "explicit"})
    a["messages"][0] = {
        "role": "developer",
        "content": [
            {"type": "text", "text": pairs.GUIDE, "prompt_cache_breakpoint": {"mode": "explicit"}}
        ],
    }
    b = copy.deepcopy(a)
    b["messages"][1]["content"] = "Hello there."
    assert not diff(a, b, "openai").invalidated  # after the only breakpoint
    b["messages"][0]["content"][0]["text"] = pairs.GUIDE + " "
    assert diff(a, b, "openai").invalidated


# -- issue 9: no silent answers ---------------------------------------------------------------


def test_without_a_vendor_the_request_shape_decides() -> None:
    # An OpenAI pair whose system prompt gained a timestamp: read as Anthropic (the old default)
    # it had no markers and came out "cache kept".
    a = pairs.openai(system=pairs.with_header("Today is 2026-06-09 15:04:20."))
    b = pairs.openai(system=pairs.with_header("Today is 2026-06-09 15:09:41."))
    result = diff(a, b)
    assert (result.vendor, result.invalidated, result.cause) == ("openai", True, "timestamp")


@pytest.mark.parametrize(
    ("build", "wrong"),
    [(pairs.anthropic, "gemini"), (pairs.gemini, "anthropic"), (pairs.openai_responses, "engine")],
)
def test_a_request_that_does_not_read_as_the_named_vendor_is_an_error(
    build: Callable[[], dict[str, Any]], wrong: str
) -> None:
    with pytest.raises(InputError, match="does not read as"):
        diff(build(), build(), wrong)


def test_no_markers_on_an_explicit_vendor_means_nothing_was_cached() -> None:
    a = pairs.anthropic()
    a["system"][0].pop("cache_control")
    a["messages"][-1]["content"][0].pop("cache_control")
    b = copy.deepcopy(a)
    b["system"][0]["text"] = "Today is 2026-06-09. " + pairs.GUIDE
    result = diff(a, b, "anthropic")
    assert not result.invalidated and result.cause == "not_cached"
    assert "caches only at markers" in result.detail and result.tokens_lost == 0


TAIL_VENDORS = {
    "openai": (pairs.openai, lambda r: r["messages"], "content"),
    "engine": (
        lambda: pairs.engine(extra_body={"cache_salt": "t1"}),
        lambda r: r["messages"],
        "content",
    ),
    "openai-responses": (pairs.openai_responses, lambda r: r["input"], "content"),
    "gemini": (pairs.gemini, lambda r: r["contents"], "parts"),
}


@pytest.mark.parametrize("vendor", sorted(TAIL_VENDORS))
def test_a_change_only_in_the_final_user_turn_loses_nothing_on_automatic_vendors(
    vendor: str,
) -> None:
    build, turns, key = TAIL_VENDORS[vendor]
    a, b = build(), build()
    last = turns(b)[-1]
    text = "What changed since 2026-06-09 15:04:21?"
    last[key] = [{"text": text}] if key == "parts" else text
    result = diff(a, b, vendor, min_tokens=1)  # a short pair: over the minimum, as if longer
    assert not result.invalidated and result.cause == "none" and result.tokens_lost == 0
    assert result.path is not None and result.in_tail  # located, for the person reading
    assert "final user turn" in result.detail


def test_a_change_before_the_final_user_turn_still_counts_on_automatic_vendors() -> None:
    a, b = pairs.openai(), pairs.openai()
    b["messages"][-2]["content"] = "Runbook 4.2 says the health check path moved at 15:04:21."
    assert diff(a, b, "openai").invalidated


def test_the_fix_never_says_move_it_where_it_already_is() -> None:
    from promptcache._commands.diff import render_text

    a = pairs.anthropic()
    b = copy.deepcopy(a)
    b["messages"][-1]["content"][0]["text"] = "Time now: 2026-06-09 15:04:21"
    a["messages"][-1]["content"][0]["text"] = "Time now: 2026-06-09 15:03:02"
    result = diff(a, b, "anthropic")  # the rolling marker sits on the last turn: a real loss
    assert result.cause == "timestamp" and result.in_tail
    text = render_text(result)
    assert "move it to the last user message" not in text
    assert "already in the last user message" in text


def test_sections_of_one_system_string_reordered_are_block_order() -> None:
    joined = "\n\n".join
    a = pairs.openai(system=joined([pairs.PERSONA, pairs.POLICY, pairs.STYLE]))
    b = pairs.openai(system=joined([pairs.POLICY, pairs.PERSONA, pairs.STYLE]))
    result = diff(a, b, "openai")
    assert result.cause == "block_order" and result.invalidated
    assert result.path == "messages[0].content" and "3 sections" in result.detail


def test_an_id_inside_an_earlier_message_is_a_random_id() -> None:
    a, b = pairs.anthropic(), pairs.anthropic()
    a["messages"][0]["content"] = "Hi, I need help with my deployment. [req 7f3a9c21e4b8]"
    b["messages"][0]["content"] = "Hi, I need help with my deployment. [req 0b1d44e9a2c7]"
    result = diff(a, b, "anthropic")
    assert (result.cause, result.path) == ("random_id", "messages[0].content")


def test_a_tool_inserted_mid_list_is_described_as_an_insertion() -> None:
    extra = {"name": "refund_order", "description": "Refund.", "input_schema": {"type": "object"}}
    a = pairs.anthropic()
    b = pairs.anthropic(tools=[pairs.SEARCH, extra, pairs.TICKET, pairs.STATUS])
    result = diff(a, b, "anthropic")
    assert (result.cause, result.path) == ("tools_changed", "tools[1]")
    assert "'refund_order' inserted at tools[1]" in result.detail
    assert "open_ticket" not in result.detail  # not a rename of its neighbour
    removed = diff(b, a, "anthropic")
    assert "'refund_order' removed from tools[1]" in removed.detail


def test_a_unicode_normalisation_only_change_says_so() -> None:
    import unicodedata

    composed = "Café menu, crème brûlée. " + pairs.GUIDE
    a = pairs.anthropic(system=composed)
    b = pairs.anthropic(system=unicodedata.normalize("NFD", composed))
    result = diff(a, b, "anthropic")
    assert result.cause == "unicode_normalization" and result.invalidated
    assert "normalisation" in result.detail


@pytest.mark.parametrize(
    ("shape", "vendor"),
    [(pairs.anthropic_sections, "anthropic"), (pairs.openai, "openai")],
    ids=["blocks", "sections-of-one-string"],
)
def test_a_reorder_detail_names_no_prompt_text(shape: Shape, vendor: str) -> None:
    # The monitor logs `detail` (Invalidation.message()): it may name paths, lengths and
    # hashes, never the prompt's words. The text itself stays in before/after, asked for.
    if shape is pairs.openai:
        a = shape(system="\n\n".join([pairs.PERSONA, pairs.POLICY, pairs.STYLE]))
        b = shape(system="\n\n".join([pairs.POLICY, pairs.PERSONA, pairs.STYLE]))
    else:
        a = shape(pairs.PERSONA, pairs.POLICY, pairs.STYLE)
        b = shape(pairs.POLICY, pairs.PERSONA, pairs.STYLE)
    result = diff(a, b, vendor)
    assert result.cause == "block_order"
    for text in (pairs.PERSONA, pairs.POLICY):
        assert text[:12] not in result.detail
    assert "chars" in result.detail and "sha256" in result.detail
    assert result.before is not None and result.before[:12] == pairs.PERSONA[:12]


def test_two_requests_of_different_formats_are_named_as_such_when_none_was_named() -> None:
    # Without a vendor the error blamed a --vendor the user never passed ("does not read as
    # Anthropic Messages ... leave --vendor out"); it is two formats, and says so.
    with pytest.raises(InputError) as caught:
        diff(pairs.anthropic(), pairs.openai_responses())
    message = str(caught.value)
    assert "request a reads as Anthropic Messages but b as OpenAI Responses" in message
    assert "--vendor" not in message


# -- a request the API would refuse is an error, never an answer (review) --------------------

_HI = {"role": "user", "content": "private-hello-7q"}
_SECRET = "my card is 4111 1111 1111 1111"


@pytest.mark.parametrize(
    ("vendor", "a", "b", "which", "path"),
    [
        ("anthropic", {"messages": [None]}, {"messages": None}, "request a", r"messages\[0\]"),
        (
            "anthropic",
            {"model": "claude-sonnet-4-6", "messages": [_HI]},
            {"model": "claude-sonnet-4-6", "messages": None},
            "request b",
            "messages",
        ),
        (
            "anthropic",
            {"messages": [_HI]},
            {"messages": [_HI, _SECRET]},
            "request b",
            r"messages\[1\]",
        ),
        ("anthropic", {"messages": [_HI, 3]}, {"messages": [_HI]}, "request a", r"messages\[1\]"),
        ("openai", {"messages": [_HI]}, {"messages": None}, "request b", "messages"),
        ("openai", {"messages": [_HI, None]}, {"messages": [_HI]}, "request a", r"messages\[1\]"),
        ("openai", {"input": [_HI]}, {"input": [_HI, None]}, "request b", r"input\[1\]"),
        ("gemini", {"contents": ["hi"]}, {"contents": None}, "request b", "contents"),
        ("gemini", {"contents": ["hi", None]}, {"contents": ["hi"]}, "request a", r"contents\[1\]"),
    ],
)
def test_a_request_the_api_refuses_is_an_error_naming_it(
    vendor: str, a: dict[str, Any], b: dict[str, Any], which: str, path: str
) -> None:
    with pytest.raises(InputError, match=rf"^{which}: {path}") as caught:
        diff(a, b, vendor)
    message = str(caught.value)
    assert "send" in message  # the fix
    assert _SECRET not in message and "private-hello" not in message


# -- a prefix under the model's minimum was never cached (review) ----------------------------


def _marked_system(text: str, model: str = "claude-sonnet-4-5") -> dict[str, Any]:
    return {
        "model": model,
        "max_tokens": 100,
        "system": [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "What changed?"}],
    }


def test_a_marked_prefix_under_the_minimum_is_below_minimum_not_tokens_lost() -> None:
    a = _marked_system("You are a helpful assistant. Today is 2026-11-29.")
    b = _marked_system("You are a helpful assistant. Today is 2026-11-30.")
    result = diff(a, b, "anthropic")
    assert (result.cause, result.invalidated, result.tokens_lost) == ("below_minimum", False, 0)
    assert "1024-token minimum for claude-sonnet-4-5" in result.detail
    # Nothing cached, so nothing kept either: two identical short requests both miss, and
    # "cache kept" would be a confident answer the vendor contradicts.
    same = diff(a, a, "anthropic")
    assert (same.cause, same.invalidated, same.tokens_lost) == ("below_minimum", False, 0)
    assert diff(a, a, "anthropic", min_tokens=1).cause == "none"  # over a minimum: kept


def test_automatic_caching_under_the_minimum_is_below_minimum() -> None:
    a = {"model": "gpt-4o", "messages": [{"role": "system", "content": "Today is 2026-11-29."}]}
    b = {"model": "gpt-4o", "messages": [{"role": "system", "content": "Today is 2026-11-30."}]}
    assert diff(a, b, "openai").cause == "below_minimum"


def test_a_prefix_near_the_minimum_is_uncertain_not_a_guess() -> None:
    prose = "The controller reconciles desired and observed state. " * 72  # ~990 tokens
    a = _marked_system(prose + "Today is 2026-11-29.")
    b = _marked_system(prose + "Today is 2026-11-30.")
    result = diff(a, b, "anthropic")
    assert result.tokens_lost is None and result.invalidated
    assert "uncertain" in result.detail and "1024-token minimum" in result.detail


def test_a_prefix_well_over_the_minimum_counts_its_tokens() -> None:
    prose = "The controller reconciles desired and observed state. " * 200
    result = diff(_marked_system(prose + "29"), _marked_system(prose + "30"), "anthropic")
    assert result.invalidated and result.tokens_lost and result.tokens_lost > 2000
    assert "uncertain" not in result.detail
