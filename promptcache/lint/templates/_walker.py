"""
Turn a Jinja2 AST into the sequence of things it renders, in output order.

The walker does the one pass over the template; rules contribute only data (names, patterns).
What comes out is a flat list of events (`_events`):

    int        estimated tokens of static text (template text and string constants)
    Unsized    a value that is not per-request but whose size is unknown (a variable, a loop)
    Hazard     something that renders differently per request (a rule code, where, what)
    TAIL       the `{# promptcache: tail #}` marker: what follows is not cached anyway
    HISTORY    the end of a chat template's loop over `messages`: the whole conversation

The engine then reads the list backwards to learn how much cacheable content follows each
hazard. Values are tracked through `{% set %}`, loops, macros, includes, imports and `extends`,
so a value computed at the top and rendered at the bottom is reported where it renders.

A `Walker` is one template file's walk. It holds what the lint run gives it (configuration,
loader, the kind of file), the walk's position-dependent state (`state`, a `WalkState` of
`_state`), and does what concerns files: the template's start, `extends`, the child walker of an
included, imported or parent template, the notes for PC002, and moving another file's hazards to
the line that renders them. The rest are modules of functions of a walker, reaching each other
through the methods bound at the end of the class (the walker's interface):

- `_statements`: each statement's effect on the scope and the events (`if`, `for`, `set`, ...).
- `_output`: what an `{{ ... }}` or template text writes (static text, sizes, PC105, PC106, PC201).
- `_reasons`: why an expression differs per request (PC101, PC102, PC301), or that it does not.
- `_macros`: a macro's events, walked once and inlined where it is called.
- `_history_checks`: chat-template turns that re-render differently (PC302).

They read the template through pure helpers that know nothing of a walker: `_nodes` (shapes of
Jinja nodes), `_branches` (tests on a message's position, branches decided by known flags),
`_pieces` (what a branch writes, as static text and expressions), `_reasoning` (reasoning and
`<think>` blocks), `_sections` (what a prompt's headings and labels say of the values under
them), and the values a scope binds (`_bindings`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import nodes

from .._config import LintConfig
from .._loader import LoadedTemplate, Loader, UnreadableTemplate
from ._bindings import Scope
from ._events import Event, Hazard, Note
from ._history_checks import check_history_expr as _check_history_expr
from ._history_checks import check_history_text as _check_history_text
from ._history_checks import check_position_branch as _check_position_branch
from ._history_checks import expanded as _expanded
from ._history_checks import is_history_alias as _is_history_alias
from ._history_checks import on_position as _on_position
from ._history_checks import report_history as _report_history
from ._macros import called_macro as _called_macro
from ._macros import inline as _inline
from ._macros import macro_hazard as _macro_hazard
from ._output import check_unknown as _check_unknown
from ._output import render as _render
from ._output import unsorted_to_report as _unsorted_to_report
from ._reasoning import empty_think_at_generation
from ._reasons import hazard as _hazard
from ._reasons import per_request as _per_request
from ._reasons import reason as _reason
from ._state import WalkState
from ._statements import body as _body
from ._statements import describe_from
from ._statements import stmt as _stmt

__all__ = ["Walker"]

_MAX_DEPTH = 16


@dataclass(slots=True, eq=False)
class Walker:
    """Walks the templates of one lint run; one instance per template file (origin)."""

    config: LintConfig
    loader: Loader
    origin: str
    path: Path | None
    chat: bool
    stack: tuple[str, ...] = ()
    overrides: dict[str, tuple[nodes.Block, Walker, Scope]] = field(default_factory=dict)
    derived: tuple[str, ...] = ()  # the templates that extend this one, most derived first
    notes: list[Note] = field(default_factory=list)  # what could not be checked, for PC002
    system: bool = False  # the file linted is a system prompt: the conversation follows it
    # the file linted says it comes after the conversation ("the messages above"): it is cached
    # only within that conversation, where a value fixed per conversation does not change
    after_conversation: bool = False
    entry: int = 0  # in an included (imported, parent) file: the linted file's line leading here
    state: WalkState = field(default_factory=WalkState)  # where the walk is, what it has seen

    def template(self, ast: nodes.Template, scope: Scope) -> list[Event]:
        out: list[Event] = []
        if self.chat:
            self.state.empty_at_generation = empty_think_at_generation(ast)
        extends = next((n for n in ast.body if isinstance(n, nodes.Extends)), None)
        if extends is None:
            self.body(ast.body, scope, out)
        else:
            self._extend(ast, extends, scope, out)
        return out

    def _extend(
        self, ast: nodes.Template, extends: nodes.Extends, scope: Scope, out: list[Event]
    ) -> None:
        blocks = {b.name: (b, self, scope) for b in ast.find_all(nodes.Block)}
        for stmt in ast.body:
            if isinstance(stmt, (nodes.Assign, nodes.Import, nodes.FromImport, nodes.Macro)):
                self.stmt(stmt, scope, [])
        parent = self.child(extends.template, extends.lineno, "parent template")
        if parent is None:
            for block, _, _ in blocks.values():
                self.body(block.body, scope, out)
            return
        walker, loaded = parent
        walker.overrides = {**blocks, **self.overrides}  # the most derived template wins
        walker.derived = (*self.derived, self.origin)
        events = walker.template(loaded.ast, dict(scope))
        # Blocks of this template and of the ones extending it keep their own locations.
        keep = frozenset(walker.derived)
        out.extend(
            self.relocate(
                events, extends.lineno, "extends", describe_from(loaded, "parent"), keep=keep
            )
        )

    def child(
        self, template: nodes.Expr, line: int, what: str, *, optional: bool = False
    ) -> tuple[Walker, LoadedTemplate] | None:
        """A walker for an included, imported or parent template; None when not resolvable."""
        if len(self.stack) >= _MAX_DEPTH:
            # Only ever met inside an included file, whose own notes are dropped: said at the
            # linted file's line that leads here, or the templates below would pass unsaid.
            message = f"the templates below this line: they nest more than {_MAX_DEPTH} deep"
            self.notes.append(Note(self.entry, message))  # never met in the linted file itself
            return None
        names = _template_names(template)
        if not names:
            self.unchecked(line, f"the {what}: its name is computed at render time")
            return None
        loaded = self.loader.load(names, self.path, chat=self.chat)
        if isinstance(loaded, UnreadableTemplate):  # there, but not checked: never silent
            self.unchecked(line, f"the {what} {loaded.name!r}: {loaded.reason}")
            return None
        if loaded is None:
            if not optional:
                shown = " or ".join(repr(n) for n in names)
                self.unchecked(
                    line,
                    f"the {what} {shown}: not found next to the template or on "
                    "the search path (`search-path` in [tool.promptcache.lint])",
                )
            return None
        if loaded.label in self.stack or loaded.label == self.origin:
            if what == "parent template":  # an include may recurse under a condition; this not
                message = f"the parent template {loaded.name!r}: templates that extend each other"
                self.unchecked(line, message)
            return None
        walker = Walker(
            config=self.config,
            loader=self.loader,
            origin=loaded.label,
            path=loaded.path,
            chat=self.chat,
            stack=(*self.stack, self.origin),
            notes=self.notes,
            system=self.system,  # a partial is part of the prompt that includes it
            after_conversation=self.after_conversation,
            entry=self.entry if self.stack else line,
        )
        return walker, loaded

    def note(self, line: int, message: str) -> None:
        """Record what could not be checked; only for the file being linted (its own lines)."""
        if not self.stack and not self.derived:
            self.notes.append(Note(line, message))

    def unchecked(self, line: int, message: str) -> None:
        """
        Record a template that could not be checked at all: at its line in the file being
        linted or, met in an included (imported, parent) file, at the linted file's line that
        leads there, naming where: else the part it stands for would pass unsaid.
        """
        if self.stack:
            self.notes.append(Note(self.entry, f"{message} (in {self.origin}, line {line})"))
        else:
            self.note(line, message)

    def relocate(
        self,
        events: Iterable[Event],
        line: int,
        anchor: str,
        describe: Callable[[Hazard], str],
        *,
        always: bool = False,
        keep: frozenset[str] = frozenset(),
    ) -> list[Event]:
        """Report hazards from another file (or a macro body) at the line that renders them."""
        keep = keep or frozenset({self.origin})
        moved: list[Event] = []
        for event in events:
            if isinstance(event, Hazard) and (always or event.origin not in keep):
                code = event.code if event.code in ("PC106", "PC301", "PC302") else "PC104"
                written = (event.written or event.line) if event.origin == self.origin else 0
                moved.append(
                    Hazard(
                        code,
                        line,
                        anchor,
                        describe(event),
                        self.origin,
                        fix=event.fix,
                        written=written,
                        conversation=event.conversation,
                        per_conversation=event.per_conversation,
                        data=event.data,  # a section of data wherever it is written
                    )
                )
            else:
                moved.append(event)
        return moved

    # The interface between the concerns: functions of a walker, bound as its methods.

    body = _body
    stmt = _stmt
    render = _render
    check_unknown = _check_unknown
    unsorted_to_report = _unsorted_to_report
    reason = _reason
    hazard = _hazard
    per_request = _per_request
    called_macro = _called_macro
    inline = _inline
    macro_hazard = _macro_hazard
    check_position_branch = _check_position_branch
    is_history_alias = _is_history_alias
    expanded = _expanded
    on_position = _on_position
    report_history = _report_history
    check_history_text = _check_history_text
    check_history_expr = _check_history_expr


def _template_names(template: nodes.Expr) -> tuple[str, ...]:
    if type(template) is nodes.Const and isinstance(template.value, str):
        return (template.value,)
    if isinstance(template, (nodes.List, nodes.Tuple)):
        return tuple(
            i.value for i in template.items if type(i) is nodes.Const and isinstance(i.value, str)
        )
    return ()
