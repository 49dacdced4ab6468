"""Gradio: the functions an interface calls with the user's message (and the history)."""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="gradio",
    data=(
        DataSource(
            what="the user's input",
            registrations=(
                "gradio.ChatInterface",
                "gradio.Interface",
                "*.click",
                "*.submit",
                "*.change",
            ),
            imported=("gradio",),
        ),
    ),
)
