"""Standings: cumulative tables for every game, updated one match result at a time.

Why this module is long: the accumulator, its stored parts, duplicate matchpoints and the
confidence of a lead are the computations of one table, whose sums must stay exactly those
of a full recomputation; kept together, they change together.

Pure: plain records in, plain records out; no database, no clock. A service keeps a
:class:`StandingsAccumulator` per tournament (or rebuilds one with :func:`compute_standings`) and
applies each stored :class:`ScoredMatch`; applying results one by one, in any order, gives exactly
the table a full recomputation gives (all sums are of integers, all comparisons exact).

**Tables.** An individual game is played by 3 to 5 (Kingen for three or five, everything else
by four); a partnership game (Priffe) by four, partners opposite (seats 0 and 2 against 1 and
3). Everything below works for any of these sizes: in an individual game every other seat at
the table is an opponent.

**What a row shows.** Games played, total score, average per game, table wins, the score of every
round, and for duplicate play the matchpoints, the top (the matchpoints available) and the
percentage. In Priffe a player's score is his individual settlement points, so the total is the
sum over rubbers; the table also carries the partner-pair table and head-to-head records.

**Ranking** (``rules.rank_by``): by average per game (default: fair when attendance differs), by
total, or by duplicate percentage. Players with fewer than ``rules.min_games`` games are listed
after the ranked ones, without a rank. Tie-breaks, in order:

1. *head-to-head* among the tied players: the sum of their score differences in the games where
   two of them sat at one table as opponents;
2. *strength of opposition*: the mean, over the player's games, of the ranking value (average,
   total or percentage) of the opponents he met (Sonneborn-Berger in spirit: a tie goes to the
   one who had the harder field);
3. *wins*: games with the best score at the table outright (in Priffe: the side's total beat
   the other side's);
4. still equal: the same rank (1, 2, 2, 4 ...), listed by player id.

**Confidence** (:class:`Separation`, on each ranked row for the row below it): Welch's t-test
on the two players' per-game scores (per-board percentages in duplicate play): the difference of
the means, its two-sided ``rules.confidence`` interval with the Welch-Satterthwaite degrees of
freedom, and the p-value. ``significant`` means the interval excludes zero, i.e. the order of the
two is not plausibly luck. It treats games as independent samples, which is approximate (partners
share a score, tablemates' scores are correlated); with fewer than two games each it says nothing.

**Duplicate play** (results carrying a ``board``): every result is compared with the other
results of the same cards: the same hand of the same board (individual games) or the same side
of the same board (partnerships, whose members both get the side's matchpoints). 2 matchpoints
for each result beaten, 1 for each tie; results that share a competitor are not compared. The
percentage is matchpoints over top. :func:`duplicate_scores` also offers the Neuberg adjustment
for boards played fewer times than others. A board is a label (a number, or a string without
``:``) that the caller gives to results dealt the same cards at the same number of seats.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations
from typing import Any, Final

from league.domain.scheduling.model import SEATS, Mode, Occupant, PlayerId, Trakarl

Pair = tuple[PlayerId, PlayerId]
MIN_SEATS: Final = 3
MAX_SEATS: Final = 5
"""Seats at a table of an individual game (Kingen for three and five); partnership play is
played by four (``SEATS``)."""
ROUND_BLOCK: Final = 64
"""The per-round points of a player are stored in parts of 64 rounds (``r:P:B`` holds the
rounds ``r`` with ``r // 64 == B``), so a result rewrites one short list, not every round."""
_SEAT_PAIRS: Final = {n: tuple(combinations(range(n), 2)) for n in range(MIN_SEATS, MAX_SEATS + 1)}
_Tie = tuple[Fraction, int, Fraction, int]
"""Ranking value, head-to-head, strength of opposition, wins."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoredMatch:
    """The outcome of one match (a game, a rubber, or one play of a duplicate board)."""

    match_id: int
    """Unique per match; applying the same id twice is a no-op."""
    round_number: int
    seats: tuple[Occupant, ...]
    """Who held each seat, 3 to 5 of them (seat 0 dealt first; in duplicate play seat ``h``
    held hand ``h``)."""
    scores: tuple[int, ...]
    """Points per seat, higher is better (Priffe: individual settlement points)."""
    board: int | str | None = None
    """The duplicate board played (results of one board held the same cards), or ``None``
    for ordinary play."""

    def __post_init__(self) -> None:
        n = len(self.seats)
        if not MIN_SEATS <= n <= MAX_SEATS or len(self.scores) != n:
            raise ValueError(
                f"a result has {MIN_SEATS} to {MAX_SEATS} seats and a score for each seat,"
                f" not {n} seats and {len(self.scores)} scores"
            )
        if isinstance(self.board, str) and (":" in self.board or not self.board):
            raise ValueError(f"a board label is not empty and has no ':', not {self.board!r}")


class RankBy(enum.StrEnum):
    AVERAGE = "average"
    TOTAL = "total"
    PERCENTAGE = "percentage"
    """Duplicate matchpoint percentage."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StandingsRules:
    """How a tournament ranks its players (frozen when the tournament starts)."""

    mode: Mode
    rank_by: RankBy = RankBy.AVERAGE
    min_games: int = 1
    confidence: float = 0.95


@dataclass(frozen=True, slots=True)
class Separation:
    """Is the upper player of two adjacent rows really ahead? (Welch's t-test.)"""

    difference: float
    """Upper mean minus lower mean (per game, or percentage points per board)."""
    low: float | None
    high: float | None
    """The confidence interval of the difference (``None`` with too few games)."""
    p_value: float | None
    significant: bool


@dataclass(frozen=True, slots=True)
class StandingRow:
    rank: int | None
    """``None`` below the minimum number of games."""
    player: PlayerId
    games: int
    total: int
    average: float
    wins: int
    per_round: tuple[tuple[int, int], ...]
    """(round number, points) for every round played."""
    opposition: float
    """Strength of opposition (tie-break 2)."""
    matchpoints: int | None = None
    top: int | None = None
    percentage: float | None = None
    next_gap: Separation | None = None
    """Confidence that this row is ahead of the next ranked row."""


@dataclass(frozen=True, slots=True)
class PairRow:
    """A partnership's record (Priffe): both players' points added."""

    players: Pair
    games: int
    points: int
    average: float
    wins: int


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Two players' record, seen from ``players[0]``."""

    players: Pair
    games: int
    """Games at one table."""
    as_partners: int
    as_opponents: int
    difference: int
    """Points of ``players[0]`` minus points of ``players[1]`` over their games as opponents."""


@dataclass(frozen=True, slots=True)
class Standings:
    rows: tuple[StandingRow, ...]
    partner_pairs: tuple[PairRow, ...]
    """Every pair that played together, best average first (partnership games)."""
    head_to_head: Mapping[Pair, HeadToHead]
    """Keyed by the sorted pair; see :meth:`head_to_head_of` for either order."""

    def head_to_head_of(self, a: PlayerId, b: PlayerId) -> HeadToHead:
        key = (a, b) if a < b else (b, a)
        record = self.head_to_head.get(key, HeadToHead(key, 0, 0, 0, 0))
        if key[0] == a:
            return record
        return HeadToHead(
            (a, b), record.games, record.as_partners, record.as_opponents, -record.difference
        )

    def row(self, player: PlayerId) -> StandingRow:
        return next(r for r in self.rows if r.player == player)


# ---------------------------------------------------------------------------- accumulation


@dataclass(slots=True)
class _Sheet:
    games: int = 0
    total: int = 0
    total_sq: int = 0
    wins: int = 0
    matchpoints: int = 0
    top: int = 0


@dataclass(slots=True)
class _Head:
    games: int = 0
    as_partners: int = 0
    as_opponents: int = 0
    difference: int = 0


@dataclass(slots=True)
class _PairSheet:
    games: int = 0
    points: int = 0
    wins: int = 0


@dataclass(slots=True)
class _Entry:
    """One result in a duplicate comparison group."""

    holders: tuple[PlayerId, ...]
    value: int
    matchpoints: int = 0
    top: int = 0


_Group = tuple[str, int]
"""A duplicate comparison group: (board label, hand or side)."""


def _entrant(occupant: Occupant) -> PlayerId | None:
    if occupant is None or isinstance(occupant, Trakarl):
        return None
    return occupant


def _groups_of(
    board_label: int | str, seats: Sequence[Occupant], scores: Sequence[int], mode: Mode
) -> list[tuple[_Group, _Entry]]:
    """The duplicate comparison groups a result joins: (board, hand) or (board, side)."""
    board = str(board_label)
    if mode is Mode.PARTNERSHIP:
        if len(seats) != SEATS:
            raise ValueError(f"a partnership result has {SEATS} seats, not {len(seats)}")
        out = []
        for side in (0, 1):
            holders = tuple(
                p for p in (_entrant(seats[side]), _entrant(seats[side + 2])) if p is not None
            )
            value = scores[side] + scores[side + 2]
            out.append(((board, side), _Entry(holders, value)))
        return out
    return [
        ((board, h), _Entry(tuple(p for p in (_entrant(seats[h]),) if p is not None), x))
        for h, x in enumerate(scores)
    ]


def _compare(a: _Entry, b: _Entry) -> tuple[int, int] | None:
    """Matchpoints (a, b) of comparing two results, or None if they share a competitor."""
    if set(a.holders) & set(b.holders):
        return None
    if a.value > b.value:
        return 2, 0
    if a.value < b.value:
        return 0, 2
    return 1, 1


class StandingsAccumulator:
    """Standings state; :meth:`apply` one result at a time, :meth:`table` any time."""

    def __init__(self, rules: StandingsRules) -> None:
        self.rules = rules
        self._applied: set[int] = set()
        self._sheets: dict[PlayerId, _Sheet] = {}
        self._rounds: dict[PlayerId, dict[int, int]] = {}
        """Each player's points per round."""
        self._heads: dict[Pair, _Head] = {}
        self._pairs: dict[Pair, _PairSheet] = {}
        self._groups: dict[_Group, list[_Entry]] = {}

    def __contains__(self, match_id: int) -> bool:
        return match_id in self._applied

    def apply(self, result: ScoredMatch) -> bool:
        """Add one result; False (and nothing changes) if its ``match_id`` was applied.
        ValueError for a partnership result that is not of four seats."""
        return self.add(
            result.match_id, result.round_number, result.seats, result.scores, result.board
        )

    def add(
        self,
        match_id: int,
        round_number: int,
        seats: Sequence[Occupant],
        scores: Sequence[int],
        board: int | str | None,
    ) -> bool:
        """:meth:`apply` of a result given by its fields, for a caller that made them valid
        (as :class:`ScoredMatch` checks them: 3 to 5 seats, a score each, a board label
        without ``:``); a recomputation adds thousands without building the records."""
        applied = self._applied
        if match_id in applied:
            return False
        partnership = self.rules.mode is Mode.PARTNERSHIP
        if partnership and len(seats) != SEATS:
            raise ValueError(f"a partnership result has {SEATS} seats, not {len(seats)}")
        applied.add(match_id)
        ids = [o if isinstance(o, int) else None for o in seats]
        if partnership:
            side_0, side_1 = scores[0] + scores[2], scores[1] + scores[3]
            side_won = (side_0 > side_1, side_1 > side_0)
            winner = -1
        else:
            side_won = (False, False)
            best = max(scores)
            winner = scores.index(best) if scores.count(best) == 1 else -1
        sheets = self._sheets
        rounds = self._rounds
        for s, p in enumerate(ids):
            if p is None:
                continue
            sheet = sheets.get(p)
            if sheet is None:
                sheet = sheets[p] = _Sheet()
            x = scores[s]
            sheet.games += 1
            sheet.total += x
            sheet.total_sq += x * x
            if s == winner or side_won[s & 1]:
                sheet.wins += 1
            per_round = rounds.get(p)
            if per_round is None:
                per_round = rounds[p] = {}
            per_round[round_number] = per_round.get(round_number, 0) + x
        heads = self._heads
        for a, b in _SEAT_PAIRS[len(ids)]:
            pa, pb = ids[a], ids[b]
            if pa is None or pb is None:
                continue
            if pb < pa:
                a, b, pa, pb = b, a, pb, pa
            key = (pa, pb)
            head = heads.get(key)
            if head is None:
                head = heads[key] = _Head()
            head.games += 1
            if partnership and not (b - a) & 1:  # partners sit opposite
                head.as_partners += 1
                pair_sheet = self._pairs.get(key)
                if pair_sheet is None:
                    pair_sheet = self._pairs[key] = _PairSheet()
                pair_sheet.games += 1
                pair_sheet.points += scores[a] + scores[b]
                if side_won[a & 1]:
                    pair_sheet.wins += 1
            else:
                head.as_opponents += 1
                head.difference += scores[a] - scores[b]
        if board is not None:
            for key_group, entry in _groups_of(board, seats, scores, self.rules.mode):
                group = self._groups.setdefault(key_group, [])
                for other in group:
                    points = _compare(entry, other)
                    if points is None:
                        continue
                    entry.matchpoints += points[0]
                    entry.top += 2
                    other.matchpoints += points[1]
                    other.top += 2
                    for p in other.holders:
                        self._sheets[p].matchpoints += points[1]
                        self._sheets[p].top += 2
                group.append(entry)
                for p in entry.holders:
                    self._sheets[p].matchpoints += entry.matchpoints
                    self._sheets[p].top += entry.top
        return True

    def apply_all(self, results: Iterable[ScoredMatch]) -> StandingsAccumulator:
        for result in results:
            self.apply(result)
        return self

    # ------------------------------------------------------------------------ persistence
    # The state is a set of small *parts*, keyed by strings, so that a service can store
    # them as rows and apply a result to the few parts it touches (:meth:`part_keys`):
    #   "s:P"     player P's sheet: games, total, total of squares, wins, matchpoints, top
    #   "r:P:B"   player P's points in the rounds r with r // ROUND_BLOCK == B: [[r, points]]
    #   "h:A:B"   the head-to-head of players A < B (also who met whom, for the opposition)
    #   "p:A:B"   the partnership A < B (partnership games)
    #   "g:B:H"   duplicate board B, hand or side H: every result compared there
    # Every part is bounded by the number of players (a board's group by its tables), so an
    # update reads and writes the same few short lists in a league's first round and its
    # thousandth. The ids applied are not part of the state: whoever stores it applies each
    # result once (league.services.standings does it in the result's own transaction).

    def to_parts(self) -> dict[str, Any]:
        """Every part of the state, as JSON-able lists (canonically ordered)."""
        parts: dict[str, Any] = {}
        for p, sheet in self._sheets.items():
            parts[f"s:{p}"] = [
                sheet.games,
                sheet.total,
                sheet.total_sq,
                sheet.wins,
                sheet.matchpoints,
                sheet.top,
            ]
        for p, per_round in self._rounds.items():
            blocks: dict[int, list[list[int]]] = {}
            for r in sorted(per_round):
                blocks.setdefault(r // ROUND_BLOCK, []).append([r, per_round[r]])
            for block, rows in blocks.items():
                parts[f"r:{p}:{block}"] = rows
        for (a, b), head in self._heads.items():
            parts[f"h:{a}:{b}"] = [head.games, head.as_partners, head.as_opponents, head.difference]
        for (a, b), pair in self._pairs.items():
            parts[f"p:{a}:{b}"] = [pair.games, pair.points, pair.wins]
        for (board, part), group in self._groups.items():
            parts[f"g:{board}:{part}"] = sorted(
                [list(e.holders), e.value, e.matchpoints, e.top] for e in group
            )  # in any order of the results, the same part
        return parts

    @classmethod
    def from_parts(cls, rules: StandingsRules, parts: Mapping[str, Any]) -> StandingsAccumulator:
        """An accumulator holding ``parts`` (all of a state, or the ones a result touches;
        no ids applied)."""
        accumulator = cls(rules)
        sheets = accumulator._sheets
        rounds = accumulator._rounds
        heads = accumulator._heads
        for key, value in parts.items():
            kind, *ids = key.split(":")
            if kind == "h":
                heads[(PlayerId(int(ids[0])), PlayerId(int(ids[1])))] = _Head(*value)
            elif kind == "s":
                sheets[PlayerId(int(ids[0]))] = _Sheet(*value)
            elif kind == "r":
                player = PlayerId(int(ids[0]))
                per_round = rounds.get(player)
                if per_round is None:
                    per_round = rounds[player] = {}
                for r, x in value:
                    per_round[r] = x
            elif kind == "p":
                pair = (PlayerId(int(ids[0])), PlayerId(int(ids[1])))
                accumulator._pairs[pair] = _PairSheet(*value)
            elif kind == "g":
                accumulator._groups[(ids[0], int(ids[1]))] = [
                    _Entry(tuple(PlayerId(h) for h in holders), v, mp, top)
                    for holders, v, mp, top in value
                ]
            else:
                raise ValueError(f"unknown standings part {key!r}")
        return accumulator

    @staticmethod
    def part_keys(result: ScoredMatch, mode: Mode) -> set[str]:
        """The parts :meth:`apply` reads or writes for ``result``, except the sheets of
        players compared with it on a duplicate board (:meth:`holder_keys` of its groups)."""
        seats = result.seats
        ids = [o for o in seats if isinstance(o, int)]
        block = result.round_number // ROUND_BLOCK
        keys = {f"s:{p}" for p in ids}
        keys.update(f"r:{p}:{block}" for p in ids)
        for a, b in _SEAT_PAIRS[len(seats)]:
            pa, pb = seats[a], seats[b]
            if isinstance(pa, int) and isinstance(pb, int):
                low, high = min(pa, pb), max(pa, pb)
                keys.add(f"h:{low}:{high}")
                if mode is Mode.PARTNERSHIP and (b - a) % 2 == 0:
                    keys.add(f"p:{low}:{high}")
        if result.board is not None:
            parts = (0, 1) if mode is Mode.PARTNERSHIP else range(len(seats))
            keys.update(f"g:{result.board}:{part}" for part in parts)
        return keys

    @staticmethod
    def holder_keys(parts: Mapping[str, Any]) -> set[str]:
        """The sheets of everyone who holds a result in the duplicate groups of ``parts``."""
        return {
            f"s:{h}"
            for key, value in parts.items()
            if key.startswith("g:")
            for holders, *_ in value
            for h in holders
        }

    # ------------------------------------------------------------------------ the table
    def _key(self, sheet: _Sheet) -> Fraction:
        if self.rules.rank_by is RankBy.TOTAL:
            return Fraction(sheet.total)
        if self.rules.rank_by is RankBy.PERCENTAGE:
            return Fraction(sheet.matchpoints, sheet.top) if sheet.top else Fraction(1, 2)
        return Fraction(sheet.total, sheet.games)

    def _samples(self) -> dict[PlayerId, tuple[int, float, float]]:
        """(n, mean, sample variance) of each player's per-game values."""
        out: dict[PlayerId, tuple[int, float, float]] = {}
        if self.rules.rank_by is RankBy.PERCENTAGE:
            values: dict[PlayerId, list[float]] = {}
            for group in self._groups.values():
                for entry in group:
                    if entry.top:
                        for p in entry.holders:
                            values.setdefault(p, []).append(100.0 * entry.matchpoints / entry.top)
            for p, xs in values.items():
                n = len(xs)
                mean = math.fsum(xs) / n
                var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
                out[p] = (n, mean, var)
            return out
        for p, sheet in self._sheets.items():
            n = sheet.games
            mean = sheet.total / n
            exact = (sheet.total_sq - Fraction(sheet.total**2, n)) / (n - 1) if n > 1 else 0
            out[p] = (n, mean, float(exact))
        return out

    def _opponents(self) -> dict[PlayerId, list[tuple[PlayerId, int]]]:
        """Whom each player met as an opponent, how many times (from the head-to-head
        records: in an individual game every tablemate is an opponent)."""
        met: dict[PlayerId, list[tuple[PlayerId, int]]] = {}
        for (a, b), head in self._heads.items():
            if head.as_opponents:
                met.setdefault(a, []).append((b, head.as_opponents))
                met.setdefault(b, []).append((a, head.as_opponents))
        return met

    def table(self) -> Standings:
        rules = self.rules
        keys = {p: self._key(s) for p, s in self._sheets.items()}
        float_keys = {p: float(k) for p, k in keys.items()}
        met = self._opponents()
        shown: dict[PlayerId, float] = {}  # for display: fsum is exact whatever the order
        for p in self._sheets:
            opponents = met.get(p, ())
            games = sum(c for _, c in opponents)
            shown[p] = math.fsum(float_keys[q] * c for q, c in opponents) / games if games else 0.0

        def opposition(p: PlayerId) -> Fraction:
            """Exact, for breaking ties (computed for tied players only)."""
            opponents = met.get(p, ())
            games = sum(c for _, c in opponents)
            if not games:
                return Fraction(0)
            return sum((keys[q] * c for q, c in opponents), Fraction(0)) / games

        def head_to_head_score(p: PlayerId, group: Sequence[PlayerId]) -> int:
            total = 0
            for q in group:
                if q == p:
                    continue
                head = self._heads.get((p, q) if p < q else (q, p))
                if head is not None:
                    total += head.difference if p < q else -head.difference
            return total

        ranked = [p for p, s in self._sheets.items() if s.games >= rules.min_games]
        unranked = [p for p, s in self._sheets.items() if s.games < rules.min_games]

        def order(players: list[PlayerId]) -> list[tuple[PlayerId, _Tie]]:
            by_key: dict[Fraction, list[PlayerId]] = {}
            for p in players:
                by_key.setdefault(keys[p], []).append(p)
            result: list[tuple[PlayerId, _Tie]] = []
            for key in sorted(by_key, reverse=True):
                group = by_key[key]
                tie = {
                    p: (
                        key,
                        head_to_head_score(p, group),
                        opposition(p) if len(group) > 1 else Fraction(0),
                        self._sheets[p].wins,
                    )
                    for p in group
                }
                result.extend(
                    (p, tie[p]) for p in sorted(group, key=lambda q: (*(-v for v in tie[q]), q))
                )
            return result

        samples = self._samples()
        ordered = order(ranked)
        rows: list[StandingRow] = []
        rank = 0
        previous: _Tie | None = None
        for position, (p, tie) in enumerate(ordered, start=1):
            if tie != previous:
                rank = position
            previous = tie
            gap = None
            if position < len(ordered):
                gap = welch(samples.get(p), samples.get(ordered[position][0]), rules.confidence)
            rows.append(self._row(p, rank, shown[p], gap))
        rows.extend(self._row(p, None, shown[p], None) for p, _ in order(unranked))
        pairs = tuple(
            sorted(
                (
                    PairRow(key, s.games, s.points, s.points / s.games, s.wins)
                    for key, s in self._pairs.items()
                ),
                key=lambda r: (-Fraction(r.points, r.games), r.players),
            )
        )
        heads = {
            key: HeadToHead(key, h.games, h.as_partners, h.as_opponents, h.difference)
            for key, h in sorted(self._heads.items())
        }
        return Standings(tuple(rows), pairs, heads)

    def _row(
        self, p: PlayerId, rank: int | None, opposition: float, gap: Separation | None
    ) -> StandingRow:
        s = self._sheets[p]
        duplicate = bool(self._groups)
        return StandingRow(
            rank=rank,
            player=p,
            games=s.games,
            total=s.total,
            average=s.total / s.games,
            wins=s.wins,
            per_round=tuple(sorted(self._rounds.get(p, {}).items())),
            opposition=opposition,
            matchpoints=s.matchpoints if duplicate else None,
            top=s.top if duplicate else None,
            percentage=(100.0 * s.matchpoints / s.top if s.top else 50.0) if duplicate else None,
            next_gap=gap,
        )


def compute_standings(results: Iterable[ScoredMatch], rules: StandingsRules) -> Standings:
    """The full recomputation: a fresh accumulator over every result."""
    return StandingsAccumulator(rules).apply_all(results).table()


# ---------------------------------------------------------------------------- duplicate


@dataclass(frozen=True, slots=True)
class DuplicateScore:
    player: PlayerId
    results: int
    """Results (hands or sides of boards) that were compared."""
    matchpoints: float
    top: float
    percentage: float


def duplicate_scores(
    results: Iterable[ScoredMatch], *, mode: Mode, neuberg: bool = False
) -> tuple[DuplicateScore, ...]:
    """Matchpoints and percentage per competitor over duplicate results, best first.

    With ``neuberg`` a result compared with ``n - 1`` others, where the fullest comparison of the
    event had ``N`` results (the number every board should have had), is scaled to
    ``(mp + 1)·N/n - 1`` out of ``2(N - 1)`` (the Neuberg formula; a result with nobody to
    compare with then counts 50 %).
    """
    groups: dict[_Group, list[_Entry]] = {}
    for result in results:
        if result.board is None:
            raise ValueError(f"match {result.match_id} is not a duplicate board")
        for key, entry in _groups_of(result.board, result.seats, result.scores, mode):
            groups.setdefault(key, []).append(entry)
    for group in groups.values():
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                points = _compare(a, b)
                if points is not None:
                    a.matchpoints += points[0]
                    b.matchpoints += points[1]
                    a.top += 2
                    b.top += 2
    fullest = max((e.top // 2 + 1 for group in groups.values() for e in group), default=1)
    totals: dict[PlayerId, list[float]] = {}
    for group in groups.values():
        for entry in group:
            mp, top = float(entry.matchpoints), float(entry.top)
            if neuberg:
                n = entry.top // 2 + 1
                mp, top = (mp + 1) * fullest / n - 1, 2.0 * (fullest - 1)
            if top == 0:
                continue
            for p in entry.holders:
                t = totals.setdefault(p, [0, 0.0, 0.0])
                t[0] += 1
                t[1] += mp
                t[2] += top
    scores = [
        DuplicateScore(p, int(t[0]), t[1], t[2], 100.0 * t[1] / t[2]) for p, t in totals.items()
    ]
    return tuple(sorted(scores, key=lambda s: (-s.percentage, s.player)))


# ---------------------------------------------------------------------------- statistics


@cache
def _student_t() -> tuple[Any, Any]:
    """scipy's Student's t distribution function and its inverse, imported on a process's
    first test: scipy.special costs 0.4 s of CPU to import, which every web process, worker
    and command importing the league's services paid when it started."""
    from scipy.special import stdtr, stdtrit

    return stdtr, stdtrit


def welch(
    upper: tuple[int, float, float] | None,
    lower: tuple[int, float, float] | None,
    confidence: float = 0.95,
) -> Separation | None:
    """Welch's t-test for (n, mean, variance) samples: upper mean minus lower mean.

    Student's t is scipy's (``scipy.special.stdtr`` and ``stdtrit``, the distribution
    function and its inverse that ``scipy.stats.t`` evaluates): the same numbers as
    ``scipy.stats.ttest_ind_from_stats(..., equal_var=False)`` and ``scipy.stats.t.ppf``
    (to 7e-15) without their per-call checks: through them a test took 70-95 us, here
    3.6-3.8 us, and the hand-written t it replaced 23-29 us (``python -m bench.numerics`` on
    a loaded machine; a table makes one test per adjacent pair of rows)."""
    if upper is None or lower is None:
        return None
    n1, m1, v1 = upper
    n2, m2, v2 = lower
    diff = m1 - m2
    if n1 < 2 or n2 < 2:
        return Separation(diff, None, None, None, False)
    a, b = v1 / n1, v2 / n2
    se2 = a + b
    if se2 <= 0:
        return Separation(diff, None, None, None, False)
    se = math.sqrt(se2)
    df = se2 * se2 / (a * a / (n1 - 1) + b * b / (n2 - 1))  # Welch-Satterthwaite
    t = diff / se
    stdtr, stdtrit = _student_t()
    p = 2.0 * float(stdtr(df, -abs(t)))
    half = float(stdtrit(df, 0.5 + confidence / 2)) * se
    low, high = diff - half, diff + half
    return Separation(diff, low, high, p, low > 0 or high < 0)
