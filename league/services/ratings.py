"""openskill ratings of the league, kept by the serial `ratings` queue, with history.

Why this module is long: the queue, the incremental update, the recomputation that writes
only the rows that differ and the history are one process under one lock; split, each part
would have to restate the others' invariants.

Every stored result is rated once, in the order the queue rates it: ``match_finish`` stores
the result with a ``RatingQueueEntry`` (:func:`ratings_enqueue`, same transaction) and sends
``league.tasks.ratings_update`` when its transaction commits; :func:`ratings_update` rates
the results waiting in that queue, oldest first, and deletes their entries in the
transaction that rates them, under one lock (a PostgreSQL advisory lock; SQLite has one
writer anyway), so two runs at once are harmless and a lost message or a dead worker loses
nothing (beat runs it every minute). Each rated
result gets a ``RatedMatch`` row, whose id is the order of rating: :func:`ratings_recompute`
(``python manage.py recompute_ratings``) replays the stored results in that order and gets
the same numbers, because both paths run the same code on the same inputs: the pure
computation of league/domain/ratings_book.py (what a result rates, the ratings of a scope,
the two scopes and the model, the history rows), fed the stored rows read here.

**Writing.** The queue rates a batch of results (up to ``BATCH``) in one transaction: the
``RatedMatch`` rows in one insert, the ratings of the scopes involved read once, every
result rated in memory in order, then the ratings written in one insert and one update and
the history rows (one ``RatingChange`` per competitor, rated match and scope) in one COPY.
A recomputation reads only the seats and rubbers of each stored result and writes only
what changed. On PostgreSQL the history it computes is copied (binary COPY) into a
temporary table, and one statement joins it with the stored rows of the scope and, in the
same pass, rewrites the rows whose numbers differ, deletes the rows no longer produced and
inserts the missing ones; the history table keeps free room in its pages (fillfactor 50,
migration 0006), so rewriting a row's numbers is a HOT update that touches no index. On
SQLite the comparison is made here and written through the ORM. The ratings are compared
here. Rows that stay the same keep their ids.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

import orjson

from league.domain.ratings_book import (
    Book,
    HistoryRow,
    RatedGame,
    Scope,
    Unit,
    Versions,
    conservative,
    history_rows,
    result_units,
)
from league.domain.scored_results import StoredResult
from league.garbage_collector import collector_paused
from league.models import (
    Competitor,
    Match,
    MatchResult,
    RatedMatch,
    Rating,
    RatingChange,
    RatingQueueEntry,
    Tournament,
)
from league.selectors.standings import stored_result_of, tournament_entrants
from league.services.standings import result_rubbers

logger = logging.getLogger(__name__)

BATCH = 200
"""Results rated per transaction."""
LOCK_KEY = 0x4B4C_5241
"""The PostgreSQL advisory lock that makes rating serial ("KLRA")."""


def _lock() -> None:
    """Serialise every writer of ratings until the transaction ends."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])


# ---------------------------------------------------------------- what is rated


def rating_units_of(stored: StoredResult, *, rated: RatedGame, entrants: set[int]) -> list[Unit]:
    """The updates a stored result makes; a Priffe result stored without its rubbers has
    them read from its record once (``result_rubbers``)."""
    rubbers = result_rubbers(stored) if rated.partnership else []
    return result_units(stored.standings_input["seats"], rubbers, rated=rated, entrants=entrants)


def _versions_load(*, competitors: Iterable[int] | None = None) -> Versions:
    """Every bot-version competitor (or the siblings of ``competitors``)."""
    rows = Competitor.objects.filter(bot_version__isnull=False)
    if competitors is not None:
        bots = Competitor.objects.filter(
            pk__in=list(competitors), bot_version__isnull=False
        ).values_list("bot_version__bot_id", flat=True)
        rows = rows.filter(bot_version__bot_id__in=list(bots))
    return Versions.from_rows(rows.values_list("id", "bot_version__bot_id", "bot_version__number"))


# ---------------------------------------------------------------- the history rows

