"""
Benchmark: `promptcache report` on a large log against parsing the same log with orjson.

    .venv/bin/python bench/bench_report.py [--records 100000 1000000] [--rounds 3]
        [--log recorder full foreign] [--against CHECKOUT]

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

`--log` picks the logs (default all three):

- `recorder`: the log above, the recorder's layout, text as the application sent it;
- `full`: what `Recorder(content="full")` writes for a busier app (5,000 sessions in flight): `"content": "full"`, the whole Anthropic
  response (id, content blocks with the answer's text, stop reason, usage with the TTL split),
  and conversations that carry each answer back (about 12 KB a record, some text not ASCII);
- `foreign`: a log shaped like another tool's (a gateway's OpenAI Chat Completions log): the
  system prompt as a message, tools as functions, the whole `chat.completion` response
  (choices, message text, `prompt_tokens_details`), and the tool's own fields around them
  (an id, timestamps, latency, spend, tags, a hashed API key): about 12 KB a record.

`--against CHECKOUT` (the root of another checkout: a worktree of main, say) times that code's
report too, each round in the same rotation, and prints the two reports' ratio: a change measured
against the code before it in one run, under the same load.

Printed per size: seconds (min/median/max) of wall time and of the process's CPU time (user and
system: what the work took, whatever else the machine runs), records/s, peak RSS of each process,
and the ratios of the medians. Targets: report <= 3x the parse in CPU time (on a busy machine
wall time measures the neighbours too; its ratio is printed beside); peak RSS flat from 100,000
to 1,000,000 records.
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
from typing import Any

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
# The full-content logs' app is busier: 5,000 sessions in flight, whose ~12 KB requests are
# more than the monitors' 32 MiB body budget holds, so bodies are dropped to fingerprints.
BUSY = 5_000


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


ANSWER = "Check the health check path; it moved in runbook 4.2 (Überprüfung: Pfad /healthz). " * 4


def _answer(session: int, turn: int) -> str:
    return f"Answer {turn} for session {session}: " + ANSWER


def _question(session: int, turn: int) -> str:
    return f"Question {turn} of session {session}: my deploy fails with 502s since noon, why? " * 3


def _customer(session: int) -> str:
    """The session's own documents ahead of the shared prompt (a full log's text is the user's)."""
    return f"Customer file {session}: Kundenakte Nr. {session}, Prüfung läuft; 顧客{session}。" * 16


def write_full_log(path: Path, records: int) -> None:
    """As `write_log`, as `Recorder(content="full")` writes it: whole responses, answers kept,
    each session's own documents in its system prompt."""
    with path.open("wb") as out:
        for s, turn, at, history, total, read in _sessions(records):
            history.append({"role": "user", "content": _question(s, turn)})
            request = {
                "model": MODEL,
                "max_tokens": 1024,
                "tools": TOOLS,
                "system": [
                    {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}
                ],
                "messages": history,
            }
            total[0] = _tokens(request)
            write = max(total[0] - read - 12, 0)
            response = {
                "id": f"msg_{s:06d}{turn:02d}",
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": [{"type": "text", "text": _answer(s, turn)}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 12,
                    "cache_read_input_tokens": read,
                    "cache_creation_input_tokens": write,
                    "cache_creation": {
                        "ephemeral_5m_input_tokens": write,
                        "ephemeral_1h_input_tokens": 0,
                    },
                    "output_tokens": 90,
                    "service_tier": "standard",
                },
            }
            line = {
                "v": 1,
                "at": at,
                "vendor": "anthropic",
                "key": f"session-{s}",
                "content": "full",
                "request": request,
                "response": response,
            }
            out.write(orjson.dumps(line) + b"\n")
            history.append({"role": "assistant", "content": _answer(s, turn)})


def write_foreign_log(path: Path, records: int) -> None:
    """A gateway's log of OpenAI Chat Completions calls: its own fields around the exchange."""
    tools = [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t["description"],
                "parameters": t["input_schema"],
            },
        }
        for t in TOOLS
    ]
    with path.open("wb") as out:
        for s, turn, at, history, total, read in _sessions(records):
            if not history:
                history.append({"role": "system", "content": _customer(s) + SYSTEM})
            history.append({"role": "user", "content": _question(s, turn)})
            request = {
                "model": "gpt-4.1",
                "messages": history,
                "tools": tools,
                "prompt_cache_key": f"tenant-{s}",
            }
            total[0] = _tokens(request)
            response = {
                "id": f"chatcmpl-{s:06d}{turn:02d}",
                "object": "chat.completion",
                "created": int(at),
                "model": "gpt-4.1-2025-04-14",
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": _answer(s, turn),
                            "refusal": None,
                            "annotations": [],
                        },
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": total[0],
                    "completion_tokens": 90,
                    "total_tokens": total[0] + 90,
                    "prompt_tokens_details": {"cached_tokens": read, "audio_tokens": 0},
                    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
                },
                "service_tier": "default",
                "system_fingerprint": "fp_b3f1157249",
            }
            line = {
                "id": f"log-{s:06d}-{turn:02d}",
                "at": at,
                "startTime": at - 1.2,
                "endTime": at,
                "latency_ms": 1200,
                "spend": 0.0123,
                "tags": ["prod", "support-bot"],
                "api_key_hash": "88dc28d0f030c55ed4ab77ed8faf098196cb1c05df778539800c9f1243fe6b4b",
                "request": request,
                "response": response,
            }
            out.write(orjson.dumps(line) + b"\n")
            history.append({"role": "assistant", "content": _answer(s, turn)})


