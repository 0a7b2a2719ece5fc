"""Standings written: each result added as it is stored, and rebuilds.

The stored standings (their parts, how they are read, the results they sum) are described
in league/selectors/standings.py, which reads them; this module writes them.
``match_finish`` calls :func:`standings_apply_result` in the transaction that stores the
``MatchResult``: the tournament's ``StandingsSnapshot`` row is locked (one writer per
tournament) by the very statement that counts the result, the few parts the result touches
are read (with the question which of its competitors are entrants, in the same query), the
result is added, and the parts it changed are written back: five statements with the
savepoint. So the result and its effect on the standings commit together (a second
completion stores no result and changes nothing), and the cost of an update does not grow
with the league.

:func:`standings_recompute` rebuilds the parts from all the stored results (the same
integer sums, so the same parts and the same table). A snapshot that is not current (its
parts' format ``STATE_VERSION`` or its rules changed, a failed update marked it, or it does
not exist while results do) is rebuilt on a write path, never by a read: by the next
result stored, by the ``standings_rebuild`` task that a failed update sends, by
:func:`standings_rebuild_stale` after ``migrate`` (league/apps.py) and by the
``recompute_standings`` command. The snapshot's lock makes a rebuild and a concurrent
finish see each other's results exactly once (READ COMMITTED: the rebuild reads the results
after taking the lock).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

import orjson

from engine.game import State
from league.domain.scored_results import (
    UNITS_KEY,
    StoredResult,
    game_partnership_play,
    partnership_units,
    result_seats,
    standings_results_of,
)
from league.domain.standings_maths import StandingsAccumulator, StandingsRules
from league.domain.standings_parts import STATE_VERSION, Accumulators, part_keys, rules_json
from league.models import (
    Entry,
    MatchResult,
    StandingsPart,
    StandingsSnapshot,
    Tournament,
)
from league.selectors.standings import (
    parts_load,
    result_rubbers_read,
    snapshot_is_current,
    sql_table,
    standings_computed,
    standings_rules_of,
    stored_result_of,
)
from league.services.task_outbox import task_enqueue
from league.task_names import STANDINGS_REBUILD

logger = logging.getLogger(__name__)

_ENTRANT = "entrant:"
"""The key prefix of the entrant rows in the query that reads a result's parts."""


def standings_input_extra(*, game: str, state: State[Any]) -> dict[str, Any]:
    """What a result's ``standings_input`` carries beyond the seats: the units of a
    partnership game (``Game.partnership_units``: Priffe's rubbers)."""
    if game_partnership_play(game):
        return {UNITS_KEY: partnership_units(state)}
    return {}


def result_rubbers(stored: StoredResult) -> list[dict[str, Any]]:
    """A Priffe result's rubbers: stored with it, or (a result stored before they were)
    read once from its game record and stored with it. Empty if the record does not
    replay."""
    rubbers = result_rubbers_read(stored)
    if stored.rubbers_read:
        _rubbers_store([stored])
    return rubbers


def _rubbers_store(results: Sequence[StoredResult]) -> None:
    """Store the rubbers read from the records of ``results`` (those marked ``rubbers_read``)."""
    for stored in results:
        if stored.rubbers_read:
            MatchResult.objects.filter(pk=stored.pk).update(standings_input=stored.standings_input)
            stored.rubbers_read = False


