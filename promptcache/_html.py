"""
`report --html OUT.html`: the report as one self-contained page (inline CSS and SVG, no script,
no font or image fetched: it opens offline). Hit rate and cost per hour, invalidations by cause,
the costliest keys, and the worst invalidations with the before/after excerpt `diff` found; the
excerpt is prompt text only when the log holds it (written with `Recorder(content="full")`);
a hashed log shows its placeholders.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from html import escape

from ._report import GroupSummary, Report, unpriced_events_note
from ._report import money as _money
from ._report import unpriced_note as _unpriced
from ._vendor_side import SideRow, VendorSide

__all__ = ["render_html"]

_W, _H, _PAD = 720, 200, 36
_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:960px;color:#1d2430}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em}
table{border-collapse:collapse;width:100%}td,th{padding:4px 8px;border-bottom:1px solid #e3e6ea;
text-align:left}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.figs{display:flex;gap:2em;flex-wrap:wrap}.fig b{display:block;font-size:1.6em}
pre{white-space:pre-wrap;word-break:break-all;background:#f5f6f8;padding:6px;margin:0;
max-height:12em;overflow:auto}svg text{font-size:11px;fill:#4a5260}.none{color:#6b7280}
"""


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _line_chart(points: Sequence[tuple[str, float | None]], title: str, percent: bool) -> str:
    values = [v for _, v in points if v is not None]
    if not values:
        return f'<p class="none">{escape(title)}: no timed records</p>'
    top = 1.0 if percent else max(values) or 1.0
    across = _across([label for label, _ in points])

    def xy(i: int, v: float) -> str:
        return f"{across[i]:.1f},{_H - _PAD - (v / top) * (_H - 2 * _PAD):.1f}"

    path = " ".join(xy(i, v) for i, (_, v) in enumerate(points) if v is not None)
    dots = "".join(
        f'<circle cx="{xy(i, v).split(",")[0]}" cy="{xy(i, v).split(",")[1]}" r="2.5" '
        f'fill="#2563eb"><title>{escape(label)}: '
        f"{_pct(v) if percent else f'{v:,.4f}'}</title></circle>"
        for i, (label, v) in enumerate(points)
        if v is not None
    )
    first, last = escape(points[0][0]), escape(points[-1][0])
    label_top = "100%" if percent else f"{top:,.4f}"
    if len(points) == 1:  # one hour: its value said beside the dot, the hour once, centred
        x, y = (float(c) for c in xy(0, values[0]).split(","))
        shown = _pct(values[0]) if percent else f"{values[0]:,.4f}"
        hours = (
            f'<text x="{x:.1f}" y="{max(y - 8, 12):.1f}" text-anchor="middle">{shown}</text>'
            f'<text x="{x:.1f}" y="{_H - 8}" text-anchor="middle">{first} (one hour of data)</text>'
        )
    else:
        hours = (
            f'<text x="{_PAD}" y="{_H - 8}">{first}</text>'
            f'<text x="{_W - _PAD}" y="{_H - 8}" text-anchor="end">{last}</text>'
        )
    return (
        f'<svg role="img" aria-label="{escape(title)}" viewBox="0 0 {_W} {_H}" width="100%">'
        f'<line x1="{_PAD}" y1="{_H - _PAD}" x2="{_W - _PAD}" y2="{_H - _PAD}" stroke="#9aa3af"/>'
        f'<text x="2" y="{_PAD}">{label_top}</text><text x="2" y="{_H - _PAD}">0</text>'
        f'<polyline fill="none" stroke="#2563eb" stroke-width="2" points="{path}"/>{dots}'
        f"{hours}</svg>"
    )


def _across(labels: Sequence[str]) -> list[float]:
    """Each point's x: as far along as its hour is in time (hours with no records leave a gap,
    rather than being drawn as if the next hour came right after)."""
    try:
        hours = [datetime.strptime(label, "%Y-%m-%dT%H:%MZ") for label in labels]
    except ValueError:  # not hour buckets: evenly spaced
        times = [float(i) for i in range(len(labels))]
    else:  # the labels are UTC: read as local time, a DST change moved an hour onto the next
        times = [hour.replace(tzinfo=timezone.utc).timestamp() for hour in hours]
    if len(times) == 1:  # a lone point sits in the middle, clear of the axis labels
        return [_W / 2]
    first, span = times[0], (times[-1] - times[0]) or 1.0
    return [_PAD + (t - first) / span * (_W - 2 * _PAD) for t in times]


