"""
Turn a Jinja2 AST into the sequence of things it renders, in output order.

The walker does the one pass over the template; rules contribute only data (names, patterns).
What comes out is a flat list of events:

    int        estimated tokens of static text (template text and string constants)
    Unsized    a value that is not per-request but whose size is unknown (a variable, a loop)
    Hazard     something that renders differently per request (a rule code, where, what)
    TAIL       the `{# promptcache: tail #}` marker: what follows is not cached anyway
    HISTORY    the end of a chat template's loop over `messages`: the whole conversation

The engine then reads the list backwards to learn how much cacheable content follows each
hazard. Values are tracked through `{% set %}`, loops, macros, includes, imports and `extends`,
so a value computed at the top and rendered at the bottom is reported where it renders.
"""

from __future__ import annotations

import copy
import enum
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from jinja2 import nodes
from jinja2.visitor import NodeTransformer

from .._tokens import DEFAULT_COUNTER
from ._config import LintConfig, _matcher
from ._loader import LoadedTemplate, Loader, UnreadableTemplate
from .rules.PC101 import SHORT_VALUE_NAMES, SHORT_VALUE_TOKENS
from .rules.PC102 import CLOCK_NAMES, DATE_NAMES, PER_CONVERSATION, SYSTEM_CLOCK_FIX
from .rules.PC105 import FORMAT_FIELD, JINJA_SUFFIXES
from .rules.PC201 import MAPPING_VIEWS, SORTING_FILTERS
from .rules.PC301 import CHAT_DATE_NAMES, CURRENT_DATE_FIELDS, date_fix
from .rules.PC302 import POSITION_ATTRS, REASONING_MARKS, REASONING_WORDS

__all__ = ["HISTORY", "TAIL", "TAIL_NAME", "Event", "Hazard", "Note", "Unsized", "Walker"]

TAIL_NAME = "__pc_tail__"
_MAX_DEPTH = 16
_MOVING = frozenset({"last", "revindex", "revindex0", "length"})
_EXISTENCE_TESTS = frozenset({"defined", "undefined", "none"})
_GENERATION_PROMPT = "add_generation_prompt"
_count = DEFAULT_COUNTER.count
_is_chat_date_name = _matcher(CHAT_DATE_NAMES)
_is_current_date_field = _matcher(CURRENT_DATE_FIELDS)
_is_clock_name = _matcher(CLOCK_NAMES)
_is_per_conversation_name = _matcher(PER_CONVERSATION)
_is_date_name = _matcher(DATE_NAMES)
_ROLE_LINE = re.compile(r"(?im)^[ \t#]*(?:user|assistant|human|ai)[ \t]*:[ \t]*$")
_TEXT_FIELDS = frozenset({"content", "text"})
_HISTORY_NAME = re.compile(r"(?i)history|messages|conversation|turns")
# The text before a value on its line that makes it a labelled field: `- Result: `, `(Note: `.
_FIELD_LABEL = re.compile(r"^[ \t]*[-*(\[]?[ \t]*[^\W\d_][\w '/&.-]{0,40}:[ \t]*$")


class Sentinel(enum.Enum):
    TAIL = "tail"
    HISTORY = "history"


TAIL = Sentinel.TAIL
HISTORY = Sentinel.HISTORY


@dataclass(frozen=True, slots=True)
class Hazard:
    """
    A per-request value at `line` of `origin`; `anchor` is the text that locates the column.

    `cause` and `cause_line` name where the value comes from (a `{% set %}` chain is reported
    by its origin, not link by link); `fix` replaces the rule's fix text when the template
    itself decides which fix applies (a date the request can pin, or one it cannot).
    """

    code: str
    line: int
    anchor: str
    detail: str
    origin: str
    cause: str = ""
    cause_line: int = 0
    fix: str = ""
    written: int = 0  # the line of this file where a macro writes the value (0: `line`)
    conversation: bool = False  # a system prompt's clock: the conversation follows it
    # who is asking, the session: fixed for a conversation, so the conversation after it is
    # that one conversation's own and costs nothing
    per_conversation: bool = False

    def origin_of(self) -> tuple[str, int]:
        """What the value was computed from, and on which line."""
        return (self.cause or self.detail, self.cause_line or self.line)


@dataclass(frozen=True, slots=True)
class Unsized:
    """
    Rendered content that is the same on every request, of a size the linter cannot know.

    `field`: it is written after a label on its line (`Users online: {{ count }}`), the shape of
    one field of the request's data rather than of a block of reusable content.
    """

    name: str
    field: bool = False


@dataclass(frozen=True, slots=True)
class Note:
    """Something the linter could not check (a missing include, a dynamic name), for PC002."""

    line: int
    message: str


Event = Union[int, Hazard, Unsized, Sentinel]  # noqa: UP007 - a runtime alias on Python 3.10


class _Stable:
    """A locally bound name whose value is the same on every request (it shadows globals)."""


STABLE = _Stable()


@dataclass(slots=True)
class _Captured:
    """A `{% set x %}...{% endset %}` of static text: rendering `x` renders these tokens."""

    tokens: int


@dataclass(slots=True, eq=False)
class _Macro:
    name: str
    node: nodes.Macro
    scope: dict[str, Any]
    walker: Walker
    events: list[Event] | None = None
    busy: bool = False


_Binding = Union[Hazard, _Stable, _Captured, _Macro, dict[str, _Macro]]  # noqa: UP007
_Scope = dict[str, Any]