def _parts_and_entrants(
    tournament_id: int, keys: Sequence[str], competitors: Sequence[int]
) -> tuple[dict[str, Any], set[int]]:
    """The stored parts of ``keys``, and which of ``competitors`` are entrants: one query."""
    sql = (
        f'SELECT "key", "data" FROM {sql_table(StandingsPart)}'
        f' WHERE "tournament_id" = %s AND "key" IN ({", ".join(["%s"] * len(keys))})'
        f" UNION ALL SELECT '{_ENTRANT}' || CAST(\"competitor_id\" AS TEXT), NULL"
        f' FROM {sql_table(Entry)} WHERE "tournament_id" = %s'
        f' AND "competitor_id" IN ({", ".join(["%s"] * len(competitors))})'
    )
    parts: dict[str, Any] = {}
    entrants: set[int] = set()
    with connection.cursor() as cursor:
        cursor.execute(sql, [tournament_id, *keys, tournament_id, *competitors])
        for key, data in cursor.fetchall():
            if key.startswith(_ENTRANT):
                entrants.add(int(key[len(_ENTRANT) :]))
            else:
                parts[key] = orjson.loads(data)
    return parts, entrants


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def _parts_store(tournament_id: int, parts: Mapping[str, Any]) -> None:
    """Insert or replace ``parts`` (one statement)."""
    if not parts:
        return
    rows = ", ".join(["(%s, %s, %s)"] * len(parts))
    params: list[Any] = []
    for key, value in parts.items():
        params += [tournament_id, key, _dumps(value)]
    with connection.cursor() as cursor:
        cursor.execute(
            f'INSERT INTO {sql_table(StandingsPart)} ("tournament_id", "key", "data")'
            f' VALUES {rows} ON CONFLICT ("tournament_id", "key")'
            ' DO UPDATE SET "data" = excluded."data"',
            params,
        )


def _parts_replace(tournament_id: int, parts: Mapping[str, Any]) -> None:
    """Replace all the tournament's parts with ``parts``: one COPY on PostgreSQL (several
    times cheaper than an insert of a thousand rows), batched inserts elsewhere."""
    StandingsPart.objects.filter(tournament_id=tournament_id).delete()
    if connection.vendor != "postgresql":
        items = list(parts.items())
        for start in range(0, len(items), 300):
            _parts_store(tournament_id, dict(items[start : start + 300]))
        return
    lines = []
    for key, value in parts.items():
        text = _dumps(value).replace("\\", "\\\\")  # JSON has no tab or newline left
        lines.append(f"{tournament_id}\t{key}\t{text}\n")
    columns = '"tournament_id", "key", "data"'
    statement = f"COPY {sql_table(StandingsPart)} ({columns}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        copy.write("".join(lines))


def _snapshot_locked(tournament: Tournament) -> StandingsSnapshot:
    """The tournament's snapshot row, locked until the transaction ends (made if
    missing; two transactions that make it at once both end up with the one row)."""
    snapshot = StandingsSnapshot.objects.select_for_update().filter(tournament=tournament).first()
    if snapshot is None:
        StandingsSnapshot.objects.bulk_create(
            [StandingsSnapshot(tournament=tournament)], ignore_conflicts=True
        )
        snapshot = StandingsSnapshot.objects.select_for_update().get(tournament=tournament)
    return snapshot


def _snapshot_counted(tournament_id: int, rules: StandingsRules) -> bool:
    """Count one more result in the tournament's snapshot, which locks its row until the
    transaction ends. False if there is no current snapshot (none, or of another format
    or other rules): then nothing is counted and the caller rebuilds."""
    with connection.cursor() as cursor:
        cursor.execute(
            f'UPDATE {sql_table(StandingsSnapshot)} SET "results" = "results" + 1,'
            ' "updated_at" = %s WHERE "tournament_id" = %s AND "version" = %s'
            ' RETURNING "rules"',
            [timezone.now(), tournament_id, STATE_VERSION],
        )
        row = cursor.fetchone()
    if row is None:
        return False
    stored = row[0]
    return bool((orjson.loads(stored) if isinstance(stored, str) else stored) == rules_json(rules))


def _snapshot_save(snapshot: StandingsSnapshot, rules: StandingsRules, *, results: int) -> None:
    snapshot.version = STATE_VERSION
    snapshot.rules = rules_json(rules)
    snapshot.results = results
    snapshot.updated_at = timezone.now()
    snapshot.save(update_fields=["version", "rules", "results", "updated_at"])


def _rebuilt(snapshot: StandingsSnapshot, tournament: Tournament) -> Accumulators:
    """Rebuild the parts of ``snapshot`` (locked) from every stored result."""
    rules = standings_rules_of(tournament)
    accumulators, results = standings_computed(tournament, rules)
    _rubbers_store(results)
    _parts_replace(tournament.pk, accumulators.to_parts())
    _snapshot_save(snapshot, rules, results=len(results))
    return accumulators