def _cause_bars(report: Report) -> str:
    if not report.invalidations:
        return '<p class="none" id="no-invalidations">No invalidations.</p>'
    top = max(c.events for c in report.invalidations) or 1
    rows = "".join(
        f'<tr data-cause="{escape(c.cause)}" data-events="{c.events}">'
        f"<td>{escape(c.cause)}</td>"
        f'<td><svg viewBox="0 0 300 14" width="300" height="14"><rect width="{300 * c.events / top:.1f}"'
        f' height="14" fill="#dc2626"/></svg></td>'
        f'<td class="n">{c.events:,}</td><td class="n">{c.tokens_lost:,}</td>'
        f'<td class="n">{_money(c.cost_lost, report.currency)}{unpriced_events_note(c)}</td></tr>'
        for c in report.invalidations
    )
    return (
        '<table id="causes"><tr><th>cause</th><th></th><th class="n">events</th>'
        f'<th class="n">tokens lost</th><th class="n">cost lost</th></tr>{rows}</table>'
    )


def _keys(groups: Sequence[GroupSummary], currency: str, shown: int = 20) -> str:
    costly = sorted(groups, key=lambda g: (-(g.cost or 0.0), -g.tokens_lost, g.group))[:shown]
    if not costly:
        return '<p class="none">No keys.</p>'
    rows = "".join(
        f'<tr data-key="{escape(g.group)}"><td>{escape(g.group)}</td>'
        f'<td class="n">{g.records:,}</td><td class="n">{_pct(g.hit_rate)}</td>'
        f'<td class="n">{g.invalidations:,}</td><td class="n">{_money(g.cost, currency)}'
        f"{_unpriced(g)}</td></tr>"
        for g in costly
    )
    return (
        '<table id="keys"><tr><th>key</th><th class="n">records</th><th class="n">hit rate</th>'
        f'<th class="n">invalidations</th><th class="n">cost</th></tr>{rows}</table>'
    )


def _worst(report: Report) -> str:
    if not report.worst:
        return '<p class="none">No invalidations.</p>'
    rows = []
    for e in report.worst:
        before = "" if e.before is None else f"<pre>{escape(e.before)}</pre>"
        after = "" if e.after is None else f"<pre>{escape(e.after)}</pre>"
        rows.append(
            f'<tr class="worst"><td>{escape(e.cause)}</td><td>{escape(e.path or e.layer or "")}</td>'
            f'<td class="n">{e.tokens_lost:,}</td><td>{before or "<span class=none>n/a</span>"}'
            f"</td><td>{after or '<span class=none>n/a</span>'}</td></tr>"
        )
    return (
        '<table id="worst"><tr><th>cause</th><th>where</th><th class="n">tokens lost</th>'
        f"<th>before</th><th>after</th></tr>{''.join(rows)}</table>"
    )


def _side_bars(rows: Sequence[SideRow], title: str) -> str:
    """A column per band: its server-side miss rate, split into 0-read (red) and partly read
    (amber) misses, out of the band's follow-ups (written under it)."""
    if not rows:
        return f'<p class="none">{escape(title)}: no follow-ups</p>'
    step = (_W - 2 * _PAD) / len(rows)
    high = _H - 2 * _PAD
    bars = []
    for i, row in enumerate(rows):
        x, base = _PAD + i * step, _H - _PAD
        zero = high * row.zero_read / row.follow_ups if row.follow_ups else 0.0
        part = high * row.partly_read / row.follow_ups if row.follow_ups else 0.0
        tip = (
            f"{row.group}: {row.server_side:,} server-side misses of {row.follow_ups:,} "
            f"follow-ups ({_pct(row.rate)}): {row.zero_read:,} read nothing, "
            f"{row.partly_read:,} part; {row.under_minimum:,} under the documented minimum"
        )
        bars.append(
            f'<g class="band" data-band="{escape(row.group)}" data-follow-ups="{row.follow_ups}" '
            f'data-misses="{row.server_side}" data-zero="{row.zero_read}" '
            f'data-partial="{row.partly_read}"><title>{escape(tip)}</title>'
            f'<rect class="zero" x="{x + 4:.1f}" y="{base - zero:.1f}" width="{step - 8:.1f}" '
            f'height="{zero:.1f}" fill="#dc2626"/>'
            f'<rect class="partial" x="{x + 4:.1f}" y="{base - zero - part:.1f}" '
            f'width="{step - 8:.1f}" height="{part:.1f}" fill="#f59e0b"/>'
            f'<text x="{x + step / 2:.1f}" y="{_H - 20}" text-anchor="middle">'
            f"{escape(row.group)}</text>"
            f'<text x="{x + step / 2:.1f}" y="{_H - 6}" text-anchor="middle">'
            f"{_pct(row.rate)} of {row.follow_ups:,}</text></g>"
        )
    return (
        f'<svg role="img" aria-label="{escape(title)}" viewBox="0 0 {_W} {_H}" width="100%">'
        f'<line x1="{_PAD}" y1="{_H - _PAD}" x2="{_W - _PAD}" y2="{_H - _PAD}" stroke="#9aa3af"/>'
        f'<text x="2" y="{_PAD}">100%</text><text x="2" y="{_H - _PAD}">0</text>'
        f"{''.join(bars)}</svg>"
    )


