"""The release: one version, a wheel that builds offline and installs, and runs the first command.

The wheel is built from this tree with the test environment's hatchling (`--no-isolation`: no
network), installed with `--no-deps` into a fresh venv that sees the test environment's
site-packages for the dependencies (a full install needs the package index), and `promptcache
demo` runs from that venv, outside the source tree.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import promptcache

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_written_once() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == "promptcache/__init__.py"
    assert promptcache.__version__.count(".") == 2


def test_the_changelog_has_an_unreleased_section_and_this_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog
    assert f"## [{promptcache.__version__}]" in changelog


def _site_packages() -> list[str]:
    import site

    return [p for p in site.getsitepackages() if Path(p).is_dir()]


@pytest.mark.release
def test_the_built_wheel_installs_in_a_fresh_venv_and_runs_the_demo(tmp_path: Path) -> None:
    pytest.importorskip("build", reason="pip install build (the [dev] extra has it)")
    pytest.importorskip("hatchling", reason="pip install hatchling (the [dev] extra has it)")
    pytest.importorskip("anthropic", reason="the demo's default vendor needs the anthropic SDK")
    dist = tmp_path / "dist"
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--no-isolation",
            "--wheel",
            "--outdir",
            str(dist),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = dist.glob("promptcache_sdk-*.whl")
    assert wheel.name.startswith(f"promptcache_sdk-{promptcache.__version__}-")

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    # The dependencies: this test environment's site-packages, after the venv's own (a .pth
    # line is a plain path, so this environment's own .pth files, an editable promptcache's
    # among them, are not read). `--system-site-packages` would give the base interpreter's.
    (site,) = (env_dir / "lib").glob("python*/site-packages")
    (site / "test-environment.pth").write_text("\n".join(_site_packages()) + "\n")
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr

    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.pop("PYTHONPATH", None)  # the installed wheel, not this source tree
    where = subprocess.run(
        [
            str(python),
            "-c",
            "import promptcache, importlib.metadata as m; "
            "print(promptcache.__file__); print(m.version('promptcache-sdk'))",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
        check=False,
    )
    assert where.returncode == 0, where.stderr
    path, version = where.stdout.split()
    assert Path(path).is_relative_to(env_dir) and version == promptcache.__version__

    demo = subprocess.run(
        [str(env_dir / "bin" / "promptcache"), "demo"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
        check=False,
    )
    assert demo.returncode == 0, demo.stderr
    assert "saved" in demo.stdout and "cause timestamp" in demo.stdout
