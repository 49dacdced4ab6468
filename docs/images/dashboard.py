"""
The Grafana dashboard's picture, from real query results (Grafana itself is not used: it cannot be
installed here, see docs/how-to/dashboard.md):

1. `traffic()`: three hours of support sessions on the Anthropic and OpenAI emulations, and from
   10:15 a ticket sorter on Gemini through Vertex AI, judged by real `Monitor`s writing to one
   Prometheus registry, with the week's incidents (a value read per request into a tool, the time
   in the system prompt, a replica evicting under load, a router switching models, users back
   after the TTL, and Vertex AI caching prompts under the 2,048-token minimum its older page
   documents, which the monitor first calls `below_minimum` and then withdraws). The emulators' `ManualClock` is simulated time,
   so the registry is read at every simulated scrape (each minute) instead of being scraped;
2. `openmetrics()` writes those readings, timestamped, as an OpenMetrics file, and `backfill()`
   turns it into TSDB blocks with Prometheus's own `promtool tsdb create-blocks-from openmetrics`;
3. `prometheus()` starts a real `prometheus` on 127.0.0.1 over those blocks, and `evaluate()` runs
   every panel's PromQL from docs/grafana/promptcache.json through `/api/v1/query_range`, with
   the dashboard's variables given the values Grafana gives them; a query that errors or returns
   no series raises `DashboardError` (this is also the dashboard's test: tests/docs/test_dashboard.py);
4. `panels.py` draws the results in the dashboard's own grid (gridPos), with the panels' titles,
   units and legends, as HTML and SVG, and `generate.py` screenshots it in headless Chromium.

The run is deterministic (seeded, simulated time from a fixed start), so the picture is too.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import random
import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pictures import agent_prompt

from promptcache import Monitor, Prompt, get_adapter
from promptcache.sim import AnthropicEmulator, GeminiEmulator, ManualClock, OpenAIEmulator

DASHBOARD = Path(__file__).resolve().parents[1] / "grafana" / "promptcache.json"
START = 1_793_610_000  # 2026-11-02 09:00 UTC: a fixed start, so that the picture is reproducible
MINUTES = 180
SCRAPE_SECONDS = 60  # the scrape interval the readings stand for
INSTALL = "apt-get install -y prometheus"  # Debian's package: prometheus and promtool


class DashboardError(Exception):
    """A panel's query failed or found nothing, or Prometheus could not be run."""


# -- 1. the traffic and the registry's readings ------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Readings:
    """Counter values read at each simulated scrape: family -> help, and each series' points."""

    families: Mapping[str, str]
    series: Mapping[tuple[str, str, tuple[tuple[str, str], ...]], Sequence[tuple[float, float]]]
    causes: Mapping[str, int]  # the monitors' invalidations by cause, to check the mix


@dataclass(slots=True, kw_only=True)
class _Session:
    """One conversation's state between its turns (mutable: the loop moves it on)."""

    key: str
    vendor: str
    turns_left: int
    next_at: float
    prompt: Any = None
    turn: int = 0


def _minute(at: float) -> float:
    return (at - START) / 60


def _ticket_prompt(session: _Session) -> Prompt:
    """The ticket sorter's request: about 1,450 tokens, between the 1,024 the Gemini API documents
    for gemini-3-flash and the 2,048 of Vertex AI's older page."""
    prompt = Prompt().add_system(
        "You sort support tickets by topic and urgency, and say why. " * 95
    )
    prompt = prompt.with_tail("Ticket: my parcel is late.")
    for turn in range(session.turn):
        prompt = prompt.commit_tail("Noted.").with_tail(f"Ticket {turn + 2}: where is it?")
    return prompt


def _prompt_for(session: _Session, at: float) -> Any:
    """The session's request as the week's incidents shape it at `at`."""
    if session.vendor == "vertex-gemini":
        return _ticket_prompt(session)
    minute = _minute(at)
    clock_line = ""
    if session.vendor == "anthropic" and 50 <= minute < 70:  # a release puts the time up top
        clock_line = datetime.fromtimestamp(at, UTC).strftime("Current time: %H:%M:%S UTC. ")
    limit = ""
    if 20 <= minute < 30:  # a release reads the refund limit into a tool's description
        limit = f" (up to {round(40 + 60 * (minute % 1))} EUR today)"
    prompt = agent_prompt(clock_line, refund_limit=limit)
    for turn in range(session.turn):
        prompt = prompt.commit_tail("Noted.").with_tail(f"And question {turn + 2}?")
    return prompt


