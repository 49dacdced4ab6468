"""
What a walk has seen so far, for the checks that depend on where they are: the loops over a chat
template's messages being walked, the branches taken, and the names and flags set before.

`_statements` opens and closes it as it enters and leaves loops and branches; `_history_checks`,
`_reasons` and `_output` read it. One per walker (a child walker starts with its own).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jinja2 import nodes

from ._events import Hazard
from ._sections import Sections

__all__ = ["WalkState"]


@dataclass(slots=True, eq=False)
class WalkState:
    """The walk's position-dependent state (mutable: one walk's, never shared)."""

    history: int = 0  # depth of the open loops over the history
    loops: list[bool] = field(default_factory=list)  # for each open loop: over the history?
    trailing: frozenset[int] = frozenset()  # ids of `if`s that end a history iteration
    defined: set[str] = field(default_factory=set)  # names tested with `is defined`
    empty: set[str] = field(default_factory=set)  # names set to `""` in the history loop
    reported: set[str] = field(default_factory=set)
    # namespace attributes set in a loop over the messages after the current one (gpt-oss's
    # `future_final_message.found`): a branch on them changes once a later turn arrives
    look_ahead: set[str] = field(default_factory=set)
    # for each open loop over the history: does it write the reasoning it splits out back?
    keeps_reasoning: list[bool] = field(default_factory=list)
    positional: int = 0  # depth of branches on the message's position being walked
    # flags that are on unless the caller turns them off (`keep if keep is defined else true`)
    on_by_default: set[str] = field(default_factory=set)
    aliases: set[str] = field(default_factory=set)  # `{% set turns = messages[1:] %}`
    # the `if` tests (and the side taken) being walked, and those under which the generation
    # prompt writes an empty `<think></think>` (SmolLM3's no-reasoning mode): an earlier turn
    # written with one under the same test renders as the engine generated it
    sides: list[tuple[nodes.Node, bool]] = field(default_factory=list)
    # namespace attributes a loop over the messages sets from what a message says
    # (`'<|think_off|>' in msg.content`): read before the history, they change with the newest
    # message
    content_flags: set[str] = field(default_factory=set)
    # names set in the history loop from a test on the message's position, and that test (the
    # variable of a loop over `range(messages | length)` too: the message's index, `loop.index0`)
    position_names: dict[str, nodes.Node] = field(default_factory=dict)
    position_sets: dict[str, int] = field(default_factory=dict)  # and the line of each `set`
    # a position branch that only sets names (Apriel's `{% set add_tool_id = false %}`): the
    # loop's finding only when no branch that renders is reported
    pending: Hazard | None = None
    empty_at_generation: list[tuple[nodes.Node | None, bool]] = field(default_factory=list)
    # the prompt's headings and labels over what is being written (`## About the user`)
    sections: Sections = field(default_factory=Sections)

    def in_history_loop(self) -> bool:
        """Whether the innermost open loop is over the history (not a loop inside a turn)."""
        return bool(self.loops and self.loops[-1])
