"""openskill ratings of the league, kept by the serial `ratings` queue, with history.

Every stored result is rated once, in the order the queue rates it: ``match_finish`` sends
``league.tasks.ratings_update`` when its transaction commits, and :func:`ratings_update`
rates every result that is not rated yet, oldest first, under one lock (a PostgreSQL
advisory lock; SQLite has one writer anyway), so two runs at once are harmless. Each rated
result gets a ``RatedMatch`` row, whose id is the order of rating: :func:`ratings_recompute`
(``python manage.py recompute_ratings``) replays the stored results in that order and gets
the same numbers, because both paths run the same code on the same inputs.

Two scopes are rated side by side:

- the **game family's leaderboard** (``Rating.tournament`` is null): every result of every
  tournament of that family, casual tables included;
- **each tournament** on its own (everyone starts from the prior there).

The model is league.ratings' Weng-Lin Plackett-Luce (``plackett_luce_update``, which is
openskill's computation): an individual game rates one team per seat ranked by score; Priffe
rates each rubber as two teams of two (the rubber's partnerships) by their points. Seats of
competitors who are not entrants of the tournament (the built-in bots that fill a table)
and the Priffe träkarl play at the default rating and are never updated. A competitor new to
a scope starts from ``RatingPrior()`` (mu 25, sigma 25/3), or, for a **new version of a bot**
rated there before, from ``new_version_prior`` of the previous version's rating: its mu and
a sigma of at least 25/3, so the new version moves quickly. What a leaderboard shows is the
conservative rating ``mu - 3 sigma``. ``games`` counts matches rated.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from openskill.models import PlackettLuce

from league.models import (
    Competitor,
    MatchResult,
    RatedMatch,
    Rating,
    RatingChange,
    Tournament,
)
from league.ratings import (
    CONSERVATIVE_Z,
    DEFAULT_MU,
    DEFAULT_SIGMA,
    RatingPrior,
    SkillRating,
    new_version_prior,
    plackett_luce_update,
)
from league.services.standings import (
    PARTNERSHIP_FAMILIES,
    StoredResult,
    game_family,
    game_trakarl,
    result_rubbers,
    result_seats,
    tournament_entrants,
)

logger = logging.getLogger(__name__)

MODEL = PlackettLuce(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA, beta=DEFAULT_SIGMA / 2)
"""The parameters league.ratings.SkillAccumulator uses (beta 25/6, tau 25/300)."""
FILLER = (DEFAULT_MU, DEFAULT_SIGMA)
BATCH = 200
"""Results rated per transaction."""
LOCK_KEY = 0x4B4C_5241
"""The PostgreSQL advisory lock that makes rating serial ("KLRA")."""


def conservative(mu: float, sigma: float) -> float:
    return mu - CONSERVATIVE_Z * sigma


def _lock() -> None:
    """Serialise every writer of ratings until the transaction ends."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])


# ---------------------------------------------------------------- what is rated


@dataclass(frozen=True)
class Unit:
    """One rating update: teams of competitor ids (None: a filler) and their scores."""

    teams: tuple[tuple[int | None, ...], ...]
    scores: tuple[float, ...]


def rating_units(stored: StoredResult, *, game: str, entrants: set[int]) -> list[Unit]:
    """The updates a result makes: one per individual game (a team per seat), one per
    Priffe rubber (the rubber's two partnerships, scored by their points)."""
    seats = result_seats(stored.standings_input)
    ids: list[int | None] = [s.competitor if s.competitor in entrants else None for s in seats]
    if game_family(game) not in PARTNERSHIP_FAMILIES:
        return [Unit(tuple((i,) for i in ids), tuple(float(s.score) for s in seats))]
    trakarl = game_trakarl(game)
    if 0 <= trakarl < len(ids):
        ids[trakarl] = None
    units = []
    for rubber in result_rubbers(stored):
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
    def load(cls, *, competitors: Iterable[int] | None = None) -> Versions:
        """Every bot-version competitor (or the siblings of ``competitors``)."""
        rows = Competitor.objects.filter(bot_version__isnull=False)
        if competitors is not None:
            bots = Competitor.objects.filter(
                pk__in=list(competitors), bot_version__isnull=False
            ).values_list("bot_version__bot_id", flat=True)
            rows = rows.filter(bot_version__bot_id__in=list(bots))
        versions = cls()
        for competitor, bot, number in rows.values_list(
            "id", "bot_version__bot_id", "bot_version__number"
        ):
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


