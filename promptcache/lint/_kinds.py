"""
What kind of template a file holds: a chat template, a prompt, or something that is not a prompt.

Chat templates are recognised by their structure (a loop over `messages` that tests roles or
writes special tokens), not only by `add_generation_prompt` or the file name: Mistral-family
and function-calling templates never mention `add_generation_prompt`.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["handlebars", "looks_like_chat", "not_a_prompt"]

_MESSAGES_LOOP = re.compile(r"\{%-?\s*for\s+\w+(?:\s*,\s*\w+)?\s+in\s+[\w.]*messages\b")
_CHAT_MARKS = re.compile(
    r"\brole\b|<\|[\w.-]+\|>|\[/?INST\]|\bbos_token\b|\beos_token\b|<start_of_turn>|<｜"
)
_HANDLEBARS = re.compile(r"\{\{[#/^>]\s*[\w@]|\{\{\s*else\s*\}\}")
_HTML_OPENERS = ("<!doctype html", "<html", "<head", "<body")
_LEADING_TAGS = 20  # Jinja tags and comments skipped before the first markup
_EXTENDS_HTML = re.compile(r"\{%-?\s*extends\s+[\"'][^\"']+\.html?[\"']", re.IGNORECASE)
# A template named `name.<ext>.j2` generates a file of that type: code or configuration.
_GENERATED = frozenset(
    {
        ".c", ".cfg", ".conf", ".cpp", ".cs", ".css", ".env", ".go", ".h", ".htm", ".html",
        ".ini", ".java", ".js", ".json", ".jsx", ".kt", ".php", ".properties", ".py", ".rb",
        ".repo", ".rs", ".service", ".sh", ".sql", ".swift", ".tf", ".toml", ".ts", ".tsx",
        ".xml", ".yaml", ".yml",
    }
)  # fmt: skip


def looks_like_chat(source: str, path: str) -> bool:
    """A chat template: by name, by `add_generation_prompt`, or by a loop over the messages."""
    if "chat_template" in Path(path).name.lower():
        return True
    if "messages" not in source:
        return False
    if "add_generation_prompt" in source:
        return True
    return _MESSAGES_LOOP.search(source) is not None and _CHAT_MARKS.search(source) is not None


def handlebars(source: str) -> bool:
    """Handlebars syntax (`{{#if}}`, `{{/if}}`, `{{> partial}}`): a dotprompt file, not Jinja."""
    return _HANDLEBARS.search(source) is not None


def not_a_prompt(path: Path, source: str) -> str | None:
    """Why a file found in a folder is not a prompt template (None when it may be one)."""
    suffixes = [s.lower() for s in path.suffixes]
    if len(suffixes) >= 2 and suffixes[-2] in _GENERATED:
        return f"it generates a `{suffixes[-2]}` file, not a prompt"
    head = source[:4096]
    if _starts_with_markup(head) or _EXTENDS_HTML.search(head):
        return "it is an HTML page, not a prompt"
    return None


def _starts_with_markup(head: str) -> bool:
    """Whether the text starts with `<!DOCTYPE html>`, `<html>`, ... after leading Jinja tags."""
    text = head.lstrip()
    for _ in range(_LEADING_TAGS):
        closer = {"{#": "#}", "{%": "%}"}.get(text[:2])
        if closer is None:
            break
        end = text.find(closer, 2)
        if end < 0:
            return False
        text = text[end + 2 :].lstrip()
    return text[:16].lower().startswith(_HTML_OPENERS)
