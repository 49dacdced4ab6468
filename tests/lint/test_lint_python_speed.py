"""
The Python lint's cost, held where the benchmark (`bench/bench_lint.py`) put it: the work each
shortcut saves is counted here (system calls, objects left for the collector), and each
shortcut's answers are checked against the slow way's.
"""

from __future__ import annotations

import ast
import dataclasses
import gc
import os
import re
import textwrap
from dataclasses import FrozenInstanceError, dataclass, field, replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptcache.lint import LintConfig, lint_paths
from promptcache.lint.python import PythonLinter, _turns
from promptcache.lint.python import _project as project_module
from promptcache.lint.python._flow import merge
from promptcache.lint.python._lint import (
    _TRIGGER_PARTS,
    _alias_lines,
    _alias_pattern,
)
from promptcache.lint.python._project import Module, import_table
from promptcache.lint.python._quickinit import quick_init
from promptcache.lint.python._quickinit import replace as quick_replace
from promptcache.lint.python._request_data import _USER_TURN
from promptcache.lint.python._scope import _RUN_CONTEXTS, _mentions
from promptcache.lint.python._summaries import Hit, Pending
from promptcache.lint.python._turns import _instance_methods, _trimmed, windowed_attributes
from promptcache.lint.python._values import Param, Taint, Value
from promptcache.lint.python._walk import push_children, walk

LONG = "Follow the refund policy exactly as written in section four. " * 20


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


_AGENT = f"""
    import json, os, re, sys, time, typing, logging, asyncio, dataclasses, functools
    from collections import defaultdict
    from pathlib import Path
    from helpers.text import greeting
    def ask(client, question):
        used = [json.dumps({{}}), os.getenv("A"), re.escape("a"), sys.platform, time.monotonic(),
                typing.cast(str, "a"), logging.getLogger("a"), asyncio.sleep(0),
                dataclasses.field(), functools.partial(print), defaultdict(list), Path("a")]
        return client.messages.create(
            model="m", system=greeting() + "{LONG}" + str(len(used)),
            messages=[{{"role": "user", "content": question}}])
"""
_HELPERS = """
    from datetime import datetime
    def greeting():
        return f"Hello. Now {datetime.now()}."
"""


def _project(root: Path) -> Path:
    _write(
        root,
        {
            "helpers/__init__.py": "",
            "helpers/text.py": _HELPERS,
            "app/deep/er/agent.py": _AGENT,
        },
    )
    return root / "app" / "deep" / "er" / "agent.py"


def test_imports_are_looked_up_in_folder_listings_not_name_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each import not in the project was looked for as `name.py` and `name/__init__.py` in a
    # dozen folders, two system calls each: half as long as parsing the files. One listing per
    # folder answers every name in it.
    agent = _project(tmp_path)
    calls: list[str] = []
    for name in ("lexists", "isfile", "exists", "isdir"):
        real = getattr(os.path, name)
        monkeypatch.setattr(
            os.path, name, lambda path, _real=real, _name=name: calls.append(_name) or _real(path)
        )
    real_listdir = os.listdir
    listed: list[str] = []
    monkeypatch.setattr(os, "listdir", lambda path: listed.append(path) or real_listdir(path))
    found = lint_paths([agent], config=LintConfig(root=tmp_path, include=("*.py",)))
    assert [(f.code, f.line) for f in found] == [("PC501", 10)]
    assert "helpers/text.py:4" in found[0].message
    # 12 outside modules looked for in 5 folders: one listing a folder (and the package found)
    # and a call for each file that is there, not one a name and folder
    assert len(calls) <= 4, calls
    assert len(listed) == len(set(listed)) <= 6, listed


def test_a_folder_that_cannot_be_listed_is_asked_name_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A folder one may enter but not list (mode --x): its modules are still found.
    agent = _project(tmp_path)
    real_listdir = os.listdir
    helpers = str(tmp_path / "helpers")

    def listdir(path: str) -> list[str]:
        if os.fspath(path) in (helpers, str(tmp_path)):
            raise PermissionError(13, "Permission denied", path)
        return real_listdir(path)

    monkeypatch.setattr(os, "listdir", listdir)
    found = lint_paths([agent], config=LintConfig(root=tmp_path, include=("*.py",)))
    assert [(f.code, f.line) for f in found] == [("PC501", 10)]
    assert "helpers/text.py:4" in found[0].message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_module_that_is_a_fifo_is_in_the_listing_and_still_not_read(tmp_path: Path) -> None:
    # Not a regular file, but the module Python would import: it cannot be read, and the
    # finding says the value was not followed, never that the request is clean.
    agent = _project(tmp_path)
    (tmp_path / "helpers" / "text.py").unlink()
    os.mkfifo(tmp_path / "helpers" / "text.py")
    found = lint_paths([agent], config=LintConfig(root=tmp_path, include=("*.py",)))
    assert found, "an unreadable module was taken as clean"
    assert any("helpers.text" in f.message for f in found), [f.message for f in found]


def test_a_run_leaves_no_cycles_for_the_collector(tmp_path: Path) -> None:
    # A method knew its class and the class its methods: every module with a class stayed in a
    # cycle with its tree, which the collector traversed again when it resumed after the run.
    _write(
        tmp_path,
        {
            "helpers.py": """
                from datetime import datetime
                class Prompts:
                    def __init__(self):
                        self.now = datetime.now()
                    def system(self):
                        return f"Now {self.now}."
            """,
            "agent.py": f"""
                from helpers import Prompts
                class Agent:
                    def ask(self, client, question):
                        return client.messages.create(
                            model="m", system=Prompts().system() + "{LONG}",
                            messages=[{{"role": "user", "content": question}}])
            """,
            "tools.py": """
                class Tool:
                    def run(self):
                        return "ok"
            """,
        },
    )
    gc.collect()
    collecting = gc.isenabled()
    gc.disable()
    try:
        found = lint_paths([tmp_path], config=LintConfig(root=tmp_path, include=("*.py",)))
        left = gc.collect()
    finally:
        if collecting:
            gc.enable()
    assert [(f.path.rsplit("/", 1)[-1], f.code) for f in found] == [("agent.py", "PC501")]
    assert left == 0


