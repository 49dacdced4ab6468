"""
The rule registry: one module per rule, named by its permanent code.

A rule module holds the rule's documentation (in its docstring) and the data it matches on; the
walker in `promptcache.lint.templates` does the traversal, so adding a rule never adds a pass over
the template.
"""

from __future__ import annotations

from types import MappingProxyType

from .._model import Rule
from . import (  # Python rules
    PC001,
    PC002,
    PC003,
    PC101,
    PC102,
    PC103,
    PC104,
    PC105,
    PC106,
    PC201,
    PC301,
    PC302,
    PC500,
    PC501,
    PC502,
    PC503,
    PC504,
    PC505,
    PC506,
    PC507,
    PC508,
)

__all__ = ["RULES"]

RULES: MappingProxyType[str, Rule] = MappingProxyType(
    {
        module.RULE.code: module.RULE
        for module in (
            PC001,
            PC002,
            PC003,
            PC101,
            PC102,
            PC103,
            PC104,
            PC105,
            PC106,
            PC201,
            PC301,
            PC302,
        )
    }
    | {  # Python rules
        module.RULE.code: module.RULE
        for module in (PC500, PC501, PC502, PC503, PC504, PC505, PC506, PC507, PC508)
    }
)
