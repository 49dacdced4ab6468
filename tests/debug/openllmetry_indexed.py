"""
One session of OpenLLMetry's indexed-attribute releases (Traceloop's
`opentelemetry-instrumentation-openai` 0.54.0, `-anthropic` 0.53.4: the prompt as
`gen_ai.prompt.N.*`, the tools as `llm.request.functions.N.*`) tracing the real SDK client, fed
to a `MonitorSpanProcessor`, run in a child process:

    python -m tests.debug.openllmetry_indexed < job.json

The test environment's own OpenLLMetry is a current release (the GenAI conventions'
`gen_ai.input.messages`), and one process holds one version of a package, so the old releases are
installed on their own (`INDEXED_DIR`, see `INSTALL`) and put first on this process's path. The
job (JSON on stdin) names the vendor, the stub's URL and each call's keyword arguments; the answer
(JSON on stdout) holds the invalidations, hit rates, unjudged reasons, what promptcache logged
and the names (never the values) of each span's attributes.
"""

from __future__ import annotations

import json
import logging
import sys
import warnings
from pathlib import Path
from typing import Any

from tests.debug._child import KeptLogs, loopback_only

# pip's --target folder inside the test environment's venv, beside its site-packages
INDEXED_DIR = Path(sys.prefix) / "openllmetry-indexed"
INSTALL = (
    f'python -m pip install --no-deps --target "{INDEXED_DIR}" '
    "'opentelemetry-instrumentation-openai==0.54.0' "
    "'opentelemetry-instrumentation-anthropic==0.53.4'"
)
VERSIONS = {"openai": "0.54.0", "anthropic": "0.53.4"}


def main() -> int:
    job = json.load(sys.stdin)
    sys.path.insert(0, str(INDEXED_DIR))
    loopback_only()

    import importlib
    from importlib.metadata import version

    from opentelemetry.sdk.trace import SpanProcessor, TracerProvider

    import promptcache
    from promptcache.debug.otel import MonitorSpanProcessor

    from .._recording import anthropic_client, openai_client

    vendor = job["vendor"]
    module = importlib.import_module(f"opentelemetry.instrumentation.{vendor}")
    where = Path(module.__file__ or "")
    found = version(f"opentelemetry-instrumentation-{vendor}")
    if INDEXED_DIR not in where.parents or found != VERSIONS[vendor]:
        print(f"loaded {found} from {where}, not {VERSIONS[vendor]} from {INDEXED_DIR}")
        return 3

    kept = KeptLogs()
    logging.getLogger("promptcache").addHandler(kept)
    logging.getLogger("promptcache").setLevel(logging.DEBUG)
    names: list[list[str]] = []

    class Names(SpanProcessor):
        def on_end(self, span: Any) -> None:
            names.append(sorted(span.attributes or {}))

    events: list[Any] = []
    processor = MonitorSpanProcessor(
        promptcache.Monitor(on_invalidation=events.append, metrics=False)
    )
    provider = TracerProvider()
    provider.add_span_processor(Names())
    provider.add_span_processor(processor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        instrumentor = getattr(
            module, f"{'OpenAI' if vendor == 'openai' else 'Anthropic'}Instrumentor"
        )
        instrumentor(**job.get("options", {})).instrument(tracer_provider=provider)
    if vendor == "openai":
        client = openai_client(job["url"])
        for call in job["calls"]:
            client.chat.completions.create(**call)
    else:
        client = anthropic_client(job["url"])
        for call in job["calls"]:
            client.messages.create(**call)
    provider.shutdown()
    answer = {
        "events": [
            {
                "cause": e.cause,
                "path": e.path,
                "expected_read": e.expected_read,
                "actual_read": e.actual_read,
                "said": e.message() + e.detail + repr(e.key),
            }
            for e in events
        ],
        "rates": {
            f"{v}/{m}": {
                "spans": r.spans,
                "cache_read": r.cache_read,
                "cache_write": r.cache_write,
                "uncached_input": r.uncached_input,
                "unreported_spans": r.unreported_spans,
            }
            for (v, m), r in processor.hit_rates().items()
        },
        "unjudged": dict(processor.unjudged),
        "observations": processor.monitor.stats()["observations"],
        "logged": kept.messages,
        "attribute_names": names,
    }
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