@dataclass(slots=True, eq=False)
class Walker:
    """Walks the templates of one lint run; one instance per template file (origin)."""

    config: LintConfig
    loader: Loader
    origin: str
    path: Path | None
    chat: bool
    stack: tuple[str, ...] = ()
    overrides: dict[str, tuple[nodes.Block, Walker, _Scope]] = field(default_factory=dict)
    derived: tuple[str, ...] = ()  # the templates that extend this one, most derived first
    notes: list[Note] = field(default_factory=list)  # what could not be checked, for PC002
    system: bool = False  # the file linted is a system prompt: the conversation follows it
    # the file linted says it comes after the conversation ("the messages above"): it is cached
    # only within that conversation, where a value fixed per conversation does not change
    after_conversation: bool = False
    entry: int = 0  # in an included (imported, parent) file: the linted file's line leading here
    _history: int = 0
    _loops: list[bool] = field(default_factory=list)  # for each open loop: over the history?
    _trailing: frozenset[int] = frozenset()  # ids of `if`s that end a history iteration
    _defined: set[str] = field(default_factory=set)  # names tested with `is defined`
    _empty: set[str] = field(default_factory=set)
    _reported: set[str] = field(default_factory=set)
    # namespace attributes set in a loop over the messages after the current one (gpt-oss's
    # `future_final_message.found`): a branch on them changes once a later turn arrives
    _look_ahead: set[str] = field(default_factory=set)
    # for each open loop over the history: does it write the reasoning it splits out back?
    _keeps_reasoning: list[bool] = field(default_factory=list)
    _positional: int = 0  # depth of branches on the message's position being walked
    # flags that are on unless the caller turns them off (`keep if keep is defined else true`)
    _on_by_default: set[str] = field(default_factory=set)
    _aliases: set[str] = field(default_factory=set)  # `{% set turns = messages[1:] %}`
    # the `if` tests (and the side taken) being walked, and those under which the generation
    # prompt writes an empty `<think></think>` (SmolLM3's no-reasoning mode): an earlier turn
    # written with one under the same test renders as the engine generated it
    _sides: list[tuple[nodes.Node, bool]] = field(default_factory=list)
    # namespace attributes a loop over the messages sets from what a message says
    # (`'<|think_off|>' in msg.content`): read before the history, they change with the newest
    # message
    _content_flags: set[str] = field(default_factory=set)
    # names set in the history loop from a test on the message's position, and that test
    _position_names: dict[str, nodes.Node] = field(default_factory=dict)
    # a position branch that only sets names (Apriel's `{% set add_tool_id = false %}`): the
    # loop's finding only when no branch that renders is reported
    _pending: Hazard | None = None
    _empty_at_generation: list[tuple[nodes.Node | None, bool]] = field(default_factory=list)

    # -- templates ------------------------------------------------------------------------

    def template(self, ast: nodes.Template, scope: _Scope) -> list[Event]:
        out: list[Event] = []
        if self.chat:
            self._empty_at_generation = _empty_think_at_generation(ast)
        extends = next((n for n in ast.body if isinstance(n, nodes.Extends)), None)
        if extends is None:
            self.body(ast.body, scope, out)
        else:
            self._extend(ast, extends, scope, out)
        return out

    def _extend(
        self, ast: nodes.Template, extends: nodes.Extends, scope: _Scope, out: list[Event]
    ) -> None:
        blocks = {b.name: (b, self, scope) for b in ast.find_all(nodes.Block)}
        for stmt in ast.body:
            if isinstance(stmt, (nodes.Assign, nodes.Import, nodes.FromImport, nodes.Macro)):
                self.stmt(stmt, scope, [])
        parent = self._child(extends.template, extends.lineno, "parent template")
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
            self._relocate(events, extends.lineno, "extends", _from(loaded, "parent"), keep=keep)
        )

    def _child(
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
            self._unchecked(line, f"the {what}: its name is computed at render time")
            return None
        loaded = self.loader.load(names, self.path, chat=self.chat)
        if isinstance(loaded, UnreadableTemplate):  # there, but not checked: never silent
            self._unchecked(line, f"the {what} {loaded.name!r}: {loaded.reason}")
            return None
        if loaded is None:
            if not optional:
                shown = " or ".join(repr(n) for n in names)
                self._unchecked(
                    line,
                    f"the {what} {shown}: not found next to the template or on "
                    "the search path (`search-path` in [tool.promptcache.lint])",
                )
            return None
        if loaded.label in self.stack or loaded.label == self.origin:
            if what == "parent template":  # an include may recurse under a condition; this not
                message = f"the parent template {loaded.name!r}: templates that extend each other"
                self._unchecked(line, message)
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

    def _note(self, line: int, message: str) -> None:
        """Record what could not be checked; only for the file being linted (its own lines)."""
        if not self.stack and not self.derived:
            self.notes.append(Note(line, message))

    def _unchecked(self, line: int, message: str) -> None:
        """
        Record a template that could not be checked at all: at its line in the file being
        linted or, met in an included (imported, parent) file, at the linted file's line that
        leads there, naming where: else the part it stands for would pass unsaid.
        """
        if self.stack:
            self.notes.append(Note(self.entry, f"{message} (in {self.origin}, line {line})"))
        else:
            self._note(line, message)

    def _relocate(
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
                    )
                )
            else:
                moved.append(event)
        return moved

    # -- statements -----------------------------------------------------------------------

    def body(self, stmts: Sequence[nodes.Node], scope: _Scope, out: list[Event]) -> None:
        for stmt in stmts:
            self.stmt(stmt, scope, out)

    def stmt(self, node: nodes.Node, scope: _Scope, out: list[Event]) -> None:
        handler = getattr(self, f"_s_{type(node).__name__}", None)
        if handler is not None:
            handler(node, scope, out)
            return
        for child in node.iter_child_nodes():
            if isinstance(child, nodes.Stmt):
                self.stmt(child, scope, out)

    def _s_Output(self, node: nodes.Output, scope: _Scope, out: list[Event]) -> None:
        line, labelled = "", False  # the static text of the current line; a label seen on it
        for child in node.nodes:
            if type(child) is nodes.TemplateData:
                self._text(child, out)
                text = child.data
                if self._history:  # template text is read like a string constant
                    self._check_history_text(child, out)
                if "\n" in text:
                    line, labelled = text.rsplit("\n", 1)[1], False
                else:
                    line += text
                labelled = labelled or _FIELD_LABEL.match(line) is not None
            else:
                self._render(child, scope, out, field=labelled)

    def _text(self, data: nodes.TemplateData, out: list[Event]) -> None:
        """Static text, and any `{placeholder}` in it that a later str.format fills per request."""
        text = data.data
        start = 0
        if not self.chat and "{" in text:
            for match in FORMAT_FIELD.finditer(text):
                name = match.group(1)
                if not self.config.is_per_request(name):
                    continue
                line = data.lineno + text.count("\n", 0, match.start())
                if _rendered_by_jinja(self.origin):
                    self._note_literal_field(match.group(0), line)
                    continue
                out.append(_count(text[start : match.start()]))
                detail = f"format placeholder `{{{name}}}`, filled per request"
                out.append(self._hazard("PC105", line, match.group(0), detail))
                start = match.end()
        out.append(_count(text[start:]))

    def _note_literal_field(self, field: str, line: int) -> None:
        """A `{placeholder}` that Jinja leaves as it is: a value only if code `.format()`s it."""
        self._note(
            line,
            f"`{field}` is literal text when Jinja renders this file (an output format or an "
            "example, not a value); if your code also fills it with str.format, it is a "
            "per-request value in the prefix",
        )

    def _render(
        self, expr: nodes.Expr, scope: _Scope, out: list[Event], *, field: bool = False
    ) -> None:
        """An expression whose value is written to the output (`field`: after a label)."""
        if type(expr) is nodes.Const:
            if isinstance(expr.value, str):
                if self._history:
                    self._check_history_expr(expr, scope, out)
                out.append(_count(expr.value))
            return
        if type(expr) is nodes.Name and expr.name == TAIL_NAME:
            out.append(TAIL)
            return
        extension = next(iter(_with_self(expr, nodes.ExtensionAttribute)), None)
        if extension is not None:
            # A loaded extension's tag (`{% now %}`) renders what its Python code returns.
            self._note(
                expr.lineno,
                f"the output of the `{extension.identifier.rsplit('.', 1)[-1]}` extension's tag: "
                "whether it changes per request is up to its code",
            )
            out.append(Unsized("an extension's output"))
            return
        inlined = False
        for call in _calls(expr):
            macro = self._macro(call.node, scope)
            if macro is not None:
                out.extend(self._inline(macro, call.lineno))
                inlined = True
        hazard = self.reason(expr, scope)
        if hazard is not None:
            out.append(hazard)
        elif (view := self._unsorted(expr, scope)) is not None:
            out.append(self._hazard("PC201", expr.lineno, view[1], f"unsorted `{view[0]}`"))
        elif type(expr) is nodes.Name and isinstance(scope.get(expr.name), _Captured):
            out.append(scope[expr.name].tokens)
        elif not inlined:  # a macro's output was counted where it was inlined
            sized = self._sized(expr, scope)
            self._check_unknown(expr, sized, scope, out)
            out.append(
                Unsized(sized.name, field=True) if field and isinstance(sized, Unsized) else sized
            )
        if self._history:
            self._check_history_expr(expr, scope, out)

    def _check_window(self, node: nodes.For, out: list[Event]) -> None:
        """A loop over the last turns only (`chat_history[-10:]`): PC507, a sliding window."""
        if type(node.iter) is nodes.Getitem and type(node.iter.arg) is nodes.Slice:
            start = node.iter.arg.start
            if start is not None and _is_negative(start):
                detail = (
                    "a sliding window over the conversation (`[-n:]`), which drops its oldest turn"
                )
                out.append(self._hazard("PC507", node.lineno, "for", detail))

    def _check_unknown(
        self, expr: nodes.Node, sized: int | Unsized, scope: _Scope, out: list[Event]
    ) -> None:
        """
        A variable of unknown meaning (PC106): reported only above a long static block.

        It stays content of unknown size for the values before it (its event follows the
        hazard); `risks` reports it only when LONG_PREFIX_FACTOR times `threshold` tokens follow.
        """
        name = _shown_name(expr)
        if self.chat or not isinstance(sized, Unsized) or name is None:
            return
        root = name.split(".", 1)[0]
        if root in scope or root in _JINJA_NAMES or self.config.is_declared_stable(name):
            return  # bound in the template, one of Jinja's own names, or declared
        detail = f"variable `{root}` of unknown meaning (if it changes per user or request)"
        out.append(self._hazard("PC106", expr.lineno, root, detail))

    def _sized(self, expr: nodes.Expr, scope: _Scope) -> int | Unsized:
        """
        How much a stable value adds: its declared size (`sizes`), or unknown.

        Special tokens (`bos_token`, `eos_token`, any `*_token`) count as one token. Anything
        else is content of unknown size, named by the variable it shows.
        """
        name = _shown_name(expr)
        if name is None:
            return Unsized("an expression")
        declared = self.config.declared_size(name)
        if declared is not None:
            return declared
        leaf = name.rsplit(".", 1)[-1]
        if leaf.endswith("_token"):
            return 1
        if _SHORT_VALUE(leaf):
            return SHORT_VALUE_TOKENS
        return Unsized(name)

    def _unsorted(self, expr: nodes.Node, scope: _Scope) -> tuple[str, str] | None:
        """
        An unsorted mapping view worth reporting (PC201).

        A dict written in the template keeps its order, and a chat template iterates the
        request JSON the client sent (tool schemas, tool-call arguments), whose order the
        client fixes; what is left is a mapping built per request, known by its name
        (`per-request`, or any name not declared stable in strict mode).
        """
        if self.chat:
            return None
        view = _unsorted_view(expr)
        if view is None or view[2] is None:
            return None
        root = view[2].split(".", 1)[0]
        if root in scope and not isinstance(scope[root], Hazard):
            return None  # a loop variable or a local: its data was judged where it came from
        return view[:2] if self.config.is_per_request(view[2]) else None

    def _s_If(self, node: nodes.If, scope: _Scope, out: list[Event]) -> None:
        """
        Each branch sees the scope before the `if`; a value tainted in any branch stays so.

        A branch on a per-request value is reported after the `if`: what varies is the
        branches themselves, and what is at risk is the content that follows them.
        """
        causes = [self.reason(test, scope) for test in _chain_tests(node)]  # once per test
        forks = self._branch(node, "if", causes[0])
        self._check_position_branch(node, node.body, node.else_, out)
        # Every branch of a chain whose tests depend on the position renders by position.
        positional = int(any(self._on_position(test) for test in _chain_tests(node)))
        self._positional += positional
        self._sides.append((node.test, True))
        after = [self._walked(node.body, scope, out)]
        self._sides.pop()
        for elif_, cause in zip(node.elif_, causes[1:], strict=True):
            forks += self._branch(elif_, "elif", cause)
            self._check_position_branch(elif_, elif_.body, [], out)
            after.append(self._walked(elif_.body, scope, out))
        self._sides.append((node.test, False))
        after.append(self._walked(node.else_, scope, out) if node.else_ else dict(scope))
        self._sides.pop()
        self._positional -= positional
        decided = next((cause for cause in causes if cause is not None), None)
        assigned = _assigned_names(node) if decided is not None else set()
        for key in {k for branch in after for k in branch}:
            values = [branch[key] for branch in after if key in branch]
            if decided is not None and key in assigned:
                # A value set in a branch on a per-request test varies with the test.
                values.insert(0, _set_under(decided, key, node.lineno, self.origin))
            scope[key] = next((v for v in values if isinstance(v, Hazard)), values[-1])
        out.extend(forks)

    def _branch(self, node: nodes.If, keyword: str, hazard: Hazard | None) -> list[Event]:
        """The fork a test on a per-request value (`hazard`, from `reason`) makes."""
        if hazard is None or hazard.code == "PC302":
            # A test on a turn's re-rendered text (Gemma 4's `has_content` after its reasoning is
            # stripped) forks on the same cause, reported where that text renders.
            return []
        detail = f"`{{% {keyword} %}}` on {hazard.detail}"
        return [self._hazard("PC103", node.lineno, keyword, detail)]

    def _walked(self, body: Sequence[nodes.Node], scope: _Scope, out: list[Event]) -> _Scope:
        inner = dict(scope)
        self.body(body, inner, out)
        return inner

    def _s_For(self, node: nodes.For, scope: _Scope, out: list[Event]) -> None:
        """Like a branch, a loop over per-request or unordered data is reported after it."""
        if not self.chat and _writes_the_turns(node):
            # A prompt file's conversation (`.prompty`: `{{ item.role }}:` then the content): it
            # grows by appending, as a chat template's does; what it holds is not the template's.
            self.body(node.body, _bound(scope, node.target), [])
            self._check_window(node, out)
            out.append(HISTORY)
            return
        hazard = self.reason(node.iter, scope)
        after: list[Event] = []
        if hazard is not None:
            after.append(
                self._hazard("PC103", node.lineno, "for", f"`{{% for %}}` over {hazard.detail}")
            )
        elif (view := self._unsorted(node.iter, scope)) is not None:
            after.append(
                self._hazard("PC201", node.lineno, view[1], f"loop over unsorted `{view[0]}`")
            )
        else:
            self._check_unknown(node.iter, Unsized("a loop"), scope, out)
        inner = dict(scope)
        _bind(inner, node.target, hazard or STABLE)
        inner["loop"] = STABLE
        if self._history and _is_look_ahead(node.iter):
            self._look_ahead |= _namespace_sets(node.body)
        if self._history:  # `{% for part in text.split('<channel|>') %}` strips it too
            self._check_history_expr(node.iter, scope, out)
        history = self.chat and (_is_messages(node.iter) or self._is_history_alias(node.iter))
        if history:
            self._content_flags |= _flags_from_content(node.body)
            self._check_window(node, out)
        self._history += history
        self._loops.append(history)
        if history:
            self._keeps_reasoning.append(_writes_reasoning_back(node.body, self._on_by_default))
        reported, self._reported = self._reported, (set() if history else self._reported)
        pending, self._pending = self._pending, (None if history else self._pending)
        trailing = self._trailing
        if history:
            self._trailing = frozenset(_trailing_ifs(node.body) | _iteration_enders(node.body))
        self.body(node.body, inner, out)
        if history and self._pending is not None:  # no branch that renders was reported
            self._report_history("branch", self._pending, out)
        self._pending = pending
        self._history -= history
        self._loops.pop()
        if history:
            self._keeps_reasoning.pop()
        self._reported = reported
        self._trailing = trailing
        out.extend(after)
        if history:
            out.append(HISTORY)
        self.body(node.else_, scope, out)

    def _s_Assign(self, node: nodes.Assign, scope: _Scope, out: list[Event]) -> None:
        hazard = self.reason(node.node, scope) or self._macro_hazard(node.node, scope)
        if (
            isinstance(node.target, nodes.Name)
            and self.chat
            and (_is_messages(node.node) or self._is_history_alias(node.node))
        ):
            self._aliases.add(node.target.name)  # the history under another name
        if isinstance(node.target, nodes.Name):
            if _true_by_default(node.node, self._on_by_default):
                self._on_by_default.add(node.target.name)
            else:
                self._on_by_default.discard(node.target.name)
        if self._history:
            self._check_history_expr(node.node, scope, out)
            if isinstance(node.target, nodes.Name) and _is_empty_string(node.node):
                self._empty.add(node.target.name)
            if isinstance(node.target, nodes.Name):
                loop_is_history = bool(self._loops and self._loops[-1])
                if _position_test(self._expanded(node.node), loop_is_history=loop_is_history):
                    self._position_names[node.target.name] = node.node
                else:
                    self._position_names.pop(node.target.name, None)
        if isinstance(node.target, nodes.NSRef):
            scope[f"{node.target.name}.{node.target.attr}"] = hazard or STABLE
        elif hazard is None and type(node.node) is nodes.Const and isinstance(node.node.value, str):
            _bind(scope, node.target, _Captured(_count(node.node.value)))
        else:
            _bind(scope, node.target, hazard or STABLE)

    def _s_AssignBlock(self, node: nodes.AssignBlock, scope: _Scope, out: list[Event]) -> None:
        captured: list[Event] = []
        self.body(node.body, scope, captured)
        first = next((e for e in captured if isinstance(e, Hazard)), None)
        if first is None:
            _bind(scope, node.target, _Captured(sum(e for e in captured if isinstance(e, int))))
        else:
            detail = f"a `{{% set %}}` block that renders {first.detail}"
            _bind(
                scope,
                node.target,
                Hazard(
                    first.code,
                    first.line,
                    first.anchor,
                    detail,
                    self.origin,
                    fix=first.fix,
                    conversation=first.conversation,
                    per_conversation=first.per_conversation,
                ),
            )

    def _s_Macro(self, node: nodes.Macro, scope: _Scope, out: list[Event]) -> None:
        scope[node.name] = _Macro(name=node.name, node=node, scope=scope, walker=self)

    def _s_CallBlock(self, node: nodes.CallBlock, scope: _Scope, out: list[Event]) -> None:
        self._render(node.call, scope, out)
        inner = dict(scope)
        for arg in node.args:
            _bind(inner, arg, STABLE)
        self.body(node.body, inner, out)

    def _s_FilterBlock(self, node: nodes.FilterBlock, scope: _Scope, out: list[Event]) -> None:
        self.body(node.body, scope, out)
        hazard = self.reason(node.filter, scope)
        if hazard is not None:
            out.append(hazard)

    def _s_With(self, node: nodes.With, scope: _Scope, out: list[Event]) -> None:
        inner = dict(scope)
        for target, value in zip(node.targets, node.values, strict=False):
            _bind(inner, target, self.reason(value, scope) or STABLE)
        self.body(node.body, inner, out)

    def _s_Block(self, node: nodes.Block, scope: _Scope, out: list[Event]) -> None:
        override = self.overrides.get(node.name)
        if override is None:
            self.body(node.body, scope, out)
            return
        block, walker, block_scope = override
        walker.body(block.body, dict(block_scope), out)

    def _s_Include(self, node: nodes.Include, scope: _Scope, out: list[Event]) -> None:
        child = self._child(
            node.template, node.lineno, "included template", optional=node.ignore_missing
        )
        if child is None:
            out.append(Unsized("an included template"))
            return
        walker, loaded = child
        events = walker.template(loaded.ast, dict(scope) if node.with_context else {})
        out.extend(self._relocate(events, node.lineno, "include", _from(loaded, "included")))

    def _s_Import(self, node: nodes.Import, scope: _Scope, out: list[Event]) -> None:
        scope[node.target] = self._module(node.template, node.lineno)

    def _s_FromImport(self, node: nodes.FromImport, scope: _Scope, out: list[Event]) -> None:
        module = self._module(node.template, node.lineno)
        for name in node.names:
            source, alias = name if isinstance(name, tuple) else (name, name)
            scope[alias] = module.get(source, STABLE)

    def _s_ExprStmt(self, node: nodes.ExprStmt, scope: _Scope, out: list[Event]) -> None:
        return  # `{% do %}` renders nothing

    def _module(self, template: nodes.Expr, line: int) -> dict[str, _Macro]:
        child = self._child(template, line, "imported template")
        if child is None:
            return {}
        walker, loaded = child
        module_scope: _Scope = {}
        walker.template(loaded.ast, module_scope)
        return {k: v for k, v in module_scope.items() if isinstance(v, _Macro)}

    # -- macros ---------------------------------------------------------------------------

    def _macro(self, callee: nodes.Expr, scope: _Scope) -> _Macro | None:
        if type(callee) is nodes.Name:
            found = scope.get(callee.name)
        elif type(callee) is nodes.Getattr and type(callee.node) is nodes.Name:
            module = scope.get(callee.node.name)
            found = module.get(callee.attr) if isinstance(module, dict) else None
        else:
            return None
        return found if isinstance(found, _Macro) else None

    def _macro_events(self, macro: _Macro) -> list[Event]:
        if macro.events is not None:
            return macro.events
        if macro.busy:  # a recursive macro: its own output is already being counted
            return []
        macro.busy = True
        inner = dict(macro.scope)
        for arg in (*macro.node.args, "caller", "varargs", "kwargs"):
            _bind(inner, arg, STABLE)
        events: list[Event] = []
        macro.walker.body(macro.node.body, inner, events)
        macro.events = _compact(events)
        macro.busy = False
        return macro.events

    def _inline(self, macro: _Macro, line: int) -> list[Event]:
        where = "" if macro.walker.origin == self.origin else f" of {macro.walker.origin}"

        def describe(hazard: Hazard) -> str:
            return f"macro `{macro.name}()` (line {hazard.line}{where}) renders {hazard.detail}"

        return self._relocate(self._macro_events(macro), line, macro.name, describe, always=True)

    def _macro_hazard(self, expr: nodes.Node, scope: _Scope) -> Hazard | None:
        for call in _calls(expr):
            macro = self._macro(call.node, scope)
            if macro is not None:
                inlined = self._inline(macro, call.lineno)
                found = next((e for e in inlined if isinstance(e, Hazard)), None)
                if found is not None:
                    return found
        return None

    # -- expressions ----------------------------------------------------------------------

    def reason(self, expr: nodes.Node, scope: _Scope) -> Hazard | None:
        """Why `expr` differs per request (the first cause found), or None when it does not."""
        kind = type(expr)
        if kind is nodes.Const or kind is nodes.TemplateData:
            return None
        if kind is nodes.Test and expr.name in _EXISTENCE_TESTS:  # type: ignore[attr-defined]
            if type(expr.node) is nodes.Name:  # type: ignore[attr-defined]
                self._defined.add(expr.node.name)  # type: ignore[attr-defined]
            return None  # `x is defined` checks configuration, not the value
        if kind is nodes.Name:
            return self._name_reason(expr, scope)  # type: ignore[arg-type]
        if self.chat and self._fixed_default_date(expr, scope):
            return None
        if kind is nodes.Call:
            return self._call_reason(expr, scope)  # type: ignore[arg-type]
        if kind is nodes.Getattr or kind is nodes.Getitem:
            dotted = _dotted(expr)
            if dotted is not None:
                return self._variable_reason(dotted, expr.lineno, scope)
        if kind is nodes.Filter and self.config.is_volatile_filter(expr.name):  # type: ignore[attr-defined]
            return self._hazard("PC101", expr.lineno, expr.name, f"the `{expr.name}` filter")  # type: ignore[attr-defined]
        for child in expr.iter_child_nodes():
            found = self.reason(child, scope)
            if found is not None:
                return found
        return None

    def _fixed_default_date(self, expr: nodes.Node, scope: _Scope) -> bool:
        """
        A chat template's date variable that falls back to a fixed date (Llama 3.1's
        `date_string if date_string is defined else '26 Jul 2024'`, or `| default(...)`).

        The template itself renders the same date on every request; only a value the caller
        passes can change it, which the linter cannot see: said in a note, not warned.
        """
        found = _defaulted(expr)
        if found is None:
            return False
        name, fallback = found
        if name in scope or not _is_chat_date_name(name):
            return False
        self._note(
            expr.lineno,
            f"`{name}`: the template falls back to the fixed date {fallback!r}; if your code "
            f"passes `{name}`, give it a value that changes once a day at most",
        )
        return True

    def _name_reason(self, expr: nodes.Name, scope: _Scope) -> Hazard | None:
        if expr.name == TAIL_NAME:
            return None
        return self._variable_reason(expr.name, expr.lineno, scope)

    def _variable_reason(self, dotted: str, line: int, scope: _Scope) -> Hazard | None:
        root = dotted.split(".", 1)[0]
        if self.chat and not self._history and dotted in self._content_flags:
            detail = (
                f"`{dotted}`, set from the text of every message up to the newest (a switch "
                "a new message can flip)"
            )
            return self._hazard("PC302", line, root, detail)
        bound = scope.get(dotted, scope.get(root))
        if isinstance(bound, Hazard):
            cause, cause_line = bound.origin_of()
            detail = f"`{dotted}` (set from {cause} on line {cause_line})"
            fix = bound.fix
            if bound.code == "PC301" and root in self._defined:
                fix = date_fix(pin=root)  # the template lets the request set the value
            written = (bound.written or cause_line) if bound.origin == self.origin else 0
            return Hazard(
                bound.code,
                line,
                root,
                detail,
                self.origin,
                cause,
                cause_line,
                fix,
                written,
                conversation=bound.conversation,
                per_conversation=bound.per_conversation,
            )
        if bound is not None:
            if self.chat and "." in dotted and _is_current_date_field(dotted.rsplit(".", 1)[-1]):
                # MiniMax-M2's `system_message.current_date`: today's date the client sends.
                detail = f"the date field `{dotted}`"
                return self._hazard("PC301", line, root, detail, fix=date_fix(variable=dotted))
            return None
        if self.chat:
            if _is_chat_date_name(dotted) or _is_chat_date_name(dotted.rsplit(".", 1)[-1]):
                detail = f"the date variable `{dotted}`"
                return self._hazard("PC301", line, root, detail, fix=date_fix(variable=dotted))
            return None
        if self.config.is_per_request(dotted):
            fixed = _is_per_conversation_name(dotted) or _is_per_conversation_name(root)
            date = not _is_clock_name(dotted) and _is_date_name(dotted.rsplit(".", 1)[-1])
            per_turn = not fixed and not date
            if self.after_conversation and not per_turn:
                return None  # fixed for the conversation, the only one this text is cached in
            if fixed:
                detail = f"per-request variable `{dotted}`"
                return Hazard("PC102", line, root, detail, self.origin, per_conversation=True)
            if per_turn and self.system:
                clock = "the clock" if _is_clock_name(dotted) else "the per-turn"
                detail = f"{clock} variable `{dotted}` of a system prompt"
                return Hazard(
                    "PC102",
                    line,
                    root,
                    detail,
                    self.origin,
                    fix=SYSTEM_CLOCK_FIX,
                    conversation=True,
                )
            return self._hazard("PC102", line, root, f"per-request variable `{dotted}`")
        return None

    def _call_reason(self, expr: nodes.Call, scope: _Scope) -> Hazard | None:
        dotted = _dotted(expr.node)
        if dotted is not None:
            if self._macro(expr.node, scope) is None and self.config.is_volatile_call(dotted):
                anchor = dotted.rsplit(".", 1)[-1]
                detail = f"volatile call `{dotted}()`"
                return self._hazard("PC101", expr.lineno, anchor, detail, fix=date_fix(call=dotted))
        else:
            found = self.reason(expr.node, scope)
            if found is not None:
                return found
        for child in (*expr.args, *expr.kwargs, expr.dyn_args, expr.dyn_kwargs):
            if child is not None:
                found = self.reason(child, scope)
                if found is not None:
                    return found
        return None

    def _hazard(self, code: str, line: int, anchor: str, detail: str, *, fix: str = "") -> Hazard:
        if self.chat and code in ("PC101", "PC102", "PC103"):
            code = "PC301"
        return Hazard(code, line, anchor, detail, self.origin, fix=fix if code == "PC301" else "")

    # -- chat templates: history that re-renders (PC302) -----------------------------------

    def _check_position_branch(
        self,
        node: nodes.If,
        body: Sequence[nodes.Node],
        else_: Sequence[nodes.Node],
        out: list[Event],
    ) -> None:
        """
        A branch inside the history loop on where the message sits (PC302), whatever it renders.

        `loop.last`, `messages[-1]`, "is this the latest user message", a look-ahead: once a turn
        is appended, the answer changes for a message that is already cached, so that message
        (or the tools list or system prompt attached to it) renders differently every turn.
        """
        if not self._history or "branch" in self._reported:
            return
        setting_only = not any(_renders(stmt) for stmt in (*body, *else_))
        if setting_only and _only_looks_ahead((*body, *else_)):
            return  # `{% if not loop.last %}{% set next_role = messages[loop.index].role %}`
        test = self._expanded(node.test)
        anchor = _position_test(test, loop_is_history=bool(self._loops and self._loops[-1]))
        if anchor is None:
            self._check_look_ahead_branch(node, body, else_, out)
            return
        loop_is_history = bool(self._loops and self._loops[-1])
        if not _on_position_by_default(test, self._on_by_default, loop_is_history):
            flag = next(iter(sorted(_flags_on(test, self._on_by_default))), "a flag")
            self._note(
                node.lineno,
                f"a branch on the message's position that `{flag}` (on by default) overrides: "
                f"every turn renders the same unless your code turns `{flag}` off, and then "
                "earlier turns render differently once a newer turn is appended",
            )
            return
        if id(node) in self._trailing and _static_only((*body, *else_)):
            # A separator after the message, written only when another message follows (or only
            # after the last one): what comes before it renders the same on every turn.
            return
        if _only_generation_prompt((*body, *else_)):
            # `{% if loop.last %}{% if add_generation_prompt %}...`: the generation prompt, which
            # follows the conversation at inference and is never part of a cached turn.
            return
        if _closes_a_run_in_branches(node):
            # `{% if loop.last %}<end>{% else %}{% if next.role != 'tool' %}<end>{% endif %}`: the
            # `loop.last or messages[loop.index0 + 1]...` shape written as two branches.
            return
        if not node.elif_ and _differ_only_at_the_end(body, else_):
            # `{% if not loop.last %}{{ turn + eos + '\n' }}{% else %}{{ turn + eos }}`: both
            # sides write the same turn, one with a separator after it; the turn renders the same
            # up to its very end whichever side is taken.
            return
        if any(_mentions_reasoning(child) for child in (*body, *else_)):
            detail = "a branch on the message's position in the history that changes its reasoning"
        else:
            detail = (
                f"a branch on the message's position in the history (`{anchor}`): what it "
                "renders for a turn changes once a newer turn is appended"
            )
        hazard = self._hazard("PC302", node.lineno, anchor.split(".")[0].split("[")[0], detail)
        if setting_only:  # reported at the loop's end unless a branch that renders is reported
            self._pending = self._pending or hazard
            return
        self._report_history("branch", hazard, out)

    def _check_look_ahead_branch(
        self,
        node: nodes.If,
        body: Sequence[nodes.Node],
        else_: Sequence[nodes.Node],
        out: list[Event],
    ) -> None:
        """
        Reasoning kept or dropped by a flag set from the messages after this one (PC302).

        gpt-oss renders a tool-call turn's analysis until a later final answer exists: the
        flag is computed in a loop over `messages[loop.index:]`, so an earlier turn the engine
        cached with its reasoning renders without it once the conversation moves on.
        """
        flag = next((f for f in _flags_read(node.test) if f in self._look_ahead), None)
        if flag is None or not any(_mentions_reasoning(child) for child in (*body, *else_)):
            return
        detail = (
            f"a branch on `{flag}`, set from the messages after this one, that keeps or drops "
            "the turn's reasoning: it renders differently once a later turn arrives"
        )
        hazard = self._hazard("PC302", node.lineno, flag.split(".")[0], detail)
        self._report_history("branch", hazard, out)

    def _is_history_alias(self, expr: nodes.Node) -> bool:
        """`turns`, `turns[::-1]`, `turns | reverse` for a name set from the messages."""
        node: Any = expr
        while type(node) in (nodes.Getitem, nodes.Filter) and node.node is not None:
            node = node.node
        return type(node) is nodes.Name and node.name in self._aliases

    def _expanded(self, test: nodes.Node) -> nodes.Node:
        """`test` with each name set from a position test in the history loop written out
        (DeepSeek V3.2's `{% set is_after_last_user = loop.index0 > last.value %}`)."""
        used = {n.name for n in _with_self(test, nodes.Name)} & set(self._position_names)
        if not used:
            return test
        return _Substitute(self._position_names).visit(copy.deepcopy(test))  # type: ignore[no-any-return]

    def _on_position(self, test: nodes.Node) -> bool:
        """Whether a test inside the history decides by where the message sits (or a look-ahead)."""
        if not self._history:
            return False
        test = self._expanded(test)
        loop_is_history = bool(self._loops and self._loops[-1])
        if _position_test(test, loop_is_history=loop_is_history) is not None:
            return _on_position_by_default(test, self._on_by_default, loop_is_history)
        return any(flag in self._look_ahead for flag in _flags_read(test))

    def _reasoning_written_back(self) -> bool:
        return bool(self._keeps_reasoning and self._keeps_reasoning[-1])

    def _report_history(self, kind: str, hazard: Hazard, out: list[Event]) -> None:
        """One PC302 finding of each kind per loop over messages: the rest is the same cause."""
        if kind not in self._reported:
            self._reported.add(kind)
            out.append(hazard)

    def _as_generated(self) -> bool:
        """Whether an empty `<think></think>` written here is what the generation prompt wrote
        for that turn: always, or under the same test and side as here."""
        return any(
            test is None or (test, side) in self._sides for test, side in self._empty_at_generation
        )

    def _check_history_text(self, data: nodes.TemplateData, out: list[Event]) -> None:
        """An empty `<think></think>` written as template text in the history loop (Kimi K2
        Thinking writes one for every turn before a cut computed from the end)."""
        if _is_empty_think(data.data) and not self._as_generated():
            line = data.lineno + data.data.count("\n", 0, data.data.find("<think>"))
            detail = "an empty `<think></think>` block for earlier turns"
            self._report_history("empty", self._hazard("PC302", line, "<think>", detail), out)

    def _check_history_expr(self, expr: nodes.Node, scope: _Scope, out: list[Event]) -> None:
        for call in _with_self(expr, nodes.Call):
            callee = call.node
            splits = type(callee) is nodes.Getattr and callee.attr in (
                "split",
                "rsplit",
                "partition",
            )
            if splits and any(_is_think_literal(arg) for arg in call.args):
                if _selects_reasoning(expr) or self._reasoning_written_back():
                    return  # the reasoning is split out to be written back, not dropped
                detail = "`split(...)` that strips the reasoning from earlier turns"
                hazard = self._hazard("PC302", call.lineno, callee.attr, detail)
                self._report_history("split", hazard, out)
                return
        if not self._as_generated() and any(
            isinstance(c.value, str) and _is_empty_think(c.value)
            for c in _with_self(expr, nodes.Const)
        ):
            detail = "an empty `<think></think>` block for earlier turns"
            self._report_history(
                "empty", self._hazard("PC302", expr.lineno, "<think>", detail), out
            )
            return
        names = {n.name for n in _with_self(expr, nodes.Name)}
        if not self._positional and self._reasoning_written_back():
            return  # empty only for a turn that has no reasoning: the same on every request
        if names & self._empty and any(_is_think_literal(c) for c in _with_self(expr, nodes.Const)):
            detail = "a `<think>` block that renders empty for turns whose reasoning was dropped"
            self._report_history(
                "empty", self._hazard("PC302", expr.lineno, "<think>", detail), out
            )


