"""
PC508's call-site proof (`lint/python/_call_sites.py`), reviewed for silent answers (issue #21).

A parameter is taken as stable when every call the project's files make passes a constant for
it. Each case here is a way that proof said "constant" (or "no other caller") without having
read or understood a call, and the twin that must stay quiet: what the proof could not read, or
a value it cannot tell is a constant, keeps PC508's question, never a confident default.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from promptcache.lint import Finding, LintConfig, lint_paths
from promptcache.lint.python import _call_sites

from .test_lint_python_unknown_origin import _ASSISTANT, HANDBOOK

_TEXTS = 'BRIEFING = "You answer for the Acme help desk."\n'
_CONSTANT_CALLER = """
from app.assistant import answer
from app.texts import BRIEFING


def support(history):
    return answer(briefing=BRIEFING, history=history)
"""


def _project(root: Path, files: dict[str, str]) -> None:
    base = {
        "app/__init__.py": "",
        "app/assistant.py": _ASSISTANT.format(handbook=HANDBOOK),
        "app/texts.py": _TEXTS,
    }
    for name, text in (base | files).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _asked(root: Path) -> list[str]:
    """PC508's questions on the assistant module, linted alone inside its project."""
    found: list[Finding] = lint_paths(
        [root / "app" / "assistant.py"], config=LintConfig(root=root, select=("PC", "PC508"))
    )
    return [f.message.split(" ", 1)[0] for f in found if f.code == "PC508"]


def test_the_constant_caller_alone_proves_the_parameter_stable(tmp_path: Path) -> None:
    _project(tmp_path, {"app/routes.py": _CONSTANT_CALLER})
    assert _asked(tmp_path) == []


@pytest.mark.parametrize(
    ("case", "caller"),
    [
        # `self.BRIEFING` is the object's, set when it was made (per user, per session).
        (
            "an attribute of self",
            "def view(self, history):\n    return answer(self.BRIEFING, history)\n",
        ),
        # `form.POST` is a request object's attribute, upper case as Django writes it.
        (
            "an object's upper-case attribute",
            "def view(form, history):\n    return answer(form.POST, history)\n",
        ),
        # `briefing` is the enclosing function's, read from the request, not the module's.
        (
            "a closure over the enclosing function",
            "briefing = 'You answer for Acme.'\n\n\n"
            "def view(req, history):\n    briefing = req.json['b']\n\n"
            "    def go():\n        return answer(briefing, history)\n\n    return go()\n",
        ),
    ],
)
def test_a_value_that_is_not_a_module_constant_keeps_the_question(
    tmp_path: Path, case: str, caller: str
) -> None:
    _project(
        tmp_path,
        {
            "app/routes.py": _CONSTANT_CALLER,
            "app/views.py": "from app.assistant import answer\n\n\n" + caller,
        },
    )
    assert _asked(tmp_path) == ["`briefing`"], case


@pytest.mark.parametrize(
    "caller",
    [
        # another module's constant, and a constant of a class the module defines
        "from app import texts\n\n\ndef view(history):\n    return answer(texts.BRIEFING, history)\n",
        "class Texts:\n    BRIEFING = 'x'\n\n\ndef view(history):\n    return answer(Texts.BRIEFING, history)\n",
        # a name bound to a literal in the enclosing function
        "def view(history):\n    briefing = 'x'\n\n    def go():\n        return answer(briefing, history)\n\n    return go()\n",
    ],
)
def test_a_module_or_class_constant_and_an_enclosing_literal_stay_stable(
    tmp_path: Path, caller: str
) -> None:
    _project(tmp_path, {"app/routes.py": "from app.assistant import answer\n\n\n" + caller})
    assert _asked(tmp_path) == []


def test_a_call_in_a_test_file_proves_nothing_about_the_requests(tmp_path: Path) -> None:
    test = "from app.assistant import answer\n\n\ndef test_answer():\n    answer('You are a test.', [])\n"
    _project(tmp_path, {"tests/test_assistant.py": test})
    assert _asked(tmp_path) == ["`briefing`"]
    _project(tmp_path, {"app/routes.py": _CONSTANT_CALLER})  # the application's own call does
    assert _asked(tmp_path) == []


_PER_REQUEST_CALLER = """
from app.assistant import answer


def step(observation, history):
    return answer(observation, history)
"""


