"""
The documentation's pictures, made from real runs (no hand-drawn figure can go stale):

    python docs/images/generate.py          # writes all three
    python docs/images/generate.py --check  # exit 1 when the committed SVG is not current

- `inspect-bar.svg` (committed, shown by the README): `promptcache inspect --bar always` on an
  agent's request, as rich draws it, exported as SVG. The request holds nothing that changes
  with the date, so the picture is byte-for-byte reproducible; the test suite checks it is
  current (tests/docs/test_images.py).
- `generated/report.png` (not committed; `nox -s docs` makes it before building the site): the
  HTML page `promptcache report --html` writes for a log of six hours of sessions against the
  Anthropic emulation, screenshotted in headless Chromium (`--no-sandbox`: CI runs as root).
- `generated/dashboard.png` (not committed; `nox -s docs` makes it): the panels of the Grafana
  dashboard docs/grafana/promptcache.json, each query evaluated by a real Prometheus over three
  hours of emulated traffic, drawn in the dashboard's grid by `dashboard.py` and screenshotted in
  headless Chromium. Not a Grafana screenshot: Grafana cannot be installed here (dashboard.py).
"""

from __future__ import annotations

import io
import json
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))  # this tree's promptcache, also when run from a clean clone

import dashboard  # noqa: E402  (beside this script, as are panels and pictures)
import panels  # noqa: E402
from pictures import agent_prompt, screenshot  # noqa: E402

from promptcache import Monitor, Recorder, get_adapter  # noqa: E402
from promptcache.cli import main  # noqa: E402

BAR_SVG = HERE / "inspect-bar.svg"
REPORT_PNG = HERE / "generated" / "report.png"
DASHBOARD_PNG = HERE / "generated" / "dashboard.png"


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
        screenshot(page, target, width=1000, height=1500)


def dashboard_png(target: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        evaluated, board = dashboard.run(Path(folder)), dashboard.load_dashboard()
        note = (
            "Vendor: All · 09:00-12:00 UTC · the panels of docs/grafana/promptcache.json, each "
            f"query evaluated by Prometheus {evaluated.prometheus_version} over three hours of "
            "emulated traffic, drawn by docs/images/generate.py: not a Grafana screenshot."
        )
        page = Path(folder) / "dashboard.html"
        page.write_text(
            panels.page_html(evaluated.panels, board, note, evaluated.window), encoding="utf-8"
        )
        screenshot(page, target, width=panels.WIDTH, height=panels.height(board))


def main_(argv: list[str]) -> int:
    svg = inspect_bar_svg()
    if argv == ["--check"]:
        if BAR_SVG.read_text(encoding="utf-8") != svg:
            print(f"{BAR_SVG} is stale: run python docs/images/generate.py", file=sys.stderr)
            return 1
        return 0
    BAR_SVG.write_text(svg, encoding="utf-8")
    report_png(REPORT_PNG)
    try:
        dashboard_png(DASHBOARD_PNG)
    except dashboard.DashboardError as error:  # a failed query, or no prometheus: said, not traced
        print(f"the dashboard's picture: {error}", file=sys.stderr)
        return 1
    written = (p.relative_to(ROOT) for p in (BAR_SVG, REPORT_PNG, DASHBOARD_PNG))
    print("wrote", ", ".join(map(str, written)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main_(sys.argv[1:]))