def test_projects_linted_with_one_configuration_share_its_name_matchers(tmp_path: Path) -> None:
    # The scorer and the benchmark lint each project on its own, a run each: the per-request
    # matcher (and its memo of names) was compiled again for every one.
    first = PythonLinter(LintConfig(root=tmp_path))
    second = PythonLinter(LintConfig(root=tmp_path / "other"))
    assert first.analysis.per_request is second.analysis.per_request
    assert first.analysis.per_request_attribute is second.analysis.per_request_attribute
    custom = PythonLinter(LintConfig(root=tmp_path, per_request=("ticket_*",)))
    assert custom.analysis.per_request is not first.analysis.per_request
    assert custom.analysis.per_request("ticket_body") and not first.analysis.per_request(
        "ticket_body"
    )


def test_a_name_no_branch_rebinds_is_merged_without_comparing_its_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # After every `if`, each name is merged across the branches; most are the very same value,
    # and comparing them field by field (nested items and fields too) was 9 merges in 10.
    value = Value(deps=frozenset(), pieces=("You are a support agent.",), kind="str")

    def no_comparing(self: Value, other: object) -> bool:
        raise AssertionError("compared field by field")

    monkeypatch.setattr(Value, "__eq__", no_comparing)
    assert merge(value, value) is value


def test_runs_share_literal_values_but_each_configuration_its_own_calls() -> None:
    # Literals and outside names made the same values in every project of a run; they are made
    # once a process. What a call is depends on the configuration's volatile calls: a run with
    # `clock.*` declared volatile after one without must still find it, and the other way round.
    source = textwrap.dedent(
        f"""
        import clock
        def ask(client, question):
            return client.messages.create(
                model="m", system=f"Now {{clock.read()}} {LONG}",
                messages=[{{"role": "user", "content": question}}])
        """
    )
    plain, declared = LintConfig(), LintConfig(volatile_calls=("clock.*",))
    first, second = PythonLinter(plain), PythonLinter(declared)
    assert first.analysis.texts is second.analysis.texts
    for config, expected in (
        (plain, []),
        (declared, ["PC501"]),
        (plain, []),
        (declared, ["PC501"]),
    ):
        found = PythonLinter(config).lint_source(source, display="agent.py")
        assert [f.code for f in found] == expected, config.volatile_calls


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        ("Optional[Dict[str, Any]]", False),
        ("RunContext[Deps]", True),
        ("pydantic_ai.RunContext", True),
        ("'RunContextWrapper[Ctx]'", True),
        ("agents.ToolContext | None", True),
        ("Context", False),
    ],
)
def test_a_parameter_annotation_is_walked_once_for_every_run_context(
    annotation: str, expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each parameter's annotation was walked once for each of the three run-context types.
    walks: list[object] = []
    real_walk = ast.walk
    monkeypatch.setattr(ast, "walk", lambda node: walks.append(node) or real_walk(node))
    node = ast.parse(annotation, mode="eval").body
    assert _mentions(node, _RUN_CONTEXTS) is expected
    assert len(walks) <= 1


def test_a_branch_that_rebinds_nothing_merges_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # A module body's bindings are all its globals: after each `if` every one of them was
    # merged across the branches, though most branches (a missing `else` above all) bind none.
    from promptcache.lint.python import _statements

    merged: list[str] = []
    real_merge = _statements.merge
    monkeypatch.setattr(
        _statements, "merge", lambda a, b: merged.append("merge") or real_merge(a, b)
    )
    constants = "".join(f"LIMIT_{n} = {n}\n" for n in range(40))
    source = constants + textwrap.dedent(
        f"""
        import os
        from datetime import datetime
        if os.environ.get("DEBUG"):
            print("debugging")
        SYSTEM_PROMPT = f"Now {{datetime.now()}}. {LONG}"
        if os.environ.get("SHORT"):
            SYSTEM_PROMPT = "Be brief."
        def ask(client, question):
            return client.messages.create(model="m", system=SYSTEM_PROMPT,
                messages=[{{"role": "user", "content": question}}])
        """
    )
    found = PythonLinter(LintConfig()).lint_source(source, display="agent.py")
    assert [f.code for f in found] == ["PC501"]
    assert len(merged) <= 2, len(merged)  # the rebound SYSTEM_PROMPT, not the 40 constants


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class _Sample:
    name: str
    count: int = 3
    tags: list[str] = field(default_factory=list)
    note: str = field(default="", compare=False)


def test_the_quick_init_is_the_dataclass_init_in_every_way_but_speed() -> None:
    # `Value` (eight fields, made tens of thousands of times a run) spent a tenth of the
    # analysis in `object.__setattr__`, a call a field; the quick init sets each slot through
    # its descriptor, bound once.
    for cls in (Value, Taint, Param, Hit, Pending):
        assert "_set0" in cls.__init__.__globals__, cls  # type: ignore[misc]
    sample = _Sample(name="a")
    assert (sample.name, sample.count, sample.tags, sample.note) == ("a", 3, [], "")
    assert _Sample(name="a").tags is not sample.tags  # a fresh default each time
    assert _Sample(name="a", note="other") == sample  # `compare=False` is the dataclass's own
    assert replace(sample, count=4) == _Sample(name="a", count=4)
    with pytest.raises(FrozenInstanceError):
        sample.count = 5  # type: ignore[misc]
    with pytest.raises(TypeError, match="name"):
        _Sample()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Sample("a")  # type: ignore[misc]
    with pytest.raises(TypeError, match="bogus"):
        _Sample(name="a", bogus=1)  # type: ignore[call-arg]


def test_the_quick_replace_is_dataclasses_replace_without_its_look_ups(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `replace` of a taint's `written` line or a value's kind, thousands of times a run, cost
    # twice an `__init__` in `dataclasses.replace`'s look-ups of the fields by name.
    taint = Taint(code="PC501", label="`now()`", path="m.py", line=3, column=5, via=("f()",))
    value = Value(deps=frozenset({taint}), pieces=("a", frozenset({taint})), kind="str")
    plain = _Plain(name="a")
    expected = [
        replace(taint, written=9),
        replace(taint, param="user", answer=True),
        replace(value, kind="list", spliced=True),
        replace(value),
        replace(plain, count=4),
    ]
    real = dataclasses.replace
    calls: list[object] = []

    def counted(obj: object, /, **changes: object) -> object:
        calls.append(obj)
        return real(obj, **changes)  # type: ignore[type-var]

    monkeypatch.setattr(dataclasses, "replace", counted)
    made = [
        quick_replace(taint, written=9),
        quick_replace(taint, param="user", answer=True),
        quick_replace(value, kind="list", spliced=True),
        quick_replace(value),
        quick_replace(plain, count=4),  # no quick init: `dataclasses.replace` itself
    ]
    assert made == expected
    assert [(m.written, m.answer) for m in made[:2]] == [(9, False), (0, True)]  # type: ignore[union-attr]
    assert made[3] is not value and made[3].meta is value.meta  # type: ignore[union-attr]
    assert calls == [plain]
    with pytest.raises(TypeError, match="bogus"):
        quick_replace(value, bogus=1)


@dataclass(frozen=True)
class _Plain:
    name: str
    count: int = 3


def test_the_quick_init_refuses_a_class_it_would_change() -> None:
    @dataclass(slots=True, kw_only=True)
    class Mutable:
        name: str

    with pytest.raises(TypeError, match="frozen"):
        quick_init(Mutable)


def test_the_pattern_for_calls_through_imported_sinks_is_built_once() -> None:
    # Every module importing `completion` from LiteLLM escaped and compiled the same pattern.
    source = "from litellm import completion as ask\n\nreply = ask (model='m', messages=[])\n"
    assert _alias_lines(source, ["ask"]) == frozenset({3})
    assert _alias_pattern(("ask",)) is _alias_pattern(("ask",))


_TURNS = """
messages = [{"role": "user", "content": question}, {'content': [text], 'role': 'human'}]
parts = [{"role": "user", "parts": [{"text": prompt}]}]
turn = HumanMessage(content=query), UserMessage(ask), ChatMessageUser( said )
chat = ("user", asked), ('human', typed), ("assistant", answer), XHumanMessage(not_this)
notes = "a 'role' and a (quote) with Users and Humans, role='user', content=nothing"
"""


def test_the_user_turn_pattern_finds_what_it_found_without_its_first_characters() -> None:
    # The lookahead only tells the regex engine where a match can start, so it skips the rest
    # in C: without it the engine tried every alternative at every character.
    start = """(?=[HUC'"(])"""
    assert _USER_TURN.pattern.startswith(start)
    slow = re.compile(_USER_TURN.pattern.removeprefix(start))
    text = _TURNS + _TURNS.replace('"', "'") + _AGENT + _HELPERS
    found = [(m.start(), m.groupdict()) for m in _USER_TURN.finditer(text)]
    assert found == [(m.start(), m.groupdict()) for m in slow.finditer(text)]
    assert len(found) == 2 * 8 + 1


_WALKED = """
import os
global_names = {None: 1, **os.environ, "k": [x for x in range(3) if not x]}
def f(a, /, b=1, *c, d, **e):
    global total
    match a:
        case {"k": [1, *rest]} | Point(x=0) if b > 1:
            return f"{a!r:>{b}}" + (lambda q: q)(c)[1:-1]
    with open(a) as h, open(b) as g:
        for i in range(3):
            yield from (await z async for z in h)
    try:
        del e[d]
    except* (ValueError, TypeError) as err:
        raise RuntimeError() from err
class C(Base, metaclass=M):
    x: int = 1
    @property
    def y(self) -> "C": return self.x @ -self.x
"""


def test_a_loop_bodys_walk_meets_the_nodes_in_the_order_of_the_generic_walk() -> None:
    # A loop's body is searched for a request call, and each call met may summarise a function
    # (with findings of its own): the faster walk must meet them in the same order.
    def generic(node: ast.AST) -> list[ast.AST]:
        todo, met = [node], []
        while todo:
            current = todo.pop()
            met.append(current)
            todo.extend(ast.iter_child_nodes(current))
        return [n for n in met if n._fields]

    def fast(node: ast.AST) -> list[ast.AST]:
        todo, met = [node], []
        while todo:
            current = todo.pop()
            met.append(current)
            push_children(current, todo)
        return met

    tree = ast.parse(textwrap.dedent(_WALKED))
    assert [id(n) for n in fast(tree)] == [id(n) for n in generic(tree)]
    assert any(isinstance(n, ast.Load) for n in ast.walk(tree))  # leaves left out, none missed


def test_a_module_walk_meets_the_nodes_of_ast_walk_in_its_order_but_the_leaves() -> None:
    # Whole-module look-ups (handlers registered by a call, how an agent is run) walk with it.
    tree = ast.parse(textwrap.dedent(_WALKED))
    expected = [n for n in ast.walk(tree) if n._fields]
    assert [id(n) for n in walk(tree)] == [id(n) for n in expected]
    assert len(expected) < len(list(ast.walk(tree)))


def test_the_pre_scan_gates_test_no_word_another_of_them_holds() -> None:
    # `kickoff_async` in a text means `kickoff` is in it: testing both scans the text twice.
    from promptcache.lint.python import _lint

    gates = {
        _lint._TRIGGER_GATE: _lint._TRIGGER_WORDS,
        _lint._METHOD_GATE: _lint._METHOD_SINKS,
        _lint._ROOTED_GATE: _lint._ROOTED_WORDS,
        _lint._ROOTED_METHOD_GATE: _lint._ROOTED_METHOD_WORDS,
    }
    for (plain, other), words in gates.items():
        gate = plain + other  # (split into words of name characters alone and the others)
        assert not [(a, b) for a in gate for b in gate if a != b and a in b]
        # ... and still lets through every text that holds one of the words.
        assert all(any(kept in word for kept in gate) for word in words)


_ENCODING_CASES = [
    b"",
    b"x = 1",
    b"x = 1\ny = 2\n",
    b"\xef\xbb\xbfx = 1\n",
    b"# -*- coding: latin-1 -*-\nx = '\xe9'\n",
    b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nx = 1\n",
    b"x = 1\ny = 2\n# coding: latin-1\n",  # a third line's comment declares nothing
    b"x = '\xe9'\n",  # not UTF-8, no declaration
    b"# coding: no-such-codec\n",
    b"\xef\xbb\xbf# coding: latin-1\n",  # contradicts the BOM
    b"encoding = 'coding'\n",
]


@pytest.mark.parametrize("data", _ENCODING_CASES)
def test_a_module_is_decoded_as_detect_encoding_reads_it(
    data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import tokenize

    from promptcache.lint import _loader

    def decoded() -> object:
        try:
            return _loader.decode_python(data)
        except ValueError as exc:
            return ("ValueError", str(exc))

    fast = decoded()
    monkeypatch.setattr(
        _loader, "_declared_encoding", lambda d: tokenize.detect_encoding(io.BytesIO(d).readline)[0]
    )
    assert fast == decoded()


def test_a_module_with_no_bom_and_no_coding_comment_is_not_tokenized(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from promptcache.lint import _loader

    def no_call(readline: object) -> tuple[str, list[bytes]]:
        raise AssertionError("detect_encoding called")

    monkeypatch.setattr(_loader.tokenize, "detect_encoding", no_call)
    assert _loader.decode_python(b"import os\nx = os.sep\n") == ("import os\nx = os.sep\n", "utf-8")


# -- a class's trimmed histories: found without walking every expression of the class ------

_TRIMMING_CLASSES = [
    # (name, the body of `record(self, turn)`): each a way to trim, or not to
    (
        "reassigned-under-test",
        "if len(self.history) > 9:\n            self.history = self.history[-9:]",
    ),
    ("pop-bare", "self.history.pop(0)"),
    ("pop-in-with", "with lock:\n            self.history.pop(1)"),
    ("pop-in-lambda", "drop = lambda: self.history.pop(0)"),
    (
        "del-in-try",
        "try:\n            del self.history[:2]\n        except IndexError:\n            pass",
    ),
    ("cut-in-loop", "while len(self.history) > 9:\n            self.history = self.history[1:]"),
    (
        "two-trims",
        "self.history.pop(0)\n        if len(self.history) > 9:\n            self.history = self.history[-9:]",
    ),
    (
        "nested-class",
        "class Inner:\n            def go(me):\n                me.history = me.history[-3:]",
    ),
    ("other-name", "notes = self.history[-9:]\n        other.history = other.history[-9:]"),
    ("pop-of-a-dict", "self.seen.pop('key')"),
    ("pop-written-oddly", "self.history.pop(  # the oldest\n            (0))"),
    ("pop-of-a-variable", "self.history.pop(i)"),
    ("set-in-init-style", "self.history = []\n        self.name = turn"),
    ("nothing", "self.history.append(turn)"),
]


def _class(body: str) -> tuple[ast.ClassDef, Module]:
    source = (
        "class Chat:\n"
        "    @staticmethod\n"
        "    def helper(x):\n"
        "        x.history = x.history[-2:]\n"
        "    def record(self, turn):\n"
        f"        {body}\n"
    )
    tree = ast.parse(source)
    module = Module(name="m", path=None, display="m.py", source=source, tree=tree)
    cls = tree.body[0]
    assert isinstance(cls, ast.ClassDef)
    return cls, module


def _trimmed_the_slow_way(cls: ast.ClassDef) -> dict[str, ast.AST]:
    """`windowed_attributes` as it was: every node of every instance method through `_trimmed`."""
    found: dict[str, ast.AST] = {}
    for method, me in _instance_methods(cls):
        for node in walk(method):
            for history in _trimmed(node):
                if isinstance(history.value, ast.Name) and history.value.id == me:
                    found.setdefault(history.attr, node)
    return found


@pytest.mark.parametrize(
    "body", [b for _, b in _TRIMMING_CLASSES], ids=[n for n, _ in _TRIMMING_CLASSES]
)
def test_a_class_s_trimmed_histories_are_those_the_full_walk_finds(body: str) -> None:
    cls, module = _class(body)
    assert windowed_attributes(cls, module) == _trimmed_the_slow_way(cls)


def test_a_class_that_trims_nothing_is_not_walked_expression_by_expression(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    walked: list[ast.AST] = []

    def counting_walk(tree: ast.AST) -> list[ast.AST]:
        if isinstance(tree, ast.FunctionDef):  # a method walked whole (not an expression)
            walked.append(tree)
        return walk(tree)

    monkeypatch.setattr(_turns, "walk", counting_walk)
    cls, module = _class(
        "self.history = []\n        self.seen = kwargs.pop('seen')\n"
        "        count = len(self.history[-9:])"
    )
    assert windowed_attributes(cls, module) == {}
    assert walked == []
    cls, module = _class("self.history.pop(0)")  # a `.pop` in its text: walked, and found
    assert set(windowed_attributes(cls, module)) == {"history"}
    assert walked


# -- a module's import table: its top level alone when every "import" is there ----------------

_IMPORTING_MODULES = [
    ("top-level-only", "import os\nfrom .helpers import greeting as hi\nfrom pkg.sub import *\n"),
    (
        "in-a-function",
        "import os\ndef f():\n    from datetime import datetime\n    return datetime\n",
    ),
    ("under-if", "import os\nif TYPE_CHECKING:\n    from openai import OpenAI\n"),
    ("try-except", "try:\n    import orjson as json\nexcept ImportError:\n    import json\n"),
    ("word-elsewhere", '"""An important module."""\nimport os\n'),
    ("importlib", "from importlib import import_module\nimport os\n"),
    ("rebound", "import json\ndef f():\n    import simplejson as json\n"),
    ("none", "x = 1\n"),
]


@pytest.mark.parametrize(
    "source", [s for _, s in _IMPORTING_MODULES], ids=[n for n, _ in _IMPORTING_MODULES]
)
def test_the_import_table_read_from_the_top_level_is_the_walked_one(source: str) -> None:
    tree = ast.parse(source)
    stars_fast: list[str] = []
    stars_walked: list[str] = []
    fast = import_table(tree, "pkg.mod", stars_fast, source)
    walked = import_table(tree, "pkg.mod", stars_walked)
    assert list(fast.items()) == list(walked.items())
    assert stars_fast == stars_walked


def test_a_module_importing_only_at_its_top_level_is_not_walked_for_imports(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    walks: list[object] = []
    real = project_module._statements

    def counting(body: list[ast.stmt]) -> object:
        walks.append(body)
        return real(body)

    monkeypatch.setattr(project_module, "_statements", counting)
    source = "import os\nfrom .helpers import greeting\ndef f():\n    return os.getcwd()\n"
    assert import_table(ast.parse(source), "pkg", None, source) == {
        "os": "os",
        "greeting": "pkg.helpers.greeting",
    }
    assert walks == []
    nested = source + "def g():\n    import json\n"
    assert "json" in import_table(ast.parse(nested), "pkg", None, nested)
    assert len(walks) == 1


@dataclass(frozen=True, slots=True, kw_only=True)
class _SampleMore(_Sample):
    extra: int = 0


def test_the_quick_replace_of_a_subclass_keeps_its_class_and_fields() -> None:
    # The generated replace is the quick class's own: a subclass inherited it, and replace made
    # an instance of the base class, dropping the subclass's fields.
    made = quick_replace(_SampleMore(name="a", extra=7), count=4)
    assert made == _SampleMore(name="a", count=4, extra=7)
    assert type(made) is _SampleMore


def _pre_scan_patterns() -> list[re.Pattern[str]]:
    from promptcache.lint.python import _lint

    return [
        _lint._METHOD_TRIGGER,
        _lint._WINDOW_TRIGGER,
        _lint._method_trigger(tuple(_lint._ROOTED_METHODS)),
        _alias_pattern(("completion", "c", "_ask", "chat")),
    ]


def _with_word_boundaries(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """The pattern as it was written before: `\\bname`, not `n(?<!\\wn)ame`."""
    return re.compile(re.sub(r"(\w)\(\?<!\\w\1\)", r"\\b\1", pattern.pattern))


_SCANNED = (
    "chat.complete( xchat.complete( _chat . parse_async (\nagents.stream_async(\u00e9agents.complete("
    "\nChatMessage.from_system( client.post (url) trim_messages(x) ConversationTokenBufferMemory."
    "\n1trim_messages( completion( c(1) _ask ( xc( litellm.completion( chat(x) chat.parse_stream("
)


def test_the_pre_scan_patterns_open_on_a_literal_not_on_a_word_boundary() -> None:
    # A pattern opening on `\b` is tried alternative by alternative at every character of the
    # module: the method-sink scan alone cost more than parsing the files that hold a `post`.
    for pattern in _pre_scan_patterns():
        assert "\\b" not in pattern.pattern, pattern.pattern
        slow = _with_word_boundaries(pattern)
        assert slow.pattern != pattern.pattern
        found = [m.span() for m in pattern.finditer(_SCANNED)]
        assert found and found == [m.span() for m in slow.finditer(_SCANNED)]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "chat",
                "Chat",
                "agents",
                ".",
                " ",
                "\n",
                "x",
                "_",
                "(",
                "\u00e9",
                "1",
                "complete",
                "parse",
                "_async",
                "ChatMessage",
                "from_system",
                "post",
                "trim_messages",
                "c",
                "completion",
                "stream_async",
                "_ask",
                "kickoff",
                "Memory",
                "ChatMemoryBuffer",
            ]
        ),
        max_size=14,
    )
)
def test_the_pre_scan_patterns_find_what_their_word_boundary_forms_find(parts: list[str]) -> None:
    text = "".join(parts)
    for pattern in _pre_scan_patterns():
        slow = _with_word_boundaries(pattern)
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in slow.finditer(text)]


def test_a_method_sink_scan_tries_only_the_sinks_whose_words_the_text_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every module holding `post` was scanned for all nineteen method sinks, each alternative
    # tried wherever its first character is: one whose words are not in the text cannot match.
    from promptcache.lint.python import _lint

    asked: list[tuple[str, ...]] = []
    built = _lint._method_sinks_trigger
    monkeypatch.setattr(
        _lint, "_method_sinks_trigger", lambda names: asked.append(names) or built(names)
    )
    text = "r = requests.post (url)\nreply = client.chat . parse(x)\nnot_a_chat.parse(y)\n"
    assert list(_lint._method_sink_lines(_lint._Text(text))) == [1, 2]
    assert list(_lint._lines_of(_lint._METHOD_TRIGGER, text)) == [1, 2]
    assert asked == [("chat.parse", "post")]


def test_a_rooted_method_scan_tries_only_the_methods_the_text_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from promptcache.lint.python import _lint

    asked: list[tuple[str, ...]] = []
    built = _lint._method_trigger
    monkeypatch.setattr(_lint, "_method_trigger", lambda names: asked.append(names) or built(names))
    text = "import cohere\nco = cohere.Client()\nreply = co.chat(message=question)\n"
    assert list(_lint._rooted_method_lines(_lint._Text(text))) == [3]
    assert asked == [("chat",)]  # not `chat_stream`, nor the other libraries' methods


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *("MESS", "msgs", "Hist", "cOnV", "chat", "TURN", "dialog", "Role", "me", "ro"),
                *(" ", "\n", "x", "_", "\u017f", "\u212a", "\u00e9", "ROLE\u00e9"),
            ]
        ),
        max_size=10,
    )
)
def test_the_turn_word_test_answers_as_the_case_blind_pattern(parts: list[str]) -> None:
    from promptcache.lint.python import _shared_windows

    text = "".join(parts)  # with the letters case-blind matching folds (`ſ` is an `s` to it)
    slow = re.compile(r"(?i)mess|msgs|hist|conv|chat|turn|dialog|role")
    assert _shared_windows._names_turns(text) is (slow.search(text) is not None)


