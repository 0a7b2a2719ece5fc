"""Individual round robin at tables of four (Kingen, King, Kung och Adel).

Every round seats everyone present at one table (or gives a bye); over the season each player
should meet every other about equally often and hold every seat (0 = first dealer) about
equally often, and have each other player about as often on his left as on his right.

How the rounds are made:

* **Whole cycles from a design**, when one exists for the number of seats and there is no
  history: 16 players (or 15 and a bot), 5 rounds, every pair meets exactly once (the affine
  plane AG(2,4), docs/scheduling.md §2.1); otherwise for 4k players, 4k+1 with byes, or 4k-1
  with a bot, a whist tournament read as an individual schedule: every pair meets exactly 3
  times in 4k-1 (or 4k+1) rounds, each bye once.
* **Everything else by local search** (:mod:`league.domain.scheduling.local_search`,
  individual mode):
  the rounds left over after whole cycles, any other number of players, and every re-plan
  from a season's history.
* **Seats last** (:mod:`league.domain.scheduling.seating`): the order round each table is chosen for
  dealer-seat and left/right balance, with the history included.

Byes or bots (the organiser's choice, :class:`~league.domain.scheduling.model.Fill`): with byes,
``N mod 4`` players sit out each round, spread evenly over the season; with bots, ``None`` seats
complete the last tables, at most one per table where the numbers allow and spread over the
players.

Late entries and withdrawals: call :func:`round_robin` again for the remaining rounds with the
current roster and the rounds already played as ``history``. The local search then starts from
the season's counts, so meetings, seats and byes stay balanced over the whole season; an absent
round counts as the share of a bye the others had that round (see
:func:`~league.domain.scheduling.local_search.bye_baseline`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from league.domain.scheduling.local_search import SearchResult, plan_rounds
from league.domain.scheduling.model import SEATS, Fill, Mode, Occupant, PlayerId, Round, Table
from league.domain.scheduling.plan import Plan
from league.domain.scheduling.seating import seat_rounds
from league.domain.scheduling.whist import whist_design

# GF(4) = {0, 1, a, a+1} as 0..3: addition is XOR, multiplication by table.
_GF4_MUL: Final = (
    (0, 0, 0, 0),
    (0, 1, 2, 3),
    (0, 2, 3, 1),
    (0, 3, 1, 2),
)


def affine_plane_16() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """AG(2,4): 16 points in 5 rounds of 4 tables; every pair shares exactly one table."""
    rounds: list[tuple[tuple[int, ...], ...]] = [
        tuple(tuple(4 * x + (_GF4_MUL[m][x] ^ b) for x in range(4)) for b in range(4))
        for m in range(4)  # the lines y = m·x + b
    ]
    rounds.append(tuple(tuple(4 * c + y for y in range(4)) for c in range(4)))  # x = c
    return tuple(rounds)


def _design_cycle(
    seats: int, fill: Fill
) -> tuple[str, list[tuple[list[tuple[int, ...]], list[int]]]] | None:
    """(name, rounds as (tables of points, byes of points)) of a perfect cycle, if any."""
    if seats == 16:
        return (
            "affine plane AG(2,4): every pair meets once",
            [([tuple(t) for t in r], []) for r in affine_plane_16()],
        )
    if seats >= 4 and seats % 4 in (0, 1):
        design = whist_design(seats)
        return (
            f"whist design Wh({seats}) ({design.construction}) read as individual play: "
            "every pair meets 3 times",
            [
                ([tuple(g) for g in games], list(out))
                for games, out in zip(design.rounds, design.sit_outs, strict=True)
            ],
        )
    return None


def round_robin(
    players: Sequence[PlayerId],
    rounds: int,
    *,
    fill: Fill = Fill.BYES,
    seed: int,
    history: Sequence[Round] = (),
    moves: int | None = None,
) -> Plan:
    """Plan ``rounds`` rounds of individual play for ``players`` (see the module docstring)."""
    if fill is Fill.TRAKARL:
        raise ValueError("the träkarl belongs to Priffe; individual games use byes or bots")
    roster = list(players)
    if len(set(roster)) != len(roster):
        raise ValueError("a player is listed twice")
    n = len(roster)
    fillers = (-n) % SEATS if fill is Fill.BOTS else 0
    cycle = None
    if not history and fillers <= 1 and n >= 4 - fillers:
        # with byes a design needs n ≡ 0, 1 (mod 4); with one bot the bot is a design point
        seats = n + fillers
        if fill is Fill.BYES or seats % 4 == 0:
            cycle = _design_cycle(seats, fill)
    if cycle is None or rounds < len(cycle[1]):
        search = plan_rounds(
            roster, rounds, mode=Mode.SOLO, fill=fill, seed=seed, history=history, moves=moves
        )
        return Plan(rounds=search.rounds, method="local search", search=search)
    name, design = cycle
    order = list(roster)
    random.Random(f"round_robin:{seed}").shuffle(order)
    points: list[Occupant] = [*order, *([None] * fillers)]
    whole = rounds // len(design)
    planned: list[Round] = []
    for _ in range(whole):
        for tables, byes in design:
            planned.append(
                Round(
                    tuple(Table(tuple(points[i] for i in t)) for t in tables),
                    tuple(sorted(order[i] for i in byes)),
                )
            )
    seated = seat_rounds(planned, mode=Mode.SOLO, seed=seed)
    rest = rounds - whole * len(design)
    remainder: SearchResult | None = None
    if rest:
        remainder = plan_rounds(
            roster, rest, mode=Mode.SOLO, fill=fill, seed=seed, history=seated, moves=moves
        )
        seated = seated + remainder.rounds
        name += f"; last {rest} rounds by local search"
    return Plan(rounds=seated, method=name, search=remainder)