HISTORY_COLUMNS = (
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
HISTORY_VALUES = [
    c for c in HISTORY_COLUMNS if c not in ("rated_id", "competitor_id", "tournament_id")
]
"""What a history row says (its key: rated match, competitor and scope)."""
_HISTORY_TYPES = (
    "int8",
    "int8",
    "int8",
    "text",
    "int8",
    "float8",
    "float8",
    "float8",
    "float8",
    "float8",
)
"""The columns' types for a binary COPY (the doubles travel exactly)."""


def _copy_rows(cursor: Any, table: str, rows: Sequence[HistoryRow]) -> None:
    """COPY ``rows`` into ``table``'s history columns, in binary (PostgreSQL)."""
    columns = ", ".join(f'"{c}"' for c in HISTORY_COLUMNS)
    with cursor.copy(f'COPY "{table}" ({columns}) FROM STDIN (FORMAT BINARY)') as copy:
        copy.set_types(_HISTORY_TYPES)
        for row in rows:
            copy.write_row(row)


def _history_insert(rows: Sequence[HistoryRow]) -> None:
    """Insert history rows: one binary COPY on PostgreSQL, a bulk insert elsewhere."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        RatingChange.objects.bulk_create(
            (RatingChange(**dict(zip(HISTORY_COLUMNS, row, strict=True))) for row in rows),
            batch_size=2000,
        )
        return
    with connection.cursor() as cursor:
        _copy_rows(cursor.cursor, RatingChange._meta.db_table, rows)


# ---------------------------------------------------------------- the ratings rows

RatingValues = tuple[int, float, float, int]
"""A stored rating's new values: id, mu, sigma, games."""


def _ratings_insert(rows: Iterable[tuple[int, Scope, tuple[float, float, int]]]) -> int:
    """Insert new ratings: (competitor, scope, (mu, sigma, games))."""
    now = timezone.now()
    created = Rating.objects.bulk_create(
        (
            Rating(
                competitor_id=competitor,
                family=family,
                tournament_id=tournament_id,
                mu=mu,
                sigma=sigma,
                conservative=conservative(mu, sigma),
                games=games,
                updated_at=now,
            )
            for competitor, (family, tournament_id), (mu, sigma, games) in rows
        ),
        batch_size=2000,
    )
    return len(created)


def _ratings_update(rows: Sequence[RatingValues]) -> None:
    """Write stored ratings' new values: one UPDATE ... FROM (VALUES ...) on PostgreSQL."""
    if not rows:
        return
    now = timezone.now()
    if connection.vendor != "postgresql":
        for pk, mu, sigma, games in rows:
            Rating.objects.filter(pk=pk).update(
                mu=mu,
                sigma=sigma,
                conservative=conservative(mu, sigma),
                games=games,
                updated_at=now,
            )
        return
    table = Rating._meta.db_table
    with connection.cursor() as cursor:
        for start in range(0, len(rows), 2000):
            chunk = rows[start : start + 2000]
            values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(chunk))
            params: list[Any] = []
            for pk, mu, sigma, games in chunk:
                params += [pk, mu, sigma, conservative(mu, sigma), games]
            cursor.execute(
                f'UPDATE "{table}" AS r SET mu = v.mu, sigma = v.sigma, '
                "conservative = v.conservative, games = v.games, updated_at = %s "
                f"FROM (VALUES {values}) AS v(id, mu, sigma, conservative, games) "
                "WHERE r.id = v.id",
                [now, *params],
            )


# ---------------------------------------------------------------- the queue's work


def _books_load(needed: Mapping[Scope, set[int]]) -> tuple[dict[Scope, Book], Versions]:
    """The books of the scopes in ``needed`` with the stored ratings of the competitors
    they rate and, for a competitor new to a scope, of its bot's earlier versions there."""
    books = {scope: Book() for scope in needed}

    def load(competitors: set[int]) -> None:
        families = {family for family, tournament in needed if tournament is None}
        tournaments = {tournament for _, tournament in needed if tournament is not None}
        rows = Rating.objects.filter(
            Q(tournament__isnull=True, family__in=families) | Q(tournament_id__in=tournaments),
            competitor_id__in=competitors,
        ).values_list("id", "competitor_id", "family", "tournament_id", "mu", "sigma", "games")
        for pk, competitor, family, tournament, mu, sigma, games in rows:
            book = books.get((family, tournament))
            if book is not None and competitor not in book.games:
                book.load(competitor, mu, sigma, games, pk)

    load({c for competitors in needed.values() for c in competitors})
    missing = {c for scope, cs in needed.items() for c in cs if c not in books[scope].games}
    versions = Versions()  # only needed (and loaded) for a competitor new to a scope
    if missing:
        versions = _versions_load(competitors=missing)
        parents = {p for c in missing for p in versions.earlier(c)}
        if parents:
            load(parents)
    return books, versions


