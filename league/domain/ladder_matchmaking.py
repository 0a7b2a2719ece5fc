"""The ladder's matchmaker: which tables to play next, to learn the most per game.

Pure: plain data in, plain data out, a seed for the ties; no clock, no database
(league.services.ladders reads the ladder and stores what this returns). docs/scheduling.md,
*The ladder*, explains the choices:

1. **Who needs a game most** (the *focus*): a version still in its placement games first
   (rated games plus games in flight below ``placement_games``), then the one whose place
   on the leaderboard is least sure (:func:`place_doubt`), then the widest uncertainty
   (sigma), then the fewest games. Built-in anchors are never a focus: they anchor the
   scale, they are not what is measured.
2. **Opponents of close rating**: the focus's table is filled with the candidates whose mu
   is nearest its own, a little pushed away from pairs that met often (``meetings``), so a
   version meets the whole neighbourhood rather than the same three.
3. **Seats balanced**: the player who dealt first least often takes seat 0, and so on
   round the table; in partnership play (Priffe) the split into partners with the fewest
   earlier partnerships is chosen.
4. **Duplicate pairs** where the family's deals are fixed by the seed
   (``Game.deals_fixed_by_seed``): the table is played twice with one seed, the second time
   with the seats turned (partnerships swap sides; individual players take other hands),
   so luck of the cards cancels out.
5. **Limits**: no version sits in more than ``concurrent_limit`` matches at once (queued
   or running, anchors excepted: they run in the worker's process), and never more than
   ``room`` tables are returned (the service's bound on queued ladder matches).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations

MEETING_PENALTY = 1.5
"""How much an earlier meeting pushes a candidate away, in rating points (mu) per meeting."""


@dataclass(frozen=True)
class Candidate:
    """A version on the ladder as the matchmaker sees it."""

    id: int
    mu: float
    sigma: float
    games: int
    """Rated ladder games so far."""
    in_flight: int = 0
    """Its ladder matches queued or running now."""
    anchor: bool = False
    """A built-in bot that anchors the scale (no concurrency limit, never a focus)."""


@dataclass(frozen=True)
class LadderShape:
    """What the game and the ladder's settings say about a table."""

    seats: int
    """Players at a table (the game's player seats)."""
    partnership: bool = False
    duplicate: bool = False
    """Play each table twice with one seed (the family's deals are fixed by the seed)."""
    concurrent_limit: int = 2
    placement_games: int = 10


@dataclass(frozen=True)
class PlannedTable:
    seats: tuple[int, ...]
    """Candidate ids clockwise from seat 0."""
    deal_group: int
    """Tables with the same group share one seed (a duplicate pair)."""
    focus: int


@dataclass
class History:
    """What earlier ladder games tell the seating: meetings per pair, first-seat games
    and partnerships per pair."""

    meetings: Mapping[tuple[int, int], int] = field(default_factory=dict)
    seat_counts: Mapping[tuple[int, int], int] = field(default_factory=dict)
    """(candidate, seat) -> games in that seat."""
    partnerships: Mapping[tuple[int, int], int] = field(default_factory=dict)


def pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


FOCUS_ON_PLACE_DOUBT = True
"""Once placed, the focus is the version whose place is least sure (:func:`place_doubt`);
False: the widest sigma, as before (``bench.ladder_truth --focus sigma`` compares them)."""


def place_doubt(candidate: Candidate, field: Sequence[Candidate]) -> float:
    """How unsure its place on the ladder is: for each other candidate, the chance that
    the two are in the wrong order (their skills' difference on the other side of zero
    from their mus', with both ratings' uncertainty), summed. A version far from everyone
    has a doubt near 0 whatever its sigma; one amid close rivals nears one half a rival."""
    doubt = 0.0
    for other in field:
        if other.id == candidate.id:
            continue
        spread = math.sqrt(candidate.sigma**2 + other.sigma**2)
        doubt += 0.5 * math.erfc(abs(candidate.mu - other.mu) / (spread * math.sqrt(2)))
    return doubt


