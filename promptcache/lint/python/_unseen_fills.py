"""
Prompt templates whose fill the project never shows: a LangChain (or LlamaIndex) template made
and bound to a name (a module constant, an attribute, what a function returns) that nothing in
the project reads again: no `.invoke`, `.format`, `.partial`, pipe or chain of it in its module,
and no other file of the project naming it. The app that fills it lies elsewhere (another
repository, a service that imports the package), so no value ever reaches its variables and the
template rules (`_templates`) would say nothing. Its variables are judged where they are written
instead, by their names: one named as per-request data (`{question}`, `{user_profile}`) as the
per-request data it is (PC502); one whose name says it is a setting (`{language}`, `{persona}`,
a name declared `stable`) not at all; any other as of unknown meaning (PC508, opt-in, with the
long block of static text after it that PC106 asks of a template's variable).

Only the variables a cacheable prefix is built of are judged: those of a chat template's system
messages, and those of a single template's text (a `PromptTemplate`, a system message template).
A template read anywhere (its fill seen, or handed on where the analysis may not follow it), a
project whose files could not all be read, and a template made inside another call (handed on
as it is made) are left as the template rules judge them.
"""

from __future__ import annotations

import ast
import re
import string
from typing import TYPE_CHECKING

from ..rules.PC106 import LONG_PREFIX_FACTOR
from ._placeholders import Slot, slot_at
from ._quickinit import replace
from ._request_data import SYSTEM_NAME
from ._sinks import find_sink
from ._templates import static_of, template_variables
from ._unknown_origin import says_stable
from ._values import EMPTY, NOT_FOLLOWED, PER_REQUEST, Value

if TYPE_CHECKING:
    from ._frame import Frame
    from ._sinks import Sink

__all__ = ["unseen_fill", "unseen_string_fill"]