def test_an_ascii_module_is_not_scanned_for_turn_words_by_the_case_blind_pattern(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The case-blind regex tries every position of the module (a twentieth of its parse): on
    # ASCII text the words are looked for in its lower case instead, in C at memory speed.
    from promptcache.lint.python import _shared_windows

    monkeypatch.setattr(_shared_windows, "_TURN_WORD", None)  # any use of it raises
    assert _shared_windows._names_turns("history.pop(0)\n")
    assert not _shared_windows._names_turns("values.pop(0)\n")


@pytest.mark.parametrize(
    "name",
    [
        *("SYSTEM_PROMPT", "SYSTEMPROMPT", "SYS_PROMPT", "SYSPROMPT", "SYSMSG", "SYS_MSG"),
        *("SYSMESSAGE", "SYS_MESSAGE", "SYSINSTRUCTION", "SYS_INSTRUCTION", "SYSTEM_MESSAGE"),
        *("sysPrompt", "sys_msg", "SystemMessage", "system_instruction", "SysPrompt"),
    ],
)
def test_every_system_name_the_trigger_matches_passes_the_word_gate(name: str) -> None:
    # The gate skips the trigger's scan in a text holding none of its words: a system-prompt
    # name spelled without one (`SYSMESSAGE`) left its module unanalysed, with no word said.
    from promptcache.lint.python import _lint

    text = f"{name} = f'Today is {{day}}.'\n"
    assert _lint._TRIGGER.search(text) is not None
    assert _lint._trigger_lines(text) == frozenset({1})


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *(".pop(0)", ".pop ( 1 )", ".pop(2)", "popleft", "del ", "del\t", "delete"),
                *("maxlen", "ltrim", "x[:]", "x[: ]", "[-", "[ len(", "[max (", "[min("),
                *(" ", "\n", ":", "[", "]", "(", "p", "d", "m", "l", "."),
            ]
        ),
        max_size=10,
    )
)
def test_the_trim_test_an_alternative_at_a_time_answers_as_the_whole_pattern(
    parts: list[str],
) -> None:
    # The whole pattern opens on any of `. p d m l : [` and stopped at most characters of a
    # module; each alternative alone opens on its own literal. A search answers "anywhere?".
    from promptcache.lint.python import _shared_windows

    text = "".join(parts)
    assert _shared_windows._may_trim(text) is (_shared_windows._MAY_TRIM.search(text) is not None)


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_placeholder_literals_are_those_the_whole_walk_finds_that_hold_a_brace(end: str) -> None:
    # Only the top-level statements with a `{` in their lines are walked for the literals a
    # placeholder is written in: a literal elsewhere has none written in it (an escape, `\x7b`,
    # is not `{`), so the line of no placeholder could be found there.
    from promptcache.lint.python import _placeholders

    lines = [
        "import os",
        "@register(name='{decorated}')",
        "def ask(question):",
        "    head = 'no braces here'",
        "    return f'{head} {{literal}} {question}'",
        "ESCAPED = '\\x7bname\\x7d'",
        "PLAIN = 'none at all'",
        "class Bot:",
        "    TEMPLATE = '''Answer {question}",
        "    politely'''",
        "x = {'role': 'system'}",
        "@register(name='{only_above}')",  # a decorator's line is above its `def` line
        "def plain():",
        "    return 1",
    ]
    source = end.join(lines) + end
    module = Module(name="", path=None, display="m.py", source=source, tree=ast.parse(source))
    fast = _placeholders._literals(module)
    slow: list[tuple[str, int]] = []
    inside: set[int] = set()
    for node in ast.walk(module.tree):
        if isinstance(node, ast.JoinedStr):
            for part in node.values:
                inside.add(id(part))
                if isinstance(part, ast.Constant) and "{" in part.value:
                    slow.append((part.value, node.lineno))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and "{" in node.value
            and id(node) not in inside
        ):
            slow.append((node.value, node.lineno))
    written = [(v, n) for v, n in slow if "{" in lines[n - 1]]  # the escaped one is not
    assert sorted((value, node.lineno) for value, node, _, _ in fast) == sorted(written)
    assert ("{name}", 6) in slow and ("{name}", 6) not in written
    assert ("{only_above}", 12) in written


