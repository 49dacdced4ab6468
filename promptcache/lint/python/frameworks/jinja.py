"""Jinja: templates made from text or files, whose `render(...)` variables are followed to where
they render (the interpreter's template handling reads these names)."""

from __future__ import annotations

from .._knowledge import Framework

TEMPLATE_CONSTRUCTORS = ("Template", "from_string", "get_template")
RENDER_METHODS = ("render", "render_async")

FRAMEWORK = Framework(
    name="jinja",
    # Marking text safe (or escaping it) keeps what it depends on, and where.
    pass_through=("markupsafe.Markup", "markupsafe.escape", "jinja2.utils.markupsafe.Markup"),
)
