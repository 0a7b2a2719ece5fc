"""Ratings: a margin-aware least-squares rating and openskill (Plackett-Luce) ratings.

Why this module is long: the two rating models share their records, accumulators and
history, and each model's mathematics is explained beside its code.

Pure and deterministic: the same results in the same order give the same numbers, so ratings
can always be recomputed from the stored results. Both models take the same
:class:`~league.domain.standings_maths.ScoredMatch` records as the standings.

**Margin rating** (:func:`margin_ratings`, docs/scheduling.md §5). Each player has a strength
``s``; the expected margin of a Priffe game is ``s_a + s_c - s_b - s_d`` (partners add, opponents
subtract), with the margin taken as the mean seat score of one side minus the other's. In
individual games (tables of three to five, every tablemate an opponent) each seat's score minus the
table mean is expected to be ``s_i`` minus the table mean of ``s``. The strengths minimise the
squared errors plus ``ridge · Σ s²`` (``s = (XᵀX + λI)⁻¹ Xᵀm``, by LAPACK's Cholesky through
``scipy.linalg``): the ridge term pulls players with few games towards the average (0) and makes
the fit well defined on any schedule. It corrects for
the strength of partners and opponents, which raw totals only do on a complete whist design.
Standard errors are ``sd · sqrt(diag((XᵀX + λI)⁻¹))`` with ``sd²`` the residual variance (the
Bayesian posterior reading of the ridge). A sensible ``ridge`` is (noise variance) / (skill
variance) in the game's points, e.g. 1-5 when a game's luck is several times the skill differences.
The träkarl and the built-in bots get a strength of their own (one each), so their systematic
advantage or disadvantage is estimated and removed.

**openskill** (:func:`skill_ratings`): Weng-Lin Plackett-Luce as implemented by ``openskill``.
Individual games rate one one-player team per seat (three to five) ranked by score (ties share a
rank); Priffe rates two teams of two by their side totals. Players start from a
:class:`RatingPrior` (default ``mu = 25``, ``sigma = 25/3``); a new bot version starts from
:func:`new_version_prior`, its parent's ``mu`` with a wide ``sigma``. Display the conservative
rating ``mu - 3·sigma``. Fillers (the träkarl, built-in bots) take part at a fixed default rating
and are never updated.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from openskill.models import PlackettLuce

from league.domain.scheduling.model import SEATS, TRAKARL, Mode, Occupant, PlayerId, Trakarl
from league.domain.standings_maths import MAX_SEATS, MIN_SEATS, ScoredMatch

DEFAULT_MU: Final = 25.0
DEFAULT_SIGMA: Final = 25.0 / 3.0
NEW_VERSION_SIGMA: Final = DEFAULT_SIGMA
"""The sigma a new bot version starts with (at least; never below its parent's)."""
CONSERVATIVE_Z: Final = 3.0


# ---------------------------------------------------------------------------- margin rating


@dataclass(frozen=True, slots=True)
class MarginRating:
    value: float
    """Strength in game points per game (0 = average)."""
    standard_error: float
    games: int

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        return (self.value - z * self.standard_error, self.value + z * self.standard_error)


@dataclass(frozen=True, slots=True)
class MarginRatings:
    ratings: Mapping[Occupant, MarginRating]
    """Entrants, and ``TRAKARL`` / ``None`` (built-in bots) when they played."""
    residual_sd: float
    ridge: float
    games: int

    def ranked(self) -> list[tuple[PlayerId, MarginRating]]:
        """Entrants, strongest first (player id breaks ties)."""
        entrants = [
            (k, r) for k, r in self.ratings.items() if k is not None and not isinstance(k, Trakarl)
        ]
        return sorted(entrants, key=lambda kr: (-kr[1].value, kr[0]))


def _column_order(key: Occupant) -> tuple[int, int]:
    if key is None:
        return (2, 0)
    if isinstance(key, Trakarl):
        return (1, 0)
    return (0, key)


def _occupant_key(occupant: Occupant) -> int | str:
    if occupant is None:
        return "bot"
    if isinstance(occupant, Trakarl):
        return "trakarl"
    return int(occupant)


def _occupant_of(key: int | str) -> Occupant:
    if key == "bot":
        return None
    if key == "trakarl":
        return TRAKARL
    return PlayerId(int(key))


def _key_order(key: int | str) -> tuple[int, int]:
    return (0, key) if isinstance(key, int) else (1 if key == "trakarl" else 2, 0)


_PAIR_SHIFT: Final = 32
"""Pair keys of the Gram matrix: ``i << 32 | j`` for occupant indices ``i <= j``."""
_SOLO_SCALE: Final = 60
"""Individual rows are kept scaled by 60 (a multiple of every table size, 3 to 5 seats)."""
_SOLO_TERMS: Final = {
    n: (_SOLO_SCALE * _SOLO_SCALE * (n - 1) // n, -(_SOLO_SCALE * _SOLO_SCALE) // n)
    for n in range(MIN_SEATS, MAX_SEATS + 1)
}
"""Table size -> (a seat's own Gram term, the term of two seats of one table)."""


class MarginRatingAccumulator:
    """Sufficient statistics of the least-squares fit, updated one result at a time.

    Everything is kept in integers (scaled rows), so the order of the results does not matter
    and an incremental fit equals a full recomputation exactly. Partnership results have four
    seats; individual results three to five (every tablemate an opponent).

    The Gram matrix ``XᵀX`` is kept by occupant index: a result adds its seats' own terms to
    the diagonal and one term per pair of seats (symmetric: kept once per unordered pair of
    occupants). Built into rows by occupant for :meth:`to_parts` and :meth:`solve`.
    """

    def __init__(self, mode: Mode, *, ridge: float = 1.0) -> None:
        if ridge <= 0:
            raise ValueError("ridge must be positive")
        self.mode = mode
        self.ridge = ridge
        # rows are kept as integers: partnership x = ±1 and y = 2·margin; individual games
        # at a table of n: x = 60·(self - table mean coefficients), e.g. (45, -15, -15, -15),
        # and y = 60·(score - table mean)
        self._x_scale = 1 if mode is Mode.PARTNERSHIP else _SOLO_SCALE
        self._y_scale = 2 if mode is Mode.PARTNERSHIP else _SOLO_SCALE
        self._known: dict[Occupant, int] = {}
        """Every occupant seen (played, or named in a loaded row) -> its index."""
        self._occupants: list[Occupant] = []
        """index -> occupant."""
        self._index: dict[Occupant, int] = {}
        """The occupants who played (who have a part), in the order first seen."""
        self._rhs: list[int] = []
        self._games: list[int] = []
        self._diagonal: list[int] = []
        """``XᵀX[i][i]`` less the pairs of seats both held by ``i`` (a filler twice)."""
        self._pairs: dict[int, int] = {}
        """``i << 32 | j`` (``i <= j``) -> the sum of the terms of two seats held by ``i``
        and ``j``: ``XᵀX[i][j]`` (``i < j``), or half the rest of ``XᵀX[i][i]``."""
        self._target_sq = 0
        self._observations = 0
        self._matches = 0
        self._applied: set[int] = set()

    def _known_index(self, occupant: Occupant) -> int:
        i = self._known.get(occupant)
        if i is None:
            i = self._known[occupant] = len(self._occupants)
            self._occupants.append(occupant)
            self._rhs.append(0)
            self._games.append(0)
            self._diagonal.append(0)
        return i

    def _played(self, occupant: Occupant) -> int:
        i = self._index[occupant] = self._known_index(occupant)
        return i

    def apply(self, result: ScoredMatch) -> bool:
        return self.add(result.match_id, result.seats, result.scores)

    def add(self, match_id: int, seats: Sequence[Occupant], scores: Sequence[int]) -> bool:
        """:meth:`apply` of a result given by its fields (a valid result's: a score per
        seat); a recomputation adds thousands without building the records."""
        n = len(seats)
        partnership = self.mode is Mode.PARTNERSHIP
        if n != SEATS if partnership else n not in _SOLO_TERMS:
            raise ValueError(
                f"the margin rating takes {'tables of four' if partnership else 'three to five'}"
                f" seats, not {n} (result {match_id})"
            )
        applied = self._applied
        if match_id in applied:
            return False
        applied.add(match_id)
        index = self._index
        pairs = self._pairs
        get = pairs.get
        rhs = self._rhs
        games = self._games
        if partnership:
            a, b, c, d = seats
            ia = index.get(a)
            if ia is None:
                ia = self._played(a)
            ib = index.get(b)
            if ib is None:
                ib = self._played(b)
            ic = index.get(c)
            if ic is None:
                ic = self._played(c)
            id_ = index.get(d)
            if id_ is None:
                id_ = self._played(d)
            target = scores[0] + scores[2] - scores[1] - scores[3]  # 2 x margin
            self._target_sq += target * target
            self._observations += 1
            rhs[ia] += target
            rhs[ib] -= target
            rhs[ic] += target
            rhs[id_] -= target
            games[ia] += 1
            games[ib] += 1
            games[ic] += 1
            games[id_] += 1
            # x = (1, -1, 1, -1): partners +1, opponents -1; a seat's own term (1) is
            # counted by ``games``
            k = ia << 32 | ic if ia <= ic else ic << 32 | ia
            pairs[k] = get(k, 0) + 1
            k = ib << 32 | id_ if ib <= id_ else id_ << 32 | ib
            pairs[k] = get(k, 0) + 1
            k = ia << 32 | ib if ia <= ib else ib << 32 | ia
            pairs[k] = get(k, 0) - 1
            k = ia << 32 | id_ if ia <= id_ else id_ << 32 | ia
            pairs[k] = get(k, 0) - 1
            k = ic << 32 | ib if ic <= ib else ib << 32 | ic
            pairs[k] = get(k, 0) - 1
            k = ic << 32 | id_ if ic <= id_ else id_ << 32 | ic
            pairs[k] = get(k, 0) - 1
        else:
            own, pair = _SOLO_TERMS[n]
            total = sum(scores)
            q = _SOLO_SCALE // n
            targets = [q * (n * x - total) for x in scores]  # 60 x (score - table mean)
            self._target_sq += sum(t * t for t in targets)
            self._observations += n - 1
            diagonal = self._diagonal
            ids = []
            for occupant, t in zip(seats, targets, strict=True):
                i = index.get(occupant)
                if i is None:
                    i = self._played(occupant)
                ids.append(i)
                rhs[i] += _SOLO_SCALE * t  # Σ_rows x·y = 60·t (the targets sum to zero)
                games[i] += 1
                diagonal[i] += own
            for s in range(n - 1):
                i = ids[s]
                for j in ids[s + 1 :]:
                    k = i << 32 | j if i <= j else j << 32 | i
                    pairs[k] = get(k, 0) + pair
        self._matches += 1
        return True

    def apply_all(self, results: Iterable[ScoredMatch]) -> MarginRatingAccumulator:
        for result in results:
            self.apply(result)
        return self

    def _rows(self) -> dict[int, dict[int, int]]:
        """``XᵀX`` by rows: occupant index -> {occupant index: entry}, the rows of the
        occupants who played, each with its diagonal entry first."""
        own = self._games if self.mode is Mode.PARTNERSHIP else None
        diagonal = self._diagonal
        rows: dict[int, dict[int, int]] = {
            i: {i: diagonal[i] + own[i] if own is not None else diagonal[i]}
            for i in self._index.values()
        }
        mask = (1 << _PAIR_SHIFT) - 1
        for key, value in self._pairs.items():
            i, j = key >> _PAIR_SHIFT, key & mask
            if i == j:
                row = rows.get(i)
                if row is not None:
                    row[i] += 2 * value
                continue
            row = rows.get(i)
            if row is not None:
                row[j] = value
            row = rows.get(j)
            if row is not None:
                row[i] = value
        return rows

    # The state as parts, keyed by strings (as league.domain.standings_maths' accumulator),
    # so that a service can store them as rows and apply a result to the parts it touches (the parts
    # of every occupant of the result must be loaded: :meth:`part_keys`):
    #   "m"      [sum of squared targets, observations, matches]
    #   "m:K"    occupant K's row: [[[L, XᵀX entry], ...], Xᵀy entry, games]
    # Occupants are written as the player id, "bot" (a built-in filler) or "trakarl".

    def to_parts(self) -> dict[str, Any]:
        rows = self._rows()
        keys = [_occupant_key(o) for o in self._occupants]
        rhs, games = self._rhs, self._games
        parts: dict[str, Any] = {"m": [self._target_sq, self._observations, self._matches]}
        for i in self._index.values():
            gram = sorted(
                ([keys[j], value] for j, value in rows[i].items()),
                key=lambda row: _key_order(row[0]),
            )
            parts[f"m:{keys[i]}"] = [gram, rhs[i], games[i]]
        return parts

    @classmethod
    def from_parts(
        cls, mode: Mode, parts: Mapping[str, Any], *, ridge: float = 1.0
    ) -> MarginRatingAccumulator:
        accumulator = cls(mode, ridge=ridge)
        partnership = mode is Mode.PARTNERSHIP
        pairs = accumulator._pairs
        for key, value in parts.items():
            if key == "m":
                accumulator._target_sq, accumulator._observations, accumulator._matches = value
                continue
            kind, _, name = key.partition(":")
            if kind != "m":
                raise ValueError(f"unknown margin part {key!r}")
            occupant = _occupant_of(int(name) if name.lstrip("-").isdigit() else name)
            gram, rhs, games = value
            i = accumulator._played(occupant)
            accumulator._rhs[i] = rhs
            accumulator._games[i] = games
            for other, entry in gram:
                j = accumulator._known_index(_occupant_of(other))
                if j == i:  # kept less the seats' own terms (partnership: counted by games)
                    accumulator._diagonal[i] = entry - games if partnership else entry
                else:
                    pairs[i << _PAIR_SHIFT | j if i <= j else j << _PAIR_SHIFT | i] = entry
        return accumulator

    @staticmethod
    def part_keys(result: ScoredMatch) -> set[str]:
        """The parts :meth:`apply` reads or writes for ``result``."""
        return {"m"} | {f"m:{_occupant_key(o)}" for o in result.seats}

    def solve(self) -> MarginRatings:
        played = sorted(self._index.items(), key=lambda oi: _column_order(oi[0]))
        p = len(played)
        if p == 0:
            return MarginRatings({}, 0.0, self.ridge, 0)
        kx, ky = self._x_scale, self._y_scale
        position = {i: column for column, (_, i) in enumerate(played)}
        rows = self._rows()
        gram = [[0] * p for _ in range(p)]  # exact integers, in column order
        for column, (_, i) in enumerate(played):
            row = gram[column]
            for j, value in rows[i].items():
                row[position[j]] += value
        matrix = [[value / (kx * kx) for value in row] for row in gram]  # XᵀX
        for i in range(p):
            matrix[i][i] += self.ridge
        rhs = [self._rhs[i] / (kx * ky) for _, i in played]  # Xᵀy
        solution, inverse_diag = _ridge_solve(matrix, rhs)
        # residual sum of squares from the sufficient statistics, summed in column order
        fitted = math.fsum(
            solution[i] * solution[j] * gram[i][j] / (kx * kx)
            for i in range(p)
            for j in range(p)
            if gram[i][j]
        )
        explained = math.fsum(s * r for s, r in zip(solution, rhs, strict=True))
        rss = self._target_sq / (ky * ky) - 2 * explained + fitted
        dof = max(1, self._observations - p)
        sigma2 = max(rss, 0.0) / dof
        games = self._games
        ratings = {
            c: MarginRating(solution[k], math.sqrt(sigma2 * inverse_diag[k]), games[i])
            for k, (c, i) in enumerate(played)
        }
        return MarginRatings(ratings, math.sqrt(sigma2), self.ridge, self._matches)


@cache
def _blas() -> Any:
    """The BLAS that numpy and scipy loaded, to run the solve on one thread. numpy, scipy
    (0.5 s of CPU to import) and threadpoolctl are imported on a process's first solve, not
    by every web process, worker and command that imports the league's services."""
    import numpy  # noqa: F401 - loaded before the controller looks for its BLAS
    import scipy.linalg  # noqa: F401
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _ridge_solve(
    matrix: Sequence[Sequence[float]], rhs: Sequence[float]
) -> tuple[list[float], list[float]]:
    """``M⁻¹·rhs`` and ``diag(M⁻¹)`` of a symmetric positive definite ``M`` (LAPACK's
    Cholesky through ``scipy.linalg``), on one BLAS thread: a league's matrix has tens of
    rows, where threads only wait for each other (on a loaded machine a solve took 2-20 ms
    with two threads, 0.7 ms with one), and one thread gives the same bits every time."""
    import numpy
    from scipy.linalg import cho_factor, cho_solve

    with _blas().limit(limits=1, user_api="blas"):
        try:
            factor = cho_factor(numpy.array(matrix), lower=True)
        except numpy.linalg.LinAlgError as error:
            raise ValueError("matrix is not positive definite") from error
        solution = cho_solve(factor, numpy.array(rhs))
        inverse = cho_solve(factor, numpy.identity(len(rhs)))
    return solution.tolist(), inverse.diagonal().tolist()


def margin_ratings(
    results: Iterable[ScoredMatch], *, mode: Mode, ridge: float = 1.0
) -> MarginRatings:
    """Ridge least-squares strengths over every result (see the module docstring)."""
    return MarginRatingAccumulator(mode, ridge=ridge).apply_all(results).solve()


# ---------------------------------------------------------------------------- openskill


@dataclass(frozen=True, slots=True)
class RatingPrior:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA


@dataclass(frozen=True, slots=True)
class SkillRating:
    mu: float
    sigma: float
    games: int

    @property
    def conservative(self) -> float:
        """``mu - 3·sigma``: what the leaderboard shows."""
        return self.mu - CONSERVATIVE_Z * self.sigma


@dataclass(frozen=True, slots=True)
class RatingChange:
    """A player's rating after one match (the rating history)."""

    match_id: int
    player: PlayerId
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class SkillRatings:
    ratings: Mapping[PlayerId, SkillRating]
    history: tuple[RatingChange, ...]

    def ranked(self) -> list[tuple[PlayerId, SkillRating]]:
        """Best conservative rating first (player id breaks ties)."""
        return sorted(self.ratings.items(), key=lambda kv: (-kv[1].conservative, kv[0]))


def new_version_prior(
    parent: SkillRating | None = None, *, sigma: float = NEW_VERSION_SIGMA
) -> RatingPrior:
    """The prior of a new bot version: its parent's ``mu`` (if any) and a sigma of at least
    ``sigma`` (never narrower than the parent's), so a changed bot can move quickly."""
    if parent is None:
        return RatingPrior(DEFAULT_MU, sigma)
    return RatingPrior(parent.mu, max(sigma, parent.sigma))


def plackett_luce_update(
    teams: Sequence[Sequence[tuple[float, float]]],
    scores: Sequence[float],
    *,
    beta: float,
    tau: float,
    kappa: float,
) -> list[list[tuple[float, float]]]:
    """One Weng-Lin Plackett-Luce update (Algorithm 4), as ``openskill.PlackettLuce.rate``
    computes it with ``scores`` (higher wins, ties share a rank), no weights, no margin.

    It is openskill's computation step for step (the tests compare the two to 1e-12 on thousands
    of random games, ties included); written out because ``rate()`` deep-copies its arguments
    and mints a uuid per rating, which costs more than the update itself. Measured
    (``python -m bench.numerics``, three runs on a loaded two-core machine): an update of
    the league's shapes takes 9-32 us here against 39-139 us through ``rate()`` (a seventh
    to a third of the time), and the ratings with history of 10,000 matches 0.1-0.45 s
    against 0.6-1.2 s: through ``rate()`` the recomputation of standings and ratings
    (``bench.league``, 0.5-0.8 s on a quiet machine, target < 1 s) would miss its target.
    Ratings are ``(mu, sigma)`` pairs.

    The two shapes the league rates, without a tie, are written out once more (one-player
    teams, and two teams): there every rank is a place and every count is 1, so the same
    floating-point operations run in the same order with fewer of Python's own steps, and
    give the same bits as :func:`_plackett_luce_general` (the tests check it on random
    games).
    """
    k = len(teams)
    if len(set(scores)) == k:
        if k == 2:
            if scores[0] > scores[1]:
                return _two_teams_ranked(teams[0], teams[1], beta, tau, kappa)
            loser, winner = _two_teams_ranked(teams[1], teams[0], beta, tau, kappa)
            return [winner, loser]
        if all(len(team) == 1 for team in teams):
            order = sorted(range(k), key=lambda i: -scores[i])
            placed = _singles_ranked([teams[i][0] for i in order], beta, tau, kappa)
            singles: list[list[tuple[float, float]]] = [[] for _ in teams]
            for place, i in enumerate(order):
                singles[i] = [placed[place]]
            return singles
    return _plackett_luce_general(teams, scores, beta=beta, tau=tau, kappa=kappa)


def _plackett_luce_general(
    teams: Sequence[Sequence[tuple[float, float]]],
    scores: Sequence[float],
    *,
    beta: float,
    tau: float,
    kappa: float,
) -> list[list[tuple[float, float]]]:
    """:func:`plackett_luce_update` in general (any teams, ties): openskill's steps."""
    tau2 = tau * tau
    widened = [[(mu, math.sqrt(sigma * sigma + tau2)) for mu, sigma in team] for team in teams]
    # ranks from scores: the index of the first equal score in the sorted order
    negated = [-x for x in scores]
    first: dict[float, int] = {}
    for i, value in enumerate(sorted(negated)):
        first.setdefault(value, i)
    ranks = [first[v] for v in negated]
    order = sorted(range(len(teams)), key=ranks.__getitem__)  # stable, as openskill sorts
    ranked = [ranks[i] for i in order]
    team_mu = []
    team_sigma2 = []
    for i in order:
        mu_sum = 0.0
        sigma2_sum = 0.0
        for mu, sigma in widened[i]:
            mu_sum += mu
            sigma2_sum += sigma * sigma
        team_mu.append(mu_sum)
        team_sigma2.append(sigma2_sum)
    beta2 = beta * beta
    collective = 0.0
    for sigma2 in team_sigma2:
        collective += sigma2 + beta2
    c = math.sqrt(collective)
    k = len(order)
    exps = [math.exp(mu / c) for mu in team_mu]
    sum_q = [0.0] * k
    for i in range(k):
        for q in range(k):
            if ranked[i] >= ranked[q]:
                sum_q[q] += exps[i]
    counts = [sum(1 for r in ranked if r == ranked[q]) for q in range(k)]
    updated: list[list[tuple[float, float]]] = [[] for _ in teams]
    for i in range(k):
        omega = 0.0
        delta = 0.0
        for q in range(k):
            if ranked[q] <= ranked[i]:
                ratio = exps[i] / sum_q[q]
                delta += ratio * (1 - ratio) / counts[q]
                if q == i:
                    omega += (1 - ratio) / counts[q]
                else:
                    omega -= ratio / counts[q]
        sigma2_team = team_sigma2[i]
        omega *= sigma2_team / c
        delta *= sigma2_team / c**2
        delta *= math.sqrt(sigma2_team) / c
        members = []
        for mu, sigma in widened[order[i]]:
            share = sigma**2 / sigma2_team
            members.append((mu + share * omega, sigma * math.sqrt(max(1 - share * delta, kappa))))
        updated[order[i]] = members
    return updated


def _singles_ranked(
    ratings: Sequence[tuple[float, float]], beta: float, tau: float, kappa: float
) -> list[tuple[float, float]]:
    """:func:`plackett_luce_update` of one-player teams given best first, without ties:
    the same operations in the same order (a team's sums of one member are that member's
    values: ``0.0 + x`` is ``x``, or 0.0 for -0.0, which changes no result)."""
    sqrt = math.sqrt
    tau2 = tau * tau
    beta2 = beta * beta
    widened = [sqrt(sigma * sigma + tau2) for _, sigma in ratings]
    variances = [w * w for w in widened]
    collective = 0.0
    for v in variances:
        collective += v + beta2
    c = sqrt(collective)
    c2 = c**2
    exps = [math.exp(mu / c) for mu, _ in ratings]
    k = len(ratings)
    sums = []
    for q in range(k):
        total = 0.0
        for i in range(q, k):
            total += exps[i]
        sums.append(total)
    out = []
    for i in range(k):
        exp_i = exps[i]
        omega = 0.0
        delta = 0.0
        for q in range(i):
            ratio = exp_i / sums[q]
            delta += ratio * (1 - ratio)
            omega -= ratio
        ratio = exp_i / sums[i]
        delta += ratio * (1 - ratio)
        omega += 1 - ratio
        v = variances[i]
        omega *= v / c
        delta *= v / c2
        delta *= sqrt(v) / c
        w = widened[i]
        share = w**2 / v
        out.append((ratings[i][0] + share * omega, w * sqrt(max(1 - share * delta, kappa))))
    return out


def _two_teams_ranked(
    winner: Sequence[tuple[float, float]],
    loser: Sequence[tuple[float, float]],
    beta: float,
    tau: float,
    kappa: float,
) -> list[list[tuple[float, float]]]:
    """:func:`plackett_luce_update` of two teams, the winner first (no tie): the same
    operations in the same order."""
    sqrt = math.sqrt
    tau2 = tau * tau
    beta2 = beta * beta
    wide_a = [(mu, sqrt(sigma * sigma + tau2)) for mu, sigma in winner]
    wide_b = [(mu, sqrt(sigma * sigma + tau2)) for mu, sigma in loser]
    mu_a = 0.0
    var_a = 0.0
    for mu, sigma in wide_a:
        mu_a += mu
        var_a += sigma * sigma
    mu_b = 0.0
    var_b = 0.0
    for mu, sigma in wide_b:
        mu_b += mu
        var_b += sigma * sigma
    c = sqrt(0.0 + (var_a + beta2) + (var_b + beta2))
    c2 = c**2
    exp_a = math.exp(mu_a / c)
    exp_b = math.exp(mu_b / c)
    both = exp_a + exp_b
    ratio = exp_a / both  # the winner: ranked at or below the first place only
    delta_a = ratio * (1 - ratio)
    omega_a = 1 - ratio
    ratio = exp_b / both  # the loser: the first place, then its own
    delta_b = ratio * (1 - ratio)
    omega_b = -ratio
    ratio = exp_b / exp_b
    delta_b += ratio * (1 - ratio)
    omega_b += 1 - ratio
    return [
        _members_update(wide_a, var_a, omega_a, delta_a, c, c2, kappa),
        _members_update(wide_b, var_b, omega_b, delta_b, c, c2, kappa),
    ]


def _members_update(
    members: list[tuple[float, float]],
    sigma2_team: float,
    omega: float,
    delta: float,
    c: float,
    c2: float,
    kappa: float,
) -> list[tuple[float, float]]:
    omega *= sigma2_team / c
    delta *= sigma2_team / c2
    delta *= math.sqrt(sigma2_team) / c
    out = []
    for mu, sigma in members:
        share = sigma**2 / sigma2_team
        out.append((mu + share * omega, sigma * math.sqrt(max(1 - share * delta, kappa))))
    return out


class SkillAccumulator:
    """openskill ratings, updated one result at a time in the order applied."""

    def __init__(
        self,
        mode: Mode,
        *,
        priors: Mapping[PlayerId, RatingPrior] | None = None,
        beta: float | None = None,
        keep_history: bool = True,
    ) -> None:
        self.mode = mode
        self.priors = dict(priors or {})
        self.model = PlackettLuce(
            mu=DEFAULT_MU, sigma=DEFAULT_SIGMA, beta=beta if beta is not None else DEFAULT_SIGMA / 2
        )
        self._ratings: dict[PlayerId, tuple[float, float]] = {}
        self._games: dict[PlayerId, int] = {}
        self._applied: set[int] = set()
        self._history: list[RatingChange] = []
        self._keep_history = keep_history
        self._filler = (DEFAULT_MU, DEFAULT_SIGMA)

    def _rating(self, occupant: Occupant) -> tuple[float, float]:
        if occupant is None or isinstance(occupant, Trakarl):
            return self._filler
        rating = self._ratings.get(occupant)
        if rating is None:
            prior = self.priors.get(occupant, RatingPrior())
            rating = self._ratings[occupant] = (prior.mu, prior.sigma)
            self._games[occupant] = 0
        return rating

    def apply(self, result: ScoredMatch) -> bool:
        seats, scores = result.seats, result.scores
        partnership = self.mode is Mode.PARTNERSHIP
        if partnership and len(seats) != SEATS:
            raise ValueError(
                f"partnership ratings take tables of four seats, not {len(seats)}"
                f" (result {result.match_id})"
            )
        if result.match_id in self._applied:
            return False
        self._applied.add(result.match_id)
        order: tuple[tuple[int, ...], ...]
        if partnership:
            order = ((0, 2), (1, 3))
            teams = [[self._rating(seats[i]) for i in side] for side in order]
            team_scores = [float(scores[0] + scores[2]), float(scores[1] + scores[3])]
        else:  # one team per seat, 3 to 5 of them (as league.services.ratings rates them)
            order = tuple((i,) for i in range(len(seats)))
            teams = [[self._rating(occupant)] for occupant in seats]
            team_scores = [float(x) for x in scores]
        new = plackett_luce_update(
            teams,
            team_scores,
            beta=self.model.beta,
            tau=self.model.tau,
            kappa=self.model.kappa,
        )
        for side, members in zip(order, new, strict=True):
            for seat, rating in zip(side, members, strict=True):
                occupant = seats[seat]
                if occupant is None or isinstance(occupant, Trakarl):
                    continue
                self._ratings[occupant] = rating
                self._games[occupant] += 1
                if self._keep_history:
                    self._history.append(
                        RatingChange(result.match_id, occupant, rating[0], rating[1])
                    )
        return True

    def apply_all(self, results: Iterable[ScoredMatch]) -> SkillAccumulator:
        for result in results:
            self.apply(result)
        return self

    def ratings(self) -> SkillRatings:
        return SkillRatings(
            {p: SkillRating(r[0], r[1], self._games[p]) for p, r in sorted(self._ratings.items())},
            tuple(self._history),
        )


def skill_ratings(
    results: Iterable[ScoredMatch],
    *,
    mode: Mode,
    priors: Mapping[PlayerId, RatingPrior] | None = None,
    beta: float | None = None,
    keep_history: bool = True,
) -> SkillRatings:
    """openskill ratings after every result, in the order given (see the module docstring)."""
    accumulator = SkillAccumulator(mode, priors=priors, beta=beta, keep_history=keep_history)
    return accumulator.apply_all(results).ratings()


__all__ = [
    "DEFAULT_MU",
    "DEFAULT_SIGMA",
    "NEW_VERSION_SIGMA",
    "TRAKARL",
    "MarginRating",
    "MarginRatingAccumulator",
    "MarginRatings",
    "RatingChange",
    "RatingPrior",
    "SkillAccumulator",
    "SkillRating",
    "SkillRatings",
    "margin_ratings",
    "new_version_prior",
    "plackett_luce_update",
    "skill_ratings",
]
