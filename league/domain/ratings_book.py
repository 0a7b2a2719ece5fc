"""The league's openskill ratings, computed: what a stored result rates (its units of
competitors and scores), the ratings of one scope (a ``Book``) and the history rows a rated
match gives. league.services.ratings reads the stored ratings into books, rates the queue's
results with them in order and writes what they changed.

Two scopes are rated side by side:

- the **game family's leaderboard** (``Rating.tournament`` is null): every result of every
  tournament of that family, casual tables included;
- **each tournament** on its own (everyone starts from the prior there).

The model is league.domain.ratings_maths' Weng-Lin Plackett-Luce (``plackett_luce_update``,
which is openskill's computation): an individual game rates one team per seat ranked by
score; Priffe rates each rubber as two teams of two (the rubber's partnerships) by their
points. Seats of competitors who are not entrants of the tournament (the built-in bots that
fill a table) and the Priffe träkarl play at the default rating and are never updated. A
competitor new to a scope starts from ``RatingPrior()`` (mu 25, sigma 25/3), or, for a
**new version of a bot** rated there before, from ``new_version_prior`` of the previous
version's rating: its mu and a sigma of at least 25/3, so the new version moves quickly.
What a leaderboard shows is the conservative rating ``mu - 3 sigma``. ``games`` counts
matches rated.

Plain data in and out: the games are asked what they are (the engine); nothing is read
from the database and no clock is read.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from engine.variants import load_game
from league.domain.ratings_maths import (
    CONSERVATIVE_Z,
    DEFAULT_MU,
    DEFAULT_SIGMA,
    RatingPrior,
    SkillRating,
    new_version_prior,
    plackett_luce_update,
)

MODEL = PlackettLuce(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA, beta=DEFAULT_SIGMA / 2)
"""The parameters league.domain.ratings_maths.SkillAccumulator uses (beta 25/6, tau 25/300)."""
FILLER = (DEFAULT_MU, DEFAULT_SIGMA)


def conservative(mu: float, sigma: float) -> float:
    return mu - CONSERVATIVE_Z * sigma


# ---------------------------------------------------------------- what is rated


@dataclass(frozen=True, slots=True)
class Unit:
    """One rating update: teams of competitor ids (None: a filler) and their scores."""

    teams: tuple[tuple[int | None, ...], ...]
    scores: tuple[float, ...]


@dataclass(frozen=True)
class RatedGame:
    """How a game's results are rated, as the game describes itself: its family,
    partnership play per unit (Priffe: per rubber) and the dummy's seat (-1: none)."""

    family: str
    partnership: bool
    dummy_seat: int

    @classmethod
    def of(cls, game: str) -> RatedGame:
        return _rated_game(game)


@functools.lru_cache(maxsize=256)
def _rated_game(game: str) -> RatedGame:
    loaded = load_game(game)
    return RatedGame(loaded.family, loaded.partnership_play, loaded.dummy_seat)


def _seat_number(seat: Mapping[str, Any]) -> int:
    return int(seat["seat"])


def result_units(
    seats: Sequence[Mapping[str, Any]],
    rubbers: Sequence[Mapping[str, Any]],
    *,
    rated: RatedGame,
    entrants: set[int] | frozenset[int],
) -> list[Unit]:
    """The updates a result makes, from its stored seats (``standings_input["seats"]``,
    read as league.domain.scored_results.result_seats reads them: by seat number, integer
    competitor and score) and, for partnership play, its rubbers: one update per individual
    game (a team per seat), one per Priffe rubber (the rubber's two partnerships, scored by
    their points)."""
    ordered = sorted(seats, key=_seat_number)
    ids: list[int | None] = [
        competitor if (competitor := int(s["competitor"])) in entrants else None for s in ordered
    ]
    if not rated.partnership:
        return [Unit(tuple((i,) for i in ids), tuple(float(int(s["score"])) for s in ordered))]
    if 0 <= rated.dummy_seat < len(ids):
        ids[rated.dummy_seat] = None
    units = []
    for rubber in rubbers:
        a, b, c, d = (int(s) for s in rubber["seating"])
        points = rubber["points"]
        units.append(
            Unit(
                ((ids[a], ids[c]), (ids[b], ids[d])),
                (float(points[a] + points[c]), float(points[b] + points[d])),
            )
        )
    return units


# ---------------------------------------------------------------- a scope's book