@pytest.mark.parametrize(
    "name",
    [
        *("system_prompt", "SYSTEM_PROMPT", "sysPrompt", "_system_message_v2", "system"),
        *("prompt", "user_prompt", "PROMPT_TEMPLATE", "instructions", "prompts", "x"),
        *("userQuery", "getTodayStr", "HTTPServer", "", "_"),
    ],
)
def test_the_memoised_name_tests_answer_as_their_patterns(name: str) -> None:
    from promptcache.lint import _config
    from promptcache.lint.python import _request_data, _statements

    assert _request_data.system_named(name) is (_request_data.SYSTEM_NAME.match(name) is not None)
    assert _statements._prompt_named(name) is (_statements._PROMPT_NAME.match(name) is not None)
    assert _config.snake_case(name) == _config._CAMEL_HUMP.sub("_", name).lower()


@pytest.mark.parametrize(
    ("select", "ignore"),
    [(("PC",), ()), (("PC", "PC508"), ("PC50",)), (("pc5",), ("PC506",)), (("PC1",), ("PC",))],
)
def test_a_configs_memoised_selection_is_its_rule_by_rule_answer(
    select: tuple[str, ...], ignore: tuple[str, ...]
) -> None:
    from promptcache.lint import _config

    config = LintConfig(select=select, ignore=ignore)
    for code in ("PC001", "PC101", "PC500", "PC501", "PC506", "PC507", "PC508"):
        assert config.enabled(code) is _config._enabled.__wrapped__(select, ignore, code)


