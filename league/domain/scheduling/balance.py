"""Counting what a schedule balances: partners, opponents, meetings, left-hand opponents,
seats, byes and games with a filler (a built-in bot or the träkarl).

The same counts are the validator of every shipped design (tests), the season history the local
search starts from, and the figures of docs/scheduling.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from league.domain.scheduling.model import SEATS, Occupant, PlayerId, Round, Trakarl, is_filler

Pair = tuple[PlayerId, PlayerId]


def pair(a: PlayerId, b: PlayerId) -> Pair:
    """The unordered pair {a, b} as a sorted tuple."""
    return (a, b) if a < b else (b, a)


def _entrant(occupant: Occupant) -> PlayerId | None:
    if occupant is None or isinstance(occupant, Trakarl):
        return None
    return occupant


@dataclass(slots=True)
class Balance:
    """Counts over a sequence of rounds (entrants only; fillers count in ``filler_*``)."""

    partners: Counter[Pair] = field(default_factory=Counter)
    """Games in which the pair were partners (seats 0-2 or 1-3); partnership games."""
    opponents: Counter[Pair] = field(default_factory=Counter)
    """Games in which the pair were opponents (adjacent seats); partnership games."""
    meetings: Counter[Pair] = field(default_factory=Counter)
    """Games in which the pair shared a table (any seats)."""
    left_hand: Counter[Pair] = field(default_factory=Counter)
    """``left_hand[(x, y)]``: games in which ``y`` sat immediately after ``x`` (ordered pair)."""
    seats: dict[PlayerId, list[int]] = field(default_factory=dict)
    """Games per seat (0 = first dealer) per player."""
    byes: Counter[PlayerId] = field(default_factory=Counter)
    games: Counter[PlayerId] = field(default_factory=Counter)
    filler_games: Counter[PlayerId] = field(default_factory=Counter)
    """Games at a table with a built-in bot or a träkarl."""
    filler_partner: Counter[PlayerId] = field(default_factory=Counter)
    """Partnership games with a filler (the träkarl) as partner."""
    filler_pairs_at_table: int = 0
    """Tables that held two or more fillers (counted once per extra filler pair)."""
    players: set[PlayerId] = field(default_factory=set)
    rounds: int = 0

    def add_round(self, round_: Round) -> None:
        self.rounds += 1
        for out in round_.byes:
            self.byes[out] += 1
            self.players.add(out)
        for table in round_.tables:
            seats = table.seats
            ids = [_entrant(o) for o in seats]
            fillers = sum(1 for o in seats if is_filler(o))
            self.filler_pairs_at_table += fillers * (fillers - 1) // 2
            for s, p in enumerate(ids):
                if p is None:
                    continue
                self.players.add(p)
                self.games[p] += 1
                self.seats.setdefault(p, [0] * SEATS)[s] += 1
                if fillers:
                    self.filler_games[p] += 1
                if ids[(s + 2) % SEATS] is None:
                    self.filler_partner[p] += 1
                lho = ids[(s + 1) % SEATS]
                if lho is not None:
                    self.left_hand[(p, lho)] += 1
            for a, b in combinations(range(SEATS), 2):
                pa, pb = ids[a], ids[b]
                if pa is None or pb is None:
                    continue
                key = pair(pa, pb)
                self.meetings[key] += 1
                if (b - a) % 2 == 0:
                    self.partners[key] += 1
                else:
                    self.opponents[key] += 1

    def add_rounds(self, rounds: Iterable[Round]) -> Balance:
        for round_ in rounds:
            self.add_round(round_)
        return self

    def lho_imbalance(self, x: PlayerId, y: PlayerId) -> int:
        """How many more times ``y`` sat after ``x`` than ``x`` after ``y``."""
        return self.left_hand[(x, y)] - self.left_hand[(y, x)]


def balance_of(rounds: Iterable[Round]) -> Balance:
    """Count a schedule."""
    return Balance().add_rounds(rounds)


def pair_range(counter: Mapping[Pair, int], players: Sequence[PlayerId]) -> tuple[int, int]:
    """(min, max) of a pair counter over every pair of ``players``, counting absent pairs as 0."""
    values = [counter.get(pair(a, b), 0) for a, b in combinations(players, 2)]
    return (min(values), max(values)) if values else (0, 0)


def seat_spread(balance: Balance, players: Sequence[PlayerId]) -> int:
    """The largest (max - min) of any player's games per seat."""
    spreads = [
        max(balance.seats.get(p, [0] * SEATS)) - min(balance.seats.get(p, [0] * SEATS))
        for p in players
    ]
    return max(spreads, default=0)


def lho_spread(balance: Balance, players: Sequence[PlayerId]) -> int:
    """The largest |times y sat after x - times x sat after y| over pairs of ``players``."""
    return max(
        (abs(balance.lho_imbalance(a, b)) for a, b in combinations(players, 2)),
        default=0,
    )