# -- helpers -----------------------------------------------------------------------------------


def _from(loaded: LoadedTemplate, kind: str) -> Callable[[Hazard], str]:
    def describe(hazard: Hazard) -> str:
        return f"{kind} template {loaded.name!r} (line {hazard.line}) renders {hazard.detail}"

    return describe


# Names Jinja itself provides (globals, the special names of blocks, loops and macros, and the
# i18n extension's translation calls): not the caller's variables, so their meaning is known.
_JINJA_NAMES = frozenset(
    {"_", "caller", "cycler", "dict", "gettext", "joiner", "kwargs", "lipsum", "loop",
     "namespace", "ngettext", "npgettext", "pgettext", "range", "self", "super", "varargs"}
)  # fmt: skip


def _rendered_by_jinja(origin: str) -> bool:
    """A file named as a Jinja template, whose single braces Jinja writes out unchanged."""
    return origin.lower().endswith(JINJA_SUFFIXES)


def _empty_think_at_generation(ast: nodes.Template) -> list[tuple[nodes.Node | None, bool]]:
    """The tests (and sides) under which the generation prompt writes an empty `<think></think>`;
    `(None, True)` when it always does."""
    found: list[tuple[nodes.Node | None, bool]] = []
    for generation in ast.find_all(nodes.If):
        if not any(n.name == _GENERATION_PROMPT for n in _with_self(generation.test, nodes.Name)):
            continue
        if any(
            _writes_empty_think(stmt) for stmt in generation.body if not isinstance(stmt, nodes.If)
        ):
            found.append((None, True))
        for inner in (i for stmt in generation.body for i in _with_self(stmt, nodes.If)):
            if not inner.elif_:
                found += [(inner.test, True)] if any(map(_writes_empty_think, inner.body)) else []
                found += [(inner.test, False)] if any(map(_writes_empty_think, inner.else_)) else []
    return found


