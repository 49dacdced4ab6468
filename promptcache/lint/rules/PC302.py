"""
A chat template renders earlier turns differently from turn to turn.

Why:
    Inside the loop over `messages`, anything that depends on where a message sits -
    `loop.last`, `loop.revindex`, `messages[-1]`, "is this the latest user message"
    (Mistral attaches the tools list to it), the index of the last user query, a look-ahead -
    renders a message one way while it is the newest turn and another way once a new turn
    follows; so does stripping the reasoning (`split('</think>')`, Gemma's `<channel|>`, in the
    loop or in a macro it calls) or emptying it for earlier turns. The engine's prefix cache
    then diverges at that message on every turn, and the whole history after it is prefilled
    again. A test on `add_generation_prompt` (the generation
    prompt) and `loop.last or messages[loop.index0 + 1]...` (the end of a run of tool
    messages) are stable and not reported; so is a `loop.last` branch of static text after
    which nothing renders in the turn (only `set`s, or `if`s a flag set on the way rules
    out), nor is a split that takes the reasoning out of the
    content only to write it back between its markers for every turn, or one after a generation
    prompt that always closes the think block (the model wrote no reasoning). A guard that only
    calls `raise_exception(...)` writes nothing; an end token (`eos_token`) written only when
    another message follows is a separator, like static text. A position test that a
    flag on by default overrides (`keep or loop.index0 > ns.last_query_index`, with `keep`
    defaulting to true: Qwen3.6's `preserve_thinking`, also spelt `x is undefined or x`, or a
    namespace switch that only the caller or a marker in a message turns off; also when the
    flag keeps the reasoning of every turn that has some, `reasoning|length > 0`) is an info
    note (PC002), not this. A branch whose sides all do the same decides nothing and is not
    reported; an `if`/`elif` chain whose branches do the same is one test, the `or` of its tests.

    A branch that writes the system message, the tools or the documents into the newest turn
    only (Mistral's `loop.last and system_message is defined`, `[AVAILABLE_TOOLS]` before the
    last user message, a second system message at the last user index; also written as
    `system_message if loop.last else ''` or set in such a branch), or a fixed instruction
    after the final user message, moves that content on to the new last turn on
    every request: however long it is, it is never read from the cache. The finding names what
    moves (by name: `system_message`, `system_prompt`, `tools`, `functions`, `documents`; by
    marker: `[AVAILABLE_TOOLS]`, `<tools>`; a flag such as `use_documents` is not the content)
    and says where it belongs: once before the loop (the system turn), or only in the first
    user turn (`loop.first`), where it renders the same on every request.

Bad:
    {%- for message in messages %}
    {%- if message.role == "assistant" and not loop.last %}
    {{- message.content.split("</think>")[-1] }}
    {%- else %}{{- message.content }}{%- endif %}
    {%- endfor %}

Good:
    {%- for message in messages %}
    {{- message.content }}
    {%- endfor %}
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC302",
    name="chat-history-rerender",
    severity="warning",
    fix="render every earlier turn the same way, whatever its position",
)

POSITION_ATTRS = frozenset({"last", "first", "index", "index0", "revindex", "revindex0", "length"})
REASONING_WORDS = ("think", "reasoning")
# Delimiters of the reasoning in a message's text: DeepSeek/Qwen `<think>...</think>`, Gemma's
# `<|channel>...<channel|>`, gpt-oss's `<|channel|>`. Splitting on one drops the reasoning.
REASONING_MARKS = ("think>", "<|channel>", "<channel|>", "<|channel|>")
# What a template may write into the newest turn only (Mistral's `loop.last and system_message`,
# `[AVAILABLE_TOOLS]` before the last user message, Jamba's documents): named in the finding,
# which then says where it belongs. Flags about them (`tools_in_user_message`) are not them.
MOVING_SYSTEM_NAMES = (
    "system",
    "system_message",
    "system_prompt",
    "system_content",
    "system_text",
    "default_system_*",
    "sys_prompt",
    "sys_message",
    "sys_msg",
    "*preamble",
)
MOVING_TOOL_NAMES = (
    "tools",
    "custom_tools",
    "available_tools",
    "tool_definitions",
    "tool_list",
    "tools_json",
    "functions",
)
MOVING_TOOL_MARKS = ("[AVAILABLE_TOOLS]", "<tools>", "<|tool_list_start|>", "<tool_definitions>")
MOVING_DOCUMENT_NAMES = ("documents", "docs", "*_documents")
MOVING_FLAG_PREFIXES = ("use_", "has_", "is_", "add_", "enable_", "with_", "num_")