@pytest.mark.parametrize(
    ("folders", "expected"),
    [
        (["app", "llm"], "app.llm.chat"),
        (["app", "my-pkg"], ""),
        (["app", "2fa"], ""),
        (["app", "caf\u00e9"], ""),  # an identifier to Python, not to the dotted-name test
        (["app", "_private"], "app._private.chat"),
    ],
)
def test_a_modules_dotted_name_needs_every_part_an_ascii_word(
    tmp_path: Path, folders: list[str], expected: str
) -> None:
    folder = tmp_path.joinpath(*folders)
    folder.mkdir(parents=True)
    for depth in range(1, len(folders) + 1):
        (tmp_path.joinpath(*folders[:depth]) / "__init__.py").touch()
    (folder / "chat.py").touch()
    project = project_module.Project(root=tmp_path)
    assert project._dotted_name(folder / "chat.py") == expected


_GREETER = f"""
    from datetime import datetime
    import anthropic
    client = anthropic.Anthropic()
    def opening():
        return f"Good day. It is {{datetime.now():%H:%M}} now."
    def ask_once(question):
        return client.messages.create(
            model="m", system="{LONG}",
            messages=[{{"role": "user", "content": question}}])
"""
_DESK = f"""
    import anthropic
    from greeter import opening
    client = anthropic.Anthropic()
    def answer(question):
        return client.messages.create(
            model="m", system=opening() + "{LONG}",
            messages=[{{"role": "user", "content": question}}])
"""