def _need(
    candidate: Candidate, games: int, shape: LadderShape, doubt: float
) -> tuple[bool, float, float, int, int]:
    """Sort key, smallest first: in placement, most doubt about its place, widest sigma,
    fewest games (``games`` counts those in flight and those just planned)."""
    first = -round(doubt, 6) if FOCUS_ON_PLACE_DOUBT else 0.0
    return (
        games >= shape.placement_games,
        first,
        -round(candidate.sigma, 6),
        games,
        candidate.id,
    )


def focus_order(candidates: Sequence[Candidate], shape: LadderShape) -> list[Candidate]:
    """Who needs a game most, first: placement, then most doubt about its place, then
    widest sigma, then fewest games."""
    return sorted(
        (c for c in candidates if not c.anchor),
        key=lambda c: _need(c, c.games + c.in_flight, shape, place_doubt(c, candidates)),
    )


def _seat_order(players: Sequence[int], shape: LadderShape, history: History) -> tuple[int, ...]:
    """The players' seats: partners split to repeat the fewest partnerships (partnership
    play), then the arrangement whose seats each player has held least."""
    best: tuple[int, ...] = tuple(players)
    best_cost: tuple[int, int] | None = None
    for order in permutations(players):
        partner_cost = 0
        if shape.partnership and len(order) == 4:
            partner_cost = history.partnerships.get(
                pair(order[0], order[2]), 0
            ) + history.partnerships.get(pair(order[1], order[3]), 0)
        seat_cost = sum(
            history.seat_counts.get((player, seat), 0) ** 2 for seat, player in enumerate(order)
        )
        cost = (partner_cost, seat_cost)
        if best_cost is None or cost < best_cost:
            best, best_cost = order, cost
    return best


def turned(seats: tuple[int, ...], shape: LadderShape) -> tuple[int, ...]:
    """The seats of a duplicate pair's second table: turned by one seat in partnership
    play (the partnerships swap sides), by half the table otherwise."""
    step = 1 if shape.partnership else max(1, len(seats) // 2)
    return seats[-step:] + seats[:-step]


def plan_tables(
    candidates: Sequence[Candidate],
    shape: LadderShape,
    *,
    room: int,
    history: History | None = None,
    seed: int = 0,
) -> list[PlannedTable]:
    """At most ``room`` tables to queue now (a duplicate pair counts two), each built round
    the candidate that needs a game most; none when fewer than a table's players can play."""
    history = history or History()
    rng = random.Random(seed)
    load = {c.id: c.in_flight for c in candidates}
    planned_games = {c.id: c.games + c.in_flight for c in candidates}
    per_table = 2 if shape.duplicate else 1
    tables: list[PlannedTable] = []
    group = 0
    meetings = dict(history.meetings)
    doubt = {c.id: place_doubt(c, candidates) for c in candidates if not c.anchor}

    def free(c: Candidate, need: int) -> bool:
        return c.anchor or load[c.id] + need <= shape.concurrent_limit

    while len(tables) + per_table <= room:
        # Focus: recomputed after each table (in-flight games count as games).
        order = sorted(
            (c for c in candidates if not c.anchor and free(c, per_table)),
            key=lambda c: _need(c, planned_games[c.id], shape, doubt[c.id]),
        )
        if not order:
            break
        focus = order[0]
        others = [c for c in candidates if c.id != focus.id and free(c, per_table)]
        if len(others) < shape.seats - 1:
            break
        jitter = {c.id: rng.random() * 1e-3 for c in others}
        others.sort(
            key=lambda c: (
                abs(c.mu - focus.mu)
                + MEETING_PENALTY * meetings.get(pair(c.id, focus.id), 0)
                + jitter[c.id]
            )
        )
        chosen = [focus.id] + [c.id for c in others[: shape.seats - 1]]
        seats = _seat_order(chosen, shape, history)
        group += 1
        tables.append(PlannedTable(seats=seats, deal_group=group, focus=focus.id))
        if shape.duplicate:
            tables.append(
                PlannedTable(seats=turned(seats, shape), deal_group=group, focus=focus.id)
            )
        for player in chosen:
            load[player] += per_table
            planned_games[player] += per_table
            for other in chosen:
                if other > player:
                    key = pair(player, other)
                    meetings[key] = meetings.get(key, 0) + per_table
    return tables
