"""
A template linted with the project's Python that renders it (session 33, task tplpy).

A variable that no render call of the project passes renders empty (Jinja's `Undefined`), the
same on every request: when the run lints the Python of every render of a template, and each
render is fully known (a literal template name, keywords or a dict literal's keys), such a
variable is not judged as a per-request value. On partial knowledge nothing changes: a render
that spreads a mapping, a load by a name the reading cannot tell, the file's name used
elsewhere, a render in a file the run does not lint, or a template linted alone.

Each project below is ours, written after the shape of a real one (a Django view rendering its
system prompt through a helper that passes nothing; a module rendering its prompt with the
keywords it fills).
"""

from __future__ import annotations

from pathlib import Path

from promptcache.lint import LintConfig, lint_paths

from ._helpers import STATIC

# A system prompt with today's date near its top, above a long block of rules.
SYSTEM = f"""\
You are the triage assistant of a security team.
Today is {{{{ current_date }}}}.

{STATIC}
Answer about {{{{ topic }}}} only.
"""

# A helper that renders a named template with no variables, called with literal names.
HELPER = """\
from jinja2 import Environment, FileSystemLoader


def render_prompt(template_name):
    env = Environment(loader=FileSystemLoader("templates"))
    template = env.get_template(template_name)
    return template.render()
"""

VIEW = """\
from openai import OpenAI

from .helper import render_prompt

client = OpenAI()


def analyse(text):
    prompt = render_prompt("system_prompt.j2")
    return client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": prompt}, {"role": "user", "content": text}],
    )
"""


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def _template_findings(root: Path, paths: list[Path] | None = None) -> list[tuple[str, int]]:
    found = lint_paths(paths or [root], config=LintConfig(root=root))
    return sorted(
        (f.code, f.line)
        for f in found
        if f.severity != "info" and f.path.endswith((".j2", ".jinja2"))
    )


def _helper_project(tmp_path: Path, **extra: str) -> Path:
    files = {
        "app/__init__.py": "",
        "app/helper.py": HELPER,
        "app/views.py": VIEW,
        "templates/system_prompt.j2": SYSTEM,
    }
    files.update(extra)
    return _project(tmp_path, files)


def test_a_variable_no_render_of_the_project_passes_renders_empty(tmp_path: Path) -> None:
    root = _helper_project(tmp_path)
    assert _template_findings(root) == []


def test_the_template_linted_alone_is_still_reported(tmp_path: Path) -> None:
    root = _helper_project(tmp_path)
    assert ("PC102", 2) in _template_findings(root, [root / "templates"])


def test_a_variable_a_render_passes_per_request_is_still_reported(tmp_path: Path) -> None:
    module = """\
import datetime

from jinja2 import Environment, FileSystemLoader

env = Environment(loader=FileSystemLoader("templates"))


def system_prompt(topic):
    today = datetime.date.today().isoformat()
    return env.get_template("system_prompt.j2").render(current_date=today, topic=topic)
"""
    root = _project(tmp_path, {"app/prompts.py": module, "templates/system_prompt.j2": SYSTEM})
    assert ("PC102", 2) in _template_findings(root)


def test_a_template_bound_to_a_name_and_rendered_without_the_date_is_quiet(
    tmp_path: Path,
) -> None:
    module = """\
from jinja2 import Environment, FileSystemLoader

env = Environment(loader=FileSystemLoader("templates"))
SYSTEM = env.get_template("system_prompt.j2")


def system_prompt(topic):
    return SYSTEM.render({"topic": topic})
"""
    root = _project(tmp_path, {"app/prompts.py": module, "templates/system_prompt.j2": SYSTEM})
    assert _template_findings(root) == []


def test_a_render_that_spreads_a_mapping_is_still_reported(tmp_path: Path) -> None:
    # A mapping made elsewhere (a wrapper's own `**values` are its callers' keywords, listed).
    helper = "from .settings import defaults\n" + HELPER
    helper = helper.replace("template.render()", "template.render(**defaults())")
    root = _helper_project(tmp_path, **{"app/helper.py": helper})
    assert ("PC102", 2) in _template_findings(root)


def test_a_template_also_loaded_by_a_name_the_reading_cannot_tell_is_still_reported(
    tmp_path: Path,
) -> None:
    other = """\
from .helper import render_prompt

def pick(kind):
    return render_prompt(f"{kind}_prompt.j2")
"""
    root = _helper_project(tmp_path, **{"app/pick.py": other})
    assert ("PC102", 2) in _template_findings(root)


def test_the_files_name_used_outside_a_load_is_still_reported(tmp_path: Path) -> None:
    other = """\
from pathlib import Path

PROMPT_FILE = Path("templates") / "system_prompt.j2"
"""
    root = _helper_project(tmp_path, **{"app/paths.py": other})
    assert ("PC102", 2) in _template_findings(root)


