"""
`wrap()` of a real aiobotocore `bedrock-runtime` client against the stub on 127.0.0.1, run in a
child process:

    python -m tests.debug.aiobotocore_compat < job.json

aiobotocore 3.10.0 pins botocore < 1.43.118 and the test environment's botocore is 1.44, and one
process holds one version of a package, so aiobotocore and its botocore are installed on their own
(`COMPAT_DIR`, see `INSTALL`) and put first on this process's path before anything imports
botocore. The job (JSON on stdin) names the stub's URL, which calls to make ("paths": every
call path boto3's cassette makes, awaited; "unstreamed": those that are not streams; "error":
one refused call) and aiobotocore's HTTP
backend ("aiohttp", its default, or "httpx"); the answer (JSON on
stdout) holds what the monitor was handed per call, what the caller read back, the classes it
was given and what promptcache logged.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from tests.debug._child import KeptLogs, loopback_only

# pip's --target folder inside the test environment's venv, beside its site-packages
COMPAT_DIR = Path(sys.prefix) / "aiobotocore-compat"
INSTALL = (
    f'python -m pip install --no-deps --target "{COMPAT_DIR}" '
    "'aiobotocore==3.10.0' 'botocore==1.43.117' 'aioitertools==0.13.0'"
)
VERSIONS = {"aiobotocore": "3.10.0", "botocore": "1.43.117"}


def _loaded_from_compat() -> str | None:
    """Why the packages loaded are not the compat folder's releases, or None."""
    from importlib.metadata import version

    import aiobotocore
    import botocore

    for module in (aiobotocore, botocore):
        where = Path(module.__file__ or "")
        found = version(module.__name__)
        if COMPAT_DIR not in where.parents or found != VERSIONS[module.__name__]:
            return f"loaded {module.__name__} {found} from {where}, not from {COMPAT_DIR}"
    return None


async def _paths(client: Any, seen: list[Any]) -> dict[str, Any]:
    """Every call path, in the order of boto3's cassette (BOTO3_REPLIES); each result read."""
    from promptcache.adapters.bedrock import invoke_kwargs

    from .bedrock_cassettes import converse_turns, invoke_body

    one, two, three = converse_turns()
    first = await client.converse(**one)
    second = await client.converse(**two)
    streamed = await client.converse_stream(**three)
    from aiobotocore.eventstream import AioEventStream
    from aiobotocore.response import AioStreamingBody

    stream_class = streamed["stream"].__class__.__name__  # what isinstance sees
    stream_isinstance = isinstance(streamed["stream"], AioEventStream)
    events: list[Any] = []
    async for event in streamed["stream"]:
        if not events:  # observed once read to its end, not before
            observed_at_first_event = len(seen)
        events.append(event)
    observed_at_end = len(seen)
    reply = await client.invoke_model(**invoke_kwargs(invoke_body("Where is SH-3?")))
    body_class = type(reply["body"]).__name__  # not wrapped: aiobotocore's own, rebuilt
    body_isinstance = isinstance(reply["body"], AioStreamingBody)
    async with reply["body"] as body:
        invoked = json.loads(await body.read())
    chunked = await client.invoke_model_with_response_stream(
        **invoke_kwargs(invoke_body("Where is SH-3?"))
    )
    chunks = [json.loads(e["chunk"]["bytes"]) async for e in chunked["body"]]
    return {
        "client_class": type(client).__name__,
        "client_module": type(client).__module__,
        "converse_usage": [first["usage"], second["usage"]],
        "stream_class": stream_class,
        "stream_isinstance": stream_isinstance,
        "body_isinstance": body_isinstance,
        "stream_events": [next(iter(e)) for e in events],
        "stream_observed": [observed_at_first_event, observed_at_end],
        "body_class": body_class,
        "invoked_usage": invoked["usage"],
        "chunk_types": [c["type"] for c in chunks],
    }


async def _unstreamed(client: Any, seen: list[Any]) -> dict[str, Any]:
    """The replies that are not streams (aiobotocore 3.10's httpx backend cannot read an event
    stream at all, wrapped or not: httpx's `ResponseNotRead`)."""
    from promptcache.adapters.bedrock import invoke_kwargs

    from .bedrock_cassettes import converse_turns, invoke_body

    first = await client.converse(**converse_turns()[0])
    reply = await client.invoke_model(**invoke_kwargs(invoke_body("Where is SH-3?")))
    body_class = type(reply["body"]).__name__
    chunks = [chunk async for chunk in reply["body"]]  # the body's own async iteration
    return {
        "converse_usage": [first["usage"]],
        "body_class": body_class,
        "invoked_usage": json.loads(b"".join(chunks))["usage"],
    }


async def _error(client: Any, seen: list[Any]) -> dict[str, Any]:
    from .bedrock_cassettes import converse_turns

    try:
        await client.converse(**converse_turns()[0])
    except Exception as exc:
        return {"raised": type(exc).__name__, "code": exc.response["Error"]["Code"]}  # type: ignore[attr-defined]
    return {"raised": None}


async def _run(job: dict[str, Any]) -> dict[str, Any]:
    from aiobotocore.config import AioConfig
    from aiobotocore.session import get_session

    import promptcache
    from promptcache import get_adapter

    from .bedrock_cassettes import AWS

    def request_format(request: Any) -> str:
        return "bedrock-converse" if "modelId" in request else "bedrock-invoke"

    seen: list[dict[str, Any]] = []
    real = promptcache.Monitor.observe

    def spy(self: Any, request: Any, response: Any = None, **kw: Any) -> Any:
        usage = kw.get("usage")
        if response is not None:  # the usage the monitor reads from the reply
            usage = get_adapter(request_format(request)).read_usage(response)
        seen.append(
            {
                "converse": "modelId" in request,
                "invoke": "anthropic_version" in request,
                "response": response is not None,
                "cache_read": getattr(usage, "cache_read", None),
                "cache_write": getattr(usage, "cache_write", None),
            }
        )
        return real(self, request, response, **kw)

    promptcache.Monitor.observe = spy  # type: ignore[method-assign]
    monitor = promptcache.Monitor("bedrock", metrics=False)
    options: dict[str, Any] = {}
    if job.get("backend") == "httpx":  # aiobotocore's other HTTP backend (its default: aiohttp)
        from aiobotocore.httpxsession import HttpxSession

        options["http_session_cls"] = HttpxSession
    config = AioConfig(retries={"max_attempts": 1, "mode": "standard"}, **options)
    async with get_session().create_client(
        "bedrock-runtime", region_name="us-east-1", endpoint_url=job["url"], config=config, **AWS
    ) as raw_client:
        client = promptcache.wrap(raw_client, monitor=monitor)
        answer = await {"paths": _paths, "unstreamed": _unstreamed, "error": _error}[job["calls"]](
            client, seen
        )
        answer["same_client"] = client is raw_client
    by_model = monitor.stats()
    answer["observed"] = seen
    answer["observations"] = by_model["observations"]
    return answer


def main() -> int:
    job = json.load(sys.stdin)
    sys.path.insert(0, str(COMPAT_DIR))
    for name, value in {"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": os.devnull}.items():
        os.environ.setdefault(name, value)
    loopback_only()
    wrong = _loaded_from_compat()
    if wrong is not None:
        print(wrong)
        return 3
    kept = KeptLogs()
    logging.getLogger("promptcache").addHandler(kept)
    logging.getLogger("promptcache").setLevel(logging.DEBUG)
    answer = asyncio.run(_run(job))
    answer["logged"] = kept.messages
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
