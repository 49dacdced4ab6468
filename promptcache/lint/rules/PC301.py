"""
A chat template injects the current date or time.

Why:
    Chat templates of self-hosted models (a `chat_template` in tokenizer_config.json, or a
    `.jinja` file) often render `strftime_now(...)`, `date_string` or a `datetime` variable into
    the system turn. The date changes at midnight (the time, every request), and the engine's
    prefix cache (vLLM, SGLang, llama.cpp) then recomputes the whole conversation. The fix
    depends on the template: a variable it reads when defined (`date_string`) can be pinned in
    the request; a `strftime_now()` it calls itself cannot, so the date must move after the
    conversation (or into the newest user turn). A date variable whose only fallback is a
    fixed date (`date_string if date_string is defined else '26 Jul 2024'`) renders the same
    on every request unless the caller passes one: that is an info note (PC002), not this.
    A field of a message that says it holds today's date (`system_message.current_date`,
    MiniMax-M2's) is the date too, as is the content of a message picked by a role that says
    so (`selectattr('role', 'equalto', 'meta-current_date')`); a message's own `sent_date` or
    `timestamp` is not.

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
    fix="pass the date in the newest user message, or render it after the conversation",
)

CHAT_DATE_NAMES = (
    "date_string",
    "current_date*",
    "current_time*",
    "today*",
    "now",
    "date",
    "time",
    "datetime",
    "*_date",
    "*_time",
    "*_datetime",
)
# Fields of a request object that say they hold the date of now (`system_message.current_date`),
# whatever holds them; a message's own `date` or `timestamp` is fixed once it is written.
CURRENT_DATE_FIELDS = ("date_string", "current_date*", "current_time*", "today*", "now")


def date_fix(*, pin: str = "", variable: str = "", call: str = "") -> str:
    """
    The fix that fits the template: which applies depends on how it gets the value.

    `pin`: the template reads a variable the request can set (it tests `is defined` first);
    `variable`: the date is a template variable the caller passes; `call`: the template calls
    `strftime_now()` (or another volatile function) itself, so no request field can pin it.
    """
    if pin:
        return (
            f'pin `{pin}` in the request (e.g. `chat_template_kwargs={{"{pin}": '
            f'"26 Jul 2024"}}`) so it changes once a day at most, or {RULE.fix}'
        )
    if variable:
        return (
            f"pass `{variable}` with a value that changes once a day at most (the date, not "
            f"the time), or {RULE.fix}"
        )
    if call:
        return f"the template calls `{call}()` itself, so no request field can pin it; {RULE.fix}"
    return RULE.fix
