"""
Templates rendered through the project's own helpers (session 34, task tpl7).

A prompt loader's method that takes the template's name and forwards its `**values` to the
render (`def render(self, name, **values): ... .render(**values).strip()`) renders each call's
template with that call's keywords (less the helper's own parameters). A call of another object's
method of the same name whose arguments cannot be the helper's is not one of its calls. A name
looked up in a table of literal names (`TASKS.get(state, "welcome.j2")`, bound to a local first)
is one of the table's names or the default. A docstring naming a template is not a load.

The projects are ours, after the shape of real ones (a loader class shared by several agents; a
state machine picking its task prompt from a table).
"""

from __future__ import annotations

from pathlib import Path

from ._helpers import STATIC, template_problems

SYSTEM = f"""\
You are the analyst of a market data team.
Today is {{{{ current_date }}}}.

{STATIC}
Answer about {{{{ topic }}}} only.
"""

LOADER = '''\
"""Loads the prompts, e.g. `loader.render("system.j2", topic=...)`."""
from pathlib import Path

from jinja2 import Environment, FileSystemLoader


class PromptLoader:
    def __init__(self):
        self._env = Environment(loader=FileSystemLoader(str(Path(__file__).parent / "prompts")))

    def render(self, template_name, *, strict=False, **values):
        template = self._env.get_template(template_name)
        return template.render(**values).strip()
'''

AGENT = """\
from .loader import PromptLoader


class Analyst:
    def __init__(self, client):
        self._loader = PromptLoader()
        self._client = client

    def ask(self, topic, question):
        system = self._loader.render("system.j2", strict=True, topic=topic)
        return self._client.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "system", "content": system}, {"role": "user", "content": question}],
        )
"""

# Another object's `render`, called with arguments the loader's cannot take.
CHARTS = """\
class Charts:
    def __init__(self, renderer):
        self.renderer = renderer

    def draw(self, spec, rows):
        return self.renderer.render(spec, rows)
"""


def _loader_project(**changes: str) -> dict[str, str]:
    files = {
        "app/__init__.py": "",
        "app/loader.py": LOADER,
        "app/agent.py": AGENT,
        "app/charts.py": CHARTS,
        "app/prompts/system.j2": SYSTEM,
    }
    files.update(changes)
    return files


def test_a_loader_forwarding_its_keywords_renders_what_each_call_passes(tmp_path: Path) -> None:
    assert template_problems(tmp_path, _loader_project()) == []


def test_a_call_forwarding_the_date_through_the_loader_is_reported(tmp_path: Path) -> None:
    agent = AGENT.replace("topic=topic)", "topic=topic, current_date=today())")
    agent = "from datetime import date\n\ntoday = date.today\n" + agent
    found = template_problems(tmp_path, _loader_project(**{"app/agent.py": agent}))
    assert ("system.j2", "PC102", 2) in found


def test_a_call_spreading_a_mapping_through_the_loader_is_still_reported(tmp_path: Path) -> None:
    agent = AGENT.replace("strict=True, topic=topic)", "**{'topic': topic, **extra})")
    agent = agent.replace(
        "def ask(self, topic, question):", "def ask(self, topic, question, extra):"
    )
    found = template_problems(tmp_path, _loader_project(**{"app/agent.py": agent}))
    assert ("system.j2", "PC102", 2) in found


def test_a_same_named_call_that_could_be_the_loaders_is_still_unknown(tmp_path: Path) -> None:
    charts = CHARTS.replace("self.renderer.render(spec, rows)", "self.renderer.render(spec)")
    found = template_problems(tmp_path, _loader_project(**{"app/charts.py": charts}))
    assert ("system.j2", "PC102", 2) in found


TASK = f"""\
You are the support coach. Today is {{{{ current_date }}}}.

{STATIC}
"""

