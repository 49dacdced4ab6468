"""
The sink checks: given a value and the request position it reaches (system prompt, tools,
messages, the newest turn, a template), decide which of its dependencies break the cache there.

`Findings` reads no bindings and evaluates nothing: it is handed values. A dependency that is
known (a clock, per-request data) becomes a `Hit` recorded in the analysis; one that is a
parameter of the function being summarised becomes a `Pending` sink on that function, resolved
at each call (`_invoke`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._flow import (
    flatten,
    lines_after,
    static_after,
    text_after,
)
from ._locations import node_location
from ._project import Module
from ._quickinit import replace
from ._sinks import Sink
from ._summaries import Function, Hit, Pending
from ._turns import (
    WINDOW,
    after_unknown,
    history_after,
    opens,
    pieces_from,
    unknown_after,
)

if TYPE_CHECKING:
    from ._interp import Analysis

__all__ = ["UNPLACED", "Findings"]

from ._values import (
    NOT_FOLLOWED,
    PER_REQUEST,
    Dep,
    Param,
    Piece,
    Taint,
    Value,
)

# What a not-followed note of per-request data whose place in the list is lost says of it.
UNPLACED = "in a system message of a list whose turns the branches make differ"

_HISTORY_NAME = re.compile(r"(?:chat_|conversation_)?history|conversation")
_HISTORY_FIELD = re.compile(
    r"\{(?:chat_history|history|messages|conversation\w*|agent_scratchpad|scratchpad)\}"
)


def _is_system(turn: Value) -> bool:
    role = turn.field("role")
    return role is not None and role.text in ("system", "developer")


def _is_per_request(dep: Dep) -> bool:
    return isinstance(dep, Taint) and dep.code == PER_REQUEST


def _is_answer(turn: Value) -> bool:
    """A turn holding a model's answer (the conversation's own reply to the turns before it)."""
    return any(isinstance(d, Taint) and d.answer for d in turn.deps)


class Findings:
    """The sink checks of one frame: hits go to the analysis, pending sinks to `function`."""

    def __init__(self, analysis: Analysis, module: Module, function: Function | None):
        self.a = analysis
        self.module = module
        self.function = function

    def conversation_started(self, history: Value) -> None:
        """A history created and kept here (`self.messages = [system]`): what its system
        message holds was computed for the conversation, so it breaks no cache within it,
        wherever the history is sent. Only values computed in this function (or per-request
        data) count: one taken at import is the process's, shared by every conversation."""
        function = self.function
        first, last = (0, -1) if function is None else (function.node.lineno, 0)
        if function is not None:
            last = function.node.end_lineno or function.node.lineno
        # At module level (a Streamlit script's `st.session_state.messages = [...]`) only the
        # per-request data counts: a clock there is taken once per process.
        self.a.conversation_fixed.update(
            dep
            for dep in history.deps
            if isinstance(dep, Taint)
            and (
                dep.code == PER_REQUEST
                or (dep.path == self.module.display and first <= dep.line <= last)
            )
        )

    def system_message(self, message: Value, node: ast.AST, later: Sequence[Value] = ()) -> None:
        """A `{"role": "system", "content": ...}` literal (or a `SystemMessage(...)` made in a
        list literal) is a system prompt wherever it goes; in a list literal whose later turns
        are only the newest one, nothing else follows it."""
        role = message.field("role")
        if message.kind == "message":  # a `SystemMessage(...)`: the value is its content
            content, what = message, "LangChain SystemMessage"
        elif role is not None and role.text in ("system", "developer"):
            content = message.field("content") or Value(deps=message.deps - role.deps)
            what = f"{role.text} message"
        else:
            return
        if later and not history_after(later):
            rest = Value(deps=content.deps, pieces=pieces_from((content, *later)))
            self.last_turn(what, rest, node, role="system")
        else:
            self.sink_value(what, "system", content, node)

    def splat_into(self, sink: Sink, value: Value, node: ast.AST) -> None:
        """`sink(**value)`: each known keyword reaches its position; a parameter's keywords
        (an in-house wrapper's `**kwargs`, forwarded) are resolved at each call of it."""
        if value.fields is not None:
            for keyword, role in sink.keywords:
                found = value.field(keyword)
                if found is not None:
                    self.sink_value(sink.api, role, found, node)
            rest = value.field("**")
            if rest is not None and rest.deps:
                self.splat_into(sink, rest, node)
            return
        unknown = frozenset(d for d in value.deps if not isinstance(d, Param))
        for dep in value.deps:
            if isinstance(dep, Param):
                self.pend(dep, sink.api, "kwargs", 0, True)
        if unknown:
            self.sink_value(sink.api, "opaque", Value(deps=unknown), node)

    def system_text(self, what: str, value: Value, node: ast.AST) -> None:
        """
        A system prompt's text where what follows it is not seen (bound to a name that says
        "system prompt", a `SystemMessage` made apart from its request): its clocks break the
        whole conversation after it. Its per-request data is judged by the static text after
        it, as a template is: where the request is seen, its own check says whether a
        conversation follows.
        """
        per_request = frozenset(
            d
            for d in value.deps
            if isinstance(d, Taint) and PER_REQUEST in (d.code, d.unread)  # rendered unread too
        )
        params = [d for d in value.deps if isinstance(d, Param)]
        rest = value.deps - per_request - frozenset(params)
        if rest:
            self.sink_value(what, "system", replace(value, deps=rest), node)
        if per_request:
            self.sink_value(what, "system", replace(value, deps=per_request), node, history=False)
        pieces = flatten(value)
        for param in params:  # a clock it stands for breaks what follows; its data is judged
            self.pend(param, what, "system", static_after(pieces, param), True, named=True)

    # -- sinks ------------------------------------------------------------------------------

    def sink_value(
        self, api: str, role: str, value: Value, node: ast.AST, *, history: bool = True
    ) -> None:
        if role == "system" and not history:  # only the newest turn follows the system prompt
            self.last_turn(api, value, node, role="system")
        elif role in ("system", "tools"):
            pieces = flatten(value)
            for dep in value.deps:
                self.hit(dep, api, role, static_after(pieces, dep), True, node)
        elif role == "messages" or (role == "input" and value.items is not None):
            self.messages(api, value, node)
        elif role in ("input", "opaque"):
            if value.pieces is None and value.kind != "str":
                self.messages(api, value, node)
            elif role == "input" and (whole := _whole_parameter(value)) is not None:
                # `contents=message` of a wrapper's parameter: text or a list of turns, as
                # each caller passes it (a caller's window is a window of the history).
                self.pend(whole, api, "input", 0, True, whole=True)
                self.last_turn(api, replace(value, deps=value.deps - {whole}), node)
            else:
                self.last_turn(api, value, node)
        elif role == "config":
            for key, sub in (("system_instruction", "system"), ("tools", "tools")):
                found = value.field(key)
                if found is not None:
                    self.sink_value(api, sub, found, node)
        elif role == "body":
            inner = value.meta if value.kind == "json" and isinstance(value.meta, Value) else value
            for key, sub in (("system", "system"), ("messages", "messages"), ("tools", "tools")):
                found = inner.field(key)
                if found is not None:
                    self.sink_value(api, sub, found, node)
        elif role == "template":
            self.last_turn(api, value, node, role="template")
        elif role == "chat_template":
            for item in value.items or ():
                if (
                    item.items is not None
                    and len(item.items) == 2
                    and item.items[0].text in ("system", "developer")
                ):
                    continue  # the tuple is a sink of its own (see _e_List)

    def messages(self, api: str, value: Value, node: ast.AST) -> None:
        if value.items is None:
            for dep in value.deps:
                if isinstance(dep, Taint) and dep.code == PER_REQUEST:
                    self.unplaced(dep, value, api, node)
                    continue
                if isinstance(dep, Param):
                    self.pend(dep, api, "messages", 0, True, whole=True)
                    continue
                note = "the analysis cannot see where in the conversation it lands"
                self.hit(dep, api, "messages", 0, True, node, note=note)
            return
        items = value.items
        limit = max(self.a.config.threshold, 1) * 4
        for index, item in enumerate(items):
            if index == len(items) - 1:
                if not item.spliced:
                    self.last_turn(api, item, node)
                for dep in item.deps if item.spliced else ():
                    if isinstance(dep, Taint) and dep.code == WINDOW:  # the newest turns, windowed
                        self.hit(dep, api, "messages", 0, True, node)
                    elif isinstance(dep, Taint) and dep.code == PER_REQUEST:
                        self.unplaced(dep, item, api, node)
                    elif dep in item.unplaced:  # a clock of a system message the splice holds
                        note = "the analysis cannot see where in the conversation it lands"
                        self.hit(dep, api, "messages", 0, True, node, note=note)
                    elif isinstance(dep, Param):  # a caller's history, sent to its end
                        self.pend(dep, api, "messages", 0, True, whole=True)
                continue
            history = history_after(items[index + 1 :])
            # Without history after it, a turn loses only the static text after it, to the end.
            pieces = flatten(item) if history else pieces_from(items[index:])
            turn = not _is_system(item) and not item.spliced
            answered = turn and _is_answer(items[index + 1])
            for dep in item.deps:
                if item.spliced and isinstance(dep, Taint) and dep.code == PER_REQUEST:
                    self.unplaced(dep, item, api, node)
                    continue
                # A model's answer in a turn of the conversation, and the turn it answered, are
                # its history: they were new when sent, and are kept as they were.
                if answered and (isinstance(dep, Param) or dep.code == PER_REQUEST):
                    continue
                if turn and isinstance(dep, Taint) and dep.answer:
                    continue
                after = static_after(pieces, dep)
                if isinstance(dep, Param):
                    after = 0 if history else after
                    self.pend(
                        dep,
                        api,
                        "messages",
                        after,
                        history,
                        spliced=item.spliced,
                        opening=index == 0,
                    )
                elif (
                    history
                    # a window of the history written into a turn that more turns follow (a
                    # "recent conversation" message before the question): the turns it holds
                    # shift on every request, whatever follows them
                    or dep.code == WINDOW
                    or after >= limit
                    or after_unknown(dep)
                    # per-request data opening a later turn loses only the static text after it
                    or (opens(pieces, dep, limit) and (index == 0 or dep.code != PER_REQUEST))
                    or unknown_after(pieces, dep)
                ):
                    window = history or dep.code == WINDOW  # what follows a window is lost too
                    self.hit(dep, api, "messages", after, window, node)

    def unplaced(self, dep: Taint, value: Value, api: str, node: ast.AST) -> None:
        """Per-request data in a part of a message list the analysis takes for history (a
        splice, a list of unknown turns): the conversation's own, unless it was a system
        message's in a list whose turns a merge of branches lost (`Value.unplaced`). Then where
        it lands is unknown: in the newest turn it costs nothing, in a system message the whole
        conversation after it. Not followed (a note), never a silent pass."""
        if dep not in value.unplaced:
            return
        label = f"{dep.label}, {UNPLACED}"
        note = "the analysis cannot see where in the conversation it lands"
        taint = replace(dep, code=NOT_FOLLOWED, label=label)
        self.hit(taint, api, "messages", 0, False, node, note=note)

    def last_turn(self, api: str, value: Value, node: ast.AST, role: str = "last_turn") -> None:
        """The newest turn is the tail; only static text after a value in it is lost."""
        pieces = flatten(value)
        limit = max(self.a.config.threshold, 1) * 4
        for dep in value.deps:
            after = static_after(pieces, dep)
            history = (
                role == "template" and bool(_HISTORY_FIELD.search(text_after(pieces, dep)))
            ) or (role == "last_turn" and _clock(dep) and _conversation_after(pieces, dep))
            unknown = role == "system" and (
                after_unknown(dep)
                # per-request data opening the prompt loses only the static text after it
                or (opens(pieces, dep, limit) and not _is_per_request(dep))
                or unknown_after(pieces, dep)
            )
            if isinstance(dep, Param) or history or unknown or after >= limit:
                self.hit(dep, api, role, after, history, node, lines=lines_after(pieces, dep))
            elif _window_opens(pieces, dep):
                # A history written as text into the newest turn, after only static text: the
                # text grows by the last exchange on every request (its start is the previous
                # request's, read from the cache) until the window is full, then its oldest
                # lines drop and the turn from the window on is new every time.
                self.hit(dep, api, "history_text", after, True, node)

    def hit(
        self,
        dep: Dep,
        api: str,
        role: str,
        after: int,
        history: bool,
        node: ast.AST,
        note: str = "",
        *,
        lines: int | None = None,
    ) -> None:
        if isinstance(dep, Param):
            self.pend(dep, api, role, after, history, lines=lines)
            return
        line, column = node_location(self.module, node)
        self.a.record(
            self.module,
            Hit(
                taint=dep,
                api=api,
                role=role,
                after=after,
                history=history,
                site_path=self.module.display,
                site_line=line,
                site_column=column,
                note=note,
                lines=lines,
            ),
        )

    def pend(
        self,
        dep: Param,
        api: str,
        role: str,
        after: int,
        history: bool,
        *,
        spliced: bool = False,
        whole: bool = False,
        named: bool = False,
        opening: bool = False,
        lines: int | None = None,
        fills: tuple[tuple[str, Value], ...] = (),
        written: tuple[int, str] = (0, ""),
    ) -> None:
        """`written`: where the value is written into the prompt's text when `dep` was not
        written into a text here (a helper's line, for a caller's parameter handed to it)."""
        if self.function is not None:
            line, path = (dep.written, dep.written_path) if dep.written else written
            pending = Pending(
                index=dep.index,
                name=dep.name,
                api=api,
                role=role,
                after=after,
                history=history,
                path=dep.path,
                spliced=spliced,
                whole=whole,
                named=named,
                opening=opening,
                lines=lines,
                fills=fills,
                written=line,
                written_path=path,
            )
            if pending not in self.function.pending:
                self.function.pending.append(pending)