def _books_store(books: Mapping[Scope, Book]) -> None:
    """Write the ratings the books changed: the new ones in one insert, the others in one
    update."""
    new = [
        (competitor, scope, book.entry(competitor))
        for scope, book in books.items()
        for competitor in book.created
        if competitor in book.touched
    ]
    if new:
        _ratings_insert(new)
    changed = [
        (book.stored[c], *book.entry(c))
        for book in books.values()
        for c in sorted(book.touched)
        if c in book.stored
    ]
    _ratings_update(changed)


def _rate_batch(results: Sequence[MatchResult]) -> None:
    """Rate ``results`` (in this order) in both scopes, with their history."""
    rated_games: dict[int, RatedGame] = {}
    entrants: dict[int, set[int]] = {}
    for result in results:
        tournament = result.match.tournament
        if tournament.pk not in rated_games:
            rated_games[tournament.pk] = RatedGame.of(tournament.game)
            entrants[tournament.pk] = tournament_entrants(tournament.pk)
    rated = RatedMatch.objects.bulk_create(
        RatedMatch(
            result=result,
            family=rated_games[result.match.tournament_id].family,
            tournament_id=result.match.tournament_id,
        )
        for result in results
    )
    work = []
    needed: dict[Scope, set[int]] = {}
    for result, rated_match in zip(results, rated, strict=True):
        tournament_id = result.match.tournament_id
        game = rated_games[tournament_id]
        units = rating_units_of(
            stored_result_of(result), rated=game, entrants=entrants[tournament_id]
        )
        competitors = {c for unit in units for team in unit.teams for c in team if c is not None}
        if not competitors:
            continue
        for scope in ((game.family, None), (game.family, tournament_id)):
            needed.setdefault(scope, set()).update(competitors)
        work.append((rated_match.pk, result.match_id, game.family, tournament_id, units))
    if not work:
        return
    books, versions = _books_load(needed)
    rows: list[HistoryRow] = []
    for rated_id, match_id, family, tournament_id, units in work:
        for scope in ((family, None), (family, tournament_id)):
            history_rows(
                books[scope].rate(units, versions),
                rated_id=rated_id,
                match_id=match_id,
                family=family,
                tournament_id=scope[1],
                into=rows,
            )
    _books_store(books)
    _history_insert(rows)


def ratings_enqueue(result_ids: Iterable[int]) -> None:
    """Mark stored results as waiting to be rated (``RatingQueueEntry``). Call it in the
    transaction that stores them: every ``MatchResult`` is created with its entry, so a
    result stored is a result the queue will rate, whatever becomes of the task sent."""
    RatingQueueEntry.objects.bulk_create(
        (RatingQueueEntry(result_id=pk) for pk in result_ids), batch_size=2000
    )


def ratings_update(*, batch: int = BATCH) -> int:
    """Rate every result waiting in the rating queue, oldest first; how many were.

    What the `ratings` queue runs after each stored result (and beat every minute, for a
    message that was lost). Each batch reads the first ``batch`` entries of the queue (its
    primary key's index: the cost does not grow with the results stored), rates those
    results and deletes their entries in one transaction, so a batch that fails leaves
    its entries waiting. An entry whose result is rated already (not written by this
    module) is only deleted. Idempotent and safe to run twice at once (the lock: the
    second run reads the queue once the first has committed)."""
    total = 0
    while True:
        with transaction.atomic():
            _lock()
            waiting = list(
                RatingQueueEntry.objects.order_by("result_id").values_list("result_id", flat=True)[
                    :batch
                ]
            )
            results: list[MatchResult] = []
            if waiting:
                results = list(
                    MatchResult.objects.filter(pk__in=waiting, rated__isnull=True)
                    .select_related("match__tournament")
                    .defer("record")
                    .order_by("id")
                )
                if results:
                    _rate_batch(results)
                RatingQueueEntry.objects.filter(result_id__in=waiting).delete()
        total += len(results)
        if len(waiting) < batch:
            return total


