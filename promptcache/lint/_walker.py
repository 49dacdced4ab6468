"""
The template walker's names where the engine, the renderer and the reporters import them.

The walker itself is the `templates` package beside this module (one module per concern).
"""

from .templates import HISTORY, TAIL, TAIL_NAME, Event, Hazard, Note, Unsized, Walker

__all__ = ["HISTORY", "TAIL", "TAIL_NAME", "Event", "Hazard", "Note", "Unsized", "Walker"]
