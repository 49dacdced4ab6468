"""
`inspect` reads SDK keyword arguments back into a Prompt (promptcache/_ingest.py) while the
adapters write them: the two must agree, or inspect would show a layout the request does not have.
"""

from __future__ import annotations

import pytest

from promptcache import (
    ImagePart,
    Message,
    Prompt,
    TextPart,
    ThinkingPart,
    Tool,
    ToolResult,
    ToolUse,
    get_adapter,
)
from promptcache._ingest import prompt_from_request

MODELS = {
    "anthropic": "claude-sonnet-4-6",
    "openai": "gpt-5.6-terra",
    "openai-responses": "gpt-5.6-terra",
    "gemini": "gemini-2.5-pro",
    "bedrock-converse": "eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "bedrock-invoke": "anthropic.claude-sonnet-4-5-20250929-v1:0",
}
SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def _prompt(*, thinking: bool = False) -> Prompt:
    reply: list[TextPart | ToolUse | ThinkingPart] = [
        TextPart(text="Looking."),
        ToolUse(id="c1", name="lookup", input={"q": "SH-1"}),
    ]
    if thinking:
        reply.insert(0, ThinkingPart(thinking="the order id is in the question", signature="sig"))
    return (
        Prompt()
        .add_tools(Tool(name="lookup", description="Find an order", input_schema=SCHEMA))
        .add_tools(Tool(name="refund", description="Refund it", input_schema=SCHEMA))
        .add_system("You are the support agent.", "Answer briefly.")
        .add_history(
            Message.user("Where is SH-1?"),
            Message.assistant(reply),
            Message.user([ToolResult(tool_use_id="c1", content="shipped")]),
            Message.assistant("It shipped."),
        )
        .with_tail("And the refund?")
    )


@pytest.mark.parametrize("vendor", sorted(MODELS))
def test_inspect_reads_back_what_the_adapter_wrote(vendor: str) -> None:
    prompt = _prompt()
    kwargs = get_adapter(vendor).to_request(prompt, model=MODELS[vendor])
    again = prompt_from_request(kwargs, vendor)
    assert again.vendor == vendor and again.model == MODELS[vendor]
    sent = [(b.role, b.data) for b in prompt.render()]
    read = [(b.role, b.data) for b in again.prompt.render()]
    assert read == sent


def test_anthropic_thinking_and_images_read_back() -> None:
    prompt = _prompt(thinking=True).with_tail(
        Message.user([ImagePart(data="aGk=", media_type="image/png"), TextPart(text="this one?")])
    )
    kwargs = get_adapter("anthropic").to_request(prompt, model=MODELS["anthropic"])
    again = prompt_from_request(kwargs, "anthropic").prompt
    assert [b.data for b in again.render()] == [b.data for b in prompt.render()]
