"""boto3's `bedrock-runtime` client: Converse (system blocks, messages, tool config) and
InvokeModel (a JSON body in the model's own format)."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="bedrock",
    sinks=(
        Sink(
            api="Bedrock Converse",
            suffixes=("converse", "converse_stream"),
            keywords=(("system", "system"), ("messages", "messages"), ("toolConfig", "tools")),
            answers=True,
            cache_points=("cachePoint",),
        ),
        Sink(
            api="Bedrock InvokeModel",
            suffixes=("invoke_model", "invoke_model_with_response_stream"),
            keywords=(("body", "body"),),
            answers=True,
        ),
    ),
)
