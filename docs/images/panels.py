"""
The Grafana dashboard's panels drawn from Prometheus query results (`dashboard.evaluate`), in the
dashboard's own grid (gridPos: 24 columns, rows of 30 px), with its titles, units and legends, as
one HTML page of inline SVG for headless Chromium to screenshot. Its look follows Grafana's dark
theme; it is our drawing, not Grafana's (docs/how-to/dashboard.md says why).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from dashboard import PanelData, Series, Window

WIDTH, HEADER = 1400, 84
ROW, GAP, COLUMNS = 30, 8, 24  # Grafana's grid: 24 columns, rows of 30 px, 8 px between
COLOURS = ("#73BF69", "#F2CC0C", "#8AB8FF", "#FF780A", "#F2495C", "#5794F2", "#B877D9", "#FADE2A")
TEXT, MUTED, PANEL, GRID = "#ccccdc", "#9fa7b3", "#181b1f", "#2c3038"


def height(dashboard: Mapping[str, Any]) -> int:
    rows = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in dashboard["panels"])
    return HEADER + rows * (ROW + GAP) + GAP


def _box(grid: Mapping[str, int]) -> tuple[float, float, float, float]:
    column = (WIDTH - GAP) / COLUMNS
    x, w = GAP + grid["x"] * column, grid["w"] * column - GAP
    y, h = HEADER + grid["y"] * (ROW + GAP), grid["h"] * ROW + (grid["h"] - 1) * GAP
    return x, y, w, h


def formatted(value: float, unit: str, *, digits: int = 2) -> str:
    """`value` in the panel's unit as Grafana writes it (percentunit, short, ops)."""
    if unit == "percentunit":
        return f"{value * 100:.{max(digits - 1, 0)}f}%"
    for size, suffix in ((1e9, " Bil"), (1e6, " Mil"), (1e3, " K")):
        if abs(value) >= size:
            text = f"{value / size:.{digits}g}{suffix}"
            break
    else:
        text = f"{value:.{digits + 1}g}" if value else "0"
    return text + (" ops/s" if unit == "ops" else "")


def _nice(top: float) -> float:
    """The axis step: 1, 2, 2.5 or 5 times a power of ten, about four to an axis."""
    if top <= 0:
        return 1.0
    raw = top / 4
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)


def page_html(
    panels: Sequence[PanelData], dashboard: Mapping[str, Any], note: str, window: Window
) -> str:
    body = "".join(_panel_html(data, window) for data in panels)
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>
body {{ margin: 0; background: #111217; color: {TEXT}; font: 13px "DejaVu Sans", sans-serif;
  width: {WIDTH}px; height: {height(dashboard)}px; position: relative; overflow: hidden; }}
.head {{ position: absolute; left: {GAP}px; top: 10px; right: {GAP}px; }}
.head h1 {{ font-size: 19px; font-weight: 500; margin: 0 0 6px; }}
.head p {{ margin: 0; color: {MUTED}; font-size: 12.5px; }}
.panel {{ position: absolute; background: {PANEL}; border: 1px solid {GRID}; border-radius: 3px;
  box-sizing: border-box; overflow: hidden; }}
