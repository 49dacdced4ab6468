"""
`promptcache lint`: find cache busters in Jinja2 prompt templates before they ship.

    from promptcache.lint import lint_paths, lint_source, load_config

    for finding in lint_source("Now: {{ now() }}\\n" + manual, path="system.j2"):
        print(finding.path, finding.line, finding.code, finding.message)

The rendering side, `render_template` / `render_prompt`, is the runtime twin of the rules: it
renders a template into promptcache layers, split at `{# promptcache: tail #}`, and refuses (by
policy) a volatile value above the marker.
"""

from __future__ import annotations

from ._config import DEFAULT_CONFIG, LintConfig, find_pyproject, load_config
from ._engine import LintReport, discover, lint_file, lint_paths, lint_report, lint_source
from ._loader import TAIL_MARKER
from ._model import Finding, Rule, Severity
from ._reporters import FORMATS, format_findings
from .render import RenderedTemplate, render_prompt, render_template
from .rules import RULES

__all__ = [
    "DEFAULT_CONFIG",
    "FORMATS",
    "RULES",
    "TAIL_MARKER",
    "Finding",
    "LintConfig",
    "LintReport",
    "RenderedTemplate",
    "Rule",
    "Severity",
    "discover",
    "find_pyproject",
    "format_findings",
    "lint_file",
    "lint_paths",
    "lint_report",
    "lint_source",
    "load_config",
    "render_prompt",
    "render_template",
]