def test_a_module_let_go_then_imported_by_the_next_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `greeter.py` is linted first and let go (nothing imported it yet); `desk.py`, linted next,
    # imports it: its text and tree, kept from its own lint, are used, not read and parsed anew.
    _write(tmp_path, {"greeter.py": _GREETER, "desk.py": _DESK})
    files = [tmp_path / "greeter.py", tmp_path / "desk.py"]
    config = LintConfig(root=tmp_path, include=("*.py",))
    read: list[Path] = []
    real = project_module.read_source
    monkeypatch.setattr(
        project_module,
        "read_source",
        lambda path, **kw: read.append(path) or real(path, **kw),
    )
    found = [(f.path, f.line, f.code, f.message) for f in lint_paths(files, config=config)]
    assert read == []
    assert any(code == "PC501" and "greeter.py:6" in message for _, _, code, message in found)
    # the same findings as when it is read again
    monkeypatch.setattr(project_module, "_PARSED_KEPT", 0)
    again = [(f.path, f.line, f.code, f.message) for f in lint_paths(files, config=config)]
    assert found == again
    assert len(read) == 1


def test_a_library_call_runs_only_the_checks_its_method_name_can_meet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `os.getenv(...)`, `text.strip()`: no chat platform's history read, no Semantic Kernel
    # invoke, no Haystack pipeline's `add_component`, no method handed to a wrapper. Their
    # checks are looked up by the called name (and first argument) before they are called.
    from promptcache.lint.python import _invoke

    called: list[str] = []
    for name in ("history_read", "sk_invoke", "haystack_pipeline", "_handed_model_call"):
        real = getattr(_invoke, name)
        monkeypatch.setattr(
            _invoke,
            name,
            lambda *a, _real=real, _name=name, **k: called.append(_name) or _real(*a, **k),
        )
    _write(
        tmp_path,
        {
            "bot.py": f"""
                import os
                import anthropic
                client = anthropic.Anthropic()
                def ask(question):
                    region = os.getenv("REGION", "eu").strip().lower()
                    return client.messages.create(
                        model="m", system="{LONG}" + region,
                        messages=[{{"role": "user", "content": question.strip()}}])
            """
        },
    )
    found = lint_paths([tmp_path / "bot.py"], config=LintConfig(root=tmp_path, include=("*.py",)))
    assert [f.code for f in found] == []
    assert called == []