def _clock(dep: Dep) -> bool:
    return isinstance(dep, Taint) and dep.code == "PC501"


def _conversation_after(pieces: Sequence[Piece], dep: Dep) -> bool:
    """Whether the conversation so far, rendered into the text (`f"Today is {today}...
    Conversation:\\n{history}\\nUser: {question}"`, a parameter named as the history), comes
    after a clock `dep` in it: the turn grows at its end from request to request, so the clock
    above it makes the whole conversation be prefilled again, as a clock above the history does
    in a system prompt. (Per-request data there is this request's own: the newest turn has to
    hold it, and where it goes in the text is judged by the static text after it alone.)"""
    for index, piece in enumerate(pieces):
        if not isinstance(piece, str) and dep in piece:
            return any(
                isinstance(d, Param) and d is not dep and _HISTORY_NAME.fullmatch(d.name)
                for later in pieces[index + 1 :]
                if not isinstance(later, str)
                for d in later
            )
    return False


def _written_window(dep: Dep) -> bool:
    """A window of the history itself (not one turn indexed out of it, nor what a call the
    analysis cannot see into made of it: a search for similar chats is no history text)."""
    return isinstance(dep, Taint) and dep.code == WINDOW and not dep.element and not dep.via


def _window_opens(pieces: Sequence[Piece], dep: Dep) -> bool:
    """Whether `dep`, a window of the history, comes in `pieces` (the newest turn's or a
    single-turn prompt's text) before anything that varies: only static text (or nothing)
    precedes it. Per-request data before it (the question, then the recent turns) leaves
    nothing of the window's text to reuse, and it is quiet."""
    if not _written_window(dep):
        return False
    for piece in pieces:
        if isinstance(piece, str):
            continue
        if dep in piece:
            return True
        if any(not (isinstance(d, Taint) and d.code == WINDOW) for d in piece):
            return False
    return False


def _whole_parameter(value: Value) -> Param | None:
    """The parameter a value is, whole (`message`, or a per-request `message`): the one piece
    of its text is that parameter's own."""
    if value.pieces is None or len(value.pieces) != 1 or value.items is not None:
        return None
    params = [d for d in value.deps if isinstance(d, Param)]
    return params[0] if len(params) == 1 and not params[0].path else None
