"""
A volatile call or filter renders in the cacheable prefix.

Why:
    `now()`, `uuid4()`, `random` and friends give a different value on every render. Everything
    after that value differs from the previous request, so the provider's prefix cache never
    matches it: the static text that follows is paid for in full every time. Render the value at
    the end of the template, or below the `{# promptcache: tail #}` marker.

Bad:
    You are a support agent. Current time: {{ now() }}.
    {{ policy_manual }}  {# thousands of static tokens, never cached #}

Good:
    You are a support agent.
    {{ policy_manual }}
    {# promptcache: tail #}
    Current time: {{ now() }}.
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC101",
    name="volatile-call",
    severity="warning",
    fix="render it at the end of the template or below `{# promptcache: tail #}`",
)

DEFAULT_VOLATILE_CALLS = (
    "now",
    "*.now",
    "utcnow",
    "*.utcnow",
    "today",
    "*.today",
    "time",
    "time.*",
    "datetime.*",
    "strftime_now",
    "uuid*",
    "*.uuid*",
    "random*",
    "*.random*",
    "secrets.*",
    "*.urandom",
    "*.token_hex",
    "*.token_urlsafe",
)
DEFAULT_VOLATILE_FILTERS = ("random", "shuffle")

# Stable variables whose names say they hold a short scalar: after a volatile value they add a
# few tokens, not content of unknown size (`Timezone: {{ timezone }}` in the last lines of a
# runtime block). Any other stable variable may be large, so it still counts as unknown;
# `sizes` in the config declares the size of a name this list does not cover. A language, also
# qualified (`language_code`, `target_language`, `ui_locale`), is a short name or code, one of
# the few a deployment answers in: a setting, never a variable of unknown meaning (PC106).
SHORT_VALUE_NAMES = (
    "*_name",
    "language",
    "lang",
    "locale",
    "*_language",
    "*_lang",
    "*_locale",
    "language_code",
    "lang_code",
    "locale_code",
    "timezone",
    "tz",
    "version",
    "*_version",
    "model",
    "platform",
)
SHORT_VALUE_TOKENS = 4
