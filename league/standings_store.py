"""The stored standings of a tournament, read: their parts, the results they sum, the table.

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

Tables of three, four or five (Kingen for three or five players) are individual play: every
seat is ranked, every other seat at the table is an opponent.

A game whose family says so (``Game.partnership_play``: Priffe) is ranked as partnership
play **per unit** (Priffe's rubber): each unit of a match is one result whose seats are
the unit's clockwise seating (partners opposite), and whose scores are the players'
individual points of that unit (in Priffe its settlement plus any misère points). So a
player's total is his individual points summed over units, the partner-pair table has
every pair that played a unit together, and the ridge margin rating
(league.domain.ratings_maths) is kept alongside. ``match_finish`` stores the units in
``standings_input["rubbers"]`` (:data:`UNITS_KEY`, from ``Game.partnership_units``); a
result stored before that is read from its game record once. A dummy seat
(``Game.dummy_seat``: Priffe's träkarl) is ``TRAKARL``.

**Duplicate** tournaments (one seed for every table of a round) rank by matchpoint
percentage. Individual games compare each hand of the round's deal (seat ``h`` holds hand
``h`` at every table). Priffe compares each **side of a rubber** with the same side of the
same rubber at the other tables, both partners getting the side's matchpoints, but only
where the rubber was dealt the same cards: the same seed deals the same sequence of deals,
so rubber ``k`` of two tables holds the same cards when the rubbers before it lasted the
same number of deals at both. The board of a rubber is therefore the round and the
lengths of the rubbers before it (``"7"`` for rubber 1 of round 7, ``"7.5"`` for rubber 2
after a rubber of 5 deals, ``"7.5.9"`` ...); a rubber dealt differently from every other
table is compared with nobody (no matchpoints, no top). The first rubber of a round is
always compared across all the round's tables.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection

import orjson

from engine.errors import EngineError
from engine.game import State
from engine.record import replay_record
from engine.variants import load_game
from league.domain.ratings_maths import MarginRatingAccumulator, MarginRatings
from league.domain.scheduling.model import SEATS, TRAKARL, Mode, Occupant, PlayerId
from league.domain.standings_maths import (
    MAX_SEATS,
    MIN_SEATS,
    RankBy,
    ScoredMatch,
    Standings,
    StandingsAccumulator,
    StandingsRules,
)
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

logger = logging.getLogger(__name__)

STATE_VERSION = 2
"""The format of the parts; a snapshot of another version is rebuilt. 2: per-round points
in blocks of rounds (``r:P:B``), opponents read from the head-to-head records, duplicate
boards as labels, duplicate Priffe by matchpoints."""
RUBBER_ID_BASE = 100
"""A Priffe rubber's result id: ``match id * RUBBER_ID_BASE + rubber number`` (at most 99
rubbers a game)."""
MARGIN_RIDGE = 3.0
"""The ridge of the margin rating in Priffe (settlement points per rubber; luck-heavy)."""
UNITS_KEY = "rubbers"
"""The key of a partnership game's units (``Game.partnership_units``) in a result's
``standings_input``: the name Priffe's rubbers were first stored under, kept so that stored
results read as they are."""
BOARD_LABEL_MAX = 40
"""The longest Priffe board label kept as it is (a ``StandingsPart`` key has 60 characters)."""


@functools.lru_cache(maxsize=256)
def game_partnership_play(game: str) -> bool:
    """Whether ``game`` is ranked as partnership play per unit (the game says so)."""
    return load_game(game).partnership_play


@functools.lru_cache(maxsize=256)
def game_scoring_unit(game: str) -> str:
    """What one ranked result of ``game`` is called: ``game``, or its partnership unit
    (Priffe: ``rubber``)."""
    return load_game(game).scoring_unit.singular


@functools.lru_cache(maxsize=256)
def game_dummy_seat(game: str) -> int:
    """The dummy's seat in ``game`` (Priffe's träkarl when three play), or -1."""
    return load_game(game).dummy_seat


def standings_rules_of(tournament: Tournament) -> StandingsRules:
    """Partnership play per unit where the game says so (Priffe: per rubber); individual
    games otherwise. Ranked by matchpoint percentage in a duplicate tournament, by average
    per game otherwise."""
    duplicate = tournament.format == TournamentFormat.DUPLICATE
    rank_by = RankBy.PERCENTAGE if duplicate else RankBy.AVERAGE
    if game_partnership_play(tournament.game):
        return StandingsRules(mode=Mode.PARTNERSHIP, rank_by=rank_by)
    return StandingsRules(mode=Mode.SOLO, rank_by=rank_by)


def rules_json(rules: StandingsRules) -> dict[str, Any]:
    return {
        "mode": rules.mode.value,
        "rank_by": rules.rank_by.value,
        "min_games": rules.min_games,
        "confidence": rules.confidence,
    }


# ---------------------------------------------------------------- results


def partnership_units(state: State[Any]) -> list[dict[str, Any]]:
    """The units of partnership play of a finished game, as its game gives them
    (``Game.partnership_units``: Priffe's rubbers, each with its number, the ``deals`` it
    lasted, its clockwise ``seating`` and each seat's ``points``)."""
    return state.game.partnership_units(state)


@dataclass
class StoredResult:
    """What standings and ratings read of a ``MatchResult`` (not its record)."""

    pk: int
    match_id: int
    standings_input: dict[str, Any]
    rubbers_read: bool = False
    """The rubbers were read from the game record (a result stored before they were)."""

    @classmethod
    def of(cls, result: MatchResult) -> StoredResult:
        return cls(result.pk, result.match_id, result.standings_input)


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


RubbersOf = Callable[[StoredResult], list[dict[str, Any]]]
"""How a Priffe result stored without its rubbers gets them: :func:`result_rubbers_read`
(reads), or league.services.standings.result_rubbers (also stores them)."""


@dataclass(frozen=True)
class ResultSeat:
    seat: int
    competitor: int
    score: int


def result_seats(standings_input: Mapping[str, Any]) -> list[ResultSeat]:
    return [
        ResultSeat(int(s["seat"]), int(s["competitor"]), int(s["score"]))
        for s in sorted(standings_input["seats"], key=lambda s: int(s["seat"]))
    ]


def _number(rubber: Mapping[str, Any]) -> int:
    return int(rubber["number"])


def rubber_boards(round_number: int, rubbers: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """The duplicate board of each rubber of a Priffe match, in the order of ``rubbers``
    (by number): the round and the number of deals of every rubber before it (the same
    seed deals rubber ``k`` the same cards at two tables exactly when those agree).
    ``None`` from the first rubber whose predecessor has no ``deals`` stored (a result
    stored before they were): compared with nobody. A label longer than
    ``BOARD_LABEL_MAX`` (a game of many rubbers) is the round and a digest of it, so that a
    part's key stays short."""
    boards: list[str | None] = []
    label: str | None = str(round_number)
    for rubber in rubbers:
        if label is not None and len(label) > BOARD_LABEL_MAX:  # a long game: a digest
            digest = hashlib.sha256(label.encode()).hexdigest()[:24]
            boards.append(f"{round_number}.{digest}")
        else:
            boards.append(label)
        deals = rubber.get("deals")
        label = None if label is None or deals is None else f"{label}.{int(deals)}"
    return boards


def standings_results_of(
    result: StoredResult,
    *,
    game: str,
    entrants: Iterable[int],
    rules: StandingsRules,
    rubbers_of: RubbersOf = result_rubbers_read,
) -> list[ScoredMatch]:
    """The pure results of one stored match result: one for an individual game (a table
    of three to five), one per rubber for Priffe (a table of four). Seats of competitors
    who are not entrants (the built-in bots that fill a table) are fillers (``None``); the
    Priffe träkarl is ``TRAKARL``. In a duplicate tournament the results carry their board:
    the round (individual games; seat ``h`` holds hand ``h``) or :func:`rubber_boards`."""
    entrant_set = entrants if isinstance(entrants, (set, frozenset)) else set(entrants)
    return [
        ScoredMatch(
            match_id=match_id, round_number=round_number, seats=seats, scores=scores, board=board
        )
        for match_id, round_number, seats, scores, board in result_fields(
            result, game=game, entrants=entrant_set, rules=rules, rubbers_of=rubbers_of
        )
    ]


ResultFields = tuple[int, int, tuple[Occupant, ...], tuple[int, ...], int | str | None]
"""A pure result's fields: match id, round, seats, scores, board (as
league.domain.standings_maths.ScoredMatch holds them)."""


def result_fields(
    result: StoredResult,
    *,
    game: str,
    entrants: set[int] | frozenset[int],
    rules: StandingsRules,
    rubbers_of: RubbersOf = result_rubbers_read,
) -> list[ResultFields]:
    """:func:`standings_results_of` as the fields of its results (a recomputation adds
    them to the accumulators without building the records). Written for speed: a
    recomputation calls it for every stored result."""
    standings_input = result.standings_input
    seats = standings_input["seats"]
    n = len(seats)
    partnership = rules.mode is Mode.PARTNERSHIP
    if not (n == SEATS if partnership else MIN_SEATS <= n <= MAX_SEATS):
        return []
    occupants: list[Occupant] = [None] * n
    scores = [0] * n
    for seat in seats:  # seats are numbered 0 to n - 1 (unique per match)
        number = int(seat["seat"])
        competitor = int(seat["competitor"])
        if competitor in entrants:
            occupants[number] = PlayerId(competitor)
        scores[number] = int(seat["score"])
    round_number = int(standings_input.get("round", 1))
    duplicate = rules.rank_by is RankBy.PERCENTAGE
    if not partnership:
        hand_board = round_number if duplicate else None
        return [(result.match_id, round_number, tuple(occupants), tuple(scores), hand_board)]
    dummy = game_dummy_seat(game)
    if dummy >= 0:
        occupants[dummy] = TRAKARL
    rubbers = standings_input.get(UNITS_KEY)
    if rubbers is None:
        rubbers = rubbers_of(result)
    boards: Sequence[str | None] = [None] * len(rubbers)
    if duplicate:  # the boards follow the order of the rubbers
        rubbers = sorted(rubbers, key=_number)
        boards = rubber_boards(round_number, rubbers)
    out: list[ResultFields] = []
    base = result.match_id * RUBBER_ID_BASE
    for rubber, board in zip(rubbers, boards, strict=True):
        a, b, c, d = rubber["seating"]
        points = rubber["points"]
        out.append(
            (
                base + int(rubber["number"]),
                round_number,
                (occupants[a], occupants[b], occupants[c], occupants[d]),
                (int(points[a]), int(points[b]), int(points[c]), int(points[d])),
                board,
            )
        )
    return out


def tournament_entrants(tournament_id: int) -> set[int]:
    return set(
        Entry.objects.filter(tournament_id=tournament_id).values_list("competitor_id", flat=True)
    )


# ---------------------------------------------------------------- the stored parts


@dataclass
class Accumulators:
    """The standings accumulator and, for partnership play, the margin rating's; built
    from stored parts (all of them, or the ones a result touches)."""

    rules: StandingsRules
    standings: StandingsAccumulator
    margin: MarginRatingAccumulator | None
    """The ridge margin rating, for partnership play (Priffe)."""

    @classmethod
    def empty(cls, rules: StandingsRules) -> Accumulators:
        return cls.from_parts(rules, {})

    @classmethod
    def from_parts(cls, rules: StandingsRules, parts: Mapping[str, Any]) -> Accumulators:
        standings = {k: v for k, v in parts.items() if not k.startswith("m")}
        margin = None
        if rules.mode is Mode.PARTNERSHIP:
            margin = MarginRatingAccumulator.from_parts(
                rules.mode,
                {k: v for k, v in parts.items() if k.startswith("m")},
                ridge=MARGIN_RIDGE,
            )
        return cls(rules, StandingsAccumulator.from_parts(rules, standings), margin)

    def apply(self, results: Sequence[ScoredMatch]) -> None:
        for result in results:
            self.standings.apply(result)
            if self.margin is not None:
                self.margin.apply(result)

    def add(self, results: Sequence[ResultFields]) -> None:
        """:meth:`apply` of results given by their fields (:func:`result_fields`)."""
        standings = self.standings.add
        margin = self.margin.add if self.margin is not None else None
        for match_id, round_number, seats, scores, board in results:
            standings(match_id, round_number, seats, scores, board)
            if margin is not None:
                margin(match_id, seats, scores)

    def to_parts(self) -> dict[str, Any]:
        parts = self.standings.to_parts()
        if self.margin is not None:
            parts.update(self.margin.to_parts())
        return parts


def part_keys(results: Sequence[ScoredMatch], rules: StandingsRules) -> set[str]:
    keys: set[str] = set()
    for result in results:
        keys |= StandingsAccumulator.part_keys(result, rules.mode)
        if rules.mode is Mode.PARTNERSHIP:
            keys |= MarginRatingAccumulator.part_keys(result)
    return keys


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