def _writes_empty_think(stmt: nodes.Node) -> bool:
    if not isinstance(stmt, nodes.Output):
        return False
    texts = [c.data for c in stmt.nodes if type(c) is nodes.TemplateData]
    texts += [
        c.value
        for child in stmt.nodes
        for c in _with_self(child, nodes.Const)
        if isinstance(c.value, str)
    ]
    return any(_is_empty_think(text) for text in texts)


def _flags_from_content(body: Sequence[nodes.Node]) -> set[str]:
    """The `ns.attr` names set under a test on a message's text (`'/no_think' in m.content`)."""
    found: set[str] = set()
    for stmt in body:
        for branch in _with_self(stmt, nodes.If):
            if not _reads_content(branch.test):
                continue
            for part in (branch.body, branch.else_, *(e.body for e in branch.elif_)):
                found |= _namespace_sets(part)
    return found


def _reads_content(test: nodes.Node) -> bool:
    return any(a.attr in _TEXT_FIELDS for a in _with_self(test, nodes.Getattr)) or any(
        type(i.arg) is nodes.Const and i.arg.value in _TEXT_FIELDS
        for i in _with_self(test, nodes.Getitem)
    )


def _assigned_names(node: nodes.If) -> set[str]:
    """The names an `if` chain's branches set (`x`, `ns.attr`), nested branches included."""
    names: set[str] = set()
    for branch in (node.body, node.else_, *(e.body for e in node.elif_)):
        for stmt in branch:
            assigns = [*_with_self(stmt, nodes.Assign), *_with_self(stmt, nodes.AssignBlock)]
            for assign in assigns:
                target = assign.target
                if type(target) is nodes.NSRef:
                    names.add(f"{target.name}.{target.attr}")
                else:
                    names |= {n.name for n in _with_self(target, nodes.Name)}
    return names