def _model_for(session: _Session, at: float) -> str:
    if session.vendor == "anthropic":
        return "claude-sonnet-4-6"
    if session.vendor == "vertex-gemini":
        return "gemini-3-flash"
    switching = 145 <= _minute(at) < 160  # a router sends short questions to the small model
    return "gpt-4o-mini" if switching and session.turn % 2 else "gpt-4o"


class _Fleet:
    """The emulated vendors, one monitor each on a shared registry, and the week's incidents."""

    def __init__(self, clock: ManualClock, registry: Any, rng: random.Random) -> None:
        self.clock, self.rng, self.causes = clock, rng, dict[str, int]()
        quiet = logging.getLogger("promptcache.docs.dashboard")
        quiet.propagate, quiet.disabled = False, True  # the events are counted, not printed
        self.clients = {
            "anthropic": AnthropicEmulator(clock=clock).client(),
            "openai": OpenAIEmulator(clock=clock).client(),
            # Vertex AI here caches from the 1,024 tokens the Gemini API documents for the model
            # (Google's newer Vertex page states no minimum): the Gemini emulation answers it
            "vertex-gemini": GeminiEmulator(clock=clock).client(),
        }
        self.monitors = {
            vendor: Monitor(
                vendor,
                clock=clock,
                prometheus_registry=registry,
                logger=quiet,
                on_invalidation=self._count,
            )
            for vendor in self.clients
        }

    def _count(self, event: Any) -> None:
        self.causes[event.cause] = self.causes.get(event.cause, 0) + 1

    def send(self, session: _Session) -> None:
        at = self.clock()
        request = get_adapter(session.vendor).to_request(
            _prompt_for(session, at), model=_model_for(session, at)
        )
        if session.vendor == "anthropic":
            cold = 105 <= _minute(at) < 125 and self.rng.random() < 0.4  # evicted under load
            client = AnthropicEmulator(clock=self.clock).client() if cold else None
            response = (client or self.clients["anthropic"]).messages.create(**request)
        elif session.vendor == "openai":
            response = self.clients["openai"].chat.completions.create(**request)
        else:
            response = self.clients["vertex-gemini"].models.generate_content(**request)
        self.monitors[session.vendor].observe(request, response, key=session.key)

    def gap(self, vendor: str) -> float:
        """Seconds to the session's next turn; now and then a user back after the 5-minute TTL."""
        if vendor == "anthropic" and self.rng.random() < 0.1:
            return self.rng.uniform(360, 540)
        return self.rng.uniform(20, 70)


def traffic(minutes: int = MINUTES, seed: int = 25) -> Readings:
    """Run `minutes` of simulated sessions and read the registry at each scrape."""
    import prometheus_client

    rng, clock = random.Random(seed), ManualClock(start=START)
    registry = prometheus_client.CollectorRegistry()
    fleet = _Fleet(clock, registry, rng)
    sessions: list[_Session] = []
    families: dict[str, str] = {}
    series: dict[tuple[str, str, tuple[tuple[str, str], ...]], list[tuple[float, float]]] = {}
    for minute in range(minutes + 1):
        scrape_at = START + minute * SCRAPE_SECONDS
        while due := [s for s in sessions if s.next_at < scrape_at]:
            session = min(due, key=lambda s: s.next_at)
            clock.advance(session.next_at - clock())
            fleet.send(session)
            session.turn, session.turns_left = session.turn + 1, session.turns_left - 1
            session.next_at += fleet.gap(session.vendor)
            if session.turns_left == 0:
                sessions.remove(session)
        clock.advance(scrape_at - clock())
        _read(registry, scrape_at, families, series)
        sessions += _arrivals(rng, minute, scrape_at)
    return Readings(families=families, series=series, causes=fleet.causes)


