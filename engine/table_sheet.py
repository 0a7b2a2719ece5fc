"""Score sheets of games played with real cards at a physical table.

A club night is played with real cards: the service sees no move, only the scores the
table writes down. Each family describes its sheet (``Game.score_sheet``: what is written
for each deal, in which order, adding up to what) and checks an entry against its rules
(``Game.table_scores``): the tricks and penalty cards of a deal add up to what the deal
holds, the contracts come in the family's order, the game is zero-sum where it is. An
entry that does not add up raises ``ScoreEntryError`` naming the deal and what is wrong
(``deal 2 (hearts): the hearts taken add up to 12; a deal has 13``).

An entry is JSON: a list with one object per deal, in the order played; what each object
holds is the family's (its sheet's ``fields``). ``Game.table_totals`` checks game totals
alone, where a family allows them (``ScoreSheet.totals_allowed``).

Seats are numbered as everywhere in the engine; at the table seat 0 deals first (the
sheet's ``dealer`` of each line) and the deal passes to the left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.errors import ScoreEntryError

COMPASS = ("North", "East", "South", "West")
"""The compass position of each seat at a table of four (seat 0 North, clockwise)."""
COMPASS_OF = {
    3: ("North", "East", "West"),
    4: COMPASS,
    5: ("North", "North-East", "South-East", "South-West", "North-West"),
}
"""Compass positions by the number of seats at the table (seat 0 first, clockwise)."""

MAX_TABLE_POINTS = 1_000_000
"""No entry at a table is worth more than this (in absolute value) in any family."""


@dataclass(frozen=True, slots=True)
class SheetField:
    """One thing written on a line of the sheet.

    ``kind``: ``seats`` (a whole number per seat, adding up to ``total`` when given),
    ``sides`` (a whole number per side of a partnership game), ``seat`` (one seat's
    number), ``choice`` (one of ``choices``), ``flag`` (true or false), ``ranks`` (a rank
    name per seat, each rank once)."""

    key: str
    label: str
    kind: str
    total: int | None = None
    choices: tuple[str, ...] = ()
    optional: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "label": self.label, "kind": self.kind}
        if self.total is not None:
            out["total"] = self.total
        if self.choices:
            out["choices"] = list(self.choices)
        if self.optional:
            out["optional"] = True
        return out


@dataclass(frozen=True, slots=True)
class SheetLine:
    """One line of the sheet: a deal, its dealer, its contract and what is written."""

    deal: int
    title: str
    dealer: int
    fields: tuple[SheetField, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "deal": self.deal,
            "title": self.title,
            "dealer": self.dealer,
            "fields": [f.to_json() for f in self.fields],
        }


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """A family's score sheet for one game at a table.

    ``lines`` are the deals in order; ``open_ended``: the game goes on with lines like the
    last until the rules end it (Priffe's rubbers), so ``lines`` shows the first ones.
    ``totals_allowed``: game totals alone may be entered instead (``totals_sum``: what
    they add up to, None when anything goes). ``notes``: how to fill it in, for people."""

    game: str
    seats: int
    players: tuple[int, ...]
    lines: tuple[SheetLine, ...]
    open_ended: bool = False
    totals_allowed: bool = True
    totals_sum: int | None = 0
    notes: tuple[str, ...] = ()
    dealer_rule: str = ""
    """Who deals, where the lines' ``dealer`` is -1 because the play decides it (Kung och
    Adel: the fool)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seats": self.seats,
            "players": list(self.players),
            "compass": list(compass_names(self.seats)),
            "lines": [line.to_json() for line in self.lines],
            "open_ended": self.open_ended,
            "totals_allowed": self.totals_allowed,
            "totals_sum": self.totals_sum,
            "notes": list(self.notes),
            "dealer_rule": self.dealer_rule,
        }


@dataclass(frozen=True, slots=True)
class TableScores:
    """What a checked entry scores: each deal's scores, the totals, whether the game is
    complete, and (partnership play) the units as ``Game.partnership_units`` gives them."""

    deal_scores: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    complete: bool
    units: tuple[dict[str, Any], ...] = field(default=())