.title {{ font-weight: 500; padding: 7px 10px 0; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; }}
table {{ border-collapse: collapse; width: calc(100% - 20px); margin: 6px 10px; }}
th, td {{ text-align: left; padding: 4px 8px; border-bottom: 1px solid {GRID}; }}
th {{ color: #6e9fff; font-weight: 500; }} td.n {{ text-align: right; }}
</style></head><body>
<div class="head"><h1>{html.escape(dashboard["title"])}</h1><p>{html.escape(note)}</p></div>
{body}</body></html>"""


def _panel_html(data: PanelData, window: Window) -> str:
    x, y, w, h = _box(data.panel["gridPos"])
    unit = data.panel.get("fieldConfig", {}).get("defaults", {}).get("unit", "short")
    inner_w, inner_h = w - 2, h - 30
    draw = {"stat": _stat_svg, "table": _table_html}.get(data.panel["type"], _timeseries_svg)
    return (
        f'<div class="panel" style="left:{x:.1f}px;top:{y:.1f}px;width:{w:.1f}px;height:{h:.1f}px">'
        f'<div class="title">{html.escape(data.panel["title"])}</div>'
        f"{draw(data.series, unit, inner_w, inner_h, window)}</div>"
    )


def _top(series: Sequence[Series]) -> float:
    return max((v for s in series for _, v in s.points), default=0.0)


def _timeseries_svg(series: Sequence[Series], unit: str, w: float, h: float, window: Window) -> str:
    legend_rows = 1 + (len(series) - 1) // 4
    left, right, top_pad, bottom = 64.0, 24.0, 10.0, 22.0 + 18 * legend_rows
    plot_w, plot_h = w - left - right, h - top_pad - bottom
    t0, t1, top = window.start, window.end, _top(series)  # one time range, the dashboard's
    step = _nice(top)
    y_max = step * max(math.ceil(top / step), 1)

    def px(at: float, value: float) -> str:
        return f"{left + (at - t0) / (t1 - t0 or 1) * plot_w:.1f},{top_pad + plot_h * (1 - value / y_max):.1f}"

    parts = []
    for k in range(round(y_max / step) + 1):
        yy = top_pad + plot_h * (1 - k * step / y_max)
        parts.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="{GRID}"/>'
            f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">'
            f"{html.escape(formatted(k * step, unit))}</text>"
        )
    parts += _time_axis(t0, t1, left, plot_w, top_pad + plot_h)
    for i, s in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        points = " ".join(px(at, v) for at, v in s.points)
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="1.6"/>'
        )
        lx = left + (i % 4) * (plot_w / 4)
        ly = top_pad + plot_h + 38 + 18 * (i // 4)
        parts.append(
            f'<rect x="{lx:.1f}" y="{ly - 8:.1f}" width="14" height="4" fill="{colour}"/>'
            f'<text x="{lx + 20:.1f}" y="{ly:.1f}" fill="{TEXT}">{html.escape(s.legend)}</text>'
        )
    return _svg(w, h, "".join(parts))


def _time_axis(t0: float, t1: float, left: float, width: float, base: float) -> list[str]:
    ticks, first = [], math.ceil(t0 / 1800) * 1800  # every half hour
    for at in range(int(first), int(t1) + 1, 1800):
        xx = left + (at - t0) / (t1 - t0 or 1) * width
        label = datetime.fromtimestamp(at, UTC).strftime("%H:%M")
        ticks.append(
            f'<line x1="{xx:.1f}" x2="{xx:.1f}" y1="{base}" y2="{base - 4}" stroke="{MUTED}"/>'
            f'<text x="{xx:.1f}" y="{base + 16}" text-anchor="middle">{label}</text>'
        )
    return ticks


def _stat_svg(series: Sequence[Series], unit: str, w: float, h: float, window: Window) -> str:
    (first, *_) = series  # a stat shows its first series' last value, as Grafana's default
    t0, t1, top = window.start, window.end, _top([first])
    last = first.points[-1][1]
    lo = min(v for _, v in first.points)
    spread = (top - lo) or 1.0
    points = " ".join(
        f"{(at - t0) / (t1 - t0 or 1) * w:.1f},{h - 8 - (v - lo) / spread * h * 0.35:.1f}"
        for at, v in first.points
    )
    value = html.escape(formatted(last, unit, digits=3))
    return _svg(
        w,
        h,
        f'<polyline points="{points} {w:.1f},{h:.1f} 0,{h:.1f}" fill="#73BF6933" '
        f'stroke="#73BF69" stroke-width="1.5"/>'
        f'<text x="{w / 2:.1f}" y="{h * 0.45:.1f}" text-anchor="middle" font-size="58" '
        f'font-weight="500" fill="#73BF69">{value}</text>',
    )


def _table_html(series: Sequence[Series], unit: str, w: float, h: float, window: Window) -> str:
    names = sorted({k for s in series for k in s.labels})
    rows = sorted(series, key=lambda s: -s.points[-1][1])
    head = "".join(f"<th>{html.escape(n)}</th>" for n in names) + "<th>Value</th>"
    body = "".join(
        "<tr>"
        + "".join(f"<td>{html.escape(s.labels.get(n, ''))}</td>" for n in names)
        + f'<td class="n">{html.escape(formatted(s.points[-1][1], unit, digits=3))}</td></tr>'
        for s in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _svg(w: float, h: float, content: str) -> str:
    return (
        f'<svg width="{w:.1f}" height="{h:.1f}" font-size="11.5" fill="{MUTED}" '
        f'font-family="DejaVu Sans, sans-serif">{content}</svg>'
    )
