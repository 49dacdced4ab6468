"""A request posted as JSON over plain HTTP (`requests`, `httpx`, `aiohttp`): an app that calls a
chat API without its SDK posts the body itself, `{"model": ..., "messages": [...]}`."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="http",
    sinks=(
        # Any `.post(...)`: only a body holding `system`, `messages` or `tools` is judged (the
        # `body` role reads those fields and nothing else), so other posts stay quiet.
        Sink(
            api="a JSON body posted over HTTP",
            suffixes=("post",),
            keywords=(("json", "body"), ("data", "body")),
        ),
        # The method given as text (`httpx.AsyncClient().stream("POST", url, json=body)`,
        # `requests.request("POST", ...)`): the same body, on the HTTP libraries' own objects
        # only (`stream` and `request` are common method names elsewhere).
        Sink(
            api="a JSON body sent over HTTP",
            suffixes=("stream", "request"),
            keywords=(("json", "body"), ("data", "body")),
            roots=("httpx.", "requests.", "aiohttp."),
        ),
    ),
)