class _Substitute(NodeTransformer):
    """Replaces names by the expressions they were set from (on a copy of a test)."""

    def __init__(self, names: Mapping[str, nodes.Node]) -> None:
        self.names = names

    def visit_Name(self, node: nodes.Name) -> nodes.Node:  # the visitor calls it by this name
        found = self.names.get(node.name)
        return copy.deepcopy(found) if found is not None else node


def _set_under(test: Hazard, name: str, line: int, origin: str) -> Hazard:
    """What a name set in a branch on `test` is: per-request, for the same cause."""
    cause, cause_line = test.origin_of()
    detail = f"`{name}`, set under an `{{% if %}}` on {cause} (line {cause_line})"
    return Hazard(
        test.code,
        line,
        name.split(".", 1)[0],
        detail,
        origin,
        cause=f"an `{{% if %}}` on {cause}",
        cause_line=line,
        fix=test.fix,
        conversation=test.conversation,
        per_conversation=test.per_conversation,
    )


def _writes_the_turns(node: nodes.For) -> bool:
    """A loop over the history (`chat_history`, `history`, `messages`) that writes each item's
    role, or role lines (`user:`, `assistant:`): the conversation rendered turn by turn, as a
    `.prompty` file or a promptflow chat template does."""
    iterated = _dotted(node.iter.node if type(node.iter) is nodes.Getitem else node.iter)
    if iterated is None or not _HISTORY_NAME.search(iterated.rsplit(".", 1)[-1]):
        return False
    if not isinstance(node.target, nodes.Name):
        return False
    item = node.target.name
    return any(
        _dotted(child) in (f"{item}.role", f"{item}.type")
        or (type(child) is nodes.TemplateData and _ROLE_LINE.search(child.data) is not None)
        for output in node.find_all(nodes.Output)
        for child in output.nodes
    )


