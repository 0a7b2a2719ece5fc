"""Round robin at tables of three or five (Kingen for three or five players), a round at a time.

The designs and the local search of this package seat tables of four. For tables of another
size this plans the next round from the rounds played so far: the players are split into
tables so that pairs who have met least meet now, by a small local search (swap two players
of two tables while that lowers the cost; a few seeded restarts, the best kept). The cost of
a table: per pair seated at it, 3 to the power of its meetings so far (a first meeting costs
1, a second 3, a third 9: repeats are put off as long as the field allows); with a filler at
the table, 5 per player at it, times the square of his games with a filler so far plus
this one, and 1000 times the square of the number of fillers (one per table while there are
enough tables). Seat 0 (who deals first) goes to the player at the table who has dealt first
least often so far; the others keep the order the search left them in, so left and right
are not balanced, and the season is planned one round at a time, not as a whole (no
guarantee that every pair meets as often as every other; what it achieves is measured in
tests/league/domain/scheduling/test_small_tables.py).

Fillers are ``None`` (a built-in bot completes the table). Deterministic for a given seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

from league.domain.scheduling.model import PlayerId

SmallTable = list[PlayerId | None]
"""A table's seats in order, seat 0 first; ``None`` is a filler."""

FILLER_WEIGHT = 5
PAIR_BASE = 3
CROWDED_WEIGHT = 1000


def small_tables_round(
    players: Sequence[PlayerId],
    *,
    seats: int,
    history: Sequence[Sequence[Sequence[PlayerId | None]]] = (),
    seed: int = 0,
    restarts: int = 4,
) -> list[SmallTable]:
    """The tables of ``seats`` for the next round of ``players`` (everyone plays; fillers
    complete the last seats), given the earlier rounds as lists of tables."""
    if seats < 2:
        raise ValueError("a table has at least two seats")
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    if not players:
        return []
    meetings: dict[tuple[PlayerId, PlayerId], int] = {}
    with_filler: dict[PlayerId, int] = {}
    first: dict[PlayerId, int] = {}
    for round_ in history:
        for table in round_:
            present = [p for p in table if p is not None]
            for a, b in combinations(sorted(present), 2):
                meetings[(a, b)] = meetings.get((a, b), 0) + 1
            if len(present) < len(table):
                for p in present:
                    with_filler[p] = with_filler.get(p, 0) + 1
            if table and table[0] is not None:
                first[table[0]] = first.get(table[0], 0) + 1

    def cost(table: Sequence[PlayerId | None]) -> int:
        present = sorted(p for p in table if p is not None)
        total = sum(PAIR_BASE ** meetings.get(pair, 0) for pair in combinations(present, 2))
        fillers = len(table) - len(present)
        if fillers:
            total += FILLER_WEIGHT * sum((with_filler.get(p, 0) + 1) ** 2 for p in present)
            total += CROWDED_WEIGHT * fillers * fillers
        return total

    count = -(-len(players) // seats)
    slots: list[PlayerId | None] = [*players, *[None] * (count * seats - len(players))]
    rng = random.Random(seed)
    best: list[SmallTable] = []
    best_cost = -1
    for _ in range(max(1, restarts)):
        rng.shuffle(slots)
        tables = [slots[t * seats : (t + 1) * seats] for t in range(count)]
        costs = [cost(table) for table in tables]
        improved = True
        while improved:
            improved = False
            for t, u in combinations(range(count), 2):
                for i in range(seats):
                    for j in range(seats):
                        x, y = tables[t][i], tables[u][j]
                        if x == y:  # two fillers
                            continue
                        tables[t][i], tables[u][j] = y, x
                        new_t, new_u = cost(tables[t]), cost(tables[u])
                        if new_t + new_u < costs[t] + costs[u]:
                            costs[t], costs[u] = new_t, new_u
                            improved = True
                        else:
                            tables[t][i], tables[u][j] = x, y
        total = sum(costs)
        if best_cost < 0 or total < best_cost:
            best, best_cost = [list(table) for table in tables], total
    return [_dealer_first(table, first) for table in best]


def _dealer_first(table: SmallTable, first: dict[PlayerId, int]) -> SmallTable:
    """The table turned (order kept) so that the player who dealt first least deals first."""
    _, dealer = min((first.get(p, 0), k) for k, p in enumerate(table) if p is not None)
    return table[dealer:] + table[:dealer]