def _side_models(rows: Sequence[SideRow]) -> str:
    cells = []
    for row in rows:
        facts = row.facts
        if facts is None:
            continue
        ttl = "n/a" if facts.default_ttl_seconds is None else f"{facts.default_ttl_seconds:,.0f} s"
        cells.append(
            f'<tr data-model="{escape(row.group)}"><td>{escape(row.group)}</td>'
            f'<td class="n">{row.follow_ups:,}</td><td class="n">{row.server_side:,}</td>'
            f'<td class="n">{_pct(row.rate)}</td><td class="n">{facts.minimum_tokens:,}'
            f"{' (assumed)' if facts.minimum_assumed else ''}</td>"
            f'<td class="n">{ttl}</td><td>{"implicit" if facts.marking == "automatic" else "at markers"}'
            "</td></tr>"
        )
    return (
        '<table id="side-models"><tr><th>model</th><th class="n">follow-ups</th>'
        '<th class="n">server-side misses</th><th class="n">rate</th>'
        '<th class="n">documented minimum</th><th class="n">default TTL</th><th>cached</th></tr>'
        f"{''.join(cells)}</table>"
    )


def _vendor_side(side: VendorSide | None) -> str:
    """Server-side misses: an identical prefix, and the read fell short (_vendor_side.py)."""
    if side is None or not side.total.follow_ups:
        return '<p class="none" id="no-follow-ups">No follow-ups: no key had a second request.</p>'
    total = side.total
    return (
        f'<p id="server-side">{total.server_side:,} of {total.follow_ups:,} follow-ups '
        f"({_pct(total.rate)}) missed on a byte-identical prefix: evidence for the vendor, not "
        "proof (docs/server-side-misses.md).</p>"
        + _side_models(side.by_model)
        + "<h3>By prompt size (input tokens)</h3>"
        + _side_bars(side.by_size, "server-side misses by prompt size")
        + "<h3>By gap since the key's previous request</h3>"
        + _side_bars(side.by_gap, "server-side misses by gap")
    )


def _output_unknown(report: Report) -> str:
    """Under the cost: how many priced records' output cost it leaves out (unreported)."""
    if report.cost is None or not report.output_unpriced_records:
        return ""
    return (
        f'<small id="output-unknown">output cost of {report.output_unpriced_records:,} '
        "records unknown, not included</small>"
    )


def _cost_figure(report: Report) -> str:
    """The cost, or for a bill not per token what it is instead and the list price, apart."""
    if report.billing == "per-token" or report.list_price is None:
        return (
            f'<div class="fig">cost<b id="cost">{_money(report.cost, report.currency)}</b>'
            f"{_output_unknown(report)}</div>"
        )
    label = "CCU" if report.billing == "ccu" else report.billing
    return (
        f'<div class="fig">cost<b id="cost">not priced per token ({escape(label)})</b>'
        f'<small id="list-price">{_money(report.list_price, report.currency)} at list prices, '
        "for comparison only</small></div>"
    )


def _pricing_notes(report: Report) -> str:
    """How the records were priced (a Vertex location's tier, a list price), with how many."""
    if not report.pricing_notes:
        return ""
    items = "".join(
        f"<li>{n.records:,} record{'s' if n.records != 1 else ''}: {escape(n.note)}</li>"
        for n in report.pricing_notes
    )
    return f'<ul id="pricing-notes">{items}</ul>'


def render_html(report: Report) -> str:
    """The report as one HTML page that needs nothing from the network."""
    hours = report.breakdowns.get("hour", ())
    timed = [g for g in hours if not g.group.startswith("(")]
    figures = (
        f'<div class="figs"><div class="fig">records<b id="records">{report.records:,}</b></div>'
        f'<div class="fig">hit rate<b id="hit-rate">{_pct(report.hit_rate)}</b></div>'
        + _cost_figure(report)
        + f'<div class="fig">saved<b id="savings">{_money(report.savings, report.currency)}</b></div>'
        f'<div class="fig">invalidations<b id="invalidations">{report.events:,}</b></div>'
        f'<div class="fig">lines skipped<b id="skipped">{report.skipped:,}</b></div></div>'
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>promptcache report</title>"
        f'<link rel="icon" href="data:,"><style>{_CSS}</style></head><body>'
        f"<h1>Prompt cache report</h1>{figures}{_pricing_notes(report)}"
        "<h2>Hit rate per hour</h2>"
        + _line_chart([(g.group, g.hit_rate) for g in timed], "hit rate per hour", True)
        + "<h2>Cost per hour</h2>"
        + _line_chart([(g.group, g.cost) for g in timed], "cost per hour", False)
        + "<h2>Invalidations by cause</h2>"
        + _cause_bars(report)
        + "<h2>Server-side misses</h2>"
        + _vendor_side(report.vendor_side)
        + "<h2>Costliest keys</h2>"
        + _keys(report.breakdowns.get("key", ()), report.currency)
        + "<h2>Worst invalidations</h2>"
        + _worst(report)
        + "</body></html>\n"
    )
