"""
A template the project's Python makes from a file's text (session 34, task tpl7).

`Template(Path("prompts/system.j2").read_text())`, `(PROMPT_DIR / "system.j2").read_text()`
and `open(path).read()` load the file the path's last literal names, as `get_template` does: its
renders are followed the same way, and one the reading cannot follow (the template returned to
a caller) leaves only that file's renders unknown, not every template of the project. A log line
naming a template file (`logger.info("loaded system.j2")`) is not a load elsewhere.

Each project is ours, after the shape of real ones: a web app rendering its system prompt once
at import, beside an extraction script that hands its template to a helper.
"""

from __future__ import annotations

from pathlib import Path

from ._helpers import STATIC, template_problems

SYSTEM = f"""\
You are the reporting assistant of a finance team.
Today is {{{{ current_date }}}}.

{STATIC}
"""

EXTRACT = f"""\
Read this page of the report:
{{{{ page_text }}}}

{STATIC}
"""

# The web app: its system prompt read from a file and rendered once, with no values.
APP = """\
from pathlib import Path

from jinja2 import Template

PROMPTS = Path(__file__).resolve().parent / "prompts"
SYSTEM_PROMPT = Template((PROMPTS / "system.j2").read_text(encoding="utf-8")).render()
"""

# A script that returns the template it reads: where it is rendered is not followed.
SCRIPT = """\
from pathlib import Path

from jinja2 import Template

PROMPT_FILE = Path("prompts") / "extract.j2"


def read_prompt():
    text = PROMPT_FILE.read_text(encoding="utf-8")
    return Template(text)


def ask(tmpl, page):
    return tmpl.render(page_text=page)
"""


def test_a_template_read_from_its_file_and_rendered_without_the_date_is_quiet(
    tmp_path: Path,
) -> None:
    files = {"app/main.py": APP, "app/prompts/system.j2": SYSTEM}
    assert template_problems(tmp_path, files) == []


def test_a_template_read_from_its_file_and_given_the_date_is_reported(tmp_path: Path) -> None:
    app = APP.replace(".render()", ".render(current_date=date.today())")
    app = "from datetime import date\n" + app
    files = {"app/main.py": app, "app/prompts/system.j2": SYSTEM}
    assert ("system.j2", "PC102", 2) in template_problems(tmp_path, files)


def test_a_path_bound_to_a_name_and_opened_is_a_load_of_its_file(tmp_path: Path) -> None:
    app = """\
import os

from jinja2 import Template

SYSTEM_FILE = os.path.join(os.path.dirname(__file__), "prompts", "system.j2")


def system_prompt():
    with open(SYSTEM_FILE) as f:
        return Template(f.read()).render()
"""
    # `f.read()` is a file object's, not a path's: the reading cannot tell which file it is.
    files = {"app/main.py": app, "app/prompts/system.j2": SYSTEM}
    assert ("system.j2", "PC102", 2) in template_problems(tmp_path, files)
    app = app.replace(
        "with open(SYSTEM_FILE) as f:\n        return Template(f.read())",
        "return Template(open(SYSTEM_FILE).read())",
    )
    (tmp_path / "app/main.py").write_text(app)
    assert template_problems(tmp_path, {}) == []


def test_a_template_handed_on_leaves_only_its_own_file_unknown(tmp_path: Path) -> None:
    files = {
        "app/main.py": APP,
        "app/prompts/system.j2": SYSTEM,
        "scripts/extract.py": SCRIPT,
        "scripts/prompts/extract.j2": EXTRACT,
    }
    found = template_problems(tmp_path, files)
    assert not [f for f in found if f[0] == "system.j2"]
    assert [line for name, _, line in found if name == "extract.j2"] == [2]


def test_a_log_line_naming_the_file_is_not_a_load(tmp_path: Path) -> None:
    app = APP + 'print("loaded the system prompt from prompts/system.j2")\n'
    files = {"app/main.py": app, "app/prompts/system.j2": SYSTEM}
    assert template_problems(tmp_path, files) == []


def test_the_files_name_kept_in_a_table_is_still_unknown(tmp_path: Path) -> None:
    app = APP + 'PROMPT_FILES = {"system": "system.j2"}\n'
    files = {"app/main.py": app, "app/prompts/system.j2": SYSTEM}
    assert ("system.j2", "PC102", 2) in template_problems(tmp_path, files)


AGENT = """\
from pathlib import Path

from jinja2 import Template

_PATH = Path(__file__).parent / "prompts" / "{name}.j2"
PROMPT_TMPL = Template(_PATH.read_text())


def run(topic):
    return PROMPT_TMPL.render(topic=topic)
"""


def test_a_module_name_other_modules_spell_the_same_is_its_own(tmp_path: Path) -> None:
    # Each agent binds its own PROMPT_TMPL: the other module does not read this one's.
    files = {
        "app/__init__.py": "",
        "app/writer.py": AGENT.format(name="writer"),
        "app/reviewer.py": AGENT.format(name="reviewer"),
        "app/prompts/writer.j2": SYSTEM,
        "app/prompts/reviewer.j2": SYSTEM,
    }
    assert template_problems(tmp_path, files) == []


def test_a_module_name_another_module_imports_is_still_unknown(tmp_path: Path) -> None:
    files = {
        "app/__init__.py": "",
        "app/writer.py": AGENT.format(name="writer"),
        "app/prompts/writer.j2": SYSTEM,
        "app/later.py": "from .writer import PROMPT_TMPL\n\nTEXT = PROMPT_TMPL.render(current_date=1)\n",
    }
    assert ("writer.j2", "PC102", 2) in template_problems(tmp_path, files)
