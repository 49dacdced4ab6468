"""Flask: the request being served (`request.json`, `request.form`, `request.args`)."""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="flask",
    data=(
        DataSource(
            what="the incoming request",
            names=("flask.request", "flask.request.*", "quart.request", "quart.request.*"),
            handlers=("*.route",),
        ),
    ),
)
