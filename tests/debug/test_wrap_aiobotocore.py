"""
`wrap()` of aiobotocore's `bedrock-runtime` client, the async Bedrock path: the real aiobotocore
3.10.0 client against the stub on 127.0.0.1 with dummy credentials, every call path awaited,
streamed and not, in a child process (`aiobotocore_compat`): aiobotocore pins botocore
< 1.43.118, the venv's botocore is 1.44, so it is installed in its own folder (see `INSTALL`).
And the refusal of what cannot be observed: an aiobotocore client whose emitter would not await
the observing hook.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from promptcache import InputError, wrap

from .._recording import Reply, stub_server
from .aiobotocore_compat import COMPAT_DIR, INSTALL
from .bedrock_cassettes import BOTO3_REPLIES

ROOT = Path(__file__).resolve().parents[2]


def _child(job: dict[str, Any], replies: tuple[Reply, ...]) -> dict[str, Any]:
    if not (COMPAT_DIR / "aiobotocore").is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI must install aiobotocore beside its botocore: {INSTALL}")
        pytest.skip(f"aiobotocore and its botocore are not installed: {INSTALL}")
    with stub_server() as stub:
        stub.serve(replies)
        done = subprocess.run(
            [sys.executable, "-m", "tests.debug.aiobotocore_compat"],
            input=json.dumps({**job, "url": stub.url}),
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert not stub.replies, "every request reached the stub"
        assert [m for m, _ in stub.seen] == ["POST"] * len(replies)
    assert "Shipwell" not in done.stdout + done.stderr  # no prompt text in anything logged
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_every_aiobotocore_call_path_is_observed_with_its_usage() -> None:
    answer = _child({"calls": "paths"}, BOTO3_REPLIES)
    # the caller's own aiobotocore client, hooked in place
    assert answer["same_client"] and answer["client_module"].startswith("aiobotocore")
    converse = {"converse": True, "invoke": False, "response": True}
    invoke = {"converse": False, "invoke": True}
    assert answer["observed"] == [
        {**converse, "cache_read": 0, "cache_write": 1830},  # the first turn writes
        {**converse, "cache_read": 1830, "cache_write": 16},  # the next one reads it
        {**converse, "response": False, "cache_read": 1830, "cache_write": 0},  # at its end
        {**invoke, "response": True, "cache_read": 0, "cache_write": 1829},
        {**invoke, "response": False, "cache_read": 1829, "cache_write": 0},
    ]
    assert answer["observations"] == 5
    # what the caller got: aiobotocore's own objects, streams read with async for, the invoke
    # body (read by the hook) still readable with await
    assert answer["converse_usage"][0]["cacheWriteInputTokens"] == 1830
    assert answer["converse_usage"][1]["cacheReadInputTokens"] == 1830
    assert answer["stream_class"] == "AioEventStream" and answer["stream_isinstance"]
    assert answer["body_isinstance"]
    assert answer["stream_events"][-1] == "metadata"
    assert answer["stream_observed"] == [2, 3]  # once the caller has read it, not before
    assert answer["body_class"] == "AioStreamingBody"  # aiobotocore's own class, rebuilt
    assert answer["invoked_usage"]["cache_creation_input_tokens"] == 1829
    assert answer["chunk_types"][0] == "message_start"
    assert answer["chunk_types"][-1] == "message_stop"
    # nothing went unobserved or unread
    assert [m for m in answer["logged"] if "could not" in m or "cannot" in m] == []


def test_the_httpx_backend_hands_back_its_own_body_class_readable() -> None:
    """aiobotocore's other HTTP backend (event streams excepted: aiobotocore 3.10 cannot read
    them over httpx at all, wrapped or not)."""
    answer = _child({"calls": "unstreamed", "backend": "httpx"}, BOTO3_REPLIES[::3])
    assert [(o["cache_read"], o["cache_write"]) for o in answer["observed"]] == [
        (0, 1830),
        (0, 1829),
    ]
    assert answer["converse_usage"][0]["cacheWriteInputTokens"] == 1830
    assert answer["body_class"] == "AioHttpxStreamingBody"
    assert answer["invoked_usage"]["cache_creation_input_tokens"] == 1829
    assert [m for m in answer["logged"] if "could not" in m or "cannot" in m] == []


def test_an_error_reaches_the_caller_and_is_not_observed() -> None:
    refused = Reply(status=400, body={"message": "The model is not ready"})
    answer = _child({"calls": "error"}, (refused,))
    assert answer["raised"] == "ClientError"
    assert answer["observed"] == [] and answer["observations"] == 0


def _aiobotocore_client(registered: list[str], emitter_module: str) -> Any:
    def register(event: str, handler: Any, unique_id: str | None = None) -> None:
        registered.append(event)

    emitter = type(
        "Emitter", (), {"__module__": emitter_module, "register": staticmethod(register)}
    )
    meta = SimpleNamespace(
        service_model=SimpleNamespace(service_name="bedrock-runtime"), events=emitter()
    )
    cls = type("BedrockRuntime", (), {"__module__": "aiobotocore.client", "meta": meta})
    return cls()


@pytest.mark.parametrize("vendor", ["bedrock", None])
def test_an_aiobotocore_client_whose_emitter_does_not_await_is_refused(
    vendor: str | None,
) -> None:
    """Its emitter would drop the after-call coroutine unrun: nothing would be observed."""
    registered: list[str] = []
    client = _aiobotocore_client(registered, "botocore.hooks")
    with pytest.raises(InputError, match=r"botocore\.hooks\.Emitter\) is not aiobotocore's"):
        wrap(client, vendor=vendor)
    assert registered == []  # nothing hooked


def test_an_aiobotocore_client_is_hooked_on_its_awaiting_emitter() -> None:
    registered: list[str] = []
    client = _aiobotocore_client(registered, "aiobotocore.hooks")
    assert wrap(client) is client  # the vendor from the package: bedrock-converse
    assert registered == ["provide-client-params.bedrock-runtime", "after-call.bedrock-runtime"]


def test_a_botocore_client_shaped_the_same_is_still_hooked() -> None:
    registered: list[str] = []
    client = _aiobotocore_client(registered, "botocore.hooks")
    type(client).__module__ = "botocore.client"
    assert wrap(client, vendor="bedrock") is client
    assert registered == [
        "provide-client-params.bedrock-runtime",
        "after-call.bedrock-runtime",
    ]
