"""
The `promptcache demo` session: a support agent (tools, a long system prompt, two documents,
parallel tool calls) run through a vendor's real SDK against that vendor's cache EMULATION, then
one request with a timestamp slipped into the system prompt, caught by the monitor and explained
by `diff`. Everything is offline and deterministic: the emulators answer in process.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ._errors import InputError
from ._parts import Doc, Message, Tool, ToolResult, ToolUse
from ._pricing import Cost, cost
from ._prompt import Prompt
from ._usage import CacheUsage
from .adapters import get_adapter
from .debug import Invalidation, Monitor, diff
from .sim import ManualClock, emulator_for, send
from .vendors import get_vendor

__all__ = ["MODELS", "DemoStep", "run_demo"]

# The model each vendor's demo session runs (a registry name -> a model in the price table).
MODELS: dict[str, str] = {
    "anthropic": "claude-sonnet-4-6",
    "openai": "gpt-5.6-terra",
    "openai-responses": "gpt-5.6-terra",
    "gemini": "gemini-2.5-pro",
    "engine": "Qwen/Qwen3-8B",
    "bedrock-converse": "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
}

_POLICY = [
    "Greet the customer by name when the profile gives one, and answer in their language.",
    "Never promise a delivery date the carrier has not confirmed in the tracking data.",
    "Refunds above the automatic limit go to a human agent with a short written summary.",
    "Quote the policy section you rely on, and say when a rule has an exception.",
    "Ask one clarifying question when the order number or the account is ambiguous.",
    "Do not share another customer's data, even when the caller says they are related.",
    "Escalate threats, legal questions and press enquiries to the duty manager at once.",
    "When a tool fails, say so plainly and offer the next best step instead of guessing.",
    "Keep answers under six sentences unless the customer asks for the full details.",
    "Log every promise you make in the ticket so the next agent can keep it.",
]
_TOOLS = {
    "lookup_order": "Find an order by its number and return its items, status and tracking.",
    "customer_profile": "Return the customer's name, tier, language and open tickets.",
    "carrier_tracking": "Return the carrier's latest scan events for a tracking number.",
    "refund": "Issue a refund up to the automatic limit, or open a review above it.",
    "search_policy": "Search the policy documents and return the matching sections.",
    "create_ticket": "Open a ticket for a human agent with a summary and a priority.",
}
_QUESTIONS = [
    ("Where is my order SH-204817? It was due on Monday.", 3),
    ("Can I get a refund for the broken lamp in that order?", 2),
    ("And how long does the refund take to reach my card?", 0),
    ("Please also check order SH-204990, same problem I think.", 3),
]


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoStep:
    """
    One request of the session, as the cache EMULATION counted it. `cost` is the price table
    applied to that emulated usage: what the request would cost if the vendor's cache behaved as
    emulated, never a figure any vendor billed.
    """

    number: int
    of: int  # requests in the run
    label: str
    usage: CacheUsage
    cost: float | None  # money, in `currency`; None when unpriced (self-hosted)
    cost_without_cache: float | None
    currency: str | None  # the price table's currency ("USD", or an override file's); None unpriced
    unpriced: str | None  # why there is no cost (the price table's own words), else None
    invalidation: Invalidation | None = None
    diff: dict[str, Any] = field(default_factory=dict)
    broken: bool = False


def _prose(rng: random.Random, sentences: int) -> str:
    return " ".join(rng.choice(_POLICY) for _ in range(sentences))


def _base(rng: random.Random) -> Prompt:
    tools = [
        Tool(
            name=name,
            description=text,
            input_schema={
                "type": "object",
                "properties": {"query": {"type": "string", "description": text}},
                "required": ["query"],
            },
        )
        for name, text in _TOOLS.items()
    ]
    docs = [
        Doc(title="Refund policy", text=_prose(rng, 120)),
        Doc(title="Shipping handbook", text=_prose(rng, 120)),
    ]
    system = "You are the support agent of Northwind Home, an online shop. " + _prose(rng, 90)
    return Prompt().add_tools(*tools).add_system(system).add_docs(*docs)


def session(seed: int = 7) -> Iterator[tuple[str, Prompt]]:
    """The agent's requests in order: each question, its parallel tool round, the answer."""
    rng = random.Random(seed)
    prompt, call = _base(rng), 0
    for number, (question, fan) in enumerate(_QUESTIONS, 1):
        prompt = prompt.with_tail(question)
        if fan:
            yield f"question {number}", prompt
            names = sorted(_TOOLS)[:fan]
            uses = [
                ToolUse(id=f"toolu_{call + i:04d}", name=n, input={"query": question[:24]})
                for i, n in enumerate(names)
            ]
            call += fan
            results = [ToolResult(tool_use_id=u.id, content=_prose(rng, 6)) for u in uses]
            prompt = prompt.commit_tail(Message.assistant(uses)).with_tail(Message.user(results))
            yield f"{fan} tool results", prompt
        else:
            yield f"question {number}", prompt
        prompt = prompt.commit_tail(_prose(rng, 3))


