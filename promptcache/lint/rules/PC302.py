"""
A chat template renders earlier turns differently from turn to turn.

Why:
    When a template drops or empties the reasoning (`<think>`) of a message depending on its
    position (`loop.last`, the index of the last user query) or strips it with
    `split('</think>')`, the same assistant message renders one way while it is the newest turn
    and another way once a new turn follows. The engine's prefix cache then diverges at that
    message on every turn, and the whole history after it is prefilled again.

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