def _bound(scope: _Scope, target: nodes.Node) -> _Scope:
    inner = dict(scope)
    _bind(inner, target, STABLE)
    return inner


def _template_names(template: nodes.Expr) -> tuple[str, ...]:
    if type(template) is nodes.Const and isinstance(template.value, str):
        return (template.value,)
    if isinstance(template, (nodes.List, nodes.Tuple)):
        return tuple(
            i.value for i in template.items if type(i) is nodes.Const and isinstance(i.value, str)
        )
    return ()


def _bind(scope: _Scope, target: object, value: _Binding) -> None:
    if isinstance(target, str):
        scope[target] = value
    elif isinstance(target, nodes.Name):
        scope[target.name] = value
    elif isinstance(target, nodes.Tuple):
        for item in target.items:
            _bind(scope, item, value)


def _dotted(expr: nodes.Node) -> str | None:
    """`user.profile.name` for a chain of attribute (or constant-key item) lookups on a name."""
    parts: list[str] = []
    while True:
        kind = type(expr)
        if kind is nodes.Name:
            parts.append(expr.name)  # type: ignore[attr-defined]
            return ".".join(reversed(parts))
        if kind is nodes.Getattr:
            parts.append(expr.attr)  # type: ignore[attr-defined]
        elif kind is nodes.Getitem and type(expr.arg) is nodes.Const:  # type: ignore[attr-defined]
            parts.append(str(expr.arg.value))  # type: ignore[attr-defined]
        else:
            return None
        expr = expr.node  # type: ignore[attr-defined]


def _calls(expr: nodes.Node) -> Iterable[nodes.Call]:
    return _with_self(expr, nodes.Call)


def _unsorted_view(expr: nodes.Node) -> tuple[str, str, str | None] | None:
    """
    (`what`, anchor, mapping) when `expr` iterates a mapping view with no sort after it.

    `mapping` is the dotted name of the mapping, or None when it is not a variable (a dict
    literal written in the template, or a call's result).
    """
    node: Any = expr
    while type(node) is nodes.Filter:
        if node.name in SORTING_FILTERS:
            return None
        if node.name == "items" and node.node is not None:
            mapping = _dotted(node.node)
            return f"{mapping or 'mapping'} | items", "items", mapping
        node = node.node
    if type(node) is nodes.Call and type(node.node) is nodes.Getattr and not node.args:
        view = node.node.attr
        if view in MAPPING_VIEWS:
            mapping = _dotted(node.node.node)
            return f"{_dotted(node.node) or view}()", view, mapping
    return None


def _shown_name(expr: nodes.Node) -> str | None:
    """The variable a rendered expression shows (`tools` for `tools | tojson(indent=2)`)."""
    node: Any = expr
    while True:
        kind = type(node)
        through = kind in (nodes.Filter, nodes.Test, nodes.Call) or (
            kind is nodes.Getitem and type(node.arg) is not nodes.Const
        )
        if not through:
            break
        node = node.node
        if node is None:
            return None
    return _dotted(node)


_SHORT_VALUE = _matcher(SHORT_VALUE_NAMES)


def _is_look_ahead(expr: nodes.Node) -> bool:
    """`messages[loop.index:]`: the messages after the current one."""
    if type(expr) is not nodes.Getitem or type(expr.arg) is not nodes.Slice:
        return False
    start = expr.arg.start
    return start is not None and any(_is_loop_index(n) for n in _with_self(start, nodes.Getattr))


def _namespace_sets(body: Sequence[nodes.Node]) -> set[str]:
    """The `ns.attr` names a body assigns with `{% set ns.attr = ... %}`."""
    found: set[str] = set()
    for stmt in body:
        for assign in _with_self(stmt, nodes.Assign):
            if type(assign.target) is nodes.NSRef:
                found.add(f"{assign.target.name}.{assign.target.attr}")
    return found


def _flags_read(test: nodes.Node) -> set[str]:
    return {
        f"{attr.node.name}.{attr.attr}"
        for attr in _with_self(test, nodes.Getattr)
        if type(attr.node) is nodes.Name
    }


def _is_messages(expr: nodes.Node) -> bool:
    if _is_range_call(expr):  # `range(messages | length)`: the history walked by index
        return any(_is_messages(arg) for arg in expr.args)  # type: ignore[attr-defined]
    dotted = _dotted(expr)
    if dotted is None and type(expr) is nodes.Getitem:  # messages[1:]
        dotted = _dotted(expr.node)
    if dotted is None and type(expr) is nodes.Filter and expr.node is not None:
        return _is_messages(expr.node)
    return dotted is not None and "messages" in dotted.lower()


def _is_range_call(expr: nodes.Node) -> bool:
    return type(expr) is nodes.Call and type(expr.node) is nodes.Name and expr.node.name == "range"


def _position_test(test: nodes.Node, *, loop_is_history: bool) -> str | None:
    """
    What makes a test depend on where the message sits relative to the end of the conversation
    (`loop.last`, `messages[-1]`), or None when it does not.

    `loop.last`, `loop.revindex*` and `loop.length` change as turns are appended;
    `loop.index*` changes meaning only when compared with something that is not a constant
    (Qwen3's `loop.index0 > ns.last_query_index`). `loop.first` and a look-behind are stable.
    Two shapes are stable too: a test on `add_generation_prompt` (the generation prompt, or
    training against inference), and `loop.last or messages[loop.index0 + 1]...`, which closes
    a run of messages and renders the same once the next message arrives.
    """
    if any(n.name == _GENERATION_PROMPT for n in _with_self(test, nodes.Name)):
        return None
    if loop_is_history and not _closes_a_run(test):
        for attr in _with_self(test, nodes.Getattr):
            if type(attr.node) is nodes.Name and attr.node.name == "loop" and attr.attr in _MOVING:
                return f"loop.{attr.attr}"
        for compare in _with_self(test, nodes.Compare):
            operands = [compare.expr, *(op.expr for op in compare.ops)]
            if any(_is_loop_index(o) for o in operands) and not all(
                _is_loop_index(o) or type(o) is nodes.Const for o in operands
            ):
                return "loop.index0"
    for item in _with_self(test, nodes.Getitem):
        dotted = _dotted(item.node)
        if dotted is not None and "message" in dotted.lower() and _is_negative(item.arg):
            return f"{dotted}[-1]"
    return None


def _trailing_ifs(body: Sequence[nodes.Node]) -> set[int]:
    """The `if` statements (and their `elif`s) that end an iteration: nothing renders after them."""
    found: set[int] = set()
    for stmt in reversed(body):
        if isinstance(stmt, nodes.If):
            found.add(id(stmt))
            for branch in (stmt.body, stmt.else_):
                found |= _trailing_ifs(branch)
            for elif_ in stmt.elif_:
                found.add(id(elif_))
                found |= _trailing_ifs(elif_.body)
            return found
        if _renders(stmt):
            return found
    return found


