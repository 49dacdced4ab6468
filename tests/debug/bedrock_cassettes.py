"""
Record the Bedrock cassettes: boto3's real `bedrock-runtime` client and the anthropic SDK's
`AnthropicBedrock` -> a stub on 127.0.0.1 -> vcrpy (urllib3 for boto3, httpx2 for anthropic).

    /work/venv/bin/python -m tests.debug.bedrock_cassettes

Dummy AWS credentials (the SigV4 `Authorization`, `X-Amz-*` and `amz-sdk-*` headers are filtered
out of the recording); the stub answers with synthetic replies, streams in AWS's binary
event-stream framing. See cassettes/README.md.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from promptcache import Message, Prompt, get_adapter
from promptcache.adapters.bedrock import invoke_kwargs

from .._recording import (
    Reply,
    anthropic_events,
    aws_event_stream,
    bedrock_chunks,
    recorder,
    replayer,
    stub_server,
)

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"
HOST = "https://bedrock-runtime.us-east-1.amazonaws.com"
MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
# Dummy credentials: never real, and filtered from the cassettes anyway.
AWS = {"aws_access_key_id": "AKIDPROMPTCACHEFAKE", "aws_secret_access_key": "fake-secret-0000"}
AWS_HEADERS = [
    "authorization",
    "x-amz-date",
    "x-amz-security-token",
    "x-amz-content-sha256",
    "amz-sdk-invocation-id",
    "amz-sdk-request",
]
SYSTEM = "You are the order desk of Shipwell. Policy: refunds within 30 days, no exceptions. " * 90

for name, value in {"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": os.devnull}.items():
    os.environ.setdefault(name, value)


def prompt(tail: str, history: tuple[Message, ...] = ()) -> Prompt:
    return Prompt().add_system(SYSTEM).add_history(*history).with_tail(tail)


def converse_turns() -> list[dict[str, Any]]:
    """The Converse requests of the boto3 cassette, as the adapter writes them."""
    adapter = get_adapter("bedrock-converse")
    one = prompt("Where is SH-1?")
    two = one.commit_tail(Message.assistant("It shipped.")).with_tail("And the refund?")
    three = prompt("Where is SH-2?")
    return [adapter.to_request(p, model=MODEL) for p in (one, two, three)]


def invoke_body(tail: str) -> dict[str, Any]:
    return get_adapter("bedrock-invoke").to_request(prompt(tail), model=MODEL, max_tokens=64)


def _converse_reply(uncached: int, read: int, write: int, output: int) -> Reply:
    return Reply(body=_converse(uncached, read, write, output))


def _converse(uncached: int, read: int, write: int, output: int) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "inputTokens": uncached,
        "outputTokens": output,
        "totalTokens": uncached + read + write + output,
        "cacheReadInputTokens": read,
        "cacheWriteInputTokens": write,
    }
    if write:
        usage["cacheDetails"] = [{"ttl": "5m", "inputTokens": write}]
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": "ok"}]}},
        "stopReason": "end_turn",
        "usage": usage,
        "metrics": {"latencyMs": 412},
    }


def _anthropic_message(read: int, write: int) -> dict[str, Any]:
    return {
        "id": "msg_bdrk_01Promptcache",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 12,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
            "output_tokens": 5,
        },
    }


def _invoke_stream(read: int) -> Reply:
    events = anthropic_events(_anthropic_message(read, 0), "ok", {"output_tokens": 5})
    chunks = bedrock_chunks(events)
    return aws_event_stream(chunks)


BOTO3_REPLIES = (
    _converse_reply(14, 0, 1830, 9),  # converse: the first turn writes
    _converse_reply(22, 1830, 16, 7),  # converse: the next turn reads it
    aws_event_stream(  # converse_stream: usage in the last (metadata) event
        [
            ("messageStart", {"role": "assistant"}),
            ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "ok"}}),
            ("contentBlockStop", {"contentBlockIndex": 0}),
            ("messageStop", {"stopReason": "end_turn"}),
            (
                "metadata",
                {
                    "usage": {
                        "inputTokens": 14,
                        "outputTokens": 3,
                        "totalTokens": 1847,
                        "cacheReadInputTokens": 1830,
                        "cacheWriteInputTokens": 0,
                    },
                    "metrics": {"latencyMs": 380},
                },
            ),
        ]
    ),
    Reply(body=_anthropic_message(0, 1829)),  # invoke_model
    _invoke_stream(1829),  # invoke_model_with_response_stream
)

ANTHROPIC_BEDROCK_REPLIES = (Reply(body=_anthropic_message(0, 1829)), _invoke_stream(1829))


def boto3_client(endpoint: str | None) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=endpoint or HOST,
        config=Config(retries={"max_attempts": 1, "mode": "standard"}),
        **AWS,
    )


def boto3_calls(client: Any) -> list[Any]:
    """Every Bedrock call path boto3 has, in the cassette's order; each result fully read."""
    one, two, three = converse_turns()
    results: list[Any] = [client.converse(**one), client.converse(**two)]
    streamed = client.converse_stream(**three)
    results.append(list(streamed["stream"]))
    reply = client.invoke_model(**invoke_kwargs(invoke_body("Where is SH-3?")))
    results.append(json.loads(reply["body"].read()))
    streamed = client.invoke_model_with_response_stream(
        **invoke_kwargs(invoke_body("Where is SH-3?"))
    )
    results.append([json.loads(e["chunk"]["bytes"]) for e in streamed["body"]])
    return results


def anthropic_bedrock_client(base_url: str | None) -> Any:
    from anthropic import AnthropicBedrock

    return AnthropicBedrock(
        aws_access_key=AWS["aws_access_key_id"],
        aws_secret_key=AWS["aws_secret_access_key"],
        aws_region="us-east-1",
        base_url=base_url or HOST,
        max_retries=0,
    )


def anthropic_bedrock_calls(client: Any) -> list[Any]:
    body = invoke_body("Where is SH-4?")
    message = client.messages.create(**body)
    with client.messages.create(**body, stream=True) as stream:
        events = list(stream)
    return [message, events]


CASSETTE_CALLS: dict[
    str, tuple[Callable[[str | None], Any], Callable[[Any], list[Any]], tuple[Reply, ...]]
] = {
    "bedrock/boto3.yaml": (boto3_client, boto3_calls, BOTO3_REPLIES),
    "bedrock/anthropic_bedrock.yaml": (
        anthropic_bedrock_client,
        anthropic_bedrock_calls,
        ANTHROPIC_BEDROCK_REPLIES,
    ),
}


def bedrock_recorder(stub_url: str) -> Any:
    cassettes = recorder(CASSETTES, stub_url, HOST)
    cassettes.filter_headers = [*cassettes.filter_headers, *AWS_HEADERS]
    return cassettes


def bedrock_replayer() -> Any:
    return replayer(CASSETTES)


def main() -> int:
    with stub_server() as stub:
        for cassette, (make, calls, replies) in CASSETTE_CALLS.items():
            path = CASSETTES / cassette
            path.parent.mkdir(parents=True, exist_ok=True)
            path.unlink(missing_ok=True)
            stub.serve(replies)
            with bedrock_recorder(stub.url).use_cassette(cassette):
                calls(make(stub.url))
            if stub.replies:
                raise RuntimeError(f"{cassette}: {len(stub.replies)} replies not requested")
            print(f"{cassette}: {[m + ' ' + p for m, p in stub.seen]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