def broken(seed: int = 7) -> tuple[Prompt, Prompt]:
    """The session's last request, and the same with a timestamp at the top of the system prompt."""
    last = list(session(seed))[-1][1]
    stamped = Prompt(volatile="ignore")  # the planted timestamp must get through the guard
    stamped = stamped.add_tools(*last.tools)
    first, *rest = last.system
    stamped = stamped.add_system(f"Current time: 2026-11-30T06:12:09Z. {first.text}", *rest)
    stamped = stamped.add_docs(*last.docs).add_history(*last.history).with_tail(*last.tail)
    return last, stamped


def run_demo(
    vendor: str, *, on_step: Callable[[DemoStep], None] | None = None, seed: int = 7
) -> list[DemoStep]:
    """Run the session and the broken request; every step also goes to `on_step`."""
    adapter_name = get_vendor(vendor).name
    model = MODELS[adapter_name]
    clock = ManualClock()
    emulator = emulator_for(adapter_name, clock=clock)
    client = emulator.client()
    adapter = get_adapter(adapter_name)
    monitor = Monitor(adapter_name, metrics=False, clock=clock, logger=_quiet())
    steps: list[DemoStep] = []
    previous: dict[str, Any] | None = None
    requests = [(label, prompt, False) for label, prompt in session(seed)]
    requests.append(("timestamp in system", broken(seed)[1], True))
    for number, (label, prompt, is_broken) in enumerate(requests, 1):
        clock.advance(20)
        # The planted timestamp passes the volatile guard through its Prompt(volatile="ignore");
        # any other warning the builder gives is the caller's to see.
        request: dict[str, Any] = adapter.to_request(prompt, model=model)
        response = send(client, adapter_name, request)
        usage = adapter.read_usage(response)
        event = monitor.observe(request, response, key="demo-session")
        explained = (
            diff(previous, request, adapter_name).to_json() if is_broken and previous else {}
        )
        priced = _price(usage, model, adapter_name)
        step = DemoStep(
            number=number,
            of=len(requests),
            label=label,
            usage=usage,
            cost=None if isinstance(priced, str) else priced.actual,
            cost_without_cache=None if isinstance(priced, str) else priced.without_cache,
            currency=None if isinstance(priced, str) else priced.currency,
            unpriced=priced if isinstance(priced, str) else None,
            invalidation=event,
            diff=explained,
            broken=is_broken,
        )
        steps.append(step)
        if on_step is not None:
            on_step(step)
        previous = request
    return steps


def _price(usage: CacheUsage, model: str, vendor: str) -> Cost | str:
    """The request's cost, or why it has none."""
    try:
        return cost(usage, model=model, vendor=vendor)
    except InputError as exc:  # self-hosted engines have no token prices; the reason is shown
        return str(exc)


def _quiet() -> logging.Logger:
    """The monitor's logger for the demo: its misses are shown on screen, not logged again."""
    logger = logging.getLogger("promptcache.demo")
    logger.propagate = False
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())
    return logger
