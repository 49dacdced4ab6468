"""
Serverless functions called with an event (AWS Lambda, Google Cloud Functions' background
functions): a handler written `handler(event, context)` gets the invocation's event (an API
Gateway request, a queue message, a bot's update) first; `context` is the runtime's own object
(the request id, the time left), not the caller's data, whatever it is named.
"""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="aws_lambda",
    data=(DataSource(what="the invocation's event", signatures=(("event", "context"),)),),
)
