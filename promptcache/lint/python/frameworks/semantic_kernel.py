"""Semantic Kernel (Python): a system or developer message added to a `ChatHistory` is the system
prompt, and a prompt function's `prompt=` text is a template judged by the static text after
what varies (checked against microsoft/semantic-kernel's `contents/chat_history.py` and
`functions/kernel_function_from_prompt.py`). `ChatHistory(system_message=...)` and an agent's
`instructions=` are system prompts by their keywords."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="semantic-kernel",
    sinks=(
        # On a history kept on an object (`self.history.add_system_message(...)`) the call starts
        # that conversation: what it adds is fixed for it (`conversation`).
        Sink(
            api="Semantic Kernel system message",
            suffixes=("add_system_message", "add_developer_message"),
            positional=((0, "system"),),
            keywords=(("content", "system"),),
            conversation=True,
        ),
        Sink(
            api="Semantic Kernel prompt function",
            suffixes=("KernelFunctionFromPrompt", "add_function", "create_function_from_prompt"),
            keywords=(("prompt", "template"),),
            roots=("semantic_kernel",),
        ),
    ),
)

# Classes whose object is a conversation's history, created with its system message
# (`self.history = ChatHistory(system_message=...)`): kept on an object, that message is fixed
# for the conversation, as a kept message list's is.
CONVERSATIONS = frozenset({"ChatHistory"})