def test_a_package_named_env_is_the_projects_own_code(tmp_path: Path) -> None:
    """`env/` is a common package name (RL environments); a virtualenv's code is under
    site-packages, which stays skipped."""
    _project(tmp_path, {"app/routes.py": _CONSTANT_CALLER, "env/step.py": _PER_REQUEST_CALLER})
    assert _asked(tmp_path) == ["`briefing`"]
    venv = "venv/lib/python3.11/site-packages/other/step.py"
    _project(tmp_path, {"env/step.py": "", venv: _PER_REQUEST_CALLER})
    assert _asked(tmp_path) == []


def test_files_past_the_bound_leave_the_proof_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_call_sites, "_MAX_FILES", 4)
    _project(tmp_path, {"app/routes.py": _CONSTANT_CALLER})
    assert _asked(tmp_path) == []  # four files: all read
    # a walk goes top-down: the folder's four files first, then this fifth, not read
    _project(tmp_path, {"app/steps/step.py": _PER_REQUEST_CALLER})
    assert _asked(tmp_path) == ["`briefing`"]  # it may call it


def test_a_file_too_large_to_read_leaves_the_proof_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_call_sites, "_MAX_BYTES", 4096)
    big = _PER_REQUEST_CALLER + "# padding\n" * 1000
    _project(tmp_path, {"app/routes.py": _CONSTANT_CALLER, "app/generated.py": big})
    assert _asked(tmp_path) == ["`briefing`"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_fifo_named_like_a_module_is_not_read(tmp_path: Path) -> None:
    """Opened to be read, a FIFO blocks until a writer comes: the lint hung forever."""
    _project(tmp_path, {"app/routes.py": _CONSTANT_CALLER})
    fifo = tmp_path / "app" / "pipe.py"
    os.mkfifo(fifo)
    result: list[list[str]] = []
    worker = threading.Thread(target=lambda: result.append(_asked(tmp_path)), daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():  # let the blocked reader go before failing
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        worker.join(5)
    assert result == [["`briefing`"]]  # a file it cannot read may call it


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="a device to point at")
def test_a_symlink_to_a_device_is_not_read(tmp_path: Path) -> None:
    _project(tmp_path, {"app/routes.py": _CONSTANT_CALLER})
    os.symlink("/dev/null", tmp_path / "app" / "device.py")
    assert _asked(tmp_path) == ["`briefing`"]


def _messages(root: Path) -> list[str]:
    found = lint_paths(
        [root / "app" / "assistant.py"], config=LintConfig(root=root, select=("PC", "PC508"))
    )
    return [f.message for f in found if f.code == "PC508"]


def test_the_question_says_which_call_the_proof_stopped_at(tmp_path: Path) -> None:
    """The note named "no call here passes it" even where the project's calls were read: it now
    says which call passes something else (a file and line, never the value: prompts are
    personal data), or which file could not be read."""
    profile = "def view(history, profile):\n    return answer('Learner: ' + profile, history)\n"
    views = "from app.assistant import answer\n\n\n" + profile
    _project(tmp_path, {"app/routes.py": _CONSTANT_CALLER, "app/views.py": views})
    (message,) = _messages(tmp_path)
    assert "the call at `app/views.py` line 5 passes a value that is not a constant" in message
    assert "Learner" not in message and "profile" not in message
    (tmp_path / "app" / "views.py").unlink()
    os.symlink("/dev/null", tmp_path / "app" / "device.py")
    (message,) = _messages(tmp_path)
    assert "`app/device.py` could not be read for its calls" in message


def test_with_no_caller_anywhere_the_question_says_so(tmp_path: Path) -> None:
    _project(tmp_path, {})
    (message,) = _messages(tmp_path)
    assert "no call in the project passes it" in message


def test_files_past_the_kept_bound_are_still_found_by_the_names_they_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the bound on kept texts a file is kept as the names it calls and read again only
    for a question about one of them (it was read again for every question)."""
    monkeypatch.setattr(_call_sites, "_KEPT_BYTES", 1)
    _project(tmp_path, {"app/routes.py": _CONSTANT_CALLER})
    assert _asked(tmp_path) == []
    _project(tmp_path, {"app/steps/step.py": _PER_REQUEST_CALLER})
    assert _asked(tmp_path) == ["`briefing`"]
