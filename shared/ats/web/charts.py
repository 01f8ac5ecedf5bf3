"""Server-side SVG charts for the ops console (issue 24 item 5): no charting library, no
script - the console swaps a fresh fragment in with htmx. Colours and strokes come from
classes in app.css (the CSP allows no inline style); every chart is an `img` with a
label saying what it shows in words, for screen readers."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

W, H = 600, 140
LEFT, RIGHT, TOP, BOTTOM = 44, 8, 10, 22
PLOT_W, PLOT_H = W - LEFT - RIGHT, H - TOP - BOTTOM

# (key, title, kind, [(series key, css class, legend)], unit)
CHARTS: tuple[tuple[str, str, str, tuple[tuple[str, str, str], ...], str], ...] = (
    ("throughput", "Throughput (jobs finished)", "bars", (("finished", "c-ok", "finished"),), ""),
    ("failures", "Failures (failed runs)", "bars", (("failures", "c-bad", "failed runs"),), ""),
    ("depth", "Depth (jobs waiting)", "line", (("depth", "c-depth", "waiting"),), ""),
    (
        "pickup",
        "Pickup time (waiting to started)",
        "line",
        (("pickup_p50_s", "c-p50", "p50"), ("pickup_p95_s", "c-p95", "p95")),
        "s",
    ),
    ("run", "Run time", "line", (("run_p50_s", "c-p50", "p50"), ("run_p95_s", "c-p95", "p95")), "s"),
)


def _num(v: float, unit: str) -> str:
    if unit == "s":
        return f"{v:.3g} s" if v < 100 else f"{v:.0f} s"
    return f"{v:.0f}" if v == int(v) else f"{v:.2g}"


def _when(at: datetime.datetime, bucket_s: int) -> str:
    return at.strftime("%a %H:%M" if bucket_s >= 3600 else "%H:%M") + " UTC"


def render(series: dict[str, Any]) -> list[dict[str, Any]]:
    """One dict per chart: key, title, the SVG markup and its one-line summary."""
    buckets: Sequence[dict[str, Any]] = series["buckets"]
    out = []
    for key, title, kind, lines, unit in CHARTS:
        values = [[b[s] for b in buckets] for s, _, _ in lines]
        present = [v for vs in values for v in vs if v is not None]
        top = max(present, default=0) or 1
        n = max(len(buckets), 1)
        step = PLOT_W / n

        def y(v: float, top: float = top) -> float:
            return TOP + PLOT_H - (v / top) * PLOT_H

        marks: list[SafeString] = []
        for (_key, css, _legend), vs in zip(lines, values, strict=True):
            if kind == "bars":
                marks.append(
                    format_html_join(
                        "",
                        '<rect class="{}" x="{}" y="{}" width="{}" height="{}"></rect>',
                        (
                            (css, *(f"{n:.1f}" for n in (LEFT + i * step, y(v), max(step - 1, 0.5), y(0) - y(v))))
                            for i, v in enumerate(vs)
                            if v
                        ),
                    )
                )
            else:
                # A gap (no run in a bucket) breaks the line rather than drawing a false zero.
                runs: list[list[str]] = [[]]
                for i, v in enumerate(vs):
                    if v is None:
                        runs.append([])
                    else:
                        runs[-1].append(f"{LEFT + (i + 0.5) * step:.1f},{y(v):.1f}")
                for pts in runs:
                    if len(pts) == 1:
                        x, yy = pts[0].split(",")
                        marks.append(format_html('<circle class="{}" cx="{}" cy="{}" r="2"></circle>', css, x, yy))
                    elif pts:
                        marks.append(format_html('<polyline class="{}" points="{}"></polyline>', css, " ".join(pts)))
        total = ", ".join(_summary(legend, vs, kind, unit) for (_, _, legend), vs in zip(lines, values, strict=True))
        label = f"{series['queue']}, {title.lower()}, last {series['label']}: {total}"
        first, last = buckets[0]["at"], buckets[-1]["at"]
        svg = format_html(
            '<svg class="chart" viewBox="0 0 {w} {h}" role="img" aria-label="{label}" data-chart="{key}">'
            '<line class="axis" x1="{l}" y1="{b}" x2="{r}" y2="{b}"></line>'
            '<text class="tick" x="{tx}" y="{ty}" text-anchor="end">{top}</text>'
            '<text class="tick" x="{tx}" y="{b}" text-anchor="end">0</text>'
            '<text class="tick" x="{l}" y="{h1}">{first}</text>'
            '<text class="tick" x="{r}" y="{h1}" text-anchor="end">{last}</text>'
            "{marks}</svg>",
            w=W,
            h=H,
            label=label,
            key=key,
            l=LEFT,
            r=W - RIGHT,
            b=TOP + PLOT_H,
            tx=LEFT - 4,
            ty=TOP + 8,
            top=_num(top, unit) if present else "-",
            h1=H - 6,
            first=_when(first, series["bucket_s"]),
            last=_when(last, series["bucket_s"]),
            marks=mark_safe("".join(marks)),  # noqa: S308 - every mark above is format_html output
        )
        out.append(
            {"key": key, "title": title, "svg": svg, "summary": total, "legend": [(c, lg) for _, c, lg in lines]}
        )
    return out


def _summary(legend: str, vs: list[Any], kind: str, unit: str) -> str:
    got = [v for v in vs if v is not None]
    if kind == "bars":
        return f"{sum(got):.0f} {legend}"
    if not got:
        return f"{legend}: no data"
    return f"{legend} up to {_num(max(got), unit)}"