def test_a_call_is_looked_at_as_a_message_or_an_insert_only_when_written_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `time.monotonic()`, `os.getenv("REGION")`: no `insert` of a turn, no message object (one
    # is made with `role=` and `content=`, two keywords at least), no client or window handed
    # on (nothing handed at all); those checks are not called for them. `ChatMessage(role=...,
    # content=...)` and `messages.insert(0, ...)` still are.
    from promptcache.lint.python import _invoke

    called: list[tuple[str, str]] = []
    for name, at in (("message_object", 1), ("_turn_inserted", 0), ("_window_sent", 2)):
        real = getattr(_invoke, name)

        def spy(*a: object, _real: object = real, _name: str = name, _at: int = at) -> object:
            node = a[_at]
            assert isinstance(node, ast.Call)
            called.append((_name, ast.unparse(node.func)))
            return _real(*a)  # type: ignore[operator]

        monkeypatch.setattr(_invoke, name, spy)
    plain = f"""
        import os, time
        import anthropic
        client = anthropic.Anthropic()
        def ask(question):
            started = time.monotonic()
            region = os.getenv("REGION")
            return client.messages.create(
                model="m", system="{LONG}",
                messages=[{{"role": "user", "content": question}}])
    """
    _write(tmp_path, {"plain.py": plain})
    config = LintConfig(root=tmp_path, include=("*.py",))
    assert lint_paths([tmp_path / "plain.py"], config=config) == []
    assert sorted(set(called)) == [
        ("_window_sent", "os.getenv"),
        ("message_object", "client.messages.create"),
    ]
    # the loud twin: a system message made with a message class, inserted before the question
    called.clear()
    loud = f"""
        from datetime import datetime
        import openai
        from llama_index.core.llms import ChatMessage
        client = openai.OpenAI()
        def ask(question, notes):
            system = ChatMessage(role="system", content=f"{LONG} {{datetime.now()}}")
            messages = [system, {{"role": "user", "content": question}}]
            messages.insert(1, {{"role": "user", "content": notes}})
            return client.chat.completions.create(model="m", messages=messages)
    """
    _write(tmp_path, {"loud.py": loud})
    found = lint_paths([tmp_path / "loud.py"], config=config)
    assert ("_turn_inserted", "messages.insert") in called
    assert ("message_object", "ChatMessage") in called
    assert [(f.code, f.line) for f in found] == [("PC501", 7)], found


_CHAIN = f"""
    from langchain_core.prompts import ChatPromptTemplate
    prompt = ChatPromptTemplate.from_messages(
        [("system", "{LONG} Today is {{today}}."), ("human", "{{question}}")]
    )
"""
_ASKER = f"""
    from datetime import datetime
    import anthropic
    client = anthropic.Anthropic()
    def ask(question):
        return client.messages.create(
            model="m", system=f"Now: {{datetime.now()}}. {LONG}",
            messages=[{{"role": "user", "content": question}}])
"""


def test_files_read_for_a_call_site_question_are_not_read_again_by_the_lint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A template filled nowhere in its file asks whether another file fills it: every file of
    # the project is read for that. The files linted after it take the text read then, when it
    # is plain ASCII; one with a BOM or another character (`café`) is read from the disk.
    from promptcache.lint.python import _call_sites
    from promptcache.lint.python import _lint as lint_module

    _write(
        tmp_path,
        {"a_chain.py": _CHAIN, "b_ask.py": _ASKER, "c_ask.py": _ASKER.replace('"m"', '"café"')},
    )
    (tmp_path / "d_ask.py").write_bytes(b"\xef\xbb\xbf" + textwrap.dedent(_ASKER).encode())
    files = sorted(tmp_path.glob("*.py"))
    config = LintConfig(root=tmp_path, include=("*.py",))
    read: list[str] = []
    real = lint_module.read_source
    monkeypatch.setattr(
        lint_module, "read_source", lambda path, **kw: read.append(path.name) or real(path, **kw)
    )
    found = [
        (f.path, f.line, f.column, f.code, f.message) for f in lint_paths(files, config=config)
    ]
    assert read == ["a_chain.py", "c_ask.py", "d_ask.py"]
    assert [(Path(path).name, code) for path, _, _, code, _ in found] == [
        ("b_ask.py", "PC501"),
        ("c_ask.py", "PC501"),
        ("d_ask.py", "PC501"),
    ]
    # the same findings as when every file is read from the disk
    monkeypatch.setattr(_call_sites.CallSites, "text_of", lambda self, path: None)
    read.clear()
    again = [
        (f.path, f.line, f.column, f.code, f.message) for f in lint_paths(files, config=config)
    ]
    assert found == again
    assert read == ["a_chain.py", "b_ask.py", "c_ask.py", "d_ask.py"]


_TRIGGER_PIECES = [
    *("messages", ".create", " . ", "system", "_", "prompt", "Prompt", "SYS", "TEM", "MESSAGE"),
    *("sys", "Msg", "'", '"', "developer", ".invoke", "invoke", "(", ")", ",", "ainvoke"),
    *(".render", "x", "\n", "Role", ".SYSTEM", "from ", "agents", " import", "PROMPT", "é"),
    *("_TEMPLATE", "instructions", "Instruction", "completions", "chats", "create_agent"),
    *(".stream(", "batch", ".partial(", ".format_prompt(", "add_", "tools", "litellm", "S"),
    *("chat.parse(", ".post (", "co.chat(", "cohere", "trim_messages(", "kickoff(", "[0]"),
    *("history = trim(history)", "['content'] = 1", "ChatMessage.from_system("),
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_TRIGGER_PIECES), max_size=14), st.booleans())
def test_a_long_module_s_pre_scan_finds_the_lines_the_full_scan_finds(
    parts: list[str], first: bool
) -> None:
    # A long text's words are looked for among its names, and its trigger scan holds only the
    # alternatives whose words it holds: the lines are those of the scan of every alternative.
    from promptcache.lint.python import _lint

    padding = "value = compute(1, 2)\n" * 200
    text = padding + "".join(parts) if first else "".join(parts) + padding
    long = _lint._Text(text)
    if text.isascii():  # (a text with another character is looked in itself)
        assert long.names is not text and len(long.names) < len(text) // 10
    whole = _lint._Text("")
    whole.source = whole.names = text  # every word test on the text itself, as a short one's
    whole.has = text.__contains__
    assert _lint._trigger_lines(text) == _lint._trigger_lines(text, whole)
    every = set(_lint._lines_of(_lint._TRIGGER, text))
    assert set(_lint._long_trigger_lines(long)) == every
    for word in (*_TRIGGER_PIECES, "value", "valu", "compute(1", "e c", "1, 2"):
        assert long.has(word) is (word in text), word


