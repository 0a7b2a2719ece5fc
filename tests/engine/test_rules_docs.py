"""The players' rules pages (docs/rules/) keep up with the options the engine declares.

Every family registered in the engine has a page ``docs/rules/<family>.md`` whose
"How King League plays it" section holds an options table: a Markdown table whose
header starts with ``option`` and has a ``default`` column, one row per option with the
key in backticks in the first cell. This test reads the options from the engine's
``Rules`` dataclasses (``option_specs()`` and ``presets``), so an option added, renamed
or removed in the engine, a changed default or a changed preset fails here until the
page says the same; and every game string a page shows must load.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import FAMILIES, InvalidGameError, load_game
from engine.options import OptionSpec

RULES_DIR = Path(__file__).resolve().parents[2] / "docs" / "rules"


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def option_rows(text: str) -> dict[str, dict[str, str]]:
    """The rows of the page's options tables by option key, each as {header: cell}."""
    rows: dict[str, dict[str, str]] = {}
    header: list[str] | None = None
    for line in text.splitlines():
        if not line.lstrip().startswith("|"):
            header = None
            continue
        cells = _cells(line)
        if header is None:
            header = cells
            continue
        if header[0] != "option" or set("".join(cells)) <= set("-: "):
            continue  # another kind of table, or the separator line
        key = cells[0]
        if key.startswith("`") and key.endswith("`"):
            name = key.strip("`")
            assert name not in rows, f"option {name} has two rows"
            rows[name] = dict(zip(header, cells, strict=False))
    return rows


def documented_default(spec: OptionSpec) -> str:
    """How a page writes the default: its game-string form, or ``unset`` when the default
    is "decided by the other options" (an empty value or None)."""
    if spec.default is None or spec.default == ():
        return "unset"
    return spec.format(spec.default)


def page(family: str) -> str:
    path = RULES_DIR / f"{family}.md"
    assert path.is_file(), f"no rules page {path.relative_to(RULES_DIR.parents[1])}"
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_option_has_a_row_with_its_default(family: str) -> None:
    specs = FAMILIES[family].rules_class.option_specs()
    rows = option_rows(page(family))
    for name, spec in specs.items():
        assert name in rows, f"docs/rules/{family}.md has no options-table row for `{name}`"
        wanted = f"`{documented_default(spec)}`"
        assert wanted in rows[name].get("default", ""), (
            f"docs/rules/{family}.md: the default of `{name}` is {wanted}, "
            f"the page says {rows[name].get('default')!r}"
        )
    stale = sorted(set(rows) - set(specs))
    assert not stale, f"docs/rules/{family}.md documents options the engine lacks: {stale}"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_preset_has_a_column_with_its_values(family: str) -> None:
    rules_class = FAMILIES[family].rules_class
    specs = rules_class.option_specs()
    text = page(family)
    rows = option_rows(text)
    for preset, values in rules_class.presets.items():
        column = f"`rules={preset}`"
        assert f"{family}(rules={preset})" in text, (
            f"docs/rules/{family}.md never shows the game string {family}(rules={preset})"
        )
        for name, value in values.items():
            row = rows.get(name, {})
            assert column in row, f"docs/rules/{family}.md: no {column} column in `{name}`'s row"
            wanted = f"`{specs[name].format(value)}`"
            assert wanted in row[column], (
                f"docs/rules/{family}.md: {column} sets `{name}` to {wanted}, "
                f"the page says {row[column]!r}"
            )


def test_every_game_string_on_the_pages_loads() -> None:
    """The examples (``kingen(rules=iwwa,must_trump=false)``) are games the engine accepts."""
    names = "|".join(sorted(FAMILIES, key=len, reverse=True))
    game_string = re.compile(rf"`((?:{names})\([^`]*\))`")
    seen = 0
    for path in sorted(RULES_DIR.glob("*.md")):
        for text in game_string.findall(path.read_text(encoding="utf-8")):
            seen += 1
            try:
                load_game(text)
            except InvalidGameError as exc:
                pytest.fail(f"docs/rules/{path.name} shows {text}, which the engine refuses: {exc}")
    assert seen > 0


def test_the_index_links_every_page() -> None:
    index = (RULES_DIR / "README.md").read_text(encoding="utf-8")
    for family in FAMILIES:
        assert f"({family}.md)" in index, f"docs/rules/README.md does not link {family}.md"


def test_the_table_reader_sees_rows_and_defaults() -> None:
    """The reader the tests above rely on: a wrong default or a missing row is caught."""
    text = (
        "| option | default | `rules=x` | meaning |\n"
        "|---|---|---|---|\n"
        "| `players` | `4` | same | how many |\n"
        "\n"
        "| contract | points |\n"
        "|---|---|\n"
        "| `tricks` | 1 |\n"
    )
    rows = option_rows(text)
    assert set(rows) == {"players"}
    assert rows["players"]["default"] == "`4`"
    assert rows["players"]["`rules=x`"] == "same"
