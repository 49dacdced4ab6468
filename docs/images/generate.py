"""
The documentation's pictures, made from real runs (no hand-drawn figure can go stale):

    python docs/images/generate.py          # writes both
    python docs/images/generate.py --check  # exit 1 when the committed SVG is not current

- `inspect-bar.svg` (committed, shown by the README): `promptcache inspect --bar always` on an
  agent's request, as rich draws it, exported as SVG. The request holds nothing that changes
  with the date, so the picture is byte-for-byte reproducible; the test suite checks it is
  current (tests/docs/test_images.py).
- `generated/report.png` (not committed; `nox -s docs` makes it before building the site): the
  HTML page `promptcache report --html` writes for a log of six hours of sessions against the
  Anthropic emulation, screenshotted in headless Chromium (`--no-sandbox`: CI runs as root).

The Grafana dashboard (docs/grafana/promptcache.json) has no picture here: drawing it needs a
Grafana and a Prometheus, which neither CI nor this script runs.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))  # this tree's promptcache, also when run from a clean clone

from promptcache import Doc, Message, Monitor, Prompt, Recorder, Tool, get_adapter  # noqa: E402
from promptcache.cli import main  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
BAR_SVG = HERE / "inspect-bar.svg"
REPORT_PNG = HERE / "generated" / "report.png"


def agent_prompt(clock_line: str = "") -> Prompt:
    """A support agent's request: tools, a system prompt, a manual, history, the new question;
    `clock_line` plants the bug of the week, the time at the top of the system prompt."""
    return (
        Prompt(volatile="ignore" if clock_line else "warn")
        .add_tools(
            Tool(name="lookup_order", description="Find an order by id", input_schema={}),
            Tool(name="refund", description="Refund an order", input_schema={}),
        )
        .add_system(clock_line + "You are the support agent of an online shop. Be exact. " * 30)
        .add_docs(Doc(title="Manual", text="Orders ship within two working days. " * 300))
        .add_history(
            Message.user("My order SH-204817 has not arrived."),
            Message.assistant("Let me look it up: it left the warehouse yesterday."),
        )
        .with_tail("Can I still cancel it?")
    )


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def inspect_bar_svg() -> str:
    """`promptcache inspect --bar always` as an SVG, without the web font rich links to."""
    from rich.console import Console
    from rich.text import Text

    request = get_adapter("anthropic").to_request(agent_prompt(), model="claude-sonnet-4-6")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "request.json"
        path.write_text(json.dumps(request), encoding="utf-8")
        out, real = _Terminal(), sys.stdout
        sys.stdout = out  # inspect colours its bar on a terminal
        try:
            status = main(["inspect", str(path), "--bar", "always"])
        finally:
            sys.stdout = real
    if status not in (0, 1):
        raise SystemExit(f"promptcache inspect failed (exit {status})")
    console = Console(
        record=True, width=100, force_terminal=True, color_system="standard", file=io.StringIO()
    )
    console.print(Text.from_ansi(out.getvalue()), highlight=False)
    svg = console.export_svg(title="promptcache inspect request.json", unique_id="inspect")
    return re.sub(r"@font-face \{[^}]*\}\s*", "", svg)  # nothing fetched when it is opened


def report_log(folder: Path) -> Path:
    """Six hours of support sessions on the Anthropic emulation, one with a planted timestamp."""
    from promptcache.sim import AnthropicEmulator, ManualClock

    clock = ManualClock()
    client = AnthropicEmulator(clock=clock).client()
    adapter = get_adapter("anthropic")
    log = folder / "calls.jsonl"
    with Recorder(log, background=False) as recorder:
        monitor = Monitor("anthropic", clock=clock, recorder=recorder, metrics=False)
        for hour in range(6):
            for session in range(3):
                prompt = agent_prompt()
                for turn in range(4):
                    if hour == 3 and session == 1 and turn == 2:  # the bug of the week
                        prompt = agent_prompt(f"Current time: {hour:02d}:{turn:02d}. ")
                    request = adapter.to_request(prompt, model="claude-sonnet-4-6")
                    monitor.observe(
                        request, client.messages.create(**request), key=f"h{hour}-s{session}"
                    )
                    prompt = prompt.commit_tail("Noted.").with_tail(f"And question {turn + 2}?")
                    clock.advance(40)
            clock.advance(3600 - 3 * 4 * 40)
    return log


def report_png(target: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "report.html"
        log, real = report_log(Path(folder)), sys.stdout
        sys.stdout = io.StringIO()  # the text report: the page is what is wanted here
        try:
            status = main(["report", str(log), "--html", str(page)])
        finally:
            sys.stdout = real
        if status != 0:
            raise SystemExit("promptcache report --html failed")
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--screenshot={target}",
                "--window-size=1000,1500",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )


def main_(argv: list[str]) -> int:
    svg = inspect_bar_svg()
    if argv == ["--check"]:
        if BAR_SVG.read_text(encoding="utf-8") != svg:
            print(f"{BAR_SVG} is stale: run python docs/images/generate.py", file=sys.stderr)
            return 1
        return 0
    BAR_SVG.write_text(svg, encoding="utf-8")
    report_png(REPORT_PNG)
    print(f"wrote {BAR_SVG.relative_to(ROOT)} and {REPORT_PNG.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main_(sys.argv[1:]))
