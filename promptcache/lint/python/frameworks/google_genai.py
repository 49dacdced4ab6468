"""Google's GenAI SDK (and the older `google.generativeai`): content calls, configs, caches."""

from __future__ import annotations

from .._knowledge import DataSource, Framework, Sink

_CONFIG = (("system_instruction", "system"), ("tools", "tools"))

FRAMEWORK = Framework(
    name="google-genai",
    sinks=(
        Sink(
            api="Gemini generate_content",
            suffixes=("generate_content", "generate_content_stream", "generate_content_async"),
            keywords=(
                ("contents", "input"),
                ("config", "config"),
                ("generation_config", "config"),
            ),
            positional=((0, "input"),),
            answers=True,
            parts=True,  # a list of parts (`[pdf_part, PROMPT]`) is one user turn
        ),
        Sink(api="Gemini config", suffixes=("GenerateContentConfig",), keywords=_CONFIG),
        Sink(api="Gemini GenerativeModel", suffixes=("GenerativeModel",), keywords=_CONFIG),
        Sink(
            api="Gemini chats.create",
            suffixes=("chats.create", "start_chat"),
            keywords=(("config", "config"), ("history", "messages")),
        ),
        # A chat made by `chats.create` / `start_chat` (its result is known as a `Chat()`):
        # what `send_message` sends is the newest turn, after the chat's history.
        Sink(
            api="Gemini chat send_message",
            suffixes=(
                "Chat().send_message",
                "Chat().send_message_stream",
                "Chat().send_message_async",
            ),
            roots=("google.",),
            keywords=(("message", "input"), ("content", "input")),
            positional=((0, "input"),),
            answers=True,
        ),
        Sink(
            api="Gemini context cache",
            suffixes=("caches.create",),
            keywords=(("config", "config"),),
        ),
    ),
    data=(
        DataSource(
            what="the answer of a Gemini chat",
            answers=True,
            methods=("send_message", "send_message_async", "send_message_stream"),
        ),
    ),
    clients=("google.genai", "google.generativeai"),
)