def test_a_short_module_is_its_own_names_and_the_full_trigger_is_the_parts_trigger() -> None:
    from promptcache.lint.python import _lint

    text = "client.messages.create(system=SYSTEM_PROMPT)\n"
    assert _lint._Text(text).names is text  # (its names would cost more than they save)
    every = _lint._trigger_of(tuple(range(len(_lint._TRIGGER_PARTS))))
    sample = "\n".join(_TRIGGER_PIECES) + " ".join(_TRIGGER_PIECES)
    assert [m.span() for m in every.finditer(sample)] == [
        m.span() for m in _lint._TRIGGER.finditer(sample)
    ]


_USES_PROMPTS = """
    from app.prompts import SYSTEM_PROMPT, QA_TEMPLATE as QA
    import app.tools, json
    agent = make_agent(instructions=SYSTEM_PROMPT, style=QA.upper())
    def run(x):
        return helper(SYSTEM_PROMPT, key=x.QA)
"""


def _loaded_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load):
        return node.id if isinstance(node, ast.Name) else node.attr
    return None


def _plain_reads(tree: ast.Module, name: str) -> list[tuple[ast.expr, ast.AST]]:
    """The reads of `name` with their holders, walked for the one name (the slow way)."""
    found: list[tuple[ast.expr, ast.AST]] = []
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            if isinstance(child, ast.keyword):
                if _loaded_name(child.value) == name:
                    found.append((child.value, parent))
            elif not isinstance(parent, ast.keyword) and _loaded_name(child) == name:
                found.append((child, parent))  # type: ignore[arg-type]
    return found


def test_a_file_s_reads_and_imports_are_walked_once_for_every_prompt_asked_about(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each prompt of a project asks of the files naming it what they do with it: the module that
    # imports them all was walked whole at every question, for its imports and for its reads.
    from promptcache.lint.python import _unseen_fills

    tree = ast.parse(textwrap.dedent(_USES_PROMPTS))
    names = ("SYSTEM_PROMPT", "QA", "upper", "missing", "SYSTEM_PROMPT")
    expected = [_plain_reads(tree, name) for name in names]
    assert [len(reads) for reads in expected] == [2, 2, 1, 0, 2]
    walks: list[ast.AST] = []
    real = ast.walk
    monkeypatch.setattr(ast, "walk", lambda node: walks.append(node) or real(node))
    assert [_unseen_fills._reads_with_parents(tree, name) for name in names] == expected
    assert _unseen_fills._imports_of(tree) == {
        "SYSTEM_PROMPT": "app.prompts.SYSTEM_PROMPT",
        "QA": "app.prompts.QA_TEMPLATE",
        "app": "app.tools",
        "json": "json",
    }
    assert [id(node) for node in walks] == [id(tree)]  # one walk, for every question


class _CountedText(str):
    """A module's text that counts the scans made of it (`in`)."""

    scans = 0

    def __contains__(self, word: object) -> bool:
        type(self).scans += 1
        return str.__contains__(self, word)  # type: ignore[arg-type]


def test_a_long_module_is_scanned_only_for_the_wrappers_its_names_hold(tmp_path: Path) -> None:
    # Each module that names no request API is asked which of the run's wrappers it calls: a
    # long one's own text is scanned only for the wrappers among its names, not for every one.
    from promptcache.lint.python import _lint

    linter = PythonLinter(LintConfig(root=tmp_path))
    linter.analysis.wrappers.update({"send", "ask_model", "summarise", "reply"})
    linter.analysis.wrapper_homes.update({"send": {"llm"}, "reply": {"bots"}, "ask_model": {"x"}})
    body = "from app.llm import send\n" + "total = compute(1, 2)\n" * 300 + "send(system, q)\n"
    source = _CountedText(body)
    text = _lint._Text(source)
    _CountedText.scans = 0
    assert linter._imported_wrappers(source, text) == ["send"]
    assert _CountedText.scans == 2  # `send(` and its import: the other three are not its names
    _CountedText.scans = 0
    assert linter._imported_wrappers(source) == ["send"]  # the same, by the text alone
    assert _CountedText.scans == 6  # each name, then `send(` and its import


@pytest.mark.parametrize("part", _TRIGGER_PARTS, ids=lambda part: part[0] + part[1])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_text_a_trigger_alternative_matches_holds_its_words(
    part: tuple[str, str, tuple[str, ...]], data: st.DataObject
) -> None:
    # A long module is scanned only for the alternatives whose words it holds: a text an
    # alternative matches holds every one of them.
    first, rest, words = part
    pattern = re.compile(re.escape(first) + rest.replace("\\b", ""))
    text = data.draw(st.from_regex(pattern, fullmatch=True))
    assert all(word in text for word in words), text
