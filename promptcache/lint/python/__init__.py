"""
The Python side of `promptcache lint`: a dataflow analysis of the code that builds requests.

    from promptcache.lint.python import PythonLinter

    linter = PythonLinter(config)
    findings = linter.lint_file(Path("app/agent.py"), display="app/agent.py")

Rules PC500-PC507; `fix_source` applies the safe rewrites (`sort_keys=True`, orjson's
`OPT_SORT_KEYS`, `sorted(...)`).
"""

from __future__ import annotations

from ._fix import fix_paths, fix_source
from ._lint import PythonLinter, lint_python_source

__all__ = ["PythonLinter", "fix_paths", "fix_source", "lint_python_source"]