def _queue_reconcile(tournament_id: int | None) -> None:
    """Make the rating queue of the scope (``tournament_id``'s results, or all) hold
    exactly its results that are not rated: drop the entries of rated results, add the
    unrated results that have none (stored without one, by hand or by older code).

    Written in SQL so that the planner starts from the queue (a few entries) and tests the
    results of the tournament against a hash of its rated ones (its ``RatedMatch`` rows
    carry the tournament), instead of probing the joins once per result."""
    queue = _table(RatingQueueEntry)
    rated = _table(RatedMatch)
    results = _table(MatchResult)
    matches = _table(Match)
    rated_scope = "rm.tournament_id = %s AND " if tournament_id is not None else ""
    params = [tournament_id] if tournament_id is not None else []
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {queue} WHERE EXISTS (SELECT 1 FROM {rated} AS rm WHERE "
            f"{rated_scope}rm.result_id = {queue}.result_id)",
            params,
        )
        if tournament_id is not None:
            cursor.execute(
                f"SELECT r.id FROM {results} AS r WHERE r.match_id IN "
                f"(SELECT m.id FROM {matches} AS m WHERE m.tournament_id = %s) "
                f"AND r.id NOT IN (SELECT rm.result_id FROM {rated} AS rm WHERE "
                "rm.tournament_id = %s) "
                f"AND NOT EXISTS (SELECT 1 FROM {queue} AS q WHERE q.result_id = r.id) "
                "ORDER BY r.id",
                [tournament_id, tournament_id],
            )
        else:
            cursor.execute(
                f"SELECT r.id FROM {results} AS r "
                f"WHERE r.id NOT IN (SELECT rm.result_id FROM {rated} AS rm) "
                f"AND NOT EXISTS (SELECT 1 FROM {queue} AS q WHERE q.result_id = r.id) "
                "ORDER BY r.id",
            )
        unrated = [pk for (pk,) in cursor.fetchall()]
    ratings_enqueue(unrated)


def _table(model: Any) -> str:
    return str(connection.ops.quote_name(model._meta.db_table))


# ---------------------------------------------------------------- recomputation


@dataclass
class RecomputeReport:
    results: int
    """Rated results replayed."""
    changes: int
    """History rows the replay gives."""
    ratings: int
    rated_after: int
    """Results that were not rated yet and were rated afterwards."""
    written: int = 0
    """History rows written: inserted, rewritten or deleted (the others were the same)."""


StoredRated = tuple[int, str, int, int, int, Sequence[Mapping[str, Any]], Any]
"""A rated result as a recomputation reads it: rated id, family, tournament, result,
match, the stored seats and the stored rubbers (None: not stored)."""


def _rated_read(tournament_id: int | None) -> Iterator[StoredRated]:
    """The rated results in the order they were rated (of one tournament, or all): only
    the seats and rubbers of each stored ``standings_input``."""
    if connection.vendor != "postgresql":
        rows = RatedMatch.objects.order_by("id")
        if tournament_id is not None:
            rows = rows.filter(tournament_id=tournament_id)
        for rated_id, family, t_id, result_id, match_id, standings_input in rows.values_list(
            "id",
            "family",
            "tournament_id",
            "result_id",
            "result__match_id",
            "result__standings_input",
        ).iterator(chunk_size=2000):
            yield (
                rated_id,
                family,
                t_id,
                result_id,
                match_id,
                standings_input["seats"],
                standings_input.get("rubbers"),
            )
        return
    rated = RatedMatch._meta.db_table
    result = MatchResult._meta.db_table
    where = "WHERE rm.tournament_id = %s" if tournament_id is not None else ""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT rm.id, rm.family, rm.tournament_id, mr.id, mr.match_id, "
            "(mr.standings_input -> 'seats')::text, (mr.standings_input -> 'rubbers')::text "
            f'FROM "{rated}" AS rm JOIN "{result}" AS mr ON mr.id = rm.result_id '
            f"{where} ORDER BY rm.id",
            [tournament_id] if tournament_id is not None else [],
        )
        loads = orjson.loads
        while chunk := cursor.fetchmany(5000):
            for rated_id, family, t_id, result_id, match_id, seats, rubbers in chunk:
                yield (
                    rated_id,
                    family,
                    t_id,
                    result_id,
                    match_id,
                    loads(seats),
                    None if rubbers is None else loads(rubbers),
                )


