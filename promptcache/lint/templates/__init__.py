"""
The walk over a Jinja2 template: what it renders, in output order, as a flat list of events.

One module per concern; `Walker` (`_walker`) joins them. See `_walker` for the map.
"""

from ._events import (
    BRANCHES,
    BRANCHES_END,
    HISTORY,
    OR_BRANCH,
    TAIL,
    TAIL_NAME,
    Event,
    Hazard,
    Note,
    Pin,
    Unsized,
)
from ._walker import Walker

__all__ = [
    "BRANCHES",
    "BRANCHES_END",
    "HISTORY",
    "OR_BRANCH",
    "TAIL",
    "TAIL_NAME",
    "Event",
    "Hazard",
    "Note",
    "Pin",
    "Unsized",
    "Walker",
]
