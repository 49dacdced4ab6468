"""Shared helpers for the lint tests."""

from __future__ import annotations

from promptcache.lint import LintConfig, lint_source

# About 300 estimated tokens of static text: comfortably over the default threshold of 100.
STATIC = "Follow the refund policy exactly as written in section four. " * 20
SHORT = "Thanks."


def codes(source: str, **kwargs: object) -> list[str]:
    """The codes of the findings for `source`, in order."""
    return [finding.code for finding in lint_source(source, **kwargs)]  # type: ignore[arg-type]


def config(**changes: object) -> LintConfig:
    return LintConfig().replace(**changes)
