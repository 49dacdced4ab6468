"""
A chat template injects the current date or time.

Why:
    Chat templates of self-hosted models (a `chat_template` in tokenizer_config.json, or a
    `.jinja` file) often render `strftime_now(...)` into the system turn. The date changes at
    midnight (the time, every request), and the engine's prefix cache (vLLM, SGLang, llama.cpp)
    then recomputes the whole conversation. Pass the date in the newest user turn, or pin
    `date_string` in the request.

Bad:
    {{- "Today Date: " + strftime_now("%d %b %Y") + "\n\n" }}
    {%- for message in messages %}{{ message.content }}{% endfor %}

Good:
    {%- for message in messages %}{{ message.content }}{% endfor %}
    {%- if add_generation_prompt %}{{ "Today Date: " + strftime_now("%d %b %Y") }}{% endif %}
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC301",
    name="chat-date-injection",
    severity="warning",
    fix="pass the date in the newest user message, or pin `date_string` in the request",
)

CHAT_DATE_NAMES = ("date_string", "current_date*", "current_time*", "today*", "now")
