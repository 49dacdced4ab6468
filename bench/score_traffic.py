"""
Score promptcache on recorded public traffic: VCR cassettes from other projects' test suites
(bench/traffic_corpus/manifest.json names repository, commit and path; the copies live outside
this repository, under --root). Each session is replayed through `Monitor()` in order, streams
through the vendor's stream reader, and the verdict (invalidation causes, normalised usage,
detected format) is compared with the label written before promptcache ran on it.

    python bench/score_traffic.py [--root /work/corpus/traffic] [--verbose]

Prints one line per session and "N/M sessions judged right (K crashed, J missing)", then how
many consecutive request pairs `diff` read and how many it refused.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Iterator
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import yaml

from promptcache import Invalidation, Monitor, diff
from promptcache.vendors import detect_vendor, get_vendor
from promptcache.vendors._openai import OpenAIChatStream
from promptcache.vendors.anthropic import AnthropicStream
from promptcache.vendors.openai_responses import OpenAIResponsesStream

MANIFEST = Path(__file__).parent / "traffic_corpus" / "manifest.json"
# Endpoints whose calls are model calls (not token counting, file upload or listing).
_CALLS = ("/v1/messages", "/chat/completions", "/responses", ":generateContent")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path("/work/corpus/traffic"))
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    sessions = json.loads(args.manifest.read_text())["sessions"]
    right = crashed = missing = refused = pairs = 0
    for session in sessions:
        copy = args.root / session["repo"].replace("/", "+") / session["path"]
        if not copy.exists():
            missing += 1
            print(
                f"MISSING  {session['path']} (copy it from {session['repo']}@{session['commit']})"
            )
            continue
        verdict = _replay(copy, session.get("vendor"))
        tried, failed = _diff_pairs(copy, session.get("vendor"))
        pairs, refused = pairs + tried, refused + len(failed)
        for problem in failed:
            print(f"DIFF     {Path(session['path']).name}: {problem}")
        ok = "crash" not in verdict and _matches(verdict, session["expected"])
        crashed += "crash" in verdict
        right += ok
        print(f"{'right' if ok else 'WRONG':<8} {Path(session['path']).name}")
        if args.verbose or not ok:
            print(f"         expected {session['expected']}")
            print(f"         got      {verdict}")
    judged = len(sessions) - missing
    print(f"{right}/{judged} sessions judged right ({crashed} crashed, {missing} missing)")
    print(f"diff of consecutive requests: {pairs - refused}/{pairs} read, {refused} refused")
    return 0


def _replay(path: Path, vendor: str | None) -> dict[str, Any]:
    events: list[Invalidation] = []
    monitor = Monitor(vendor, on_invalidation=events.append, metrics=False)
    usages, formats = [], []
    try:
        for n, (request, response, at) in enumerate(_calls(path)):
            found = get_vendor(vendor) if vendor else detect_vendor(request)
            formats.append(found.name)
            if isinstance(response, str):  # a recorded stream
                usage = _stream_usage(found.name, response)
                monitor.observe(request, usage=usage, at=at if at is not None else n * 5.0)
            else:
                usage = found.read_usage(response)
                monitor.observe(request, response, at=at if at is not None else n * 5.0)
            usages.append(
                {
                    "uncached_input": usage.uncached_input,
                    "cache_write": usage.cache_write,
                    "cache_read": usage.cache_read,
                    "output": usage.output,
                }
            )
    except Exception as error:  # the score counts crashes; one must not stop the run
        return {"crash": f"{type(error).__name__}: {error}"[:300]}
    return {
        "events": [e.cause for e in events],
        "usage": {str(i): u for i, u in enumerate(usages)},
        "vendor": formats[0] if formats else None,
    }


def _diff_pairs(path: Path, vendor: str | None) -> tuple[int, list[str]]:
    """`diff` of each request against the one before: how many, and the refusals' messages."""
    try:
        requests = [request for request, _, _ in _calls(path)]
    except Exception as error:
        return 1, [f"{type(error).__name__}: {error}"[:200]]
    failed = []
    for a, b in pairwise(requests):
        try:
            diff(a, b, vendor)
        except Exception as error:  # a refusal of traffic the vendor accepted is a miss
            failed.append(f"{type(error).__name__}: {error}"[:200])
    return max(len(requests) - 1, 0), failed


def _matches(verdict: dict[str, Any], expected: dict[str, Any]) -> bool:
    if "events" in expected and verdict["events"] != expected["events"]:
        return False
    for index, numbers in expected.get("usage", {}).items():
        if verdict["usage"].get(index) != numbers:
            return False
    return "vendor" not in expected or verdict["vendor"] == expected["vendor"]


def _calls(path: Path) -> Iterator[tuple[dict[str, Any], Any, float | None]]:
    data = yaml.safe_load(path.read_text())
    for interaction in data.get("interactions", []):
        request, response = interaction["request"], interaction["response"]
        if not any(mark in request.get("uri", "") for mark in _CALLS):
            continue
        if _status(response) >= 400:
            continue
        body, answer = _body(request), _body(response)
        if isinstance(body, dict) and answer is not None:
            yield body, answer, _moment(interaction.get("recorded_at"))


def _status(response: dict[str, Any]) -> int:
    status = response.get("status", 200)
    return int(status.get("code", 200) if isinstance(status, dict) else status)


def _body(part: dict[str, Any]) -> Any:
    """A cassette's request or response body, in the shapes vcrpy and Pydantic AI write."""
    if "parsed_body" in part:
        return part["parsed_body"]
    body = part.get("body")
    if isinstance(body, dict):
        if "content" in body:
            return body["content"]
        body = body.get("string")
    if isinstance(body, bytes) and body[:2] == b"\x1f\x8b":  # recorded gzipped (!!binary)
        body = gzip.decompress(body)
    if isinstance(body, (str, bytes)):
        text = body.decode(errors="replace") if isinstance(body, bytes) else body
        try:
            return json.loads(text)
        except ValueError:
            return text  # an event stream
    return None


def _moment(value: Any) -> float | None:
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, str):
        return datetime.fromisoformat(value).timestamp()
    return None


def _stream_usage(vendor: str, text: str) -> Any:
    reader: Any
    if vendor == "anthropic":
        reader = AnthropicStream()
    elif vendor == "openai-responses":
        reader = OpenAIResponsesStream()
    else:
        reader = OpenAIChatStream(vendor=vendor)
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
            reader.feed(json.loads(line[5:]))
    return reader.usage


if __name__ == "__main__":
    sys.exit(main())