def test_a_render_in_a_file_the_run_does_not_lint_is_still_reported(tmp_path: Path) -> None:
    root = _helper_project(tmp_path)
    paths = [root / "templates", root / "app" / "views.py"]  # the helper is not linted
    assert ("PC102", 2) in _template_findings(root, paths)


def test_a_template_another_template_includes_is_still_reported(tmp_path: Path) -> None:
    outer = '{% include "system_prompt.j2" %}\n'
    root = _helper_project(tmp_path, **{"templates/outer.j2": outer})
    assert ("PC102", 2) in _template_findings(root)


def test_a_variable_the_environment_gives_every_template_is_still_reported(
    tmp_path: Path,
) -> None:
    helper = HELPER.replace(
        "    template = env.get_template(template_name)\n",
        '    env.globals["current_date"] = date.today().isoformat()\n'
        "    template = env.get_template(template_name)\n",
    )
    helper = "from datetime import date\n" + helper
    root = _helper_project(tmp_path, **{"app/helper.py": helper})
    assert ("PC102", 2) in _template_findings(root)


def test_a_template_a_flow_file_also_names_is_still_reported(tmp_path: Path) -> None:
    flow = "nodes:\n- name: triage\n  source:\n    path: templates/system_prompt.j2\n"
    root = _helper_project(tmp_path, **{"flow.dag.yaml": flow})
    assert ("PC102", 2) in _template_findings(root)


def test_a_configuration_no_renderer_reads_does_not_hide_the_renders(tmp_path: Path) -> None:
    # A settings file listing the prompts, read by nothing that renders them: the Python's
    # renders are still all of them (a Python read of it would be a load by a name not known).
    settings = "prompts:\n  triage: system_prompt.j2\n"
    root = _helper_project(tmp_path, **{"settings.yaml": settings})
    assert _template_findings(root) == []


def test_a_template_named_by_a_configuration_the_python_reads_is_still_reported(
    tmp_path: Path,
) -> None:
    reader = """\
import json

from .helper import render_prompt

with open("settings.json") as handle:
    SETTINGS = json.load(handle)


def triage_prompt():
    return render_prompt(SETTINGS["prompts"]["triage"])
"""
    settings = '{"prompts": {"triage": "system_prompt.j2"}}'
    root = _helper_project(tmp_path, **{"settings.json": settings, "app/reader.py": reader})
    assert ("PC102", 2) in _template_findings(root)


# -- where the rendered text lands ---------------------------------------------------------------

# A shop assistant's per-intent instruction, listing the offers found for this request above the
# rules of how to present them.
OFFERS = f"""\
## Offers found for you
{{% for offer in retrieved_offers %}}
- {{{{ offer.title }}}} at {{{{ offer.price }}}}
{{% endfor %}}

## How to answer
{STATIC}
"""

# The conversation so far, then the rendered instruction and the question as the newest turn.
ASSISTANT = """\
from jinja2 import Environment, FileSystemLoader
from openai import OpenAI

_env = Environment(loader=FileSystemLoader("prompts"))
_BY_INTENT = {
    "offers": "intents/offers.j2",
    "returns": "intents/returns.j2",
}


def _render(name, values):
    return _env.get_template(name).render(**values)


def reply(question, intent, offers, history, profile):
    messages = [{"role": "system", "content": SYSTEM_TEXT}]
    for turn in history[-6:]:
        messages.append({"role": turn["role"], "content": turn["content"]})
    guidance = _render(_BY_INTENT[intent], {"retrieved_offers": offers, **profile})
    newest = f"{guidance}\\n\\nQuestion: {question}"
    messages.append({"role": "user", "content": newest})
    return OpenAI().chat.completions.create(model="gpt-4o-mini", messages=messages)


SYSTEM_TEXT = "You help customers of a small bike shop."
"""


def _assistant_project(tmp_path: Path, code: str = ASSISTANT, **extra: str) -> Path:
    files = {
        "shop/assistant.py": code,
        "prompts/intents/offers.j2": OFFERS,
        "prompts/intents/returns.j2": "Explain the return policy.\n",
    }
    files.update(extra)
    return _project(tmp_path, files)


def test_a_template_rendered_only_into_the_newest_turn_after_the_history_is_quiet(
    tmp_path: Path,
) -> None:
    assert _template_findings(_assistant_project(tmp_path)) == []


def test_the_newest_turn_template_linted_alone_is_still_reported(tmp_path: Path) -> None:
    root = _assistant_project(tmp_path)
    assert ("PC103", 2) in _template_findings(root, [root / "prompts"])


def test_a_template_rendered_into_the_system_prompt_is_still_reported(tmp_path: Path) -> None:
    code = ASSISTANT.replace(
        '    messages = [{"role": "system", "content": SYSTEM_TEXT}]\n', ""
    ).replace(
        "    for turn in history[-6:]:\n",
        '    messages = [{"role": "system", "content": _render("intents/offers.j2", {})}]\n'
        "    for turn in history[-6:]:\n",
    )
    assert ("PC103", 2) in _template_findings(_assistant_project(tmp_path, code))