def _arrivals(rng: random.Random, minute: int, at: float) -> list[_Session]:
    """The sessions that start in the minute after `at`: about one Anthropic, one OpenAI in two,
    and from 10:15 a Vertex AI one in three."""
    started = []
    vertex = 0.3 if minute >= 75 else 0.0  # the ticket sorter goes live
    for vendor, chance in (("anthropic", 0.9), ("openai", 0.5), ("vertex-gemini", vertex)):
        if rng.random() < chance:
            started.append(
                _Session(
                    key=f"{vendor}-{minute}",
                    vendor=vendor,
                    turns_left=rng.randint(3, 7),
                    next_at=at + rng.uniform(0, 59),
                )
            )
    return started


def _read(
    registry: Any,
    at: float,
    families: dict[str, str],
    series: dict[tuple[str, str, tuple[tuple[str, str], ...]], list[tuple[float, float]]],
) -> None:
    for family in registry.collect():
        if family.type != "counter":
            continue
        families[family.name] = family.documentation
        for sample in family.samples:
            if sample.name.endswith("_total"):
                key = (family.name, sample.name, tuple(sorted(sample.labels.items())))
                series.setdefault(key, []).append((at, sample.value))


# -- 2. OpenMetrics and the backfill ------------------------------------------------------------


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def openmetrics(readings: Readings) -> str:
    """The readings as an OpenMetrics exposition with a timestamp on every sample, each family's
    samples together and each series' in time order (what promtool's backfill reads)."""
    lines: list[str] = []
    for family, documentation in sorted(readings.families.items()):
        lines += [f"# TYPE {family} counter", f"# HELP {family} {_escaped(documentation)}"]
        for (owner, name, labels), points in sorted(readings.series.items()):
            if owner != family:
                continue
            text = ",".join(f'{k}="{_escaped(v)}"' for k, v in labels)
            selector = f"{name}{{{text}}}" if text else name
            lines += [f"{selector} {value!r} {at:.3f}" for at, value in points]
    return "\n".join([*lines, "# EOF", ""])


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise DashboardError(f"{name} is not on PATH: install it ({INSTALL})")
    return path


def backfill(text: str, folder: Path) -> Path:
    """TSDB blocks made from the OpenMetrics `text` by promtool, in `folder`/data."""
    source, data = folder / "readings.om.txt", folder / "data"
    source.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [_tool("promtool"), "tsdb", "create-blocks-from", "openmetrics", str(source), str(data)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise DashboardError(f"promtool could not backfill: {done.stderr.strip()[-2000:]}")
    return data


# -- 3. a real Prometheus, and the panels' queries ----------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def prometheus(data: Path) -> Iterator[str]:
    """A `prometheus` serving the blocks in `data` on 127.0.0.1, scraping nothing; its base URL."""
    config, log = data.parent / "prometheus.yml", data.parent / "prometheus.log"
    config.write_text(f"global:\n  scrape_interval: {SCRAPE_SECONDS}s\nscrape_configs: []\n")
    port = _free_port()
    with log.open("wb") as sink:
        server = subprocess.Popen(
            [
                _tool("prometheus"),
                f"--config.file={config}",
                f"--storage.tsdb.path={data}",
                f"--web.listen-address=127.0.0.1:{port}",
                "--storage.tsdb.retention.time=100y",  # the blocks are from a fixed past date
            ],
            stdout=sink,
            stderr=sink,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, server, log)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _wait_ready(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:]
            raise DashboardError(f"prometheus exited ({server.returncode}): {tail}")
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"{url}/-/ready", timeout=2) as answer,
        ):
            if answer.status == 200:
                return
        time.sleep(0.2)
    raise DashboardError(f"prometheus at {url} was not ready within 60 s")


def _api(url: str, path: str, form: Mapping[str, str] | None = None) -> Any:
    data = None if form is None else urllib.parse.urlencode(form).encode()
    try:
        with urllib.request.urlopen(f"{url}{path}", data=data, timeout=30) as answer:
            body = json.load(answer)
    except urllib.error.HTTPError as error:  # Prometheus answers a bad query with 400 and JSON
        body = json.load(error)
    if body.get("status") != "success":
        raise DashboardError(f"{body.get('errorType')}: {body.get('error')}")
    return body["data"]


