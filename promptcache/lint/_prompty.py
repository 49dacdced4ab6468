"""
The inputs a `.prompty` file declares: its front matter's `inputs:` are the values of each call.

A prompty file (Azure AI Foundry, promptflow) starts with a YAML front matter between `---` lines;
its `inputs:` block names the values the caller passes every time the prompt runs (the question,
the chat history, retrieved documents), usually with a `sample:` value each. Those names are
per-request, whatever they are called. A file without `inputs:` often names them only in its
`sample:` block, with an example value written inline: those count too (a sample read from a
file, `${file:tags.json}`, may be fixed data, such as a tag list, and is left out). Read with a
small indentation scan, so that linting needs no YAML library: only the names directly under
those keys are taken. A declared input whose name says it is the prompt's own fixed text (the
house instructions, an example, the rules, a language: `soap_instructions`, `note_example`,
`language`) is passed on every call too, but the same on each: it is not taken as per-request.
"""

from __future__ import annotations

import re

__all__ = ["PROMPTY_SUFFIX", "declared_inputs"]

PROMPTY_SUFFIX = ".prompty"
_FENCE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)
_KEY = re.compile(r"^(?P<indent>[ \t]*)(?P<key>[A-Za-z_][\w-]*)[ \t]*:(?P<value>.*)$")
_BLOCKS = ("inputs", "sample")
_REFERENCE = "${"  # `${file:...}`, `${env:...}`: a value read from elsewhere


# The words of a name that say it holds the prompt's own fixed text, not a call's data.
_FIXED_TEXT_WORDS = frozenset(
    {"instruction", "instructions", "example", "examples", "template", "rule", "rules"}
    | {"guideline", "guidelines", "policy", "policies", "format", "style", "tone", "persona"}
    | {"language", "lang", "locale"}
)
_NAME_WORD = re.compile(r"[A-Za-z][a-z0-9]*")


def declared_inputs(source: str) -> tuple[str, ...]:
    """The names under the front matter's top-level `inputs:` key, else its inline `sample:`s,
    but those that name the prompt's own fixed text (`names_fixed_text`)."""
    front = _front_matter(source)
    if front is None:
        return ()
    found = _names_under(front)
    return tuple(n for n in found["inputs"] or found["sample"] if not names_fixed_text(n))


def names_fixed_text(name: str) -> bool:
    """Whether an input's name says it is the prompt's own fixed text (`soap_instructions`,
    `noteExample`, `language`): the same on every call, whatever the caller passes."""
    words = {w.lower() for w in _NAME_WORD.findall(name)}
    return not words.isdisjoint(_FIXED_TEXT_WORDS)


def _names_under(front: str) -> dict[str, list[str]]:
    names: dict[str, list[str]] = {block: [] for block in _BLOCKS}
    block, child_indent = "", -1
    for line in front.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY.match(line.rstrip("\r"))
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            block = (
                match.group("key") if match is not None and match.group("key") in _BLOCKS else ""
            )
            child_indent = -1
            continue
        if not block or match is None:
            continue
        if child_indent < 0:
            child_indent = indent
        if indent != child_indent:
            continue
        if block == "sample" and match.group("value").strip().startswith(_REFERENCE):
            continue
        names[block].append(match.group("key"))
    return names


def _front_matter(source: str) -> str | None:
    """The text between a leading `---` line and the next one, or None without one."""
    fences = list(_FENCE.finditer(source, 0, len(source)))
    if len(fences) < 2 or source[: fences[0].start()].strip():
        return None
    return source[fences[0].end() : fences[1].start()]
