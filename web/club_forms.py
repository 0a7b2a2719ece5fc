"""The phone's score sheet form: the fields of a family's sheet (engine/table_sheet.py) as
form inputs, and the posted form read back into an entry (one object per deal).

Input names: ``d{deal}-{key}`` for a line's single value (a seat, a choice, a flag) and
``d{deal}-{key}-{i}`` for the value of seat or side ``i``. A line left wholly blank is
not entered (the rows a Priffe game did not need)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext

OPEN_ROWS = 14
"""The rows offered for a game whose length the play decides (Priffe's rubbers)."""


class FormEntryError(ValueError):
    """A value of the form that is not what its field takes (the message names it)."""


def sheet_rows(
    sheet: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The form's rows: each line of the sheet (repeated for an open-ended sheet) with its
    fields and, for per-seat or per-side fields, the labelled inputs."""
    lines = list(sheet["lines"])
    if sheet["open_ended"] and lines:
        template = lines[-1]
        lines = [{**template, "deal": number, "title": ""} for number in range(1, OPEN_ROWS + 1)]
    players = [s for s in seats if s["role"] == "player"]
    rows = []
    for line in lines:
        fields = []
        for field in line["fields"]:
            name = f"d{line['deal']}-{field['key']}"
            item = {**field, "name": name}
            item["choice_options"] = [
                {"value": value, "label": label}
                for value, label in zip(
                    field.get("choices", []),
                    field.get("choice_labels", field.get("choices", [])),
                    strict=True,
                )
            ]
            if field["kind"] in ("seats", "ranks"):
                item["inputs"] = [
                    {"name": f"{name}-{s['seat']}", "label": s["name"], "compass": s["compass"]}
                    for s in players
                ]
            elif field["kind"] == "sides":
                item["inputs"] = [
                    {"name": f"{name}-{i}", "label": side, "compass": ""}
                    for i, side in enumerate((gettext("side A"), gettext("side B")))
                ]
            elif field["kind"] == "seat":
                item["options"] = [
                    {"value": s["seat"], "label": f"{s['compass']}: {s['name']}"} for s in players
                ]
            fields.append(item)
        rows.append({"deal": line["deal"], "title": line["title"], "fields": fields})
    return rows


def rows_filled(rows: list[dict[str, Any]], entry: Sequence[Mapping[str, Any]] | None) -> None:
    """Fill ``rows`` (``sheet_rows``) with an entry's values, deal by deal, as the form
    shows them (``value`` on each input and single-valued field): the organiser corrects
    what is there."""
    for row, deal in zip(rows, entry or [], strict=False):
        for field in row["fields"]:
            value = deal.get(field["key"])
            if value is None:
                continue
            if "inputs" in field and isinstance(value, list):
                for item, one in zip(field["inputs"], value, strict=False):
                    item["value"] = str(one)
            elif field["kind"] == "flag":
                field["value"] = "1" if value else ""
            else:
                field["value"] = str(value)


def _number(text: str, where: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise FormEntryError(
            gettext("%(where)s: %(text)s is not a whole number")
            % {"where": where, "text": repr(text)}
        ) from None


def entry_from_form(
    rows: Sequence[Mapping[str, Any]], data: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The entry the form holds: for each row with anything filled in, its fields' values
    (per-seat values as lists in seat order). FormEntryError for a value that is not a
    number where one is needed."""
    entry: list[dict[str, Any]] = []
    for row in rows:
        deal: dict[str, Any] = {}
        flags: list[str] = []
        for field in row["fields"]:
            where = gettext("deal %(deal)s, %(label)s") % {
                "deal": row["deal"],
                "label": field["label"],
            }
            kind = field["kind"]
            if kind in ("seats", "sides", "ranks"):
                values = [data.get(i["name"], "").strip() for i in field["inputs"]]
                if not any(values):
                    continue
                if kind == "ranks":
                    deal[field["key"]] = values
                else:
                    deal[field["key"]] = [_number(v, where) if v else 0 for v in values]
            elif kind == "flag":
                flags.append(field["key"])
                if data.get(field["name"]):
                    deal[field["key"]] = True
            else:
                value = data.get(field["name"], "").strip()
                if value:
                    deal[field["key"]] = _number(value, where) if kind == "seat" else value
        if deal:
            entry.append({**dict.fromkeys(flags, False), **deal})  # unticked: false
    return entry


def totals_from_form(seats: Sequence[Mapping[str, Any]], data: Mapping[str, str]) -> list[int]:
    """The game totals of the form (0 for a non-player seat)."""
    return [
        _number(
            data.get(f"total-{s['seat']}", "") or "0",
            gettext("the total of %(name)s") % {"name": s["name"]},
        )
        if s["role"] == "player"
        else 0
        for s in seats
    ]
