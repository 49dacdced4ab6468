"""
Item 5 of issue 21: every finding's message says where the value belongs (the last user turn,
the promptcache tail, the end of the template) or which rewrite mends it, and `--fix` makes every
rewrite that cannot change what a correct program means, including a dict built from a set of
strings (`dict.fromkeys(names)`, `{n: ... for n in names}`), whose order is mended where it is
built: iterating it later cannot be sorted without changing what the loop sees.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from promptcache.lint import RULES, LintConfig
from promptcache.lint.python import PythonLinter, fix_source

# Rules about a value's position: the fix names where the value belongs.
_PLACES = ("last user message", "newest user message", "promptcache: tail", "Prompt.with_tail")
POSITIONAL = (
    *("PC101", "PC102", "PC103", "PC104", "PC105", "PC106", "PC301", "PC501", "PC502"),
    "PC508",
)
# Rules about order: the fix names the rewrite, and says `--fix` makes it where it can.
ORDER = {
    "PC201": "dictsort",
    "PC503": "sort_keys=True",
    "PC504": "sorted(",
    "PC505": "stable key",
}
AUTOMATIC = ("PC503", "PC504")  # the kinds with a rewrite that is always safe


@pytest.mark.parametrize("code", POSITIONAL)
def test_positional_rules_say_where_the_value_belongs(code: str) -> None:
    fix = RULES[code].fix
    assert any(place in fix for place in _PLACES), fix


@pytest.mark.parametrize("code", sorted(ORDER))
def test_order_rules_name_their_rewrite(code: str) -> None:
    fix = RULES[code].fix
    assert ORDER[code] in fix
    assert ("promptcache lint --fix" in fix) == (code in AUTOMATIC), fix


def test_every_rule_is_in_one_of_the_lists() -> None:
    # A new rule must say what its fix is: a place, a rewrite, or (notes) how to make it checkable.
    notes = {"PC001", "PC002", "PC003", "PC302", "PC500", "PC506", "PC507"}
    assert set(RULES) == set(POSITIONAL) | set(ORDER) | notes


def _fix(source: str) -> str:
    return fix_source(
        textwrap.dedent(source), display="agent.py", linter=PythonLinter(LintConfig())
    ).source


def _findings(source: str) -> list[str]:
    found = PythonLinter(LintConfig()).lint_source(source, display="agent.py")
    return [f.code for f in found]


_SEND = """
    return client.messages.create(model="m", max_tokens=9, system=system,
        messages=[*history, {"role": "user", "content": question}])
"""


@pytest.mark.parametrize(
    ("built", "expected"),
    [
        ("dict.fromkeys(ENABLED)", "dict.fromkeys(sorted(ENABLED))"),
        (
            'dict.fromkeys({"search", "calendar"}, True)',
            'dict.fromkeys(sorted({"search", "calendar"}), True)',
        ),
        (
            "{name: name.title() for name in ENABLED}",
            "{name: name.title() for name in sorted(ENABLED)}",
        ),
    ],
    ids=["fromkeys", "fromkeys-of-a-literal", "comprehension"],
)
@pytest.mark.parametrize(
    "used", ["{d}", "{d}.keys()", "{d}.items()"], ids=["dict", "keys", "items"]
)
def test_fix_sorts_a_dict_of_strings_where_it_is_built(
    built: str, expected: str, used: str
) -> None:
    source = (
        'ENABLED = {"search", "calculator"}\n\n\ndef ask(client, question, history):\n'
        f"    tools = {built}\n"
        f'    system = "Tools: " + ", ".join(str(t) for t in {used.format(d="tools")})\n'
        + textwrap.dedent(_SEND).replace("\n", "\n    ").rstrip(" ")
    )
    assert _findings(source) == ["PC504"]
    fixed = _fix(source)
    assert f"    tools = {expected}\n" in fixed
    ast.parse(fixed)
    assert _findings(fixed) == []


def test_fix_leaves_a_dict_built_from_a_set_of_unknown_values() -> None:
    # `set(names)` may hold values that do not sort (None beside a string): reported, not rewritten
    source = (
        "def ask(client, question, history, names):\n"
        "    tools = dict.fromkeys(set(names))\n"
        '    system = "Tools: " + ", ".join(tools)\n'
        + textwrap.dedent(_SEND).replace("\n", "\n    ").rstrip(" ")
    )
    # PC508 also asks about `names` (a parameter whose origin is not seen): not this test's rule
    assert [code for code in _findings(source) if code != "PC508"] == ["PC504"]
    assert _fix(source) == source


@pytest.mark.parametrize(
    "binding",
    [
        "def sorted(values):\n    return values\n\n\n",
        "sorted = list\n",
        "from helpers import sorted\n",
        "import helpers as sorted\n",
    ],
    ids=["def", "assignment", "import", "import-as"],
)
def test_fix_adds_no_sorted_call_where_the_module_rebinds_sorted(binding: str) -> None:
    # `sorted(...)` would call the module's own `sorted`, which need not sort: the rewrite
    # was made (and counted as fixed) all the same. The finding stays for a person.
    source = (
        binding
        + 'ENABLED = {"search", "calculator"}\n\n\ndef ask(client, question, history):\n'
        + "    tools = dict.fromkeys(ENABLED)\n"
        + '    system = "Tools: " + ", ".join(tools)\n'
        + textwrap.dedent(_SEND).replace("\n", "\n    ").rstrip(" ")
    )
    # PC508 also asks about `names` (a parameter whose origin is not seen): not this test's rule
    assert [code for code in _findings(source) if code != "PC508"] == ["PC504"]
    assert _fix(source) == source
