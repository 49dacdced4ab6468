"""Streamlit: what the user types or uploads on this run of the script."""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="streamlit",
    data=(
        DataSource(
            what="the user's input",
            # Not the sidebar's fields: there a user sets a persona or a key, once per session.
            calls=(
                "streamlit.chat_input",
                "streamlit.text_input",
                "streamlit.text_area",
                "streamlit.*.chat_input",
            ),
        ),
    ),
)
