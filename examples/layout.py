"""
Build a realistic support-agent request with promptcache and print its cache layout.

Runs offline: no API key, no network. It shows the three things the builder guarantees:
every part lands in its layer whatever order you add it in, the stable prefix renders to the same
bytes (and hashes) on every request, and the next turn extends the prefix instead of breaking it.

    python examples/layout.py
"""

from __future__ import annotations

from promptcache import (
    Doc,
    Message,
    Prompt,
    Rendered,
    TextPart,
    Tool,
    ToolResult,
    ToolUse,
    get_adapter,
    plan,
)

TOOLS = [
    Tool(
        name="lookup_order",
        description="Find an order by its number and return status, items and shipping details.",
        input_schema={
            "type": "object",
            "properties": {"order_id": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]{6}$"}},
            "required": ["order_id"],
        },
    ),
    Tool(
        name="issue_refund",
        description="Refund all or part of an order to the original payment method.",
        input_schema={
            "type": "object",
            "properties": {
                "order_id": {"type": "string"},
                "amount": {"type": "number", "minimum": 0},
                "reason": {"type": "string", "enum": ["damaged", "late", "wrong_item", "other"]},
            },
            "required": ["order_id", "reason"],
        },
    ),
]
SYSTEM = (
    "You are the support agent of an online shop. Answer in the customer's language, cite the "
    "policy section you rely on, and never promise a refund the policy does not allow. "
) * 20
POLICY = Doc(
    title="Refund and shipping policy",
    source="policy/v12.md",
    text=(
        "Section 1. Orders ship within two business days. Section 2. Items damaged in transit are "
        "refunded in full on a photo of the damage. Section 3. Late deliveries over five business "
        "days earn a 10% credit. "
    )
    * 60,
)


def show(title: str, rendered: Rendered) -> None:
    print(f"\n{title}: {len(rendered)} blocks, {rendered.tokens:,} estimated tokens")
    print(f"  {'block':<12} {'role':<10} {'tokens':>7}  hash")
    for block in rendered:
        print(f"  {block.path:<12} {block.role:<10} {block.tokens:>7,}  {block.digest}")
    prefix = sum(block.tokens for block in rendered.prefix)
    print(f"  cacheable prefix: {prefix:,} tokens, ends at hash {rendered.prefix_hash.hex()[:12]}")


def main() -> None:
    # Added out of order on purpose: the builder still renders tools < system < docs < history < tail.
    base = Prompt().add_docs(POLICY).add_system(SYSTEM).add_tools(*TOOLS)

    turn1 = base.with_tail("My order SH-204817 arrived with a cracked screen. What now?")
    first = turn1.render()
    show("Request 1", first)

    reply = Message.assistant(
        [
            TextPart(text="Sorry about that. Let me look the order up."),
            ToolUse(id="call_1", name="lookup_order", input={"order_id": "SH-204817"}),
        ]
    )
    result = Message.user(
        [ToolResult(tool_use_id="call_1", content="status: delivered; item: phone")]
    )
    turn2 = turn1.commit_tail(reply).add_history(result).with_tail("Can I get a refund?")
    second = turn2.render()
    show("Request 2 (next turn)", second)

    shared = sum(1 for a, b in zip(first.blocks, second.blocks, strict=False) if a.hash == b.hash)
    print(f"\nRequest 2 repeats the first {shared} blocks of request 1 byte for byte,")
    print("so a vendor's prefix cache can serve them; only the new turn is uncached.")

    model = "claude-sonnet-4-6"
    layout = plan(turn2, vendor="anthropic", model=model)
    print(f"\nAnthropic breakpoints for {model} (minimum {layout.min_tokens:,} tokens):")
    for breakpoint in layout.breakpoints:
        print(f"  cache_control on {breakpoint.path:<12} ttl {breakpoint.ttl}  {breakpoint.reason}")
    for note in layout.notes:
        print(f"  note: {note}")
    kwargs = get_adapter("anthropic").to_request(turn2, model=model, plan=layout)
    blocks = [
        *kwargs.get("tools", []),
        *kwargs.get("system", []),
        *(block for message in kwargs["messages"] for block in message["content"]),
    ]
    markers = sum("cache_control" in block for block in blocks)
    print(f"  -> messages.create(**kwargs) with {markers} cache_control markers; send it as is.")


if __name__ == "__main__":
    main()