BUILDER = """\
from jinja2 import Environment, FileSystemLoader

_env = Environment(loader=FileSystemLoader("prompts"))

_TASKS: dict[str, str] = {
    "welcome": "tasks/welcome.j2",
    "follow_up": "tasks/follow_up.j2",
}


def _render(template_name, **values):
    return _env.get_template(template_name).render(**values)


def build_system(state, language):
    task_template = _TASKS.get(state, "tasks/welcome.j2")
    return "\\n\\n".join([_render(task_template, language=language)])
"""


def _table_project(builder: str) -> dict[str, str]:
    return {
        "app/builder.py": builder,
        "prompts/tasks/welcome.j2": TASK,
        "prompts/tasks/follow_up.j2": TASK,
    }


def test_a_name_looked_up_in_a_table_of_template_names_is_one_of_them(tmp_path: Path) -> None:
    assert template_problems(tmp_path, _table_project(BUILDER)) == []


def test_a_table_lookup_with_a_default_the_reading_cannot_tell_is_still_unknown(
    tmp_path: Path,
) -> None:
    builder = BUILDER.replace('_TASKS.get(state, "tasks/welcome.j2")', "_TASKS.get(state, other)")
    builder = builder.replace(
        "def build_system(state, language):", "def build_system(state, language, other):"
    )
    found = template_problems(tmp_path, _table_project(builder))
    assert ("welcome.j2", "PC102", 1) in found


LOAD_HELPER = """\
from jinja2 import Environment, FileSystemLoader

_env = Environment(loader=FileSystemLoader("prompts"))


def load_prompt(name):
    return _env.get_template(name)
"""

CALLER = """\
from .prompts import load_prompt


def system_prompt(topic):
    template = load_prompt("system.j2")
    return template.render(topic=topic)
"""


def _loaded(caller: str) -> dict[str, str]:
    return {
        "app/__init__.py": "",
        "app/prompts.py": LOAD_HELPER,
        "app/caller.py": caller,
        "prompts/system.j2": SYSTEM,
    }


def test_a_template_a_loader_returns_is_rendered_where_its_caller_renders_it(
    tmp_path: Path,
) -> None:
    assert template_problems(tmp_path, _loaded(CALLER)) == []


def test_a_template_a_loader_returns_and_the_caller_gives_the_date_is_reported(
    tmp_path: Path,
) -> None:
    caller = CALLER.replace("render(topic=topic)", "render(topic=topic, current_date=today)")
    caller = caller.replace("def system_prompt(topic):", "def system_prompt(topic, today):")
    assert ("system.j2", "PC102", 2) in template_problems(tmp_path, _loaded(caller))


def test_a_template_a_loader_returns_and_the_caller_hands_on_is_unknown(tmp_path: Path) -> None:
    caller = CALLER.replace("    return template.render(topic=topic)\n", "    return template\n")
    assert ("system.j2", "PC102", 2) in template_problems(tmp_path, _loaded(caller))


BUILT = """\
from jinja2 import Environment, FileSystemLoader

env = Environment(loader=FileSystemLoader("prompts"))
PROMPT = env.get_template("system.j2")


def system_prompt(topic, notes):
    ctx = {"topic": topic}
    if notes:
        ctx["notes"] = notes
    return PROMPT.render(**ctx)
"""


def _built(module: str) -> dict[str, str]:
    return {"app/prompt.py": module, "prompts/system.j2": SYSTEM}


def test_a_dict_the_function_builds_passes_its_literal_keys(tmp_path: Path) -> None:
    assert template_problems(tmp_path, _built(BUILT)) == []


def test_a_dict_given_the_date_by_key_passes_it(tmp_path: Path) -> None:
    module = BUILT.replace('        ctx["notes"] = notes', '        ctx["current_date"] = notes')
    assert ("system.j2", "PC102", 2) in template_problems(tmp_path, _built(module))


def test_a_dict_handed_to_another_call_has_keys_not_known(tmp_path: Path) -> None:
    module = BUILT.replace(
        "    return PROMPT.render(**ctx)", "    enrich(ctx)\n    return PROMPT.render(**ctx)"
    )
    assert ("system.j2", "PC102", 2) in template_problems(tmp_path, _built(module))