def _iteration_enders(body: Sequence[nodes.Node]) -> set[int]:
    """
    The `if`s, at any depth of a history loop's body (not inside an inner loop), after which
    nothing renders in the iteration: what follows them is only `set`s, or `if`s whose test a
    namespace flag set on that path decides false (`{% set ns.kind = 'call' %}`, then
    `{% if ns.kind not in ['call', 'response'] %}`).
    """
    found: set[int] = set()

    def visit(block: Sequence[nodes.Node], rest: list[Sequence[nodes.Node]]) -> None:
        for index, stmt in enumerate(block):
            if not isinstance(stmt, nodes.If):
                continue
            after = [block[index + 1 :], *rest]
            if _nothing_renders(after):
                found.add(id(stmt))
                found.update(id(elif_) for elif_ in stmt.elif_)
            for branch in (stmt.body, *(elif_.body for elif_ in stmt.elif_), stmt.else_):
                visit(branch, after)

    visit(body, [])
    return found


def _nothing_renders(blocks: Sequence[Sequence[nodes.Node]]) -> bool:
    """Whether the statements of `blocks`, run in order, write nothing, given the flags they set."""
    known: dict[str, object] = {}
    for block in blocks:
        for stmt in block:
            if isinstance(stmt, nodes.Assign) and type(stmt.target) is nodes.NSRef:
                key = f"{stmt.target.name}.{stmt.target.attr}"
                if type(stmt.node) is nodes.Const:
                    known[key] = stmt.node.value
                else:
                    known.pop(key, None)
                continue
            if isinstance(stmt, nodes.If) and _ruled_out(stmt, known):
                continue
            if _renders(stmt):
                return False
    return True


def _ruled_out(stmt: nodes.If, known: dict[str, object]) -> bool:
    """An `if` (no `elif`, no `else` that writes) whose test the known flags decide false."""
    if stmt.elif_ or any(_renders(child) for child in stmt.else_):
        return False
    return _decide(stmt.test, known) is False


_COMPARE: dict[str, Callable[[object, object], bool]] = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "in": lambda a, b: a in b,  # type: ignore[operator]
    "notin": lambda a, b: a not in b,  # type: ignore[operator]
}


def _decide(test: nodes.Node, known: dict[str, object]) -> bool | None:
    """`ns.attr == 'x'`, `!=`, `in [...]`, `not in [...]` and `not`, on known flags; else None."""
    if type(test) is nodes.Not:
        inner = _decide(test.node, known)
        return None if inner is None else not inner
    if type(test) is not nodes.Compare or len(test.ops) != 1:
        return None
    flag = _dotted(test.expr)
    operand = test.ops[0]
    compare = _COMPARE.get(operand.op)
    if flag is None or flag not in known or compare is None:
        return None
    value: object
    if type(operand.expr) is nodes.Const:
        value = operand.expr.value
    elif isinstance(operand.expr, (nodes.List, nodes.Tuple)) and all(
        type(item) is nodes.Const for item in operand.expr.items
    ):
        value = [item.value for item in operand.expr.items]  # type: ignore[attr-defined]
    else:
        return None
    try:
        return compare(known[flag], value)
    except TypeError:  # `in` on a value that is not a container
        return None


def _renders(stmt: nodes.Node) -> bool:
    """Whether a statement writes output (whitespace-only text does not count)."""
    if isinstance(stmt, (nodes.Assign, nodes.AssignBlock, nodes.ExprStmt, nodes.Macro)):
        return False
    if isinstance(stmt, nodes.Output):
        return any(
            not (type(child) is nodes.TemplateData and not child.data.strip())
            for child in stmt.nodes
        )
    return True


def _only_generation_prompt(stmts: Sequence[nodes.Node]) -> bool:
    """Whether every statement that renders is an `if` on `add_generation_prompt` (no else)."""
    rendering = [stmt for stmt in stmts if _renders(stmt)]
    return bool(rendering) and all(
        isinstance(stmt, nodes.If)
        and any(n.name == _GENERATION_PROMPT for n in _with_self(stmt.test, nodes.Name))
        and not stmt.elif_
        and not any(_renders(child) for child in stmt.else_)
        for stmt in rendering
    )


_Piece = Union[str, nodes.Node]  # noqa: UP007 - a runtime alias on Python 3.10


def _differ_only_at_the_end(body: Sequence[nodes.Node], else_: Sequence[nodes.Node]) -> bool:
    """Whether two branches write the same pieces, one followed only by more static text."""
    first, second = _pieces(body), _pieces(else_)
    if first is None or second is None or first == second:
        return False
    return _ends_with_more_text(first, second) or _ends_with_more_text(second, first)


def _ends_with_more_text(short: Sequence[_Piece], long: Sequence[_Piece]) -> bool:
    """Whether `long` is `short` followed by static text only."""
    if not short or len(long) < len(short):
        return False
    head = len(short) - 1
    if short[:head] != long[:head]:
        return False
    last, rest = short[head], long[head:]
    if isinstance(last, str):  # the short side's last text starts the long side's
        return isinstance(rest[0], str) and rest[0].startswith(last) and _all_text(rest[1:])
    return rest[0] == last and _all_text(rest[1:])


def _all_text(pieces: Sequence[_Piece]) -> bool:
    return all(isinstance(piece, str) for piece in pieces)


def _pieces(stmts: Sequence[nodes.Node]) -> list[_Piece] | None:
    """What a branch writes, in order: runs of static text, and the expressions between them
    (`a + b` concatenations taken apart); None when it does more than write output."""
    pieces: list[_Piece] = []
    for stmt in stmts:
        if not isinstance(stmt, nodes.Output):
            return None
        for child in stmt.nodes:
            for piece in _concatenated(child):
                if isinstance(piece, str) and pieces and isinstance(pieces[-1], str):
                    pieces[-1] += piece
                else:
                    pieces.append(piece)
    return pieces


def _concatenated(expr: nodes.Node) -> list[_Piece]:
    if type(expr) is nodes.TemplateData:
        return [expr.data]
    if type(expr) is nodes.Const and isinstance(expr.value, str):
        return [expr.value]
    if type(expr) is nodes.Add:
        return [*_concatenated(expr.left), *_concatenated(expr.right)]
    if type(expr) is nodes.Concat:  # `a ~ b`
        return [piece for part in expr.nodes for piece in _concatenated(part)]
    return [expr]


def _static_only(stmts: Sequence[nodes.Node]) -> bool:
    """Whether statements render only text written in the template (no variable, no call)."""
    for stmt in stmts:
        if not isinstance(stmt, nodes.Output):
            if _renders(stmt):
                return False
            continue
        for child in stmt.nodes:
            constant = type(child) is nodes.Const and isinstance(child.value, str)
            if type(child) is not nodes.TemplateData and not constant:
                return False
    return True


def _closes_a_run_in_branches(node: nodes.If) -> bool:
    """`{% if loop.last %}S{% else %}{% if <the next message> ... %}S{% endif %}{% endif %}`."""
    test = node.test
    if node.elif_ or type(test) is not nodes.Getattr or not _is_loop_attr(test, "last"):
        return False
    text = _static_text(node.body)
    rendering = [stmt for stmt in node.else_ if _renders(stmt)]
    if not text or len(rendering) != 1 or not isinstance(rendering[0], nodes.If):
        return False
    inner = rendering[0]
    if inner.elif_ or any(map(_renders, inner.else_)) or _static_text(inner.body) != text:
        return False
    read = {n.name for n in _with_self(inner.test, nodes.Name)}
    looked = [inner.test] + [
        stmt.node
        for stmt in node.else_
        if isinstance(stmt, nodes.Assign)
        and type(stmt.target) is nodes.Name
        and stmt.target.name in read
    ]
    return any(_reads_the_next_item(expr) for expr in looked)


def _reads_the_next_item(expr: nodes.Node) -> bool:
    """`messages[loop.index0 + 1]` or `messages[loop.index]`: the message after this one."""
    return any(
        (
            type(item.arg) is nodes.Add
            and any(_is_loop_index(n) for n in _with_self(item.arg, nodes.Getattr))
        )
        or (type(item.arg) is nodes.Getattr and _is_loop_attr(item.arg, "index"))
        for item in _with_self(expr, nodes.Getitem)
    )


def _only_looks_ahead(stmts: Sequence[nodes.Node]) -> bool:
    """Whether statements only set names from the message after this one."""
    assigns = [stmt for stmt in stmts if isinstance(stmt, nodes.Assign)]
    return len(assigns) == len(stmts) > 0 and all(_reads_the_next_item(a.node) for a in assigns)


def _static_text(stmts: Sequence[nodes.Node]) -> str | None:
    """The text statements write when it is all static (None otherwise), without blank edges."""
    pieces = _pieces([stmt for stmt in stmts if _renders(stmt)])
    if pieces is None or not all(isinstance(piece, str) for piece in pieces):
        return None
    return "".join(piece for piece in pieces if isinstance(piece, str)).strip() or None


