"""Simulated annealing on whole rounds: near-balanced schedules for any number of players,
any number of rounds, byes or fillers, and a season's history (docs/scheduling.md §2.5).

The state is one permutation of everyone per round: slots ``4t .. 4t+3`` are table ``t``
(clockwise), later slots are byes. Fillers (built-in bots or träkarls) get the ids after the
entrants and are interchangeable.

The cost is a weighted sum of squares (minimising a sum of squares with a fixed total spreads
the counts evenly, and a third meeting costs more than a second):

* partnership games: ``10·Σ partners² + 1·Σ opponents²`` over pairs of present players;
* individual games: ``1·Σ meetings²``;
* both: ``20·Σ byes²`` (absences count as the fraction of a bye the others got that round),
  ``5·Σ (games with a filler)²``, ``5·Σ (games partnering a filler)²`` and ``1000`` for each
  pair of fillers at one table.

Counts start from the history (earlier rounds of the season), so planning the rest of a season
after a late entry or a withdrawal keeps the whole season balanced.

Moves: swap two players of one round (two tables, a table and the byes, or two seats of a
table), and, in partnership games, swap two partnerships between two tables (keeps every
partner count, changes only opponents). The temperature falls geometrically from 2 to 0.01 over
the move budget; the search stops early at the lower bound (§1 of the notes: water-filling each
count over its pairs or players), where the schedule is provably optimal for the cost.
Left/right balance and dealer seats are then set by :mod:`league.domain.scheduling.seating`, which
keeps every count above.

Everything is a function of the arguments and ``seed``: no clock, no global random state.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from league.domain.scheduling.balance import balance_of
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
from league.domain.scheduling.seating import seat_rounds


@dataclass(frozen=True, slots=True, kw_only=True)
class Weights:
    """Weights of the cost terms (defaults as in docs/scheduling.md §2.5)."""

    partner: float = 10.0
    opponent: float = 1.0
    meeting: float = 1.0
    bye: float = 20.0
    filler_game: float = 5.0
    filler_partner: float = 5.0
    filler_pair: float = 1000.0


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchResult:
    """The planned rounds and how good they are."""

    rounds: tuple[Round, ...]
    cost: float
    """Cost of the best schedule (history included)."""
    lower_bound: float
    """No schedule can cost less; ``cost == lower_bound`` means provably optimal."""
    moves: int
    """Moves tried over all restarts."""

    @property
    def at_lower_bound(self) -> bool:
        return self.cost <= self.lower_bound + 1e-9


def table_layout(players: int, fill: Fill) -> tuple[int, int, int]:
    """(tables, fillers, byes) per round for ``players`` present players."""
    if fill is Fill.BYES:
        tables = players // SEATS
        return tables, 0, players - tables * SEATS
    tables = -(-players // SEATS)
    return tables, tables * SEATS - players, 0


def _water_fill(counts: Sequence[float], slots: int, weight: float) -> float:
    """Least possible ``weight·Σ c²`` after adding ``slots`` units to ``counts``."""
    if weight == 0 or not counts:
        return 0.0
    heap = list(counts)
    heapq.heapify(heap)
    for _ in range(slots):
        heapq.heapreplace(heap, heap[0] + 1)
    return weight * sum(c * c for c in heap)


class _Annealer:
    """Counters and moves over the internal ids: entrants ``0..n-1``, fillers ``n..k-1``."""

    def __init__(
        self,
        *,
        n: int,
        fillers: int,
        tables: int,
        rounds: int,
        mode: Mode,
        weights: Weights,
        partner_base: list[int],
        opponent_base: list[int],
        meeting_base: list[int],
        bye_base: list[float],
        filler_game_base: list[int],
        filler_partner_base: list[int],
    ) -> None:
        self.n = n
        self.k = n + fillers
        self.tables = tables
        self.seated = tables * SEATS
        self.rounds_count = rounds
        self.partnership = mode is Mode.PARTNERSHIP
        self.w = weights
        self.partner_base = partner_base
        self.opponent_base = opponent_base
        self.meeting_base = meeting_base
        self.bye_base = bye_base
        self.filler_game_base = filler_game_base
        self.filler_partner_base = filler_partner_base

    # ------------------------------------------------------------------ state
    def start(self, rng: random.Random) -> None:
        self.rounds: list[list[int]] = []
        for _ in range(self.rounds_count):
            perm = list(range(self.k))
            rng.shuffle(perm)
            self.rounds.append(perm)
        self.partner = list(self.partner_base)
        self.opponent = list(self.opponent_base)
        self.meeting = list(self.meeting_base)
        self.bye = list(self.bye_base)
        self.filler_game = list(self.filler_game_base)
        self.filler_partner = list(self.filler_partner_base)
        self.filler_pairs = 0
        for perm in self.rounds:
            for t in range(self.tables):
                self._apply_table(perm[4 * t : 4 * t + 4], +1)
            for x in perm[self.seated :]:
                self.bye[x] += 1
        self.cost = self.full_cost()

    def full_cost(self) -> float:
        w = self.w
        cost = w.bye * sum(b * b for b in self.bye)
        cost += w.filler_game * sum(c * c for c in self.filler_game)
        cost += w.filler_pair * self.filler_pairs
        if self.partnership:
            cost += w.partner * sum(c * c for c in self.partner)
            cost += w.opponent * sum(c * c for c in self.opponent)
            cost += w.filler_partner * sum(c * c for c in self.filler_partner)
        else:
            cost += w.meeting * sum(c * c for c in self.meeting)
        return cost

    # ------------------------------------------------------------------ table terms
    def _table_changes(
        self,
        g: Sequence[int],
        sign: int,
        pairs_p: dict[int, int],
        pairs_o: dict[int, int],
        singles: dict[int, int],
        singles_p: dict[int, int],
    ) -> int:
        """Add the table's pair/filler terms (times ``sign``) to the change maps.

        Returns the change in the number of filler pairs at one table.
        """
        n = self.n
        fillers = (g[0] >= n) + (g[1] >= n) + (g[2] >= n) + (g[3] >= n)
        if fillers:
            for x in g:
                if x < n:
                    singles[x] = singles.get(x, 0) + sign
        if self.partnership:
            for a, b in ((g[0], g[2]), (g[1], g[3])):
                if a < n and b < n:
                    key = a * n + b if a < b else b * n + a
                    pairs_p[key] = pairs_p.get(key, 0) + sign
                elif a < n:
                    singles_p[a] = singles_p.get(a, 0) + sign
                elif b < n:
                    singles_p[b] = singles_p.get(b, 0) + sign
            for a, b in ((g[0], g[1]), (g[1], g[2]), (g[2], g[3]), (g[3], g[0])):
                if a < n and b < n:
                    key = a * n + b if a < b else b * n + a
                    pairs_o[key] = pairs_o.get(key, 0) + sign
        else:
            for i in range(3):
                a = g[i]
                if a >= n:
                    continue
                for j in range(i + 1, 4):
                    b = g[j]
                    if b < n:
                        key = a * n + b if a < b else b * n + a
                        pairs_p[key] = pairs_p.get(key, 0) + sign
        return sign * (fillers * (fillers - 1) // 2)

    def _apply_table(self, g: Sequence[int], sign: int) -> None:
        pairs_p: dict[int, int] = {}
        pairs_o: dict[int, int] = {}
        singles: dict[int, int] = {}
        singles_p: dict[int, int] = {}
        self.filler_pairs += self._table_changes(g, sign, pairs_p, pairs_o, singles, singles_p)
        self._add_counts(pairs_p, pairs_o, singles, singles_p)

    def _add_counts(
        self,
        pairs_p: dict[int, int],
        pairs_o: dict[int, int],
        singles: dict[int, int],
        singles_p: dict[int, int],
    ) -> None:
        """Add counted changes: partner (or meeting) pairs, opponent pairs, games with a
        filler and partnerships with a filler."""
        target = self.partner if self.partnership else self.meeting
        for key, d in pairs_p.items():
            target[key] += d
        for key, d in pairs_o.items():
            self.opponent[key] += d
        for x, d in singles.items():
            self.filler_game[x] += d
        for x, d in singles_p.items():
            self.filler_partner[x] += d

    # ------------------------------------------------------------------ moves
    def try_move(self, rng: random.Random, temperature: float) -> None:
        r = rng.randrange(self.rounds_count)
        perm = self.rounds[r]
        seated = self.seated
        swaps: tuple[tuple[int, int], ...]
        touched: tuple[int, ...]
        if self.partnership and self.tables >= 2 and rng.random() < 0.3:
            t1 = rng.randrange(self.tables)
            t2 = rng.randrange(self.tables - 1)
            if t2 >= t1:
                t2 += 1
            h1, h2 = rng.randrange(2), rng.randrange(2)
            swaps = ((4 * t1 + h1, 4 * t2 + h2), (4 * t1 + h1 + 2, 4 * t2 + h2 + 2))
            touched = (t1, t2)
        else:
            i = rng.randrange(self.k)
            j = rng.randrange(self.k)
            ti = i // 4 if i < seated else -1
            tj = j // 4 if j < seated else -1
            if ti == tj and (ti == -1 or not self.partnership or (i - j) % 2 == 0):
                return
            swaps = ((i, j),)
            touched = tuple(sorted({t for t in (ti, tj) if t >= 0}))
        pairs_p: dict[int, int] = {}
        pairs_o: dict[int, int] = {}
        singles: dict[int, int] = {}
        singles_p: dict[int, int] = {}
        dfill = 0
        for t in touched:
            dfill += self._table_changes(
                perm[4 * t : 4 * t + 4], -1, pairs_p, pairs_o, singles, singles_p
            )
        new = list(perm)
        for i, j in swaps:
            new[i], new[j] = new[j], new[i]
        for t in touched:
            dfill += self._table_changes(
                new[4 * t : 4 * t + 4], +1, pairs_p, pairs_o, singles, singles_p
            )
        w = self.w
        delta = w.filler_pair * dfill
        bye_changes: list[tuple[int, int]] = []
        for i, j in swaps:
            if (i < seated) != (j < seated):
                seat_slot, bye_slot = (i, j) if i < seated else (j, i)
                # the player now in the bye slot gained a bye, the one now seated lost one
                bye_changes.append((new[bye_slot], +1))
                bye_changes.append((new[seat_slot], -1))
        for x, d in bye_changes:
            c = self.bye[x]
            delta += w.bye * (2 * c * d + d * d)
        if self.partnership:
            for key, d in pairs_p.items():
                if d:
                    c = self.partner[key]
                    delta += w.partner * (2 * c * d + d * d)
            for key, d in pairs_o.items():
                if d:
                    c = self.opponent[key]
                    delta += w.opponent * (2 * c * d + d * d)
            for x, d in singles_p.items():
                if d:
                    c = self.filler_partner[x]
                    delta += w.filler_partner * (2 * c * d + d * d)
        else:
            for key, d in pairs_p.items():
                if d:
                    c = self.meeting[key]
                    delta += w.meeting * (2 * c * d + d * d)
        for x, d in singles.items():
            if d:
                c = self.filler_game[x]
                delta += w.filler_game * (2 * c * d + d * d)
        if delta > 0 and rng.random() >= math.exp(-delta / temperature):
            return
        # accept
        self.rounds[r] = new
        self.cost += delta
        self.filler_pairs += dfill
        self._add_counts(pairs_p, pairs_o, singles, singles_p)
        for x, d in bye_changes:
            self.bye[x] += d


def _lower_bound(
    ann: _Annealer, *, fillers: int, byes: int, rounds: int, weights: Weights
) -> float:
    n, tables = ann.n, ann.tables
    present_pairs = [a * n + b for a in range(n) for b in range(a + 1, n)]
    bound = 0.0
    if fillers > tables:
        return 0.0
    if ann.partnership:
        bound += _water_fill(
            [ann.partner_base[k] for k in present_pairs],
            rounds * (2 * tables - fillers),
            weights.partner,
        )
        bound += _water_fill(
            [ann.opponent_base[k] for k in present_pairs],
            rounds * (4 * tables - 2 * fillers),
            weights.opponent,
        )
        bound += _water_fill(ann.filler_partner_base[:n], rounds * fillers, weights.filler_partner)
    else:
        bound += _water_fill(
            [ann.meeting_base[k] for k in present_pairs],
            rounds * (6 * tables - 3 * fillers),
            weights.meeting,
        )
    bound += _water_fill(ann.filler_game_base[:n], rounds * 3 * fillers, weights.filler_game)
    bound += _water_fill(ann.bye_base[:n], rounds * byes, weights.bye)
    return bound


def bye_baseline(players: Sequence[PlayerId], history: Sequence[Round]) -> dict[PlayerId, float]:
    """Each player's byes so far, an absence counting as the round's share of byes.

    A round with ``b`` byes among ``m`` present players gives every player who was not there
    (not yet joined, withdrawn, or excused) ``b / m`` of a bye. So a late joiner enters with
    about the byes the others had on average, and byes go round evenly from there.
    """
    base = dict.fromkeys(players, 0.0)
    for round_ in history:
        present = set(round_.players)
        for p in round_.byes:
            if p in base:
                base[p] += 1.0
        if present and round_.byes:
            share = len(round_.byes) / len(present)
            for p in players:
                if p not in present:
                    base[p] += share
    return base


def plan_rounds(
    players: Sequence[PlayerId],
    rounds: int,
    *,
    mode: Mode,
    fill: Fill = Fill.BYES,
    seed: int,
    history: Sequence[Round] = (),
    weights: Weights | None = None,
    moves: int | None = None,
    restarts: int = 2,
) -> SearchResult:
    """Plan ``rounds`` rounds for ``players`` by local search, continuing ``history``.

    ``moves`` is the budget per restart (default ``20_000 + 2_000 · rounds · tables``, at most
    400 000); the search stops as soon as it reaches the lower bound. Tables come back
    oriented and rotated for left/right and seat balance (history included).
    """
    roster = list(dict.fromkeys(players))
    if len(roster) != len(players):
        raise ValueError("a player is listed twice")
    if fill is Fill.TRAKARL and mode is not Mode.PARTNERSHIP:
        raise ValueError("the träkarl completes Priffe tables only; use byes or bots")
    n = len(roster)
    tables, fillers, byes = table_layout(n, fill)
    if tables == 0:
        raise ValueError(f"{n} players cannot fill a table with fill={fill.value}")
    if fill is Fill.TRAKARL and fillers > tables:
        raise ValueError(
            f"{n} players would need {fillers} träkarls at {tables} tables; use byes instead"
        )
    if rounds < 0:
        raise ValueError("rounds must be >= 0")
    w = weights or Weights()
    index = {p: i for i, p in enumerate(roster)}
    balance = balance_of(history)
    partner_base = [0] * (n * n)
    opponent_base = [0] * (n * n)
    meeting_base = [0] * (n * n)
    for counter, base in (
        (balance.partners, partner_base),
        (balance.opponents, opponent_base),
        (balance.meetings, meeting_base),
    ):
        for (a, b), c in counter.items():
            if a in index and b in index:
                i, j = sorted((index[a], index[b]))
                base[i * n + j] = c
    baseline = bye_baseline(roster, history)
    ann = _Annealer(
        n=n,
        fillers=fillers,
        tables=tables,
        rounds=rounds,
        mode=mode,
        weights=w,
        partner_base=partner_base,
        opponent_base=opponent_base,
        meeting_base=meeting_base,
        bye_base=[baseline[p] for p in roster] + [0.0] * fillers,
        filler_game_base=[balance.filler_games[p] for p in roster] + [0] * fillers,
        filler_partner_base=[balance.filler_partner[p] for p in roster] + [0] * fillers,
    )
    bound = _lower_bound(ann, fillers=fillers, byes=byes, rounds=rounds, weights=w)
    budget = moves if moves is not None else min(400_000, 20_000 + 2_000 * rounds * tables)
    best: tuple[float, list[list[int]]] | None = None
    tried = 0
    for restart in range(max(1, restarts)):
        rng = random.Random(f"plan_rounds:{seed}:{restart}")
        ann.start(rng)
        if rounds:
            t_start, t_end = 2.0, 0.01
            decay = (t_end / t_start) ** (1.0 / max(1, budget))
            temperature = t_start
            for _ in range(budget):
                if ann.cost <= bound + 1e-9:
                    break
                ann.try_move(rng, temperature)
                temperature *= decay
                tried += 1
        cost = ann.full_cost()  # exact, free of accumulated float error
        if best is None or cost < best[0] - 1e-9:
            best = (cost, [list(p) for p in ann.rounds])
        if cost <= bound + 1e-9:
            break
    assert best is not None
    cost, perms = best
    filler: Occupant = TRAKARL if fill is Fill.TRAKARL else None

    def occupant(i: int) -> Occupant:
        return roster[i] if i < n else filler

    planned = tuple(
        Round(
            tuple(
                Table(tuple(occupant(i) for i in perm[4 * t : 4 * t + 4])) for t in range(tables)
            ),
            tuple(roster[i] for i in sorted(perm[tables * SEATS :])),
        )
        for perm in perms
    )
    return SearchResult(
        rounds=seat_rounds(planned, mode=mode, history=history),
        cost=cost,
        lower_bound=bound,
        moves=tried,
    )


def plan_round(
    players: Sequence[PlayerId],
    *,
    mode: Mode,
    fill: Fill = Fill.BYES,
    seed: int,
    history: Sequence[Round] = (),
) -> Round:
    """The next round only, from the current roster and the season so far."""
    return plan_rounds(players, 1, mode=mode, fill=fill, seed=seed, history=history).rounds[0]


def repeated_pairs(rounds: Sequence[Round], mode: Mode) -> int:
    """Pairs counted beyond their first partnership (partnership) or meeting (solo)."""
    balance = balance_of(rounds)
    counter = balance.partners if mode is Mode.PARTNERSHIP else balance.meetings
    return sum(c - 1 for c in counter.values() if c > 1)


__all__ = [
    "SearchResult",
    "Weights",
    "bye_baseline",
    "plan_round",
    "plan_rounds",
    "repeated_pairs",
    "table_layout",
]
