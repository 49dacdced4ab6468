"""`[tool.promptcache.lint]` in pyproject.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptcache import InputError
from promptcache.lint import DEFAULT_CONFIG, LintConfig, find_pyproject, load_config


def _pyproject(tmp_path: Path, table: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(
        f"[project]\nname = 'x'\n\n[tool.promptcache.lint]\n{table}\n", encoding="utf-8"
    )
    return path


def test_defaults_without_a_file_or_table(tmp_path: Path) -> None:
    assert load_config(None) == DEFAULT_CONFIG
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    config = load_config(tmp_path / "pyproject.toml")
    assert config.threshold == 100 and config.root == tmp_path


def test_all_keys(tmp_path: Path) -> None:
    config = load_config(
        _pyproject(
            tmp_path,
            """
select = ["PC1"]
ignore = ["PC103"]
threshold = 250
extend-volatile-calls = ["clock.*"]
per-request = ["tenant"]
stable = ["user_guide"]
include = ["*.tmpl"]
exclude = ["vendor/*"]
search-path = ["templates"]
""",
        )
    )
    assert config.select == ("PC1",) and config.ignore == ("PC103",)
    assert config.threshold == 250
    assert config.volatile_calls[-1] == "clock.*" and "now" in config.volatile_calls
    assert config.per_request == ("tenant",)
    assert config.is_per_request("tenant.name") and not config.is_per_request("user")
    assert config.include == ("*.tmpl",) and config.exclude == ("vendor/*",)
    assert config.search_path == ("templates",)
    assert config.enabled("PC101") and not config.enabled("PC103") and not config.enabled("PC201")


@pytest.mark.parametrize(
    ("table", "needle"),
    [
        ("thresold = 5", "unknown key(s) ['thresold']"),
        ("threshold = -1", "threshold must be a whole number"),
        ("threshold = 'high'", "'high'"),
        ("select = 'PC101'", "select must be a list of strings"),
        ("ignore = ['XY9']", "'XY9' matches no lint rule"),
    ],
)
def test_bad_config_names_the_value(tmp_path: Path, table: str, needle: str) -> None:
    with pytest.raises(InputError) as info:
        load_config(_pyproject(tmp_path, table))
    assert needle in str(info.value)


def test_invalid_toml(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.promptcache.lint\n")
    with pytest.raises(InputError, match="cannot read lint configuration"):
        load_config(path)


def test_find_pyproject_walks_up(tmp_path: Path) -> None:
    _pyproject(tmp_path, "")
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert find_pyproject(nested) == tmp_path / "pyproject.toml"


def test_longest_prefix_wins() -> None:
    config = LintConfig(select=("PC101",), ignore=("PC1",))
    assert config.enabled("PC101") and not config.enabled("PC102")


def test_names_are_case_insensitive_globs() -> None:
    config = LintConfig()
    assert config.is_per_request("CURRENT_DATETIME")
    assert config.is_per_request("user.profile.email")
    assert not config.is_per_request("persona")
    assert config.is_volatile_call("datetime.datetime.now")
    assert not config.is_volatile_call("format_tools")
