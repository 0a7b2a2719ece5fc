"""The simple rotation: the tables of a duplicate tournament's rounds, and the fallback where
the schedulers of league.domain.scheduling have nothing to offer (a field they have no
design or search for, and Swiss or rotating-partner tournaments of three or five players a
table made before those were refused); league.services.tournaments chooses. Pure: plain
ids in, tables out; no database, no clock.

Round ``r`` lays the entrants (padded with ``None`` for a filler seat) out in the order
``j -> entrants[(j * step_r + r - 1) mod m]`` for a step ``step_r`` coprime with ``m``,
so that groupings change from round to round, then cuts that order into tables and
rotates the seats of each table by ``r - 1``, so that seat positions (who deals first)
change too. It balances nothing beyond that (the schedulers of league.domain.scheduling
balance meetings, partners and seats); a duplicate round needs no more, since every table
plays the same deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import gcd


def rotation_tables(
    entrants: Sequence[int], *, round_number: int, seats: int
) -> list[list[int | None]]:
    """Tables of ``seats`` for round ``round_number`` (1-based); ``None`` is a filler seat."""
    if seats < 1:
        raise ValueError("a table has at least one seat")
    if round_number < 1:
        raise ValueError("rounds are numbered from 1")
    players: list[int | None] = list(entrants)
    while len(players) % seats:
        players.append(None)
    m = len(players)
    if m == 0:
        return []
    steps = [s for s in range(1, m) if gcd(s, m) == 1] or [1]
    step = steps[(round_number - 1) % len(steps)]
    order = [players[(j * step + round_number - 1) % m] for j in range(m)]
    tables = [order[i : i + seats] for i in range(0, m, seats)]
    shift = (round_number - 1) % seats
    return [table[shift:] + table[:shift] for table in tables]
