"""
What kind of template a file holds: a chat template, a prompt, or something that is not a prompt.

Chat templates are recognised by their structure (a loop over `messages` that tests roles or
writes special tokens), not only by `add_generation_prompt` or the file name: Mistral-family
and function-calling templates never mention `add_generation_prompt`.

A prompt file is a system prompt, a user turn, or of a kind its name and text do not tell. A
system prompt opens every request, so the conversation follows it; a user turn is the newest
message, where per-request values belong, so only a real block of instructions after one of
them is worth moving. The kind is read from the file name (`system.j2`, `user_prompt.jinja2`,
`human.j2`), else from how the text opens: "You are ...", "Act as ..." address the model, as
a system prompt does. A prompt that writes the model's turn delimiters itself (`[INST]`,
`<|im_start|>`) is the whole raw prompt of one request, followed by no conversation, as is one
that writes the history itself (`{{ chat_history }}`, a loop over the messages). One that holds the
assistant's reply (`{{ assistant_response }}`) is about a finished exchange, sent alone: it is read
as a user turn, the one message of its request, whatever its name.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from .rules.PC102 import SYSTEM_TEMPLATE_NAME

__all__ = [
    "USERS_QUESTION_NAMES",
    "PromptKind",
    "follows_conversation",
    "handlebars",
    "holds_the_newest_turn",
    "looks_like_chat",
    "not_a_prompt",
    "prompt_kind",
]

_MESSAGES_LOOP = re.compile(r"\{%-?\s*for\s+\w+(?:\s*,\s*\w+)?\s+in\s+[\w.]*messages\b")
# A chat template's marks: the special tokens of its turns, or the roles of the messages. A file
# named as a system prompt or a user turn that only writes the roles (`{{ m.role }}: ...`) is a
# prompt that quotes the conversation as text, not a chat template.
_TOKEN_MARKS = re.compile(
    r"<\|[\w.-]+\|>|\[/?INST\]|\bbos_token\b|\beos_token\b|<start_of_turn>|<｜"
)
_ROLE_MARK = re.compile(r"\brole\b")
PromptKind = Literal["system", "user", "other"]
_SYSTEM_NAME = re.compile(SYSTEM_TEMPLATE_NAME)
_USER_NAME = re.compile(r"(?i)(?:^|[_.\-])(?:user|human)(?:$|[_.\-])")
# How a system prompt opens: it speaks to the model about its role.
# "You are given ...", "You are tasked with ..." introduce a one-off task and its inputs (an
# evaluation or a summary), not a role.
_ADDRESSES_THE_MODEL = re.compile(
    r"(?i)^[\W_]*(?:(?:you are|you're)(?!\s+(?:given|provided|shown|presented|asked|tasked|about to))"
    r"|you will act|you will be acting|act as|i want you to act|your role is|your name is)\b"
)
# A prompt that writes the model's turn delimiters itself is the whole raw prompt of one request:
# what follows it is the model's answer, never a conversation.
_TURN_DELIMITERS = re.compile(
    r"\[/?INST\]|<\|im_start\|>|<\|start_header_id\|>|<start_of_turn>|<\|(?:user|assistant)\|>"
    r"|^\s*<s>"
)
# The role lines of a prompt that holds several messages (promptflow, `.prompty`): its text is
# not one system prompt, whatever it opens with.
_ROLE_LINES = re.compile(r"(?im)^[ \t#]*(?:user|assistant|human)[ \t]*:[ \t]*$")
_ROLES = ("user", "assistant", "human")
_DELIMITER_MARKS = ("INST]", "<|", "<start_of_turn>", "<s>")
_TAG_OR_COMMENT = re.compile(r"\{%.*?%\}|\{#.*?#\}", re.DOTALL)
_OPENING_LINES = 3  # lines of text read for how a prompt opens
# Text that places the template after the conversation: "the messages above", "the conversation
# so far", "the chat history above".
_AFTER_THE_CONVERSATION = re.compile(
    r"(?i)\b(?:conversation|messages|chat|chat history|dialogue|dialog|discussion)\s+"
    r"(?:above|so far)\b|\babove\s+(?:conversation|messages|chat|dialogue|dialog)\b"
)
# The user's own question or message written into the prompt: the newest turn of the request.
USERS_QUESTION_NAMES = frozenset(
    {"question", "query", "user_query", "user_question", "user_input", "user_message"}
    | {"user_request", "input"}
)
_USERS_QUESTION = re.compile(
    r"\{\{-?\s*(?:[A-Za-z_]\w*\.)*(?:" + "|".join(sorted(USERS_QUESTION_NAMES)) + r")\s*(?:\}|\||-)"
)
# The answer an evaluation prompt grades (`answer`, `model_answer`, `prediction`): a grader opens
# "You are an expert evaluator ..." and holds the answer it scores, so it is one request, as a
# prompt holding the user's question is (`*_answer` also takes a reference answer, `gold_answer`:
# a prompt holding one is an evaluation too).
_GRADED_ANSWER = re.compile(
    r"\{\{-?\s*(?:[A-Za-z_]\w*\.)*(?:answer|answers|\w+_answer|predictions?|completion"
    r"|model_output|model_response)\s*(?:\}|\||-)"
)
# ... but only in a text that grades it: a riddle host's secret `answer` or a canned
# `fallback_answer` sits in a system prompt that a conversation follows.
_GRADES = re.compile(
    r"(?i)\b(?:grad(?:e|es|ed|ing|er)|evaluat\w*|judg\w*|assess\w*|scor(?:e|es|ing))\b"
)
# A prompt that writes the conversation itself (`{{ chat_history }}`, a loop over the messages):
# it holds the history rather than opening it, so no conversation follows it.
_HOLDS_THE_HISTORY = re.compile(
    r"\{\{-?\s*(?:[A-Za-z_]\w*\.)*(?:(?:chat_|conversation_|message_)?history|messages)\s*[}|-]"
    r"|\{%-?\s*for\s+\w+(?:\s*,\s*\w+)?\s+in\s+(?:[\w.]*messages"
    r"|(?:[A-Za-z_]\w*\.)*(?:chat_|conversation_)?history)\b"
)
# The assistant's reply written into the prompt (`{{ assistant_response }}`, `bot_message`): it
# exists only once the request it answers is done, so a prompt holding it is about a finished
# turn (a summariser's, a note keeper's), sent alone, not the system prompt a conversation follows.
# Not the `model_answer` an evaluation grades: a grader named as a system prompt stays one.
_HOLDS_THE_REPLY = re.compile(
    r"\{\{-?\s*(?:[A-Za-z_]\w*\.)*(?:assistant|ai|bot|llm)_(?:response|reply|message|output)s?"
    r"\s*[}|-]"
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
    if _MESSAGES_LOOP.search(source) is None:
        return False
    if _TOKEN_MARKS.search(source) is not None:
        return True
    return _ROLE_MARK.search(source) is not None and not _named_as_a_prompt(path)


def _named_as_a_prompt(path: str) -> bool:
    """A file named as a system prompt or a user turn (`system.j2`, `judge_user.jinja`)."""
    stem = Path(path.replace("\\", "/")).name.split(".", 1)[0]
    return _SYSTEM_NAME.search(stem) is not None or _USER_NAME.search(stem) is not None


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


def prompt_kind(source: str, path: str) -> PromptKind:
    """A prompt file's kind: by its name, else by how its text opens (see the module's doc)."""
    kind = _named_or_opening_kind(source, path)
    if _HOLDS_THE_REPLY.search(source) is not None and not _writes_its_own_turns(source):
        # about a finished exchange, sent alone: the one message of its request, whose other
        # variables are that request's own data, as a user turn's are
        return "user"
    if kind == "system" and _HOLDS_THE_HISTORY.search(source) is not None:
        return "other"  # it carries the conversation instead of opening it
    return kind


def _named_or_opening_kind(source: str, path: str) -> PromptKind:
    if _writes_its_own_turns(source):
        return "other"
    stem = Path(path.replace("\\", "/")).name.split(".", 1)[0]
    if _SYSTEM_NAME.search(stem):
        return "system"
    if _USER_NAME.search(stem):
        return "user"
    opening = [line for line in _TAG_OR_COMMENT.sub("", source[:4096]).splitlines() if line.strip()]
    if any(_ADDRESSES_THE_MODEL.search(line) for line in opening[:_OPENING_LINES]):
        # a role given to the model, but the user's question (or the answer it grades) in the
        # same text: one request
        one_request = _USERS_QUESTION.search(source) or _grades_an_answer(source)
        return "other" if one_request else "system"
    return "other"


def holds_the_newest_turn(source: str, kind: PromptKind) -> bool:
    """
    A prompt of no declared kind (`kind`, from `prompt_kind`) that holds the user's question or
    the answer it grades: the newest turn's content is in it, so it is the whole of one request,
    as a user turn is the newest message (a file named as a system prompt stays one).
    """
    if kind != "other":
        return False
    return bool(_USERS_QUESTION.search(source) or _grades_an_answer(source))


def _grades_an_answer(source: str) -> bool:
    """Whether the prompt holds an answer (`{{ answer }}`, `model_answer`) and says it grades."""
    return _GRADED_ANSWER.search(source) is not None and _GRADES.search(source) is not None


def follows_conversation(source: str) -> bool:
    """Whether the template's text says it comes after the conversation ("the messages above")."""
    lowered = source.lower()
    if "above" not in lowered and "so far" not in lowered:  # the usual case, without a regex
        return False
    return _AFTER_THE_CONVERSATION.search(_TAG_OR_COMMENT.sub(" ", source)) is not None


def _writes_its_own_turns(source: str) -> bool:
    """Turn delimiters or role lines (see `_TURN_DELIMITERS`, `_ROLE_LINES`); each regex runs
    only when a plain substring it needs is there."""
    lowered = source.lower()
    if any(mark in source for mark in _DELIMITER_MARKS) and _TURN_DELIMITERS.search(source):
        return True
    return any(f"{role}:" in lowered for role in _ROLES) and _ROLE_LINES.search(source) is not None
