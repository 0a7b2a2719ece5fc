"""Rotating partners for Priffe: everyone partners everyone, as evenly as the numbers allow.

* **4 players** (or 3 and a träkarl): the six-rubber cycle, every pair partners twice
  (docs/scheduling.md §2.2).
* **N ≡ 0 (mod 4)**, **N ≡ 1 with byes**, **N ≡ 3 with a träkarl**: a whist tournament Wh(v)
  (v = N, or N + 1 with the träkarl as a player): every pair partners exactly once and opposes
  exactly twice in v - 1 rounds (v rounds for N ≡ 1, each player sitting out once). With a
  träkarl every player partners it once and opposes it twice. More rounds than a cycle repeat
  the cycle; fewer play its first rounds (partners still never repeat).
* **Any other N, or a re-plan from history**: the local search
  (:mod:`league.domain.scheduling.local_search`, partnership mode) minimises repeated partnerships
  first (weight 10), then repeated opponents (1), spreads byes (20) and the träkarl (5), and
  never seats two träkarls together. Default length N - 1 rounds.

The dealer seat and the direction of play at each table are then balanced
(:mod:`league.domain.scheduling.seating`). Late entries and withdrawals follow the rule of
:mod:`league.domain.scheduling.round_robin`: re-plan the remaining rounds with the rounds already
played as history.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from league.domain.scheduling.local_search import plan_rounds
from league.domain.scheduling.model import (
    SEATS,
    TRAKARL,
    Fill,
    Mode,
    Occupant,
    PlayerId,
    Round,
    Table,
)
from league.domain.scheduling.plan import Plan
from league.domain.scheduling.seating import seat_rounds
from league.domain.scheduling.whist import SIX_RUBBER_CYCLE, whist_design


def rotating_partners(
    players: Sequence[PlayerId],
    rounds: int | None = None,
    *,
    fill: Fill = Fill.BYES,
    seed: int,
    history: Sequence[Round] = (),
    moves: int | None = None,
) -> Plan:
    """Plan a rotating-partner season (see the module docstring)."""
    roster = list(players)
    if len(set(roster)) != len(roster):
        raise ValueError("a player is listed twice")
    n = len(roster)
    filler: Occupant = TRAKARL if fill is Fill.TRAKARL else None
    fillers = 0 if fill is Fill.BYES else (-n) % SEATS
    if n < 3 or (n == 3 and fill is Fill.BYES):
        raise ValueError(f"{n} players cannot play Priffe (three need a träkarl)")
    if history:
        if rounds is None:
            raise ValueError("re-planning from history needs the number of rounds left")
        search = plan_rounds(
            roster,
            rounds,
            mode=Mode.PARTNERSHIP,
            fill=fill,
            seed=seed,
            history=history,
            moves=moves,
        )
        return Plan(rounds=search.rounds, method="local search", search=search)

    order = list(roster)
    random.Random(f"rotating_partners:{seed}").shuffle(order)
    seats = n + fillers
    cycle: list[tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]] | None = None
    if seats == SEATS and fillers <= 1:
        name = "six-rubber cycle (every pair partners twice)"
        cycle = [((g,), ()) for g in SIX_RUBBER_CYCLE]
    elif fillers <= 1 and seats % 4 in (0, 1):
        design = whist_design(seats)
        name = f"whist design Wh({seats}) ({design.construction})"
        cycle = list(zip(design.rounds, design.sit_outs, strict=True))
    if cycle is None:
        length = rounds if rounds is not None else n - 1
        search = plan_rounds(
            roster, length, mode=Mode.PARTNERSHIP, fill=fill, seed=seed, moves=moves
        )
        return Plan(rounds=search.rounds, method="local search", search=search)
    points: list[Occupant] = [*order, *([filler] * fillers)]
    length = rounds if rounds is not None else len(cycle)
    planned = tuple(
        Round(
            tuple(Table(tuple(points[i] for i in g)) for g in cycle[r % len(cycle)][0]),
            tuple(sorted(order[i] for i in cycle[r % len(cycle)][1])),
        )
        for r in range(length)
    )
    if length > len(cycle):
        name += f", cycle repeated ({length} rounds)"
    elif length < len(cycle):
        name += f", first {length} of {len(cycle)} rounds"
    return Plan(rounds=seat_rounds(planned, mode=Mode.PARTNERSHIP, seed=seed), method=name)
