"""Charts drawn as inline SVG on the server: no chart library, no script, no request.

``line_chart_svg`` draws one line per series over a shared x axis (matches played) with
labelled axes, a legend and a text alternative for screen readers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

PALETTE = (
    "#1f77b4",  # blue
    "#d62728",  # red
    "#2ca02c",  # green
    "#ff7f0e",  # orange
    "#9467bd",  # purple
    "#17becf",  # cyan
    "#8c564b",  # brown
    "#e377c2",  # pink
    "#7f7f7f",  # grey
    "#bcbd22",  # olive
    "#000000",  # black
    "#1a237e",  # navy
)
"""Twelve colours told apart on white (matplotlib's ten, black and navy); the last six
are drawn dashed as well, so that no two of the first twelve lines look alike."""
DASHED_FROM = 6
DASH = "7 4"
WIDTH, HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 16, 40
MARGIN = 0.06
"""Room left above the highest and below the lowest point, as a share of their span."""


def series_style(index: int) -> tuple[str, str | None]:
    """The colour and the dash pattern (None: solid) of the ``index``-th line; the first
    ``len(PALETTE)`` are all different."""
    colour = PALETTE[index % len(PALETTE)]
    dashed = index % len(PALETTE) >= DASHED_FROM
    return colour, DASH if dashed else None


def _nice_step(raw: float) -> float:
    magnitude = 10 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)


def axis_range(
    values: Sequence[float], *, count: int = 5, margin: float = MARGIN
) -> tuple[float, float, list[float]]:
    """The range of an axis holding every one of ``values`` with a margin on each side,
    and round tick values inside it (about ``count`` of them).

    The range is the values' own, widened by ``margin`` of their span (a single value:
    by 1, or by 10% of its size if larger), so every point is drawn inside the plot."""
    low, high = min(values), max(values)
    span = high - low
    pad = span * margin if span > 1e-9 else max(1.0, abs(low) * 0.1)
    low, high = low - pad, high + pad
    step = _nice_step((high - low) / max(1, count))
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    ticks = [round(n * step, 6) for n in range(first, last + 1)]
    return low, high, [tick for tick in ticks if low <= tick <= high]


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
        return format_html('<p class="chart-empty">{}</p>', _("No data for this chart yet."))
    xs = [x for _, points in drawn for x, _ in points]
    ys = [y for _, points in drawn for _, y in points]
    y_low, y_high, y_ticks = axis_range(ys)
    x_low, x_high = min(xs), max(xs)
    if x_high == x_low:  # one x only: centre it
        x_low, x_high = x_low - 1, x_high + 1
    x_ticks = [
        float(x) for x in range(math.ceil(x_low), math.floor(x_high) + 1)
    ]  # matches or rounds are whole numbers: label every one, or about eight
    if len(x_ticks) > 9:
        step = math.ceil(len(x_ticks) / 8)
        x_ticks = x_ticks[::step]

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
    for tick in x_ticks:
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
        colour, dash = series_style(index)
        coords = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points)
        dashing = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2.5"{dashing} '
            f'points="{coords}" data-series="{index}">'
            f"<title>{escape(name)}</title></polyline>"
        )
        for x, y in points:
            parts.append(
                f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}">'
                f"<title>{escape(name)}: {_number(y)} at {escape(x_label)} {_number(x)}"
                "</title></circle>"
            )
    parts.append("</svg>")
    legend = "".join(_legend_item(i, name) for i, (name, _) in enumerate(drawn))
    # Every text above is escaped; the rest is markup built here.
    return mark_safe(
        f'<figure class="chart-figure">{"".join(parts)}'
        f'<figcaption><ul class="legend">{legend}</ul></figcaption></figure>'
    )


def _legend_item(index: int, name: str) -> str:
    """A legend entry: a short line in the series' colour and dash, and its name."""
    colour, dash = series_style(index)
    dashing = f' stroke-dasharray="{dash}"' if dash else ""
    return (
        '<li><svg class="swatch-line" viewBox="0 0 24 8" width="24" height="8" aria-hidden="true">'
        f'<line x1="0" y1="4" x2="24" y2="4" stroke="{colour}" stroke-width="3"{dashing}/></svg>'
        f"{escape(name)}</li>"
    )


def _description(drawn: Sequence[tuple[str, Sequence[tuple[float, float]]]]) -> str:
    return "; ".join(
        f"{name}: from {_number(points[0][1])} to {_number(points[-1][1])} "
        f"over {len(points)} matches"
        for name, points in drawn
    )