def _history_sync_compared(rows: Sequence[HistoryRow], *, tournament_id: int | None) -> int:
    """:func:`_history_sync` compared here, written through the ORM (SQLite)."""
    stored = RatingChange.objects.all()
    if tournament_id is not None:
        stored = stored.filter(tournament_id=tournament_id)
    key_of = {
        (rated, competitor, tournament): (pk, tuple(values))
        for pk, rated, competitor, tournament, *values in stored.values_list(
            "id", "rated_id", "competitor_id", "tournament_id", *HISTORY_VALUES
        )
    }
    rewrite: list[RatingChange] = []
    insert: list[HistoryRow] = []
    for row in rows:
        rated, match, competitor, family, tournament, *numbers = row
        found = key_of.pop((rated, competitor, tournament), None)
        if found is None:
            insert.append(row)
        elif found[1] != (match, family, *numbers):
            rewrite.append(
                RatingChange(pk=found[0], **dict(zip(HISTORY_COLUMNS, row, strict=True)))
            )
    RatingChange.objects.bulk_update(rewrite, HISTORY_VALUES, batch_size=500)
    RatingChange.objects.filter(pk__in=[pk for pk, _ in key_of.values()]).delete()
    _history_insert(insert)
    return len(rewrite) + len(key_of) + len(insert)


def _history_sync(rows: Sequence[HistoryRow], *, tournament_id: int | None) -> int:
    """Make the stored history of the scope (``tournament_id``'s, or every scope) equal
    to ``rows``; how many rows were written (inserted, rewritten or deleted)."""
    if connection.vendor != "postgresql":
        return _history_sync_compared(rows, tournament_id=tournament_id)
    table = RatingChange._meta.db_table
    scope = "WHERE tournament_id = %s" if tournament_id is not None else ""
    params = [tournament_id] if tournament_id is not None else []
    values = HISTORY_VALUES
    columns = ", ".join(HISTORY_COLUMNS)
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMPORARY TABLE kl_rating_history (rated_id bigint, match_id bigint, "
            "competitor_id bigint, family varchar(40), tournament_id bigint, "
            "mu_before float8, sigma_before float8, mu float8, sigma float8, "
            "conservative float8) ON COMMIT DROP"
        )
        _copy_rows(cursor.cursor, "kl_rating_history", rows)
        # One pass over the stored rows of the scope: the rows that differ (old_id null:
        # to insert; rated_id null: to delete; both: to rewrite), then the writes.
        cursor.execute(
            "WITH differ AS MATERIALIZED ("
            f'SELECT h.id AS old_id, n.* FROM (SELECT * FROM "{table}" {scope}) AS h '
            "FULL JOIN kl_rating_history AS n ON h.rated_id = n.rated_id "
            "AND h.competitor_id = n.competitor_id "
            "AND coalesce(h.tournament_id, 0) = coalesce(n.tournament_id, 0) "
            "WHERE h.id IS NULL OR n.rated_id IS NULL OR ("
            + ", ".join(f"h.{c}" for c in values)
            + ") IS DISTINCT FROM ("
            + ", ".join(f"n.{c}" for c in values)
            + ")), rewritten AS ("
            f'UPDATE "{table}" AS h SET '
            + ", ".join(f"{c} = d.{c}" for c in values)
            + " FROM differ AS d WHERE h.id = d.old_id AND d.rated_id IS NOT NULL RETURNING 1"
            f'), deleted AS (DELETE FROM "{table}" AS h USING differ AS d '
            "WHERE h.id = d.old_id AND d.rated_id IS NULL RETURNING 1"
            f'), inserted AS (INSERT INTO "{table}" ({columns}) SELECT {columns} '
            "FROM differ AS d WHERE d.old_id IS NULL "
            "ORDER BY d.rated_id, d.tournament_id NULLS FIRST RETURNING 1) "
            "SELECT (SELECT count(*) FROM rewritten) + (SELECT count(*) FROM deleted) "
            "+ (SELECT count(*) FROM inserted)",
            params,
        )
        written = int(cursor.fetchone()[0])
        cursor.execute("DROP TABLE kl_rating_history")
    return written


