"""
Benchmark: `promptcache report` on a large log against parsing the same log with orjson.

    .venv/bin/python bench/bench_report.py [--records 100000 1000000] [--rounds 3]

The log is what the recorder writes for an Anthropic application: 2,000 sessions in flight at
once, interleaved, each growing to 12 turns, a ~6.5 KB marked system prompt and four tools
(about 2,000 tokens, over Anthropic's 1,024-token minimum, as a prompt worth caching is), the
usage an Anthropic cache reports; one session in 50 renders a clock into its system prompt at
turn 6 (a planted invalidation). For each size the two runs alternate, each in a fresh process:

- baseline: read the file line by line and `orjson.loads` every line (the least any reader does),
  the file opened with Python's defaults;
- subject: `promptcache report FILE --format json` through `main()` (the CLI's path: file reading,
  the monitors, pricing, grouping none), output discarded;
- context, not a target: the baseline reading through the 1 MiB buffer `report` reads with (on
  lines of about 10 KB the default 8 KiB buffer is refilled several times a line, which costs
  about a third of the baseline).

Printed per size: seconds (min/median/max), records/s, peak RSS of each process, and the ratio of
the medians. Targets: report <= 3x the parse; peak RSS flat from 100,000 to 1,000,000 records.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path

import orjson

MODEL = "claude-sonnet-4-6"
# Over Anthropic's 1,024-token minimum, as a prompt worth caching is: ~2,000 tokens of system
# prompt and tools before the conversation.
SYSTEM = "You are the support assistant of Acme Cloud. Follow the runbook. " * 100
TOOLS = [
    {
        "name": f"tool_{i}",
        "description": "Looks up one thing in the knowledge base. " * 12,
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
    for i in range(4)
]
TURNS, IN_FLIGHT = 12, 2_000


def _tokens(request: dict[str, object]) -> int:
    return len(orjson.dumps(request)) // 4


def write_log(path: Path, records: int) -> None:
    """`records` lines: IN_FLIGHT sessions interleaved, each TURNS turns, then the next ones."""
    with path.open("wb") as out:
        written, session, at = 0, 0, 1_764_000_000.0
        while written < records:
            batch = range(session, session + IN_FLIGHT)
            state = {s: {"messages": [], "cached": 0} for s in batch}
            for turn in range(TURNS):
                for s in batch:
                    if written >= records:
                        return
                    at += 0.05
                    entry = state[s]
                    history: list[dict[str, object]] = entry["messages"]  # type: ignore[assignment]
                    history.append({"role": "user", "content": f"Question {turn} of session {s}?"})
                    clock = s % 50 == 0 and turn == 6
                    system = (f"Now: {at:.0f}. " if clock else "") + SYSTEM
                    request = {
                        "model": MODEL,
                        "max_tokens": 1024,
                        "tools": TOOLS,
                        "system": [
                            {"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}
                        ],
                        "messages": history,
                    }
                    total = _tokens(request)
                    read = 0 if clock else int(entry["cached"])  # type: ignore[call-overload]
                    usage = {
                        "input_tokens": 12,
                        "cache_read_input_tokens": read,
                        "cache_creation_input_tokens": max(total - read - 12, 0),
                        "output_tokens": 40,
                    }
                    entry["cached"] = total - 12
                    line = {
                        "v": 1,
                        "at": at,
                        "vendor": "anthropic",
                        "key": f"session-{s}",
                        "request": request,
                        "response": {"model": MODEL, "usage": usage},
                    }
                    out.write(orjson.dumps(line) + b"\n")
                    history.append({"role": "assistant", "content": f"Answer {turn}."})
                    written += 1
            session += IN_FLIGHT


def run_parse(path: Path, buffering: int = -1) -> tuple[float, int]:
    start = time.perf_counter()
    n = 0
    with path.open("rb", buffering=buffering) as handle:
        for line in handle:
            orjson.loads(line)
            n += 1
    return time.perf_counter() - start, n


def run_report(path: Path) -> tuple[float, int]:
    from promptcache.cli import main

    sink = io.StringIO()
    start = time.perf_counter()
    with redirect_stdout(sink):
        code = main(["report", str(path), "--format", "json", "--progress", "never"])
    took = time.perf_counter() - start
    assert code == 0, code
    return took, int(orjson.loads(sink.getvalue())["records"])


def _child(kind: str, path: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return orjson.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", default="/tmp")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "FILE"))
    args = parser.parse_args()
    if args.child:
        kind, file = args.child
        if kind == "report":
            took, n = run_report(Path(file))
        else:
            took, n = run_parse(Path(file), 1 << 20 if kind == "buffered" else -1)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(orjson.dumps({"seconds": took, "records": n, "rss_mib": rss}).decode())
        return 0
    ok = True
    for records in args.records:
        path = Path(args.dir) / f"promptcache-bench-{records}.jsonl"
        if not path.exists():
            write_log(path, records)
        size = path.stat().st_size
        kinds = ["parse", "report", "buffered"]
        runs: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
        for r in range(args.rounds):
            for kind in kinds[r % 3 :] + kinds[: r % 3]:
                runs[kind].append(_child(kind, path))
        med = {k: statistics.median(x["seconds"] for x in v) for k, v in runs.items()}
        print(f"{records:,} records, {size / 2**20:,.0f} MiB:")
        labels = {
            "parse": "orjson parse (baseline)",
            "report": "promptcache report     ",
            "buffered": "parse, 1 MiB buffer    ",
        }
        for kind in kinds:
            secs = sorted(x["seconds"] for x in runs[kind])
            rss = max(x["rss_mib"] for x in runs[kind])
            print(
                f"  {labels[kind]} {secs[0]:7.2f}/{med[kind]:7.2f}/{secs[-1]:7.2f} s "
                f"(min/median/max)  {records / med[kind]:>9,.0f} records/s  "
                f"peak RSS {rss:,.0f} MiB"
            )
        ratio = med["report"] / med["parse"]
        print(
            f"  report / parse: {ratio:.2f}x (target <= 3x); report / parse with report's read "
            f"buffer: {med['report'] / med['buffered']:.2f}x (context)"
        )
        ok = ok and ratio <= 3.0
        if os.environ.get("PROMPTCACHE_BENCH_KEEP") != "1":
            path.unlink()
    print("targets met" if ok else "targets NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