@dataclass
class Versions:
    """Which competitors are versions of one bot (to find a new version's parent)."""

    of: dict[int, tuple[int, int]] = field(default_factory=dict)
    """competitor -> (bot, version number)"""
    by_bot: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    """bot -> [(version number, competitor)], sorted"""

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int, int, int]]) -> Versions:
        """The versions of ``rows``: (competitor, bot, version number) each."""
        versions = cls()
        for competitor, bot, number in rows:
            versions.of[competitor] = (bot, number)
            versions.by_bot.setdefault(bot, []).append((number, competitor))
        for siblings in versions.by_bot.values():
            siblings.sort()
        return versions

    def earlier(self, competitor: int) -> list[int]:
        """The earlier versions of ``competitor``'s bot, latest first."""
        found = self.of.get(competitor)
        if found is None:
            return []
        bot, number = found
        siblings = self.by_bot[bot]
        before = bisect.bisect_left(siblings, (number, -1))
        return [c for _, c in reversed(siblings[:before])]


Change = tuple[int, float, float, float, float]
"""A competitor's rating in one rated match: competitor, mu and sigma before, mu and sigma
after."""

Scope = tuple[str, int | None]
"""A family's leaderboard ``(family, None)`` or a tournament ``(family, tournament)``."""

BETA, TAU, KAPPA = MODEL.beta, MODEL.tau, MODEL.kappa


def _no_ratings() -> dict[int | None, tuple[float, float]]:
    return {None: FILLER}


@dataclass
class Book:
    """The ratings of one scope (a family's leaderboard or a tournament)."""

    ratings: dict[int | None, tuple[float, float]] = field(default_factory=_no_ratings)
    """competitor -> (mu, sigma); ``None`` (a filler's seat) -> the default rating."""
    games: dict[int, int] = field(default_factory=dict)
    """competitor -> matches rated: the competitors rated in this scope."""
    created: dict[int, None] = field(default_factory=dict)
    """Competitors first rated by this book (not loaded), in the order first rated."""
    stored: dict[int, int] = field(default_factory=dict)
    """competitor -> id of the stored ``Rating`` row its rating was loaded from."""
    touched: set[int] = field(default_factory=set)
    """Competitors rated by this book."""

    def load(self, competitor: int, mu: float, sigma: float, games: int, pk: int) -> None:
        self.ratings[competitor] = (mu, sigma)
        self.games[competitor] = games
        self.stored[competitor] = pk

    def entry(self, competitor: int) -> tuple[float, float, int]:
        mu, sigma = self.ratings[competitor]
        return mu, sigma, self.games[competitor]

    def prior(self, competitor: int, versions: Versions) -> RatingPrior:
        for parent in versions.earlier(competitor):
            if parent in self.games:
                return new_version_prior(SkillRating(*self.entry(parent)))
        return RatingPrior()

    def rate(self, units: Sequence[Unit], versions: Versions) -> list[Change]:
        """Apply a match's updates in order; each competitor's rating before and after."""
        ratings = self.ratings
        before: dict[int, tuple[float, float]] = {}
        for unit in units:
            for team in unit.teams:
                for competitor in team:
                    if competitor is None or competitor in before:
                        continue
                    rating = ratings.get(competitor)
                    if rating is None:
                        prior = self.prior(competitor, versions)
                        rating = ratings[competitor] = (prior.mu, prior.sigma)
                        self.games[competitor] = 0
                        self.created[competitor] = None
                    before[competitor] = rating
        for unit in units:
            updated = plackett_luce_update(
                [[ratings[c] for c in team] for team in unit.teams],
                unit.scores,
                beta=BETA,
                tau=TAU,
                kappa=KAPPA,
            )
            for team, new in zip(unit.teams, updated, strict=True):
                for competitor, rating in zip(team, new, strict=True):
                    if competitor is not None:
                        ratings[competitor] = rating
        games = self.games
        changes = []
        for competitor, (mu_before, sigma_before) in before.items():
            games[competitor] += 1
            mu, sigma = ratings[competitor]
            changes.append((competitor, mu_before, sigma_before, mu, sigma))
        self.touched.update(before)
        return changes


# ---------------------------------------------------------------- the history rows

HistoryRow = tuple[int, int, int, str, int | None, float, float, float, float, float]
"""A ``RatingChange`` row: rated, match, competitor, family, tournament, mu and sigma
before, mu, sigma, conservative."""


def history_rows(
    changes: Iterable[Change],
    *,
    rated_id: int,
    match_id: int,
    family: str,
    tournament_id: int | None,
    into: list[HistoryRow],
) -> None:
    """Add to ``into`` the history rows of a rated match's ``changes`` in one scope, each
    with its conservative rating."""
    z = CONSERVATIVE_Z
    into.extend(
        (
            rated_id,
            match_id,
            competitor,
            family,
            tournament_id,
            mu_before,
            sigma_before,
            mu,
            sigma,
            mu - z * sigma,
        )
        for competitor, mu_before, sigma_before, mu, sigma in changes
    )