def _ratings_sync(books: Mapping[Scope, Book], *, tournament_id: int | None) -> int:
    """Make the stored ratings of the scope (``tournament_id``'s, or every scope) those
    of ``books``: changed ones updated, new ones inserted, the others deleted."""
    stored = Rating.objects.all()
    if tournament_id is not None:
        stored = stored.filter(tournament_id=tournament_id)
    changed: list[RatingValues] = []
    stale: list[int] = []
    seen: set[tuple[int, Scope]] = set()
    for pk, competitor, family, t_id, mu, sigma, rated_conservative, games in stored.values_list(
        "id", "competitor_id", "family", "tournament_id", "mu", "sigma", "conservative", "games"
    ):
        scope = (family, t_id)
        book = books.get(scope)
        if book is None or competitor not in book.games or (competitor, scope) in seen:
            stale.append(pk)
            continue
        seen.add((competitor, scope))
        new_mu, new_sigma, new_games = book.entry(competitor)
        if (mu, sigma, rated_conservative, games) != (
            new_mu,
            new_sigma,
            conservative(new_mu, new_sigma),
            new_games,
        ):
            changed.append((pk, new_mu, new_sigma, new_games))
    if stale:
        Rating.objects.filter(pk__in=stale).delete()
    _ratings_update(changed)
    _ratings_insert(
        (competitor, scope, book.entry(competitor))
        for scope, book in books.items()
        for competitor in book.games
        if (competitor, scope) not in seen
    )
    return sum(len(book.games) for book in books.values())


def ratings_recompute(*, tournament_id: int | None = None) -> RecomputeReport:
    """Recompute the ratings from the stored results in the order they were rated: every
    scope, or only ``tournament_id``'s own (a family's leaderboard spans tournaments, so it
    is recomputed as a whole). Only what differs from the stored ratings and history is
    written. The scope's rating queue is then made to hold exactly its unrated results
    (no result is left both rated and waiting, none unrated and forgotten), and what
    waits is rated."""
    with transaction.atomic(), collector_paused():
        _lock()
        versions = _versions_load()
        games: dict[int, str] = dict(Tournament.objects.values_list("id", "game"))
        rated_games: dict[int, RatedGame] = {}
        entrants: dict[int, set[int]] = {}
        books: dict[Scope, Book] = {}
        history: list[HistoryRow] = []
        count = 0
        for rated_id, family, t_id, result_id, match_id, seats, rubbers in _rated_read(
            tournament_id
        ):
            count += 1
            game = rated_games.get(t_id)
            if game is None:
                game = rated_games[t_id] = RatedGame.of(games[t_id])
                entrants[t_id] = tournament_entrants(t_id)
            if game.partnership and rubbers is None:  # stored before the rubbers were
                standings_input = MatchResult.objects.values_list("standings_input", flat=True).get(
                    pk=result_id
                )
                rubbers = result_rubbers(StoredResult(result_id, match_id, standings_input))
            units = result_units(seats, rubbers or [], rated=game, entrants=entrants[t_id])
            scopes: tuple[int | None, ...] = (t_id,) if tournament_id is not None else (None, t_id)
            for scope in scopes:
                book = books.get((family, scope))
                if book is None:
                    book = books[(family, scope)] = Book()
                history_rows(
                    book.rate(units, versions),
                    rated_id=rated_id,
                    match_id=match_id,
                    family=family,
                    tournament_id=scope,
                    into=history,
                )
        written = _history_sync(history, tournament_id=tournament_id)
        ratings = _ratings_sync(books, tournament_id=tournament_id)
        _queue_reconcile(tournament_id)
    return RecomputeReport(count, len(history), ratings, ratings_update(), written)