UNKNOWN = "PC508"
# The templates judged here: where each variable lands is known from the call that makes it.
_TEMPLATES = frozenset(
    {
        "LangChain chat prompt template",
        "LangChain prompt template",
        "LangChain system message template",
    }
)
_FIELD = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")
_SYSTEM_ROLES = frozenset({"system", "developer"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Function = ast.FunctionDef | ast.AsyncFunctionDef
_DEPTH = 4  # how many times a template bound again (`chain = prompt | llm`) is followed
# A runnable's methods that make a pipe starting with it (`prompt.pipe(llm)`).
_PIPES = frozenset({"pipe", "with_config", "with_retry", "with_fallbacks"})
# Chains whose runs fill the template given as their `prompt=` and nothing else of it.
_CHAINS = frozenset({"LLMChain"})


def unseen_fill(
    frame: Frame,
    sink: Sink,
    node: ast.Call,
    args: list[Value],
    keywords: dict[str, Value],
    info: dict[str, Slot],
) -> None:
    """At the call that makes a template (`info`: where each variable lands), when the project
    never reads it again, its prefix variables are judged by their names where they are written."""
    if sink.api not in _TEMPLATES or not info:
        return
    slots = _prefix_slots(sink, args, keywords, info)
    if not slots or _fill_may_be_seen(frame, node):
        return
    long_prefix = max(frame.a.config.threshold, 1) * LONG_PREFIX_FACTOR * 4  # in characters
    asks = frame.a.config.enabled(UNKNOWN)
    fields = []
    for name, slot in slots.items():
        if frame.a.per_request(name):
            label = f"`{{{name}}}` (a per-request template variable; no fill of it seen)"
            code = PER_REQUEST
        elif frame.a.stable(name) or says_stable(name):
            continue
        elif asks and (slot.role == "system" or slot.after >= long_prefix):
            label = f"`{{{name}}}` (a template variable of unknown meaning; no fill of it seen)"
            code = UNKNOWN
        else:
            continue
        fields.append((name, EMPTY.with_deps([frame.taint(code, label, node)])))
    if fields:
        template_variables(frame, slots, Value(fields=tuple(fields)), node, api=sink.api)


# A prompt's text by its name (`SYSTEM_PROMPT`, `QA_TEMPLATE`, `PROMPT_V2`, `AGENT_INSTRUCTIONS`).
_PROMPT_TEXT_NAME = re.compile(
    r"(?i)^_*(?:\w*_)?(?:prompt|template|instructions?|system)(?:_\w*)?$|^_*[a-z]\w*?(?:Prompt|Template)$"
)
# Words of a name that say its text is no prompt: a URL, a query, a log line, a page.
_NOT_PROMPT_WORDS = frozenset(
    {"url", "uri", "endpoint", "route", "path", "sql", "query", "log", "html", "filename", "file"}
)
# Text that reads as no prompt: an address, a path, a query, a page.
_NOT_PROMPT_TEXT = re.compile(
    r"(?is)^\s*(?:[a-z][a-z0-9+.-]*://|/|(?:select|insert|update|delete|with|create)\s|<(?:!doctype|html))"
)
_NAME_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
UNSEEN_STRING = "prompt text constant"


def unseen_string_fill(frame: Frame, target: ast.expr, value: Value) -> None:
    """
    A module constant or class attribute named as a prompt (`SYSTEM_PROMPT`, `QA_TEMPLATE`)
    whose text holds `{slot}` placeholders that nothing in the project fills: no read of it in
    its module, and no other file of the project naming it (the code that formats it lies
    elsewhere). Its slots are judged where they are written, by their names, as an unseen
    template's are (`unseen_fill`): a per-request name as per-request data (PC502), a setting
    name not at all, any other as of unknown meaning (PC508, opt-in), each only with enough
    static text after it. Text that `str.format` could not fill (a JSON example's braces), or
    that reads as no prompt (a URL, a query), is left alone.
    """
    if frame.function is not None or not isinstance(target, ast.Name) or value.deps:
        return
    name = target.id
    if not (_PROMPT_TEXT_NAME.match(name) or SYSTEM_NAME.match(name)):
        return
    text = value.text
    if not text or "{" not in text:
        return
    if {w.lower() for w in _NAME_WORDS.findall(name)} & _NOT_PROMPT_WORDS:
        return
    if _NOT_PROMPT_TEXT.match(text):
        return
    fields = _format_fields(text)
    if not fields:
        return
    handed = None
    if _read_anywhere(frame, name):
        handed = _handed_away(frame, name)
        if handed is None:
            return
    long_prefix = max(frame.a.config.threshold, 1) * LONG_PREFIX_FACTOR * 4  # in characters
    asks = frame.a.config.enabled(UNKNOWN)
    slots: dict[str, Slot] = {}
    judged = []
    for field, (start, end) in fields.items():
        after = len(text) - end
        if handed is not None and (frame.a.per_request(field) or (asks and after >= long_prefix)):
            label = f"`{{{field}}}` (a slot of `{name}`, filled only where {handed})"
            code = NOT_FOLLOWED
        elif handed is not None:
            continue
        elif frame.a.per_request(field):
            label = f"`{{{field}}}` (a per-request slot of `{name}`; no fill of it seen)"
            code = PER_REQUEST
        elif frame.a.stable(field) or says_stable(field):
            continue
        elif asks and after >= long_prefix:
            label = f"`{{{field}}}` (a slot of unknown meaning of `{name}`; no fill of it seen)"
            code = UNKNOWN
        else:
            continue
        slot = slot_at(frame.module, text, start, end, after, "template")
        taint = frame.taint(code, label, target)
        if code == NOT_FOLLOWED:  # not known to vary: said where it is written, nothing more
            written = slot.written[1] if slot.written else 0
            taint = replace(taint, written=written) if written != taint.line else taint
            frame.findings.hit(taint, UNSEEN_STRING, "template", after, False, target)
            continue
        slots[field] = slot
        judged.append((field, EMPTY.with_deps([taint])))
    if judged:
        template_variables(frame, slots, Value(fields=tuple(judged)), target, api=UNSEEN_STRING)


def _format_fields(text: str) -> dict[str, tuple[int, int]]:
    """The named `{slot}`s of `text` with where each is first written; none when `str.format`
    could not fill the text (a brace that opens no field, a JSON example's `{"key": ...}`)."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return {}
    for _, field, _, _ in parsed:
        if field is not None and field and not field.isdigit() and not field.isidentifier():
            return {}
    found: dict[str, tuple[int, int]] = {}
    for match in _FIELD.finditer(text):
        found.setdefault(match.group(1), (match.start(), match.end()))
    return found


def _read_anywhere(frame: Frame, name: str) -> bool:
    """Whether the project may read `name`: in its own module, in another file of the project,
    or in files that could not all be read. Text linted alone has no other files."""
    module = frame.module
    if _reads(module.tree, module.source, name, attributes=True):
        return True
    if module.path is None or not module.path.is_file():
        return False
    return frame.a.call_sites.mentions(name, module.path) is not False


def _handed_away(frame: Frame, name: str) -> str | None:
    """
    Where the project's only uses of `name` go where the analysis cannot follow them, said for
    a finding: the other files that name it import it and do nothing else with it, or hand it
    as it is to a call of code outside the project (`make_agent(instructions=NAME)`: no
    function of the project by that name, and no request or template the analysis knows).
    None when its own module reads it, a file may do anything else with it (a `.format`, a
    binding, a call of the project's own), or the project could not all be read.
    """
    module = frame.module
    if module.path is None or _reads(module.tree, module.source, name, attributes=True):
        return None
    files = frame.a.call_sites.files_naming(name, module.path)
    if not files:
        return None
    said: list[str] = []
    for shown, tree in files:
        imports = _imports_of(tree)
        if not any(dotted.rpartition(".")[2] == name for dotted in imports.values()):
            return None  # named, but not imported: another thing of that name, or a star
        callees: list[str] = []
        for read, parent in _reads_with_parents(tree, name):
            callee = _handed_to(read, parent, imports)
            if callee is None or frame.a.call_sites.defines(callee.rpartition(".")[2]):
                return None
            if find_sink(callee) is not None or _KNOWN_FILLS.search(callee):
                return None  # a request or a template the analysis reads
            callees.append(callee)
        if callees:
            said.append(f"`{shown}` hands it to `{callees[0]}()`")
        else:
            said.append(f"`{shown}` imports it and uses it no further")
    return ", ".join(said) + ", which the analysis cannot follow"


# Calls that fill a template or make one: the analysis reads them wherever they are.
_KNOWN_FILLS = re.compile(r"(?i)template|format|message")


# Where a file's imports and reads by name are kept on its tree (`_names_read`): the tree's own,
# freed with it. Every prompt of a project asks of the files that name it, and the same files
# name many (a project's prompts are all imported by the one module that uses them).
_READ_NAMES = "_promptcache_names_read"


class _NamesRead:
    """A file's imported names (local name -> dotted name) and its reads of each name, each with
    the node that holds it, in the order of `ast.walk` (see `_imports_of`, `_reads_with_parents`)."""

    __slots__ = ("imports", "reads")

    def __init__(self, tree: ast.Module) -> None:
        self.imports: dict[str, str] = {}
        self.reads: dict[str, list[tuple[ast.expr, ast.AST]]] = {}
        for parent in ast.walk(tree):
            if isinstance(parent, ast.ImportFrom):
                for alias in parent.names:
                    self.imports[alias.asname or alias.name] = f"{parent.module or ''}.{alias.name}"
            elif isinstance(parent, ast.Import):
                for alias in parent.names:
                    self.imports[alias.asname or alias.name.partition(".")[0]] = alias.name
            for child in ast.iter_child_nodes(parent):
                if isinstance(child, ast.keyword):  # a keyword's value is read by its call
                    name = _read_as(child.value, True)
                    if name is not None:
                        self.reads.setdefault(name, []).append((child.value, parent))
                elif not isinstance(parent, ast.keyword):
                    name = _read_as(child, True)
                    if name is not None:
                        self.reads.setdefault(name, []).append((child, parent))  # type: ignore[arg-type]


def _names_read(tree: ast.Module) -> _NamesRead:
    """The file's `_NamesRead`, made at the first question of the run about it (one walk)."""
    known = getattr(tree, _READ_NAMES, None)
    if not isinstance(known, _NamesRead):
        known = _NamesRead(tree)
        setattr(tree, _READ_NAMES, known)
    return known


def _imports_of(tree: ast.Module) -> dict[str, str]:
    """A file's imported names: local name -> dotted name (`from x import y as z`: z -> x.y)."""
    return _names_read(tree).imports


def _reads_with_parents(tree: ast.Module, name: str) -> list[tuple[ast.expr, ast.AST]]:
    """The reads of `name` in a file, each with the node that holds it (a keyword's call for a
    keyword's value)."""
    return _names_read(tree).reads.get(name, [])


def _handed_to(read: ast.expr, parent: ast.AST, imports: dict[str, str]) -> str | None:
    """The dotted callee a read is handed to as it is (an argument or keyword value), with its
    head resolved through the file's imports; None when the read is anything else."""
    if not isinstance(parent, ast.Call) or read is parent.func:
        return None
    try:
        called = ast.unparse(parent.func)
    except (ValueError, RecursionError):
        return None
    head, dot, rest = called.partition(".")
    return imports.get(head, head) + dot + rest


def _prefix_slots(
    sink: Sink, args: list[Value], keywords: dict[str, Value], info: dict[str, Slot]
) -> dict[str, Slot]:
    """The variables a prefix is built of: a chat template's system messages' (a system message
    template's among them), a single template's all; none a partial fills as it is made."""
    filled = keywords.get("partial_variables", EMPTY).fields or ()
    kept = {k: v for k, v in info.items() if v.role != "placeholder"}
    for name, _ in filled:
        kept.pop(name, None)
    if sink.api == "LangChain system message template":
        # Whether a conversation follows it is the chat template's to say, and none is seen:
        # judged by the static text after each variable, as a template is.
        return {k: v._replace(role="template") for k, v in kept.items()}
    if sink.api != "LangChain chat prompt template":
        return kept
    specs = (args[0] if args else keywords.get("messages", EMPTY)).items or ()
    names: set[str] = set()
    for spec in specs:
        if spec.items is not None and len(spec.items) == 2:
            if spec.items[0].text in _SYSTEM_ROLES:
                names.update(_FIELD.findall(static_of(spec.items[1])))
        elif isinstance(spec.meta, dict):
            names.update(k for k, slot in spec.meta.items() if slot.role == "system")
    return {k: v for k, v in kept.items() if k in names}


def _fill_may_be_seen(frame: Frame, node: ast.Call) -> bool:
    """Whether the project may fill the template made at `node`: where it goes (`_names`) is
    not known, another file of the project names it, or the project's files could not all be
    read. A template linted from text alone has no other files."""
    names = _names(frame, node)
    if names is None:
        return True
    module = frame.module
    if module.path is None or not module.path.is_file():
        return False
    path = module.path
    return any(frame.a.call_sites.mentions(name, path) is not False for name in names)


def _names(frame: Frame, node: ast.Call) -> list[str] | None:
    """
    The names the template made at `node` goes by, followed while each is read once and only
    to be bound again (`chain = prompt | llm`, `return chain`): a module's or a class's name, an
    attribute, the function that returns it (a local variable is its function's business). None
    when a name is read otherwise (a fill, a call that takes it, a second use: followed by the
    analysis as before) or the template is not bound as it is made (handed to a call).
    """
    if frame.function is not None and not isinstance(frame.function.node, _FUNCTIONS):
        return None  # a lambda's body: handed to whatever calls it
    module = frame.module
    tree = module.tree
    names: list[str] = []
    expr: ast.expr = node
    for _ in range(_DEPTH):
        held = _holder(tree, expr)
        if held is None:
            return None
        statement, function = held
        target = _target(statement)
        scope: ast.AST = tree
        if isinstance(statement, ast.Return):
            if function is None:
                return None
            name, local = function.name, False
        elif isinstance(target, ast.Attribute):
            name, local = target.attr, False
        elif isinstance(target, ast.Name):
            local = function is not None
            name, scope = target.id, function or tree
        else:
            return None
        if not local:
            names.append(name)
        reads = _reads(scope, module.source, name, attributes=not local)
        if not reads:  # nothing reads it again: the template goes no further
            return names or None
        if len(reads) > 1:
            return None
        expr = reads[0]
    return None


def _target(statement: ast.stmt) -> ast.expr | None:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        return statement.targets[0]
    return statement.target if isinstance(statement, ast.AnnAssign) else None


def _holder(tree: ast.Module, expr: ast.expr) -> tuple[ast.stmt, _Function | None] | None:
    """The assignment or return that binds `expr` as it is, as the first step of a pipe
    (`expr | llm`, `expr.pipe(llm)`), or as a value of a literal dict, list or tuple, with the
    function it is in (None: the module's or a class's body)."""
    todo: list[tuple[ast.AST, _Function | None]] = [(tree, None)]
    while todo:
        node, function = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Assign | ast.AnnAssign | ast.Return) and _binds(child, expr):
                return child, function
            inner = child if isinstance(child, _FUNCTIONS) else function
            if isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):  # hold statements
                todo.append((child, inner))
    return None


def _binds(statement: ast.Assign | ast.AnnAssign | ast.Return, expr: ast.expr) -> bool:
    value = statement.value
    if value is None:
        return False
    first = _first_step(value)
    return first is expr or any(v is expr for v in _held(value))


def _first_step(value: ast.expr) -> ast.expr:
    """What a pipe starts with (`prompt | llm | parser`, `prompt.pipe(llm)`, a legacy
    `LLMChain(prompt=prompt)`): the template its runs fill; the value itself when it is not a
    pipe."""
    while True:
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
            value = value.left
        elif (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr in _PIPES
        ):
            value = value.func.value
        elif isinstance(value, ast.Call) and _callee(value) in _CHAINS:
            prompt = [k.value for k in value.keywords if k.arg == "prompt"]
            if not prompt:
                return value
            value = prompt[0]
        else:
            return value


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _held(value: ast.expr) -> list[ast.expr | None]:
    if isinstance(value, ast.Dict):
        return list(value.values)
    return list(value.elts) if isinstance(value, ast.List | ast.Tuple) else []


def _reads(scope: ast.AST, source: str, name: str, *, attributes: bool) -> list[ast.expr]:
    """The reads of `name` in `scope` (`name`; `x.name` too, with `attributes`). Only the lines
    that write the name are walked."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    lines = {n for n, text in enumerate(source.splitlines(), start=1) if word.search(text)}
    found: list[ast.expr] = []
    todo: list[ast.AST] = [scope] if lines else []
    while todo:
        for child in ast.iter_child_nodes(todo.pop()):
            first = getattr(child, "lineno", None)
            if first is not None:
                last = getattr(child, "end_lineno", None) or first
                if not any(first <= n <= last for n in lines):
                    continue
            if _read_as(child, attributes) == name:
                found.append(child)  # type: ignore[arg-type]
            todo.append(child)
    return found


def _read_as(node: ast.AST, attributes: bool) -> str | None:
    """The name a `name` (or `x.name`) read is of (None: not such a read)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        return node.id
    if attributes and isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        return node.attr
    return None
