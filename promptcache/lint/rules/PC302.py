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
    content only to write it back between its markers for every turn. A position test that a
    flag on by default overrides (`keep or loop.index0 > ns.last_query_index`, with `keep`
    defaulting to true: Qwen3.6's `preserve_thinking`) is an info note (PC002), not this.

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