def _closes_a_run(test: nodes.Node) -> bool:
    """`loop.last or messages[loop.index0 + 1].role != "tool"`: the end of a run of messages."""
    if type(test) is not nodes.Or:
        return False
    sides = (test.left, test.right)
    last = any(type(s) is nodes.Getattr and _is_loop_attr(s, "last") for s in sides)
    ahead = any(
        type(item.arg) is nodes.Add
        and any(_is_loop_index(n) for n in _with_self(item.arg, nodes.Getattr))
        for side in sides
        for item in _with_self(side, nodes.Getitem)
    )
    return last and ahead


def _is_loop_attr(node: nodes.Getattr, attr: str) -> bool:
    return type(node.node) is nodes.Name and node.node.name == "loop" and node.attr == attr


def _is_negative(node: nodes.Node) -> bool:
    if type(node) is nodes.Const:
        return isinstance(node.value, int) and not isinstance(node.value, bool) and node.value < 0
    return type(node) is nodes.Neg


def _is_loop_index(node: nodes.Node) -> bool:
    return (
        type(node) is nodes.Getattr
        and type(node.node) is nodes.Name
        and node.node.name == "loop"
        and node.attr in POSITION_ATTRS
    )


def _with_self(node: nodes.Node, kind: type[Any]) -> Iterable[Any]:
    """`node.find_all(kind)`, which skips `node` itself, plus `node` when it is a `kind`."""
    if isinstance(node, kind):
        yield node
    yield from node.find_all(kind)


def _mentions_reasoning(node: nodes.Node) -> bool:
    words = [c.value for c in _with_self(node, nodes.Const) if isinstance(c.value, str)]
    words += [n.name for n in _with_self(node, nodes.Name)]
    words += [a.attr for a in _with_self(node, nodes.Getattr)]
    return any(w in text.lower() for text in words for w in REASONING_WORDS)


def _is_think_literal(node: nodes.Node) -> bool:
    """A literal holding a reasoning delimiter: `<think>`, `</think>`, or a channel marker."""
    return (
        type(node) is nodes.Const
        and isinstance(node.value, str)
        and any(mark in node.value for mark in REASONING_MARKS)
    )


def _is_empty_think(text: str) -> bool:
    start = text.find("<think>")
    if start < 0:
        return False
    rest = text[start + len("<think>") :]
    return rest.lstrip().startswith("</think>")


def _defaulted(expr: nodes.Node) -> tuple[str, str] | None:
    """(name, fallback) for `name if name is defined else 'text'` or `name | default('text')`."""
    fallback: nodes.Node | None
    if type(expr) is nodes.CondExpr:
        test, value, fallback = expr.test, expr.expr1, expr.expr2
        tested = type(test) is nodes.Test and test.name == "defined"
        name = _dotted(test.node) if tested else None  # type: ignore[attr-defined]
        if name is None or value is None or _dotted(value) != name:
            return None
    elif type(expr) is nodes.Filter and expr.name == "default" and expr.node is not None:
        name = _dotted(expr.node)
        fallback = expr.args[0] if expr.args else None
        if name is None:
            return None
    else:
        return None
    if type(fallback) is nodes.Const and isinstance(fallback.value, str) and fallback.value.strip():
        return name, fallback.value
    return None


_SPLITS = frozenset({"split", "rsplit", "partition", "rpartition"})
_CLOSING_MARKS = ("</think", "<channel|>")  # the reasoning is what comes before them
_OPENING_MARKS = ("<think", "<|channel>")  # the reasoning is what comes after them


def _selects_reasoning(expr: nodes.Node, named: Mapping[str, list[str]] | None = None) -> bool:
    """
    Whether `expr` takes the reasoning part of a split on a reasoning delimiter
    (`content.split('</think>')[0]`, `text.split('<think>')[-1]`), not the answer part.
    `named` gives the texts a delimiter held in a variable may have (`set end = '</think>'`).
    """
    for item in _with_self(expr, nodes.Getitem):
        call, index = item.node, _int_index(item.arg)
        if index is None or type(call) is not nodes.Call or type(call.node) is not nodes.Getattr:
            continue
        if call.node.attr not in _SPLITS:
            continue
        marks = [a.value for a in call.args if type(a) is nodes.Const and isinstance(a.value, str)]
        marks += [
            m for a in call.args if type(a) is nodes.Name for m in (named or {}).get(a.name, [])
        ]
        last = index == -1 or (call.node.attr.endswith("partition") and index == 2)
        if index == 0 and any(c in m for m in marks for c in _CLOSING_MARKS):
            return True
        if last and any(
            o in m and not any(c in m for c in _CLOSING_MARKS)
            for m in marks
            for o in _OPENING_MARKS
        ):
            return True
    return False


def _int_index(node: nodes.Node) -> int | None:
    if type(node) is nodes.Const and type(node.value) is int:
        return node.value
    if type(node) is nodes.Neg and type(node.node) is nodes.Const and type(node.node.value) is int:
        return -node.node.value
    return None


def _writes_reasoning_back(body: Sequence[nodes.Node], flags: set[str]) -> bool:
    """
    Whether a loop over the history writes out the reasoning it splits out of a message
    (Qwen3's `reasoning_content`) for every turn, whatever its position: then the split
    extracts the reasoning to write it back, it does not drop it.
    """
    holders: set[str] = set()
    assigns = [a for stmt in body for a in _with_self(stmt, nodes.Assign)]
    named: dict[str, list[str]] = {}
    for assign in assigns:
        value = assign.node.value if type(assign.node) is nodes.Const else None
        if type(assign.target) is nodes.Name and isinstance(value, str):
            named.setdefault(assign.target.name, []).append(value)
    for _ in range(2):  # `set r = split(...)[0]`, then `set r = r | trim`
        for assign in assigns:
            if type(assign.target) is nodes.Name and (
                _selects_reasoning(assign.node, named)
                or any(n.name in holders for n in _with_self(assign.node, nodes.Name))
            ):
                holders.add(assign.target.name)
    return any(_writes_any(stmt, holders, named, flags, in_history=True) for stmt in body)


def _writes_any(
    stmt: nodes.Node,
    holders: set[str],
    named: Mapping[str, list[str]],
    flags: set[str],
    *,
    in_history: bool,
) -> bool:
    """Whether `stmt` writes a reasoning holder outside any branch on the turn's position."""
    if isinstance(stmt, nodes.Output):
        return any(
            type(child) is not nodes.TemplateData
            and (
                _selects_reasoning(child, named)
                or any(n.name in holders for n in _with_self(child, nodes.Name))
            )
            for child in stmt.nodes
        )
    if isinstance(stmt, nodes.If) and _on_position_by_default(stmt.test, flags, in_history):
        return False  # written for some positions only: the branch is reported itself
    inner = in_history and not isinstance(stmt, nodes.For)
    return any(
        _writes_any(child, holders, named, flags, in_history=inner)
        for child in stmt.iter_child_nodes()
        if isinstance(child, nodes.Stmt)
    )


def _true_by_default(expr: nodes.Node, flags: set[str]) -> bool:
    """`true`, a flag already on, `x if x is defined else true`, `x | default(true)`."""
    if type(expr) is nodes.Const:
        return expr.value is True
    if type(expr) is nodes.Name:
        return expr.name in flags
    if type(expr) is nodes.CondExpr:
        test = expr.test
        tested = type(test) is nodes.Test and test.name == "defined"
        same = tested and expr.expr1 is not None and _dotted(expr.expr1) == _dotted(test.node)  # type: ignore[attr-defined]
        return bool(same) and expr.expr2 is not None and _true_by_default(expr.expr2, flags)
    if type(expr) is nodes.Filter and expr.name == "default" and expr.args:
        return _true_by_default(expr.args[0], flags)
    return False


def _flags_on(test: nodes.Node, flags: set[str]) -> set[str]:
    return {n.name for n in _with_self(test, nodes.Name) if n.name in flags} | {
        n.node.name
        for n in _with_self(test, nodes.Filter)
        if n.name == "default" and type(n.node) is nodes.Name and _true_by_default(n, flags)
    }


def _on_position_by_default(test: nodes.Node, flags: set[str], loop_is_history: bool) -> bool:
    """
    Whether a test still depends on the message's position when every flag that is on by
    default is on: `keep or loop.index0 > ns.last_query_index` does not, `keep and ...` does.
    """
    if type(test) is nodes.Or:
        if _true_by_default(test.left, flags) or _true_by_default(test.right, flags):
            return False
        return any(
            _on_position_by_default(side, flags, loop_is_history)
            for side in (test.left, test.right)
        )
    if type(test) is nodes.And:
        return any(
            _on_position_by_default(side, flags, loop_is_history)
            for side in (test.left, test.right)
        )
    if type(test) is nodes.Not:
        return _on_position_by_default(test.node, flags, loop_is_history)
    return _position_test(test, loop_is_history=loop_is_history) is not None


def _chain_tests(node: nodes.If) -> list[nodes.Node]:
    return [node.test, *(elif_.test for elif_ in node.elif_)]


def _is_empty_string(node: nodes.Node) -> bool:
    return type(node) is nodes.Const and node.value == ""


def _compact(events: list[Event]) -> list[Event]:
    """Merge runs of token counts, so inlining a macro many times stays cheap."""
    merged: list[Event] = []
    for event in events:
        if isinstance(event, int) and merged and isinstance(merged[-1], int):
            merged[-1] += event
        else:
            merged.append(event)
    return merged
