"""
A variable of unknown meaning renders above a long static block.

Why:
    A name that is neither a known per-request value nor declared `stable` (`{{ persona }}`,
    `{{ system_resources }}`, a loop over `variables.items()`, the `{field}` of a prompt file
    written for `str.format`) may be the same on every request,
    or it may change per user, per agent or per request. Above a long static block (ten times
    `threshold`: 1000 estimated tokens by default, about the smallest prompt OpenAI and
    Anthropic's larger models cache, so a prefix worth caching on its own) a value that changes
    costs all of that text on every request. The linter cannot tell which it is, so it asks:
    declare the name `stable` (or give its size with `sizes`) when it is the same for every
    request, or move it below the static text. Shorter blocks after it are not reported, nor is
    static text that only adds up to that size between other values (a persona config whose
    fields run through the whole prompt): one uninterrupted block must follow it. In a user
    turn, where a variable is the request's own data, one block of `threshold` tokens is enough;
    in a system prompt, which the whole conversation follows, a block of five times `threshold`
    (500 tokens) is. A `{field}` on a line of its own in a prompt file written for `str.format`
    is a section of data the call that sends the text fills, mostly the request's own: a block
    of three times `threshold` (300 tokens) after it is enough. A tool list (`tools`,
    `available_tools`, `functions`), a date the deployment fixes (`knowledge_cutoff_date`,
    `model_release_date`), a count (`{max_length}`) and a language (`language_code`,
    `target_language`: one of the few a deployment answers in) are never of unknown meaning.

Bad:
    {{ system_resources }}
    Stay in character: speak softly, tease a little, never lecture the user, and keep replies short.

Good:
    Stay in character: speak softly, tease a little, never lecture the user, and keep replies short.
    {# promptcache: tail #}
    {{ system_resources }}
"""

from __future__ import annotations

import re

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC106",
    name="unknown-variable-above-long-prefix",
    severity="warning",
    fix=(
        "declare it in `stable` in [tool.promptcache.lint] if it is the same on every request, "
        "else render it at the end of the template or below `{# promptcache: tail #}`"
    ),
)

# How many times `threshold` of static text must follow a name of unknown meaning: 1000 tokens at
# the default threshold, about the smallest prompt OpenAI and Anthropic's larger models cache.
LONG_PREFIX_FACTOR = 10
# In a system prompt the conversation follows the static block too, so a value that changes
# costs the block and every turn after it: half the block is enough to report it.
SYSTEM_PROMPT_FACTOR = 5

# A `{field}` on a line of its own in a prompt file written for `str.format` is a section of data
# that the very call sending the text fills (`.format(...)`, a LangChain `PromptTemplate`), mostly
# with that request's own, where a Jinja variable of a system prompt is as often configuration
# and a field inside a sentence a setting (`Answer in a {tone} tone.`): a block of three times
# `threshold` (about a dozen lines) is enough, in a user turn one of `threshold` still is.
FORMAT_FIELD_FACTOR = 3

# A tool list (`tools`, `available_tools`, `toolset.schema`, `functions`) is what a deployment gives the model,
# the most stable part of a prompt, never a value of unknown meaning; a count of the tools
# (`max_tools`, `tool_count`) is a setting, not the list.
_TOOL_WORDS = frozenset({"tool", "tools", "toolset", "toolbox", "functions"})
_COUNT_WORDS = frozenset({"max", "min", "num", "count", "number", "limit", "budget", "n"})


def is_tool_list(name: str) -> bool:
    """Whether a name is the tools (`available_tools`, `tools.schema`), not a count of them."""
    words = _words(name)
    return not words.isdisjoint(_TOOL_WORDS) and words.isdisjoint(_COUNT_WORDS)


def is_count(name: str) -> bool:
    """Whether a name holds a count or a limit (`max_length`, `maxPages`): a setting."""
    return not _words(name).isdisjoint(_COUNT_WORDS)


_WORD_BREAK = re.compile(r"[._]|(?<=[a-z0-9])(?=[A-Z])")  # `max_pages`, `tools.schema`, `maxPages`


def _words(name: str) -> set[str]:
    return {word.lower() for word in _WORD_BREAK.split(name)}