def _standings_apply(*, match_result: MatchResult) -> None:
    tournament = match_result.match.tournament
    rules = standings_rules_of(tournament)
    if not _snapshot_counted(tournament.pk, rules):
        _rebuilt(_snapshot_locked(tournament), tournament)  # reads this result too
        return
    stored = stored_result_of(match_result)
    game = tournament.game
    competitors = sorted({s.competitor for s in result_seats(stored.standings_input)})
    # Which competitors are entrants is read with the parts: ask for the parts of both
    # cases (every competitor an entrant, none), then keep those of the real case.
    wanted = set()
    for assumed in (competitors, ()):
        assumed_results = standings_results_of(
            stored, game=game, entrants=assumed, rules=rules, rubbers_of=result_rubbers
        )
        wanted |= part_keys(assumed_results, rules)
    parts, entrants = _parts_and_entrants(tournament.pk, sorted(wanted), competitors)
    results = standings_results_of(
        stored, game=game, entrants=entrants, rules=rules, rubbers_of=result_rubbers
    )
    keys = part_keys(results, rules)
    parts = {k: v for k, v in parts.items() if k in keys}
    holders = StandingsAccumulator.holder_keys(parts) - keys  # duplicate boards
    if holders:
        parts.update(parts_load(tournament.pk, holders))
    accumulators = Accumulators.from_parts(rules, parts)
    accumulators.apply(results)
    _parts_store(
        tournament.pk,
        {k: v for k, v in accumulators.to_parts().items() if parts.get(k) != v},
    )


def standings_apply_result(*, match_result: MatchResult) -> None:
    """Add a newly stored result to its tournament's standings. Call it in the
    transaction that stored ``match_result`` (``match_finish`` does): the standings and
    the result then commit together. A failure here (a bug) never stops the result from
    being stored: it is logged, the snapshot is marked to be rebuilt and the
    ``standings_rebuild`` task is sent (with the result's transaction)."""
    try:
        with transaction.atomic():
            _standings_apply(match_result=match_result)
    except Exception:
        logger.exception("standings of match %s: marked for a rebuild", match_result.match_id)
        tournament_id = match_result.match.tournament_id
        StandingsSnapshot.objects.filter(tournament_id=tournament_id).update(version=0)
        task_enqueue(STANDINGS_REBUILD, tournament_id)


def standings_recompute(*, tournament: Tournament) -> int:
    """Rebuild the tournament's standings from all its stored results; returns how many."""
    with transaction.atomic():
        snapshot = _snapshot_locked(tournament)
        _rebuilt(snapshot, tournament)
        return snapshot.results


def standings_rebuild(*, tournament_id: int) -> int:
    """Rebuild the tournament's standings if they are not current (the ``standings_rebuild``
    task; idempotent); returns how many results they hold, 0 for no such tournament."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return 0
    rules = standings_rules_of(tournament)
    with transaction.atomic():
        snapshot = _snapshot_locked(tournament)
        if not snapshot_is_current(snapshot, rules):
            _rebuilt(snapshot, tournament)
        return snapshot.results


def standings_rebuild_stale() -> list[int]:
    """Rebuild the standings of every tournament that has results and whose snapshot is
    missing or not current (after ``migrate``: a new ``STATE_VERSION``, or standings from
    before snapshots existed); returns the tournaments' ids."""
    with_results = Tournament.objects.filter(matches__result__isnull=False).distinct()
    snapshots = {
        s.tournament_id: s
        for s in StandingsSnapshot.objects.filter(tournament__in=with_results.values("pk"))
    }
    rebuilt = []
    for tournament in with_results.order_by("pk"):
        snapshot = snapshots.get(tournament.pk)
        if snapshot is None or not snapshot_is_current(snapshot, standings_rules_of(tournament)):
            standings_rebuild(tournament_id=tournament.pk)
            rebuilt.append(tournament.pk)
    return rebuilt