def prometheus_version(url: str) -> str:
    return str(_api(url, "/api/v1/status/buildinfo").get("version", "unknown"))


@dataclass(frozen=True, slots=True, kw_only=True)
class Series:
    legend: str
    labels: Mapping[str, str]
    points: tuple[tuple[float, float], ...]  # (epoch seconds, value); NaN points left out


@dataclass(frozen=True, slots=True, kw_only=True)
class PanelData:
    panel: Mapping[str, Any]
    series: tuple[Series, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Window:
    start: float = START
    end: float = START + MINUTES * 60
    step: int = SCRAPE_SECONDS

    def variables(self) -> dict[str, str]:
        """The values Grafana gives the dashboard's variables over this window, vendor "All"."""
        rate = max(self.step + SCRAPE_SECONDS, 4 * SCRAPE_SECONDS)  # Grafana's $__rate_interval
        return {
            "$__rate_interval": f"{rate}s",
            "$__range": f"{int(self.end - self.start)}s",
            "$vendor": ".*",  # the variable's allValue
        }


def expanded(expr: str, window: Window) -> str:
    """`expr` with the dashboard's variables replaced; one this script does not know is an error."""
    for name, value in sorted(window.variables().items(), key=lambda kv: -len(kv[0])):
        expr = expr.replace(name, value)
    unknown = re.findall(r"\$\{?\w+", expr)
    if unknown:
        raise DashboardError(f"the query uses {unknown}, which this script gives no value: {expr}")
    return expr


def evaluate(dashboard: Mapping[str, Any], url: str, window: Window) -> list[PanelData]:
    """Every panel's targets through /api/v1/query_range; DashboardError when one fails or is empty."""
    found = []
    for panel in dashboard["panels"]:
        series: list[Series] = []
        for target in panel["targets"]:
            where = f"panel {panel['id']} ({panel['title']!r}), query {target['refId']}"
            try:
                result = _range(url, expanded(target["expr"], window), window)
            except DashboardError as error:
                raise DashboardError(f"{where}: {error}") from None
            if not result:
                raise DashboardError(f"{where} returned no series: {target['expr']}")
            series += [_series(item, target.get("legendFormat", "")) for item in result]
        found.append(PanelData(panel=panel, series=tuple(series)))
    return found


def _range(url: str, expr: str, window: Window) -> list[Any]:
    form = {
        "query": expr,
        "start": str(window.start),
        "end": str(window.end),
        "step": str(window.step),
    }
    data = _api(url, "/api/v1/query_range", form)
    return [item for item in data["result"] if _points(item)]


def _points(item: Mapping[str, Any]) -> tuple[tuple[float, float], ...]:
    values = ((float(at), float(v)) for at, v in item["values"])
    return tuple((at, v) for at, v in values if math.isfinite(v))


def _series(item: Mapping[str, Any], legend: str) -> Series:
    labels = dict(item["metric"])
    name = re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: labels.get(m[1], ""), legend)
    return Series(legend=name or json.dumps(labels), labels=labels, points=_points(item))


def load_dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return loaded


@dataclass(frozen=True, slots=True, kw_only=True)
class Evaluated:
    panels: tuple[PanelData, ...]
    window: Window
    prometheus_version: str
    readings: Readings


def run(
    folder: Path, dashboard: Mapping[str, Any] | None = None, *, minutes: int = MINUTES
) -> Evaluated:
    """The whole run in `folder`: the traffic, the backfill, Prometheus, every panel's queries."""
    readings = traffic(minutes)
    data = backfill(openmetrics(readings), folder)
    window = Window(end=START + minutes * 60)
    with prometheus(data) as url:
        panels = evaluate(dashboard or load_dashboard(), url, window)
        version = prometheus_version(url)
    return Evaluated(
        panels=tuple(panels), window=window, prometheus_version=version, readings=readings
    )
