"""Pieces the documentation's pictures share: the support agent's request, and the screenshot."""

from __future__ import annotations

import subprocess
from pathlib import Path

from promptcache import Doc, Message, Prompt, Tool

CHROMIUM = "/usr/bin/chromium"


def agent_prompt(clock_line: str = "", *, refund_limit: str = "") -> Prompt:
    """A support agent's request: tools, a system prompt, a manual, history, the new question;
    `clock_line` plants the bug of the week, the time at the top of the system prompt;
    `refund_limit`, another: a value read per request into a tool's description."""
    return (
        Prompt(volatile="ignore" if clock_line else "warn")
        .add_tools(
            Tool(name="lookup_order", description="Find an order by id", input_schema={}),
            Tool(name="refund", description="Refund an order" + refund_limit, input_schema={}),
        )
        .add_system(clock_line + "You are the support agent of an online shop. Be exact. " * 30)
        .add_docs(Doc(title="Manual", text="Orders ship within two working days. " * 300))
        .add_history(
            Message.user("My order SH-204817 has not arrived."),
            Message.assistant("Let me look it up: it left the warehouse yesterday."),
        )
        .with_tail("Can I still cancel it?")
    )


def screenshot(page: Path, target: Path, *, width: int, height: int) -> None:
    """`page` rendered by headless Chromium into the PNG `target` (`--no-sandbox`: CI is root)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--screenshot={target}",
            f"--window-size={width},{height}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
