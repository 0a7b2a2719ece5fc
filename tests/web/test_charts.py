"""web.charts: every point inside the plot, and up to twelve lines told apart."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from web.charts import (
    BOTTOM,
    HEIGHT,
    LEFT,
    PALETTE,
    RIGHT,
    TOP,
    WIDTH,
    axis_range,
    line_chart_svg,
    series_style,
)

values = st.lists(
    st.floats(min_value=-1e5, max_value=1e5, allow_nan=False, allow_infinity=False),
    min_size=1,
    max_size=60,
)


@given(values)
def test_the_axis_holds_every_value_with_a_margin(ys: list[float]) -> None:
    low, high, ticks = axis_range(ys)
    assert low < min(ys) <= max(ys) < high
    assert ticks
    assert all(low <= tick <= high for tick in ticks)
    assert ticks == sorted(ticks)


def test_values_all_but_equal_get_a_range_of_their_own() -> None:
    low, high, ticks = axis_range([0.0, 5e-324, 0.0])
    assert low < 0 < high
    assert ticks


def test_the_axis_of_the_old_bug() -> None:
    """Ratings from 3.1 to 10.3: the old ticks stopped at 10, drawing the top outside."""
    low, high, ticks = axis_range([3.1, 7.0, 10.3])
    assert low < 3.1
    assert high > 10.3
    assert ticks[0] >= low
    assert ticks[-1] <= high


CIRCLE = re.compile(r'<circle cx="([-\d.]+)" cy="([-\d.]+)"')
POLYLINE = re.compile(r'points="([^"]+)"')


@given(st.lists(values, min_size=1, max_size=12))
def test_every_point_is_drawn_inside_the_plot(lines: list[list[float]]) -> None:
    series = [
        (f"line {i}", [(float(x), y) for x, y in enumerate(ys)]) for i, ys in enumerate(lines)
    ]
    svg = str(line_chart_svg(series, title="t", x_label="round", y_label="rating"))
    points = [(float(x), float(y)) for x, y in CIRCLE.findall(svg)]
    for line in POLYLINE.findall(svg):
        points += [tuple(float(v) for v in pair.split(",")) for pair in line.split()]  # type: ignore[misc]
    assert len(points) == 2 * sum(len(ys) for ys in lines)
    for x, y in points:
        assert LEFT <= x <= WIDTH - RIGHT
        assert TOP < y < HEIGHT - BOTTOM


def test_twelve_lines_look_different_and_the_legend_names_them() -> None:
    styles = [series_style(i) for i in range(12)]
    assert len(set(styles)) == 12
    assert len({colour for colour, _ in styles}) == len(PALETTE) == 12
    series = [(f"competitor {i}", [(0.0, float(i)), (1.0, float(i * 2))]) for i in range(12)]
    svg = str(line_chart_svg(series, title="t", x_label="round", y_label="rating"))
    assert svg.count("<li>") == 12
    for i, (colour, dash) in enumerate(styles):
        assert f'stroke="{colour}"' in svg
        assert f"competitor {i}</li>" in svg
        if dash:
            assert f'stroke-dasharray="{dash}" points=' in svg


def test_no_data_is_said_in_words() -> None:
    assert "No data" in str(line_chart_svg([("a", [])], title="t", x_label="x", y_label="y"))