@dataclass
class Entry:
    mu: float
    sigma: float
    games: int


@dataclass
class Change:
    competitor: int
    before: tuple[float, float]
    after: tuple[float, float]


@dataclass
class Book:
    """The ratings of one scope (a family's leaderboard or a tournament)."""

    entries: dict[int, Entry] = field(default_factory=dict)
    created: set[int] = field(default_factory=set)
    """Competitors first rated by this book (not loaded)."""
    rows: dict[int, Rating] = field(default_factory=dict)
    """The stored rows a book was loaded from."""

    def prior(self, competitor: int, versions: Versions) -> RatingPrior:
        for parent in versions.earlier(competitor):
            rated = self.entries.get(parent)
            if rated is not None:
                return new_version_prior(SkillRating(rated.mu, rated.sigma, rated.games))
        return RatingPrior()

    def rate(self, units: Sequence[Unit], versions: Versions) -> list[Change]:
        """Apply a match's updates in order; each competitor's rating before and after."""
        before: dict[int, tuple[float, float]] = {}
        for unit in units:
            for team in unit.teams:
                for competitor in team:
                    if competitor is None or competitor in before:
                        continue
                    entry = self.entries.get(competitor)
                    if entry is None:
                        prior = self.prior(competitor, versions)
                        entry = self.entries[competitor] = Entry(prior.mu, prior.sigma, 0)
                        self.created.add(competitor)
                    before[competitor] = (entry.mu, entry.sigma)
        for unit in units:
            teams = [
                [FILLER if c is None else (self.entries[c].mu, self.entries[c].sigma) for c in team]
                for team in unit.teams
            ]
            updated = plackett_luce_update(
                teams, unit.scores, beta=MODEL.beta, tau=MODEL.tau, kappa=MODEL.kappa
            )
            for team, ratings in zip(unit.teams, updated, strict=True):
                for competitor, (mu, sigma) in zip(team, ratings, strict=True):
                    if competitor is not None:
                        entry = self.entries[competitor]
                        entry.mu, entry.sigma = mu, sigma
        changes = []
        for competitor, was in before.items():
            entry = self.entries[competitor]
            entry.games += 1
            changes.append(Change(competitor, was, (entry.mu, entry.sigma)))
        return changes


ChangeRow = tuple[int, int, int, str, int | None, float, float, float, float, float]
"""A ``RatingChange`` row: rated, match, competitor, family, tournament, mu and sigma
before, mu, sigma, conservative."""
CHANGE_COLUMNS = (
    "rated_id",
    "match_id",
    "competitor_id",
    "family",
    "tournament_id",
    "mu_before",
    "sigma_before",
    "mu",
    "sigma",
    "conservative",
)


def _change_row(
    change: Change, *, rated_id: int, match_id: int, family: str, tournament_id: int | None
) -> ChangeRow:
    mu, sigma = change.after
    return (
        rated_id,
        match_id,
        change.competitor,
        family,
        tournament_id,
        change.before[0],
        change.before[1],
        mu,
        sigma,
        conservative(mu, sigma),
    )


