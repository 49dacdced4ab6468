"""
OpenAI Responses (`client.responses.create`): the same cache as Chat Completions (automatic
prefix caching; explicit breakpoints on GPT-5.6 and later, with a 12h TTL here too), over
`instructions` + `input` items. Function calls and their outputs are items of their own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from .._errors import InputError
from .._parts import Content, Message, TextPart, ThinkingPart, Tool, ToolResult, ToolUse
from .._usage import CacheDiagnosis, CacheUsage
from ._elements import Span, system_spans
from ._fields import get_field, get_int, require_usage
from ._openai import (
    EXPLICIT,
    item_layers,
    openai_model,
    partition_problems,
    response_model,
    response_signs,
    supports_breakpoints,
    total_problems,
)
from ._openai import RULES as OPENAI_RULES
from ._reading import (
    PromptParts,
    arguments,
    items,
    message,
    openai_content,
    openai_text,
    openai_tool,
    texts,
)
from ._vendor import Vendor

__all__ = ["RULES", "VENDOR", "OpenAIResponsesStream", "read_responses_usage"]

# A 12h request TTL, and no breakpoint on assistant `output_text` (Chat Completions differs).
RULES = replace(
    OPENAI_RULES,
    setting_ttls={"prompt_cache_options.ttl": ("30m", "12h")},
    capabilities=replace(
        EXPLICIT, unmarkable=frozenset({"thinking", "tool_use", "assistant:text"})
    ),
    # Tool search: "For an individual deferred function, the model still sees the function name
    # and description, so in practice tool search is mostly deferring the parameter schema"; a
    # namespace or MCP server shows its name and description (OpenAI's tool search guide).
    unrendered_tool_flag="defer_loading",
    deferred_tool_shown=("type", "name", "description", "server_label", "server_description"),
    # "For namespaces, defer_loading applies to the functions inside the namespace, not to the
    # namespace object itself"; "for a namespace or MCP server, that means the model sees only
    # the namespace or server name and description at first" (the same guide, read 2026-12-01:
    # developers.openai.com/api/docs/guides/tools-tool-search): a deferred member leaves whole.
    tool_groups={"namespace": "tools"},
)

CALL_PATHS: Mapping[tuple[str, ...], str] = {
    ("responses", "create"): "call",
    ("responses", "parse"): "call",
    ("responses", "stream"): "responses-manager",
    ("beta", "responses", "create"): "call",
}


def layers(request: Mapping[str, Any]) -> dict[str, list[Span]]:
    """`instructions` and leading system/developer items are the system layer."""
    instructions = request.get("instructions")
    system = [] if instructions is None else system_spans("instructions", instructions)
    found = item_layers(request, "input", system)
    found["tools"] = [span._replace(items=shown_tools(span.items)) for span in found["tools"]]
    return found


def shown_tools(tools: Sequence[Any]) -> Sequence[Any]:
    """
    The tools as the prefix holds them: of a deferred one, only what tool search shows; of a
    namespace, its own fields and the members not deferred.
    """
    if not any(_defers(t) for t in tools):
        return tools
    return [_shown(t) for t in tools]


def _deferred(tool: Any) -> bool:
    return isinstance(tool, Mapping) and tool.get(RULES.unrendered_tool_flag) is True


def _members(tool: Any) -> Any:
    """A group's members (a namespace's `tools`), or None for a tool that groups none."""
    if not isinstance(tool, Mapping):
        return None
    key = RULES.tool_groups.get(str(tool.get("type")))
    return None if key is None else tool.get(key)


def _defers(tool: Any) -> bool:
    members = _members(tool)
    return _deferred(tool) or (isinstance(members, list) and any(map(_deferred, members)))


def _shown(tool: Any) -> Any:
    if _deferred(tool):
        return {k: tool[k] for k in RULES.deferred_tool_shown if k in tool}
    members = _members(tool)
    if not isinstance(members, list) or not any(map(_deferred, members)):
        return tool
    key = RULES.tool_groups[str(tool["type"])]
    return {**tool, key: [m for m in members if not _deferred(m)]}


def misfit(request: Mapping[str, Any]) -> str | None:
    for key in ("contents", "messages", "system"):
        if key in request:
            return f"a top-level {key!r}"
    if "input" not in request and "instructions" not in request:
        return "neither 'input' nor 'instructions'"
    return None


def signs(request: Mapping[str, Any]) -> int:
    return 1 + ("input" in request) + openai_model(request.get("model"))


# -- request -> prompt ---------------------------------------------------------------------


def read_prompt(request: Mapping[str, Any]) -> PromptParts:
    tools = [
        tool for tool in map(_prompt_tool, shown_tools(items(request, "tools"))) if tool is not None
    ]
    system = [request["instructions"]] if request.get("instructions") else []
    text = request.get("input")
    listed = (
        [{"role": "user", "content": text}] if isinstance(text, str) else items(request, "input")
    )
    messages: list[Message] = []
    for i, item in enumerate(listed):
        path = f"input[{i}]"
        kind = item.get("type", "message")
        if kind == "function_call":
            call = ToolUse(
                id=item.get("call_id", ""),
                name=item["name"],
                input=arguments(item.get("arguments")),
            )
            _join(messages, "assistant", call)
        elif kind == "function_call_output":
            output = item.get("output", "")
            body = output if isinstance(output, str) else openai_text(output, path)
            _join(messages, "user", ToolResult(tool_use_id=item.get("call_id", ""), content=body))
        elif item.get("role") in ("system", "developer") and not messages:
            system.extend(texts(item.get("content"), path))
        else:
            role = "assistant" if item.get("role") == "assistant" else "user"
            messages.append(message(role, openai_content(item, path)))
    return tools, system, messages


def _prompt_tool(tool: Mapping[str, Any]) -> Tool | None:
    """A function, or a namespace as the prefix holds it (its name, description and the members
    not deferred, counted as one block); None for a built-in tool (`unestimated` names those)."""
    if tool.get("type", "function") == "function":
        return openai_tool(tool)
    members = _members(tool)
    if not isinstance(members, list):
        return None
    return Tool(
        name=str(tool.get("name", "")),
        description=str(tool.get("description", "")),
        input_schema={"tools": members},
    )


def _join(messages: list[Message], role: Literal["user", "assistant"], part: Content) -> None:
    """
    Responses sends calls and their outputs as items of their own; they belong to the turn in
    front of them (the assistant's text and its calls, or one user turn of results).
    """
    previous = messages[-1] if messages else None
    calls_or_results = previous is not None and all(
        isinstance(p, (ToolResult if role == "user" else (TextPart, ToolUse, ThinkingPart)))
        for p in previous.content
    )
    if previous is not None and previous.role == role and calls_or_results:
        messages[-1] = Message(role=role, content=(*previous.content, part))
    else:
        messages.append(Message(role=role, content=[part]))


# Built-in tools whose definitions and instructions the server adds to the prompt itself.
_BUILTIN_TOOLS = ("web_search", "file_search", "code_interpreter", "image_generation", "mcp")


def unestimated(request: Mapping[str, Any]) -> list[str]:
    """
    What the server puts before the request's own input that a count of it leaves out: the
    stored conversation a `previous_response_id` or `conversation` continues (often most of the
    prompt), and the built-in tools' own definitions and instructions.
    """
    found = []
    for field in ("previous_response_id", "conversation"):
        if request.get(field):
            found.append(f"the stored context {field} continues, which the server prepends")
    kinds = sorted(
        {
            str(t.get("type"))
            for t in request.get("tools") or ()
            if isinstance(t, Mapping) and str(t.get("type", "")).startswith(_BUILTIN_TOOLS)
        }
    )
    if kinds:
        found.append(f"the context the built-in tools add ({', '.join(kinds)})")
    return found


# -- usage ---------------------------------------------------------------------------------

_FINAL_EVENTS = ("response.completed", "response.incomplete", "response.failed")


def read_responses_usage(response: Any, *, endpoint: str = "responses") -> CacheUsage:
    usage = get_field(response, "usage")
    if usage is None and get_field(response, "input_tokens") is not None:
        usage, response = response, None
    require_usage(usage, "input_tokens", "Response (streamed: the response.completed event's)")
    details = get_field(usage, "input_tokens_details")
    input_tokens = get_int(usage, "input_tokens") or 0
    read = get_int(details, "cached_tokens")
    write = get_int(details, "cache_write_tokens")
    split = get_field(details, "cache_write_tokens_details")
    by_ttl = {
        k: v
        for k, v in (
            ("30m", get_int(split, "ttl_30m_tokens")),
            ("12h", get_int(split, "ttl_12h_tokens")),
        )
        if v
    }
    reported = details is not None
    output = get_int(usage, "output_tokens")  # None: not reported (stripped), not 0
    problems = partition_problems("input_tokens", input_tokens, read, write)
    problems += total_problems(usage, input_tokens, output)
    if by_ttl and sum(by_ttl.values()) != (write or 0):
        problems.append(
            f"cache_write_tokens_details sums to {sum(by_ttl.values())}, but cache_write_tokens "
            f"is {write or 0}"
        )
    return CacheUsage(
        uncached_input=max(input_tokens - (read or 0) - (write or 0), 0),
        cache_read=(read or 0) if reported else None,
        cache_write=(write or 0) if reported else None,
        output=output,
        cache_write_by_ttl=by_ttl,
        vendor="openai",
        endpoint=endpoint,
        model=response_model(response),
        problems=tuple(problems),
        diagnosis=_diagnosis(response),
        passes=1 + _builtin_tool_calls(response),
    )


# Output items of the built-in tools the server runs itself inside one response; each call is
# another model pass over the prompt, billed in the same usage.
_BUILTIN_CALLS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
    }
)


def _builtin_tool_calls(response: Any) -> int:
    output = get_field(response, "output")
    if not isinstance(output, (list, tuple)):
        return 0
    return sum(get_field(item, "type") in _BUILTIN_CALLS for item in output)


def _diagnosis(response: Any) -> CacheDiagnosis | None:
    found = get_field(response, "prompt_cache_diagnostics")
    if found is None:
        return None
    kind = get_field(found, "type")
    raw = found if isinstance(found, Mapping) else found.model_dump()
    return CacheDiagnosis(
        reason=get_field(found, "reason") if kind == "cache_miss" else kind,
        missed_tokens=get_int(found, "cache_missed_tokens"),
        reusable_tokens=get_int(found, "comparison_reusable_tokens"),
        raw=dict(raw),
    )


class OpenAIResponsesStream:
    """Reads the usage of `response.completed` (or `.incomplete` / `.failed`)."""

    def __init__(self) -> None:
        self._response: Any = None

    def feed(self, event: Any) -> None:
        if get_field(event, "type") in _FINAL_EVENTS:
            self._response = get_field(event, "response")

    @property
    def usage(self) -> CacheUsage:
        if self._response is None or get_field(self._response, "usage") is None:
            raise InputError(
                "the stream ended without a response.completed event carrying usage; read the "
                "stream to the end"
            )
        return read_responses_usage(self._response, endpoint="responses.stream")


VENDOR = Vendor(
    name="openai-responses",
    title="OpenAI Responses",
    aliases=("responses", "openai-response"),
    rules=RULES,
    layers=layers,
    read_prompt=read_prompt,
    read_usage=read_responses_usage,
    misfit=misfit,
    signs=signs,
    response_signs=lambda response: response_signs(response, "response", "input_tokens_details"),
    call_paths=CALL_PATHS,
    sdk="openai",
    supports_breakpoints=supports_breakpoints,
    unestimated=unestimated,
)
