"""
One run of a module body or a function body, and the seams between the interpreter's concerns.

A frame is made of parts that each own their state:

- `Scope` (`_scope`) owns the bindings: `env` (names, and `self.<attr>` for attributes this
  method sets) and `self_attrs`; it resolves a name here, in the module, across the project's
  imports, or says it cannot (PC506).
- `Findings` (`_findings`) owns the sink checks: given a value and the request position it
  reaches, it records hits in the analysis, or pending sinks on the function being summarised.
  It reads no bindings and evaluates nothing.
- The frame itself owns only what the walk needs: `returns` (appended by `_statements`, read by
  `Analysis.summary`), `depth`, `in_message_list` and `message_element` (written by
  `_expressions`, and by `_invoke` for the message a `.insert(0, ...)` puts first;
  `message_element` read by `_invoke`), and `item_text` (written by `_iteration` and
  `_invoke` around a list's item, read by `_expressions`).

Statements (`_statements`), expressions (`_expressions`), calls (`_invoke`) and prompt
templates (`_templates`) are modules of functions of a frame. They reach each other only through
the methods bound below (the frame's interface, also what `_calls`' library models use), so a
module can be read, and changed, knowing only that interface.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ._expressions import binop, evaluate, string, written
from ._findings import Findings
from ._invoke import call_value
from ._iteration import element
from ._locations import taint_at
from ._project import Module
from ._scope import Scope
from ._statements import assign, block, statement
from ._summaries import Function
from ._templates import slot_filled, template_variables
from ._values import Taint, Value

if TYPE_CHECKING:
    from ._interp import Analysis

__all__ = ["Frame"]


class Frame:
    """One run of a module body or function body: its scope, its findings, what it returns."""

    def __init__(
        self, analysis: Analysis, module: Module, function: Function | None, env: dict[str, Value]
    ):
        self.a = analysis
        self.module = module
        self.function = function
        self.scope = Scope(analysis, module, function, env)
        self.findings = Findings(analysis, module, function)
        self.returns: list[Value] = []
        self.depth = 0
        self.in_message_list = False  # the dict being evaluated is an element of a list literal
        # The call that is an element of the list literal being evaluated (a `SystemMessage(...)`
        # there is judged by the turns after it, by `_expressions`' list check).
        self.message_element: ast.AST | None = None
        # The f-string being evaluated as one item of a list (a comprehension's element, the
        # argument of `.append`): where it writes a value is where the list's item is made.
        self.item_text: ast.AST | None = None

    def taint(
        self,
        code: str,
        label: str,
        node: ast.AST,
        *,
        fix: tuple[str, int, int, int, int] | None = None,
        fixable: bool = False,
    ) -> Taint:
        """A source of variation found at `node` of this frame's module."""
        return taint_at(self.module, code, label, node, fix=fix, fixable=fixable)

    # The interface between the concerns: functions of a frame, bound as its methods.
    block = block
    statement = statement
    assign = assign
    eval = evaluate
    binop = binop
    string = string
    written = written
    element = element
    call_value = call_value
    slot_filled = slot_filled
    template_variables = template_variables