def _changes_insert(rows: Sequence[ChangeRow]) -> None:
    """Insert history rows: one COPY on PostgreSQL (floats written with ``repr``, which
    reads back to the same double), a bulk insert elsewhere."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        RatingChange.objects.bulk_create(
            (RatingChange(**dict(zip(CHANGE_COLUMNS, row, strict=True))) for row in rows),
            batch_size=2000,
        )
        return
    null = "\\N"
    lines = [
        f"{r}\t{m}\t{c}\t{f}\t{null if t is None else t}\t{a!r}\t{b!r}\t{mu!r}\t{sd!r}\t{k!r}\n"
        for r, m, c, f, t, a, b, mu, sd, k in rows
    ]
    columns = ", ".join(f'"{c}"' for c in CHANGE_COLUMNS)
    table = RatingChange._meta.db_table
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f'COPY "{table}" ({columns}) FROM STDIN') as copy,
    ):
        for start in range(0, len(lines), 5000):
            copy.write("".join(lines[start : start + 5000]))


def _rating_row(competitor: int, entry: Entry, *, family: str, tournament_id: int | None) -> Rating:
    return Rating(
        competitor_id=competitor,
        family=family,
        tournament_id=tournament_id,
        mu=entry.mu,
        sigma=entry.sigma,
        conservative=conservative(entry.mu, entry.sigma),
        games=entry.games,
        updated_at=timezone.now(),
    )


# ---------------------------------------------------------------- the queue's work


def _scope_filter(tournament_id: int | None) -> Q:
    """A family's leaderboard (no tournament) or one tournament."""
    if tournament_id is None:
        return Q(tournament__isnull=True)
    return Q(tournament_id=tournament_id)


def _scope_load(
    book: Book, *, family: str, tournament_id: int | None, competitors: set[int]
) -> None:
    for rating in Rating.objects.filter(
        _scope_filter(tournament_id), family=family, competitor_id__in=competitors
    ):
        book.entries[rating.competitor_id] = Entry(rating.mu, rating.sigma, rating.games)
        book.rows[rating.competitor_id] = rating


def _ratings_write(rows: Sequence[Rating]) -> None:
    """Write the ratings of stored rows: one UPDATE ... FROM (VALUES ...) on PostgreSQL."""
    if not rows:
        return
    now = timezone.now()
    if connection.vendor != "postgresql":
        for row in rows:
            Rating.objects.filter(pk=row.pk).update(
                mu=row.mu,
                sigma=row.sigma,
                conservative=row.conservative,
                games=row.games,
                updated_at=now,
            )
        return
    values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(rows))
    params: list[Any] = []
    for row in rows:
        params += [row.pk, row.mu, row.sigma, row.conservative, row.games]
    table = Rating._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f'UPDATE "{table}" AS r SET mu = v.mu, sigma = v.sigma, '
            "conservative = v.conservative, games = v.games, updated_at = %s "
            f"FROM (VALUES {values}) AS v(id, mu, sigma, conservative, games) "
            "WHERE r.id = v.id",
            [now, *params],
        )


def _book_store(
    book: Book, changes: Sequence[Change], *, family: str, tournament_id: int | None
) -> None:
    """Write the changed ratings of a book loaded from the database."""
    touched = {change.competitor for change in changes}
    new = [c for c in touched if c in book.created]
    if new:
        Rating.objects.bulk_create(
            [
                _rating_row(c, book.entries[c], family=family, tournament_id=tournament_id)
                for c in new
            ]
        )
    rows = [book.rows[c] for c in touched if c not in book.created]
    for row in rows:
        entry = book.entries[row.competitor_id]
        row.mu, row.sigma, row.games = entry.mu, entry.sigma, entry.games
        row.conservative = conservative(entry.mu, entry.sigma)
    _ratings_write(rows)


def _rate_stored(result: MatchResult, *, tournament: Tournament, entrants: set[int]) -> RatedMatch:
    family = game_family(tournament.game)
    rated = RatedMatch.objects.create(result=result, family=family, tournament=tournament)
    units = rating_units(StoredResult.of(result), game=tournament.game, entrants=entrants)
    competitors = {c for unit in units for team in unit.teams for c in team if c is not None}
    if not competitors:
        return rated
    versions = Versions()  # only needed (and loaded) for a competitor new to a scope
    rows: list[ChangeRow] = []
    for tournament_id in (None, tournament.pk):
        book = Book()
        _scope_load(book, family=family, tournament_id=tournament_id, competitors=competitors)
        missing = competitors - book.entries.keys()
        if missing:
            if not versions.of:
                versions = Versions.load(competitors=competitors)
            parents = {p for c in missing for p in versions.earlier(c)}
            if parents:
                _scope_load(book, family=family, tournament_id=tournament_id, competitors=parents)
        changes = book.rate(units, versions)
        _book_store(book, changes, family=family, tournament_id=tournament_id)
        rows += [
            _change_row(
                change,
                rated_id=rated.pk,
                match_id=result.match_id,
                family=family,
                tournament_id=tournament_id,
            )
            for change in changes
        ]
    _changes_insert(rows)
    return rated