def compass_names(seats: int) -> tuple[str, ...]:
    """The compass position of each of ``seats`` seats (``seat N`` past five)."""
    return COMPASS_OF.get(seats, tuple(f"seat {s}" for s in range(seats)))


def entry_deals(entry: Any) -> list[Mapping[str, Any]]:
    """The deals of an entry (a list of objects); ScoreEntryError otherwise."""
    if not isinstance(entry, list):
        raise ScoreEntryError("an entry must be a list with one object per deal")
    for number, deal in enumerate(entry, start=1):
        if not isinstance(deal, Mapping):
            raise ScoreEntryError(f"deal {number}: must be an object")
    return list(entry)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def seat_numbers(
    deal: Mapping[str, Any],
    key: str,
    *,
    where: str,
    seats: int,
    what: str,
    total: int | None = None,
    total_what: str = "",
    minimum: int | None = 0,
    per: str = "seat",
) -> list[int]:
    """The whole numbers of ``key``, one per seat; ScoreEntryError naming what does not
    add up (``deal 2 (hearts): the hearts taken add up to 12; a deal has 13``)."""
    values = deal.get(key)
    if (
        not isinstance(values, list)
        or len(values) != seats
        or not all(_whole(v) and abs(v) <= MAX_TABLE_POINTS for v in values)
    ):
        raise ScoreEntryError(
            f"{where}: '{key}' must list {seats} whole numbers, the {what} of each {per}"
        )
    if minimum is not None and any(v < minimum for v in values):
        raise ScoreEntryError(f"{where}: the {what} cannot be below {minimum}")
    if total is not None and sum(values) != total:
        raise ScoreEntryError(
            f"{where}: the {what} add up to {sum(values)}; {total_what or 'a deal has'} {total}"
        )
    return list(values)


def one_seat(deal: Mapping[str, Any], key: str, *, where: str, seats: Sequence[int]) -> int:
    """The seat number of ``key``, one of ``seats``."""
    value = deal.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value not in seats:
        raise ScoreEntryError(
            f"{where}: '{key}' must be a seat number ({', '.join(map(str, seats))})"
        )
    return value


def one_choice(
    deal: Mapping[str, Any], key: str, *, where: str, choices: Sequence[str]
) -> str | None:
    """The choice of ``key`` (None when absent), one of ``choices``."""
    value = deal.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or value not in choices:
        raise ScoreEntryError(f"{where}: '{key}' must be one of {', '.join(choices)}")
    return value


def unknown_keys(deal: Mapping[str, Any], allowed: Sequence[str], *, where: str) -> None:
    """Refuse keys the line does not have (a typo would otherwise be ignored)."""
    extra = sorted(str(k) for k in deal if k not in allowed)
    if extra:
        raise ScoreEntryError(
            f"{where}: unknown {'field' if len(extra) == 1 else 'fields'} "
            f"{', '.join(extra)} (this line has {', '.join(allowed)})"
        )


def totals_checked(sheet: ScoreSheet, totals: Any) -> TableScores:
    """Game totals alone, checked against the sheet (one whole number per seat; the sum
    the family's games always have; a non-player seat, such as a dummy, 0)."""
    if not sheet.totals_allowed:
        raise ScoreEntryError(
            f"{sheet.game}: game totals alone are not enough here; enter each deal"
        )
    values = seat_numbers(
        {"totals": totals},
        "totals",
        where="totals",
        seats=sheet.seats,
        what="totals",
        total=sheet.totals_sum,
        total_what="the game's totals always add up to",
        minimum=None,
    )
    for seat in range(sheet.seats):
        if seat not in sheet.players and values[seat] != 0:
            raise ScoreEntryError(f"totals: seat {seat} plays no cards; its total must be 0")
    return TableScores(deal_scores=(), scores=tuple(values), complete=True)


def entered(count: int, what: str = "deal") -> str:
    """``1 deal entered``, ``9 deals entered``."""
    return f"{count} {what}{'' if count == 1 else 's'} entered"


def deal_totals(deal_scores: Sequence[Sequence[int]], seats: int) -> tuple[int, ...]:
    """The totals of ``deal_scores``."""
    return tuple(sum(deal[s] for deal in deal_scores) for s in range(seats))
