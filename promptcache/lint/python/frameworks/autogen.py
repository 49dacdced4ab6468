"""AutoGen: an agent's `system_message` is the system prompt of every call it makes (0.4+
`autogen_agentchat.agents.AssistantAgent`, and 0.2's `autogen.AssistantAgent` /
`ConversableAgent`; checked against microsoft/autogen's `_assistant_agent.py`)."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="autogen",
    sinks=(
        Sink(
            api="AutoGen agent",
            suffixes=("AssistantAgent", "ConversableAgent"),
            keywords=(("system_message", "system"),),
            roots=("autogen",),
        ),
    ),
    # 0.4+ `autogen_core.models.UserMessage(content=..., source=...)`.
    user_turns=("UserMessage",),
)