def ratings_update(*, batch: int = BATCH) -> int:
    """Rate every stored result that is not rated yet, oldest first; how many were.

    What the `ratings` queue runs after each stored result (and beat every minute, for a
    message that was lost). Idempotent and safe to run twice at once (the lock)."""
    total = 0
    while True:
        with transaction.atomic():
            _lock()
            results = list(
                MatchResult.objects.filter(rated__isnull=True)
                .select_related("match__tournament")
                .defer("record")
                .order_by("id")[:batch]
            )
            entrants: dict[int, set[int]] = {}
            for result in results:
                tournament = result.match.tournament
                if tournament.pk not in entrants:
                    entrants[tournament.pk] = tournament_entrants(tournament.pk)
                _rate_stored(result, tournament=tournament, entrants=entrants[tournament.pk])
        total += len(results)
        if len(results) < batch:
            return total


# ---------------------------------------------------------------- recomputation


@dataclass
class RecomputeReport:
    results: int
    """Rated results replayed."""
    changes: int
    ratings: int
    rated_after: int
    """Results that were not rated yet and were rated afterwards."""


def ratings_recompute(*, tournament_id: int | None = None) -> RecomputeReport:
    """Recompute the ratings from the stored results in the order they were rated: every
    scope, or only ``tournament_id``'s own (a family's leaderboard spans tournaments, so it
    is recomputed as a whole). Then rate what was not rated yet."""
    with transaction.atomic():
        _lock()
        rated_rows = RatedMatch.objects.order_by("id")
        if tournament_id is not None:
            rated_rows = rated_rows.filter(tournament_id=tournament_id)
            RatingChange.objects.filter(tournament_id=tournament_id).delete()
            Rating.objects.filter(tournament_id=tournament_id).delete()
        else:
            RatingChange.objects.all().delete()
            Rating.objects.all().delete()
        versions = Versions.load()
        books: dict[tuple[str, int | None], Book] = {}
        games: dict[int, str] = dict(Tournament.objects.values_list("id", "game"))
        entrants: dict[int, set[int]] = {}
        changes: list[ChangeRow] = []
        count = 0
        rows = rated_rows.values_list(
            "id",
            "family",
            "tournament_id",
            "result_id",
            "result__match_id",
            "result__standings_input",
        )
        for rated_id, family, t_id, result_id, match_id, standings_input in rows.iterator(
            chunk_size=2000
        ):
            count += 1
            if t_id not in entrants:
                entrants[t_id] = tournament_entrants(t_id)
            stored = StoredResult(result_id, match_id, standings_input)
            units = rating_units(stored, game=games[t_id], entrants=entrants[t_id])
            scopes: tuple[int | None, ...] = (t_id,) if tournament_id is not None else (None, t_id)
            for scope in scopes:
                book = books.setdefault((family, scope), Book())
                changes += [
                    _change_row(
                        change,
                        rated_id=rated_id,
                        match_id=match_id,
                        family=family,
                        tournament_id=scope,
                    )
                    for change in book.rate(units, versions)
                ]
        ratings = [
            _rating_row(competitor, entry, family=family, tournament_id=scope)
            for (family, scope), book in books.items()
            for competitor, entry in book.entries.items()
        ]
        _changes_insert(changes)
        Rating.objects.bulk_create(ratings, batch_size=5000)
    return RecomputeReport(count, len(changes), len(ratings), ratings_update())
