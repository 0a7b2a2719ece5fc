"""The stored standings of a tournament, read: their parts, the results they sum, the table
(``tournament_standings``, as the API and the pages show it).

league/domain/standings_maths.py does the sums; league/services/standings.py writes the
parts (this module never writes).

A tournament's standings are the state of league.domain.standings_maths' accumulator (and,
for Priffe, of the margin rating's), stored as small JSON *parts*, one ``StandingsPart`` row each: a
player's sheet, his points in a block of 64 rounds, a pair's head-to-head, a partnership,
a duplicate board, a row of the margin rating. ``match_finish`` calls
:func:`standings_apply_result` in the transaction that stores the ``MatchResult``: the
tournament's ``StandingsSnapshot`` row is locked (one writer per tournament) by the very
statement that counts the result, the few parts the result touches are read (with the
question which of its competitors are entrants, in the same query), the result is added,
and the parts it changed are written back: five statements with the savepoint. So the
result and its effect on the standings commit together (a second completion stores no
result and changes nothing), and the cost of an update does not grow with the league: no
part grows with the number of rounds. The table is served from the parts
(:func:`standings_current`), never by reading every result again.

A read never writes. A snapshot whose parts' format (``STATE_VERSION``) or rules changed,
that a failed update marked, or that does not exist yet while results do, is rebuilt on a
write path (league/services/standings.py: the next result, the ``standings_rebuild`` task
that a failed update sends, ``migrate``'s post-migrate step, the ``recompute_standings``
command); until then :func:`standings_current` sums the stored results in memory
(:func:`standings_computed`), so pages show the right table meanwhile.

How a stored result becomes the pure records the standings add up (individual play, the
units of partnership play, the boards of duplicate play) is league/domain/scored_results.py;
what the parts are, league/domain/standings_parts.py.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection

import orjson

from engine.errors import EngineError
from engine.record import replay_record
from league.domain.ratings_maths import MarginRatings
from league.domain.scheduling.model import Mode
from league.domain.scored_results import (
    UNITS_KEY,
    RubbersOf,
    StoredResult,
    game_partnership_play,
    game_scoring_unit,
    partnership_units,
    result_fields,
)
from league.domain.standings_maths import RankBy, Standings, StandingsRules
from league.domain.standings_parts import STATE_VERSION, Accumulators, rules_json
from league.domain.standings_table import standings_json
from league.garbage_collector import collector_paused
from league.models import (
    Entry,
    Match,
    MatchResult,
    StandingsPart,
    StandingsSnapshot,
    Tournament,
    TournamentFormat,
)
from league.selectors.tournaments import tournament_progress

logger = logging.getLogger(__name__)


def standings_rules_of(tournament: Tournament) -> StandingsRules:
    """Partnership play per unit where the game says so (Priffe: per rubber); individual
    games otherwise. Ranked by matchpoint percentage in a duplicate tournament, by average
    per game otherwise."""
    duplicate = tournament.format == TournamentFormat.DUPLICATE
    rank_by = RankBy.PERCENTAGE if duplicate else RankBy.AVERAGE
    if game_partnership_play(tournament.game):
        return StandingsRules(mode=Mode.PARTNERSHIP, rank_by=rank_by)
    return StandingsRules(mode=Mode.SOLO, rank_by=rank_by)


# ---------------------------------------------------------------- results


def stored_result_of(result: MatchResult) -> StoredResult:
    """What standings and ratings read of a stored ``MatchResult`` (not its record)."""
    return StoredResult(result.pk, result.match_id, result.standings_input)


def result_rubbers_read(stored: StoredResult) -> list[dict[str, Any]]:
    """A partnership result's units (Priffe's rubbers): stored with it, or (a result stored
    before they were)
    read from its game record into ``stored`` (marked ``rubbers_read``; nothing is written:
    league.services.standings.result_rubbers stores them). Empty if the record does not
    replay."""
    rubbers = stored.standings_input.get(UNITS_KEY)
    if rubbers is not None:
        return list(rubbers)
    record = MatchResult.objects.filter(pk=stored.pk).values_list("record", flat=True).first()
    try:
        state = replay_record(record or {})
    except (EngineError, ValueError, KeyError, TypeError) as exc:
        logger.warning("match %s: no rubbers in its result or its record: %s", stored.match_id, exc)
        return []
    rubbers = partnership_units(state)
    stored.standings_input = {**stored.standings_input, UNITS_KEY: rubbers}
    stored.rubbers_read = True
    return rubbers


def tournament_entrants(tournament_id: int) -> set[int]:
    return set(
        Entry.objects.filter(tournament_id=tournament_id).values_list("competitor_id", flat=True)
    )


# ---------------------------------------------------------------- the stored parts


def sql_table(model: Any) -> str:
    return str(connection.ops.quote_name(model._meta.db_table))


def parts_load(tournament_id: int, keys: Iterable[str] | None = None) -> dict[str, Any]:
    """The stored parts (those of ``keys``, or all), decoded."""
    sql = f'SELECT "key", "data" FROM {sql_table(StandingsPart)} WHERE "tournament_id" = %s'
    params: list[Any] = [tournament_id]
    if keys is not None:
        wanted = list(keys)
        if not wanted:
            return {}
        sql += f' AND "key" IN ({", ".join(["%s"] * len(wanted))})'
        params += wanted
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {key: orjson.loads(data) for key, data in cursor.fetchall()}


def snapshot_is_current(snapshot: StandingsSnapshot, rules: StandingsRules) -> bool:
    return snapshot.version == STATE_VERSION and snapshot.rules == rules_json(rules)


def stored_results(tournament_id: int) -> Iterable[StoredResult]:
    """Every stored result of the tournament, in no particular order (the sums and the
    parts do not depend on it): only the columns standings read, the JSON decoded by orjson
    one result at a time (the record is never read)."""
    sql = (
        f'SELECT r."id", r."match_id", r."standings_input" FROM {sql_table(MatchResult)} r'
        f' INNER JOIN {sql_table(Match)} m ON m."id" = r."match_id" WHERE m."tournament_id" = %s'
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [tournament_id])
        rows = cursor.fetchall()  # text only: decoded one at a time below
    for pk, match_id, standings_input in rows:
        yield StoredResult(pk, match_id, orjson.loads(standings_input))


def standings_computed(
    tournament: Tournament, rules: StandingsRules, *, rubbers_of: RubbersOf = result_rubbers_read
) -> tuple[Accumulators, list[StoredResult]]:
    """The accumulators of every stored result of ``tournament``, summed in memory (nothing
    is written), and the results read (those with ``rubbers_read`` got their rubbers from
    their records)."""
    accumulators = Accumulators.empty(rules)
    entrants = tournament_entrants(tournament.pk)
    game = tournament.game
    results: list[StoredResult] = []
    with collector_paused():
        add = accumulators.add
        for stored in stored_results(tournament.pk):
            add(
                result_fields(
                    stored, game=game, entrants=entrants, rules=rules, rubbers_of=rubbers_of
                )
            )
            results.append(stored)
    return accumulators, results


@dataclass(frozen=True)
class CurrentStandings:
    rules: StandingsRules
    standings: Standings
    margin: MarginRatings | None
    results: int


def standings_current(*, tournament: Tournament) -> CurrentStandings:
    """The standings from the stored parts. Read only: if the parts are missing or stale
    (another format or rules, a failed update), the table is summed from every stored
    result in memory (:func:`standings_computed`) until a write path rebuilds the parts
    (league.services.standings)."""
    rules = standings_rules_of(tournament)
    snapshot = StandingsSnapshot.objects.filter(tournament=tournament).first()
    if snapshot is not None and snapshot_is_current(snapshot, rules):
        accumulators = Accumulators.from_parts(rules, parts_load(tournament.pk))
        results = snapshot.results
    else:
        accumulators, read = standings_computed(tournament, rules)
        results = len(read)
    margin = accumulators.margin.solve() if accumulators.margin is not None else None
    return CurrentStandings(rules, accumulators.standings.table(), margin, results)


def tournament_standings(*, tournament: Tournament) -> dict[str, Any]:
    """The standings of a tournament from its stored standings (league.services.standings,
    kept up to date as each result is stored; docs/api.md has the shape).

    Rows: games, total, average, wins, per-round points, strength of opposition, duplicate
    matchpoints and percentage, and for each ranked row whether its lead over the next is
    statistically meaningful (``next_gap``, the confidence marker). Entrants without a game
    are listed last, unranked; filler bots are not entrants and are not listed.

    A game of partnership play is ranked per unit (``unit``: what the game calls it,
    Priffe's "rubber"; "game" otherwise): a player's total is his individual points
    summed over units, and ``partner_pairs`` has every pair that played a unit
    together. ``head_to_head`` has every pair that met at a table.
    """
    names = dict(
        Entry.objects.filter(tournament=tournament).values_list("competitor_id", "competitor__name")
    )
    current = standings_current(tournament=tournament)
    partnership = current.rules.mode.value == "partnership"
    progress = tournament_progress(tournament_id=tournament.pk)
    return {
        "tournament": tournament.pk,
        **progress,
        "mode": "partnership" if partnership else "individual",
        "unit": game_scoring_unit(tournament.game) if partnership else "game",
        "rank_by": current.rules.rank_by.value,
        "min_games": current.rules.min_games,
        "confidence": current.rules.confidence,
        "results": current.results,
        **standings_json(current.standings, names),
    }
