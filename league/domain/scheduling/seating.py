"""Seat order at each table, chosen after the tables are formed.

Who sits with whom is fixed by then; this pass only permutes the seats of each table, so it
keeps every partner, opponent and meeting count. It balances two things, with the season's
earlier rounds as history:

* **dealer seats**: every player holds each seat (0 = first dealer) about equally often
  (weight 1 on ``Σ games-in-seat²``, the seat-wind balancing of the mahjong seating tools,
  docs/scheduling.md §2.1, *Seats last*);
* **left and right**: every player has each other player about as often as left-hand opponent
  (playing right after him) as right-hand (weight 1/10 on ``Σ (left - right)²`` over pairs).

In a partnership game the partners stay opposite, so a table has 8 seatings (4 rotations times
2 directions); in an individual game all 24 are allowed. The search is a coordinate descent
over tables (the best seating of one table given all others), repeated until no table changes;
it is deterministic.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import permutations

from league.domain.scheduling.balance import balance_of
from league.domain.scheduling.model import SEATS, Mode, PlayerId, Round, Table, Trakarl

_MAX_SWEEPS = 50
LHO_WEIGHT = 0.1
"""Weight of the left/right term relative to the dealer-seat term."""


def _ids(seats: Sequence[object]) -> list[PlayerId | None]:
    return [None if (o is None or isinstance(o, Trakarl)) else o for o in seats]  # type: ignore[misc]


def seatings(mode: Mode) -> list[tuple[int, ...]]:
    """The seat permutations allowed at one table (identity first)."""
    if mode is Mode.PARTNERSHIP:
        return [base[k:] + base[:k] for base in ((0, 1, 2, 3), (0, 3, 2, 1)) for k in range(SEATS)]
    return list(permutations(range(SEATS)))


class _Counts:
    def __init__(self, history: Sequence[Round]) -> None:
        balance = balance_of(history)
        self.seat: dict[PlayerId, list[int]] = {p: list(c) for p, c in balance.seats.items()}
        self.lho: dict[tuple[PlayerId, PlayerId], int] = {}
        for (x, y), c in balance.left_hand.items():
            self.lho[(x, y)] = self.lho.get((x, y), 0) + c
            self.lho[(y, x)] = self.lho.get((y, x), 0) - c

    def add(self, ids: Sequence[PlayerId | None], sign: int) -> None:
        for s in range(SEATS):
            x = ids[s]
            if x is None:
                continue
            self.seat.setdefault(x, [0] * SEATS)[s] += sign
            y = ids[(s + 1) % SEATS]
            if y is not None:
                self.lho[(x, y)] = self.lho.get((x, y), 0) + sign
                self.lho[(y, x)] = self.lho.get((y, x), 0) - sign

    def added_cost(self, ids: Sequence[PlayerId | None]) -> float:
        """Cost increase of adding a table seated as ``ids``."""
        seat_cost = 0
        lho_cost = 0
        zero = [0] * SEATS
        for s in range(SEATS):
            x = ids[s]
            if x is None:
                continue
            seat_cost += 2 * self.seat.get(x, zero)[s] + 1
            y = ids[(s + 1) % SEATS]
            if y is not None:
                lho_cost += 2 * self.lho.get((x, y), 0) + 1
        return seat_cost + LHO_WEIGHT * lho_cost


def seat_rounds(
    rounds: Sequence[Round],
    *,
    mode: Mode,
    history: Sequence[Round] = (),
    seed: int = 0,
    kicks: int | None = None,
    repairs: int = 400,
) -> tuple[Round, ...]:
    """Permute the seats of every table of ``rounds`` for dealer-seat and left/right balance.

    After the descent, ``kicks`` times: reseat three random tables (seeded), descend again, and
    keep the result if the cost fell, else undo (iterated local search). By default 40 kicks
    for a short schedule, fewer for a long one (where the descent alone balances the seats).
    Then up to ``repairs`` targeted kicks at players whose seat counts still differ by two.
    """
    search = _SeatSearch(rounds, mode=mode, history=history)
    search.descend(search.all_cells())
    cells = search.all_cells()
    if kicks is None:
        kicks = min(40, 1000 // max(1, len(cells)))
    if cells:
        rng = random.Random(f"seat_rounds:{seed}")
        for _ in range(kicks):
            mark = len(search.log)
            delta = 0.0
            touched: list[tuple[int, int]] = []
            for _ in range(min(len(cells), 3)):
                i, t = cells[rng.randrange(len(cells))]
                perm = search.perms[rng.randrange(len(search.perms))]
                seats = search.tables[i][t].seats
                delta += search.change(i, t, tuple(seats[k] for k in perm))
                touched.append((i, t))
            delta += search.descend(search.neighbours(touched))
            if delta < -1e-9:
                search.log.clear()
            else:
                search.undo(mark)
        _repair_seats(search, rng, repairs)
    return tuple(Round(tuple(row), r.byes) for row, r in zip(search.tables, rounds, strict=True))


def _repair_seats(search: _SeatSearch, rng: random.Random, repairs: int) -> None:
    """Targeted kicks until no player's seat counts differ by more than one (or ``repairs``).

    A player whose counts differ by two or more is moved, at one of his tables where he holds
    an over-used seat, to an under-used one (the table is reseated); the move is kept if it
    lowers the total excess spread, or keeps it and does not raise the cost.
    """
    players = sorted(search.where)

    def excess() -> int:
        total = 0
        for p in players:
            counts = search.counts.seat.get(p, [0] * SEATS)
            total += max(0, max(counts) - min(counts) - 1)
        return total

    current = excess()
    for _ in range(repairs):
        if current == 0:
            return
        bad = [p for p in players if max(search.counts.seat[p]) - min(search.counts.seat[p]) > 1]
        x = bad[rng.randrange(len(bad))]
        counts = search.counts.seat[x]
        high, low = max(counts), min(counts)
        cells = [
            (i, t) for i, t in search.where[x] if counts[search.tables[i][t].seats.index(x)] == high
        ]
        seats_of = [search.tables[i][t].seats for i, t in cells]
        options = [
            (cell, perm)
            for cell, seats in zip(cells, seats_of, strict=True)
            for perm in search.perms
            if counts[[seats[k] for k in perm].index(x)] == low
        ]
        if not options:  # the over-used seat is in the history only
            players.remove(x)
            current = excess()
            continue
        (i, t), perm = options[rng.randrange(len(options))]
        seats = search.tables[i][t].seats
        mark = len(search.log)
        delta = search.change(i, t, tuple(seats[k] for k in perm))
        after = excess()
        if after < current or (after == current and delta <= 1e-9):
            current = after
            search.log.clear()
        else:
            search.undo(mark)


class _SeatSearch:
    def __init__(self, rounds: Sequence[Round], *, mode: Mode, history: Sequence[Round]) -> None:
        self.counts = _Counts(history)
        self.perms = seatings(mode)
        self.tables = [list(r.tables) for r in rounds]
        self.where: dict[PlayerId, list[tuple[int, int]]] = {}
        self.log: list[tuple[int, int, Table]] = []
        for i, row in enumerate(self.tables):
            for t, table in enumerate(row):
                self.counts.add(_ids(table.seats), +1)
                for p in table.players:
                    self.where.setdefault(p, []).append((i, t))

    def all_cells(self) -> list[tuple[int, int]]:
        return [(i, t) for i, row in enumerate(self.tables) for t in range(len(row))]

    def neighbours(self, cells: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
        """Tables sharing a player with any of ``cells`` (the cells included)."""
        found = dict.fromkeys(cells)
        for i, t in cells:
            for p in self.tables[i][t].players:
                found.update(dict.fromkeys(self.where[p]))
        return list(found)

    def change(self, i: int, t: int, seats: tuple[object, ...]) -> float:
        """Reseat table (i, t); returns the cost change and logs the old table."""
        old = self.tables[i][t]
        old_ids = _ids(old.seats)
        self.counts.add(old_ids, -1)
        delta = -self.counts.added_cost(old_ids)
        new_ids = _ids(seats)
        delta += self.counts.added_cost(new_ids)
        self.counts.add(new_ids, +1)
        self.tables[i][t] = Table(seats)  # type: ignore[arg-type]
        self.log.append((i, t, old))
        return delta

    def undo(self, mark: int) -> None:
        while len(self.log) > mark:
            i, t, old = self.log.pop()
            self.counts.add(_ids(self.tables[i][t].seats), -1)
            self.counts.add(_ids(old.seats), +1)
            self.tables[i][t] = old

    def descend(self, cells: Sequence[tuple[int, int]]) -> float:
        """Best seating of one table at a time until none improves; returns the cost change."""
        queue = list(cells)
        queued = set(queue)
        total = 0.0
        steps = 0
        limit = _MAX_SWEEPS * max(1, len(self.all_cells()))
        while queue and steps < limit:
            steps += 1
            i, t = queue.pop()
            queued.discard((i, t))
            table = self.tables[i][t]
            current = _ids(table.seats)
            self.counts.add(current, -1)
            here = self.counts.added_cost(current)
            best_cost = here
            best = table.seats
            for perm in self.perms[1:]:
                seats = tuple(table.seats[k] for k in perm)
                cost = self.counts.added_cost(_ids(seats))
                if cost < best_cost - 1e-9:
                    best_cost, best = cost, seats
            self.counts.add(current, +1)
            if best != table.seats:
                total += self.change(i, t, best)
                for p in table.players:
                    for cell in self.where[p]:
                        if cell not in queued:
                            queued.add(cell)
                            queue.append(cell)
        return total
