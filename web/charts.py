"""Charts drawn as inline SVG on the server: no chart library, no script, no request.

``line_chart_svg`` draws one line per series over a shared x axis (matches played) with
labelled axes, a legend and a text alternative for screen readers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
)
WIDTH, HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 16, 40


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high]."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    start = math.floor(low / step) * step
    ticks = []
    value = start
    while value <= high + step / 2:
        ticks.append(round(value, 6))
        value += step
    return ticks


def _number(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e6 else f"{value:.3g}"


def line_chart_svg(
    series: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    chart_id: str = "chart",
) -> SafeString:
    """An SVG line chart of ``series`` (name, [(x, y), ...]); empty series are skipped."""
    drawn = [(name, list(points)) for name, points in series if points]
    if not drawn:
        return format_html('<p class="chart-empty">{}</p>', "No data for this chart yet.")
    xs = [x for _, points in drawn for x, _ in points]
    ys = [y for _, points in drawn for _, y in points]
    y_ticks = _ticks(min(ys), max(ys))
    y_low, y_high = y_ticks[0], y_ticks[-1]
    x_low, x_high = min(xs), max(xs)
    if x_high == x_low:  # one x only: centre it
        x_low, x_high = x_low - 1, x_high + 1

    def px(x: float) -> float:
        return LEFT + (x - x_low) / (x_high - x_low) * (WIDTH - LEFT - RIGHT)

    def py(y: float) -> float:
        return TOP + (y_high - y) / (y_high - y_low) * (HEIGHT - TOP - BOTTOM)

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="{chart_id}-title {chart_id}-desc" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{chart_id}-title">{escape(title)}</title>',
        f'<desc id="{chart_id}-desc">{escape(_description(drawn))}</desc>',
        f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" '
        f'height="{HEIGHT - TOP - BOTTOM}" fill="#fff" stroke="#d9d6cf"/>',
    ]
    for tick in y_ticks:
        y = py(tick)
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">'
            f"{_number(tick)}</text>"
        )
    for tick in _ticks(x_low, x_high, min(8, int(x_high - x_low) or 1)):
        if x_low <= tick <= x_high:
            x = px(tick)
            parts.append(
                f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle" '
                f'font-size="11">{_number(tick)}</text>'
            )
    parts.append(
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 6}" text-anchor="middle" '
        f'font-size="12">{escape(x_label)}</text>'
        f'<text x="12" y="{(TOP + HEIGHT - BOTTOM) / 2}" text-anchor="middle" font-size="12" '
        f'transform="rotate(-90 12 {(TOP + HEIGHT - BOTTOM) / 2})">{escape(y_label)}</text>'
    )
    for index, (name, points) in enumerate(drawn):
        colour = PALETTE[index % len(PALETTE)]
        coords = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points)
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2.5" points="{coords}">'
            f"<title>{escape(name)}</title></polyline>"
        )
        for x, y in points:
            parts.append(
                f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}">'
                f"<title>{escape(name)}: {_number(y)} at {escape(x_label)} {_number(x)}"
                "</title></circle>"
            )
    parts.append("</svg>")
    legend = "".join(
        f'<li><span class="swatch" style="background:{PALETTE[i % len(PALETTE)]}"></span>'
        f"{escape(name)}</li>"
        for i, (name, _) in enumerate(drawn)
    )
    # Every text above is escaped; the rest is markup built here.
    return mark_safe(
        f'<figure class="chart-figure">{"".join(parts)}'
        f'<figcaption><ul class="legend">{legend}</ul></figcaption></figure>'
    )


def _description(drawn: Sequence[tuple[str, Sequence[tuple[float, float]]]]) -> str:
    return "; ".join(
        f"{name}: from {_number(points[0][1])} to {_number(points[-1][1])} "
        f"over {len(points)} matches"
        for name, points in drawn
    )