def _sessions(records: int, in_flight: int = BUSY) -> Any:
    """(session, turn, at, its history, [its prompt tokens], tokens it can read) per record:
    `in_flight` sessions interleaved, each TURNS turns, then the next ones. The writer sets the
    prompt tokens; what the next turn reads is the previous prompt (a healthy cache)."""
    written, session, at = 0, 0, 1_764_000_000.0
    while written < records:
        batch = range(session, session + in_flight)
        state: dict[int, tuple[list[dict[str, Any]], list[int]]] = {s: ([], [0]) for s in batch}
        for turn in range(TURNS):
            for s in batch:
                if written >= records:
                    return
                at += 0.05
                history, total = state[s]
                read = max(total[0] - 12, 0) if turn else 0
                yield s, turn, at, history, total, read
                written += 1
        session += in_flight


WRITERS = {"recorder": write_log, "full": write_full_log, "foreign": write_foreign_log}


def run_parse(path: Path, buffering: int = -1) -> tuple[float, float, int]:
    start, cpu = time.perf_counter(), time.process_time()
    n = 0
    with path.open("rb", buffering=buffering) as handle:
        for line in handle:
            orjson.loads(line)
            n += 1
    return time.perf_counter() - start, time.process_time() - cpu, n


def run_report(path: Path) -> tuple[float, float, int]:
    from promptcache.cli import main

    sink = io.StringIO()
    start, cpu = time.perf_counter(), time.process_time()
    with redirect_stdout(sink):
        code = main(["report", str(path), "--format", "json", "--progress", "never"])
    took, used = time.perf_counter() - start, time.process_time() - cpu
    assert code == 0, code
    return took, used, int(orjson.loads(sink.getvalue())["records"])


def _peak_rss_mib() -> float:
    """This process's peak RSS. Not `ru_maxrss`: Linux keeps it across `exec`, so a child counts
    the pages it shared with its parent when forked (the parent that wrote a log holds its
    sessions: the figures rose with the writer's size, not the report's). `VmHWM` is the new
    program's own high-water mark."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:  # not Linux: the portable figure, with the caveat above
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(kind: str, path: Path, against: str | None = None) -> dict[str, float]:
    """One run in a fresh process; kind "against": the report of the `--against` checkout."""
    env = None if kind != "against" else {**os.environ, "PYTHONPATH": str(against)}
    done = subprocess.run(
        [sys.executable, __file__, "--child", "report" if kind == "against" else kind, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return orjson.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", default="/tmp")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "FILE"))
    parser.add_argument("--log", nargs="+", choices=list(WRITERS), default=list(WRITERS))
    parser.add_argument(
        "--against",
        metavar="CHECKOUT",
        help="also time the report of another checkout (its root: main's code, say), "
        "interleaved with the other runs, each in a fresh process",
    )
    args = parser.parse_args()
    if args.child:
        kind, file = args.child
        if kind == "report":
            took, used, n = run_report(Path(file))
        else:
            took, used, n = run_parse(Path(file), 1 << 20 if kind == "buffered" else -1)
        rss = _peak_rss_mib()
        line = {"seconds": took, "cpu": used, "records": n, "rss_mib": rss}
        print(orjson.dumps(line).decode())
        return 0
    ok = True
    for log, records in ((log, records) for log in args.log for records in args.records):
        path = Path(args.dir) / f"promptcache-bench-{log}-{records}.jsonl"
        if not path.exists():
            WRITERS[log](path, records)
        size = path.stat().st_size
        kinds = ["parse", "report", "buffered"] + (["against"] if args.against else [])
        runs: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
        for r in range(args.rounds):
            turn = r % len(kinds)
            for kind in kinds[turn:] + kinds[:turn]:
                runs[kind].append(_child(kind, path, args.against))
        med = {k: statistics.median(x["seconds"] for x in v) for k, v in runs.items()}
        cpu = {k: statistics.median(x["cpu"] for x in v) for k, v in runs.items()}
        print(
            f"{log} log, {records:,} records, {size / 2**20:,.0f} MiB ({size / records / 1024:.1f} KB a record):"
        )
        labels = {
            "parse": "orjson parse (baseline)",
            "report": "promptcache report     ",
            "buffered": "parse, 1 MiB buffer    ",
            "against": "report of --against    ",
        }
        for kind in kinds:
            secs = sorted(x["seconds"] for x in runs[kind])
            used = sorted(x["cpu"] for x in runs[kind])
            rss = max(x["rss_mib"] for x in runs[kind])
            print(
                f"  {labels[kind]} wall {secs[0]:7.2f}/{med[kind]:7.2f}/{secs[-1]:7.2f} s, "
                f"CPU {used[0]:7.2f}/{cpu[kind]:7.2f}/{used[-1]:7.2f} s (min/median/max)  "
                f"{records / cpu[kind]:>9,.0f} records/CPU s  peak RSS {rss:,.0f} MiB"
            )
        ratio = cpu["report"] / cpu["parse"]
        print(
            f"  report / parse: CPU {ratio:.2f}x (target <= 3x), wall "
            f"{med['report'] / med['parse']:.2f}x; report / parse with report's read buffer: "
            f"CPU {cpu['report'] / cpu['buffered']:.2f}x (context); load average "
            f"{os.getloadavg()[0]:.1f}"
        )
        if args.against:
            print(
                f"  report / report of --against: CPU {cpu['report'] / cpu['against']:.2f}x, "
                f"wall {med['report'] / med['against']:.2f}x; report of --against / parse: CPU "
                f"{cpu['against'] / cpu['parse']:.2f}x"
            )
        ok = ok and ratio <= 3.0
        if os.environ.get("PROMPTCACHE_BENCH_KEEP") != "1":
            path.unlink()
    print("targets met" if ok else "targets NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