def test_a_newest_turn_with_no_history_before_it_is_still_reported(tmp_path: Path) -> None:
    code = ASSISTANT.replace("    for turn in history[-6:]:\n", "    if False:\n")
    assert ("PC103", 2) in _template_findings(_assistant_project(tmp_path, code))


def test_a_newest_turn_after_fixed_examples_is_still_reported(tmp_path: Path) -> None:
    # The same example turns on every request: the rules after the offers could be cached.
    code = ASSISTANT.replace("    for turn in history[-6:]:\n", "    for turn in EXAMPLE_TURNS:\n")
    code += 'EXAMPLE_TURNS = [{"role": "user", "content": "Hi"}]\n'
    assert ("PC103", 2) in _template_findings(_assistant_project(tmp_path, code))


def test_a_turn_appended_after_the_rendered_one_is_still_reported(tmp_path: Path) -> None:
    code = ASSISTANT.replace(
        "    return OpenAI()",
        '    messages.append({"role": "user", "content": "Be brief."})\n    return OpenAI()',
    )
    assert ("PC103", 2) in _template_findings(_assistant_project(tmp_path, code))


def test_a_newest_turn_template_also_rendered_by_an_unknown_site_is_still_reported(
    tmp_path: Path,
) -> None:
    other = """\
from .assistant import _render


def preview(name, offers):
    return _render(name, {"retrieved_offers": offers})
"""
    root = _assistant_project(tmp_path, **{"shop/preview.py": other})
    assert ("PC103", 2) in _template_findings(root)


def test_the_last_element_after_a_spread_history_is_the_newest_turn(tmp_path: Path) -> None:
    code = ASSISTANT.replace(
        '    messages.append({"role": "user", "content": newest})\n'
        '    return OpenAI().chat.completions.create(model="gpt-4o-mini", messages=messages)',
        "    return OpenAI().chat.completions.create(\n"
        '        model="gpt-4o-mini", messages=[*messages, {"role": "user", "content": newest}]\n'
        "    )",
    )
    assert _template_findings(_assistant_project(tmp_path, code)) == []


# The project registers its own filter in Python; the template uses it. Jinja's name finder
# compiles the template and refuses a filter its environment lacks: that is not a broken template.
OWN_FILTER = f"""\
You are the budget assistant of a savings cooperative.
Today is {{{{ current_date }}}}. Members hold {{{{ total | money }}}} in all.
{{% if total is large %}}Mention the reserve rules.{{% endif %}}

{STATIC}
"""

OWN_FILTER_HELPER = """\
import datetime

from jinja2 import Environment, FileSystemLoader

env = Environment(loader=FileSystemLoader("templates"))
env.filters["money"] = lambda value: f"{value:,.0f}"
env.tests["large"] = lambda value: value > 1_000_000


def render_prompt(template_name, total):
    return env.get_template(template_name).render(total=total)
"""


def _own_filter_project(tmp_path: Path, helper: str) -> Path:
    view = VIEW.replace('render_prompt("system_prompt.j2")', 'render_prompt("system_prompt.j2", 1)')
    files = {"app/__init__.py": "", "app/helper.py": helper, "app/views.py": view}
    return _project(tmp_path, {**files, "templates/system_prompt.j2": OWN_FILTER})


def test_a_filter_and_test_the_project_registers_do_not_make_the_template_unreadable(
    tmp_path: Path,
) -> None:
    root = _own_filter_project(tmp_path, OWN_FILTER_HELPER)
    # current_date is never passed: it renders empty, the same on every request
    assert _template_findings(root) == []


def test_the_date_a_render_with_an_own_filter_passes_is_still_reported(tmp_path: Path) -> None:
    helper = OWN_FILTER_HELPER.replace(
        "render(total=total)", "render(total=total, current_date=datetime.date.today())"
    )
    found = _template_findings(_own_filter_project(tmp_path, helper))
    assert not [code for code, _ in found if code == "PC001"]
    assert [line for code, line in found if code in ("PC101", "PC102")] == [2]


def test_another_template_over_the_byte_bound_is_not_read_and_may_name_the_file(
    tmp_path: Path,
) -> None:
    # Read after discovery (it may have grown since): through the bounded reader, never whole;
    # unread, it counts as naming the template, so the template's renders are not trusted.
    from promptcache.lint._engine import _Given
    from promptcache.lint.python import PythonLinter

    big = tmp_path / "big.j2"
    big.write_text("x" * 64)
    given = _Given([], PythonLinter(LintConfig(root=tmp_path)), 32)
    assert given._text(big) is None


def test_another_template_within_the_byte_bound_is_read(tmp_path: Path) -> None:
    from promptcache.lint._engine import _Given
    from promptcache.lint.python import PythonLinter

    small = tmp_path / "small.j2"
    small.write_text('{% include "system_prompt.j2" %}\n')
    given = _Given([], PythonLinter(LintConfig(root=tmp_path)), 64)
    assert given._text(small) == '{% include "system_prompt.j2" %}\n'
