"""Standings kept up to date one result at a time (league/standings.py does the sums).

A tournament's standings are the state of league.standings' accumulator (and, for Priffe,
of the margin rating's), stored as small JSON *parts*, one ``StandingsPart`` row each: a
player's sheet, a pair's head-to-head, a partnership, a duplicate board. ``match_finish``
calls :func:`standings_apply_result` in the transaction that stores the ``MatchResult``:
the tournament's ``StandingsSnapshot`` row is locked (one writer per tournament), the few
parts the result touches are read, the result is added, and those parts are written back.
So the result and its effect on the standings commit together (a second completion stores
no result and changes nothing), and the cost of an update does not grow with the league.
The table is served from the parts (:func:`standings_current`), never by reading every
result again.

:func:`standings_recompute` rebuilds the parts from all the stored results (the same
integer sums, so the same parts and the same table). A snapshot whose parts' format
(``STATE_VERSION``) or rules changed, or that does not exist yet, is rebuilt the first time
it is needed; the lock makes a rebuild and a concurrent finish see each other's results
exactly once (READ COMMITTED: the rebuild reads the results after taking the lock).

Priffe is ranked as partnership play **per rubber**: each rubber of a match is one result
whose seats are the rubber's clockwise seating (partners opposite), and whose scores are the
players' individual points of that rubber (its settlement plus any misère points). So a
player's total is his individual points summed over rubbers, the partner-pair table has
every pair that played a rubber together, and the ridge margin rating (league.ratings)
is kept alongside. ``match_finish`` stores the rubbers in ``standings_input["rubbers"]``
(:func:`priffe_rubbers`); a result stored before that is read from its game record once.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from engine.errors import EngineError
from engine.game import State
from engine.record import replay_record
from engine.variants import load_game
from engine.view import spectator_view
from league.models import (
    Entry,
    MatchResult,
    StandingsPart,
    StandingsSnapshot,
    Tournament,
    TournamentFormat,
)
from league.ratings import MarginRatingAccumulator, MarginRatings
from league.scheduling.model import SEATS, TRAKARL, Mode, Occupant, PlayerId
from league.standings import MatchResult as StandingsResult
from league.standings import RankBy, Standings, StandingsAccumulator, StandingsRules

logger = logging.getLogger(__name__)

STATE_VERSION = 1
"""The format of ``StandingsSnapshot.state``; a snapshot of another version is rebuilt."""
RUBBER_ID_BASE = 100
"""A Priffe rubber's result id: ``match id * RUBBER_ID_BASE + rubber number`` (at most 99
rubbers a game)."""
MARGIN_RIDGE = 3.0
"""The ridge of the margin rating in Priffe (settlement points per rubber; luck-heavy)."""
PARTNERSHIP_FAMILIES = frozenset({"priffe"})


@functools.lru_cache(maxsize=256)
def game_family(game: str) -> str:
    return load_game(game).family


@functools.lru_cache(maxsize=256)
def _game_trakarl(game: str) -> int:
    return int(getattr(load_game(game), "trakarl", -1))


def standings_rules_of(tournament: Tournament) -> StandingsRules:
    """Priffe: partnership play (per rubber), by average; duplicate: by matchpoint
    percentage; everything else: individual play by average per game."""
    if game_family(tournament.game) in PARTNERSHIP_FAMILIES:
        return StandingsRules(mode=Mode.PARTNERSHIP)
    if tournament.format == TournamentFormat.DUPLICATE:
        return StandingsRules(mode=Mode.SOLO, rank_by=RankBy.PERCENTAGE)
    return StandingsRules(mode=Mode.SOLO)


def _rules_json(rules: StandingsRules) -> dict[str, Any]:
    return {
        "mode": rules.mode.value,
        "rank_by": rules.rank_by.value,
        "min_games": rules.min_games,
        "confidence": rules.confidence,
    }


# ---------------------------------------------------------------- results


def priffe_rubbers(state: State[Any]) -> list[dict[str, Any]]:
    """The rubbers of a finished Priffe game, from its public view: for each, its number,
    the clockwise ``seating`` (partners opposite: seating[0] and [2], [1] and [3]), the
    partner seats, the side ``totals``, each seat's ``settlement`` and each seat's
    ``points`` (the individual points of the rubber's deals: settlement and misère; they
    add up to the game's scores)."""
    rubbers = spectator_view(state.view_for(0)).public["rubbers"]
    deal_scores = list(state.deal_scores)
    out: list[dict[str, Any]] = []
    first = 0
    for rubber in rubbers:
        deals = deal_scores[first : first + int(rubber["deals"])]
        first += int(rubber["deals"])
        points = [sum(deal[seat] for deal in deals) for seat in range(len(rubber["seating"]))]
        out.append(
            {
                "number": rubber["number"],
                "seating": list(rubber["seating"]),
                "partners": [list(p) for p in rubber["partners"]],
                "totals": list(rubber["totals"]),
                "settlement": rubber["settlement"],
                "points": points,
            }
        )
    return out


def standings_input_extra(*, game: str, state: State[Any]) -> dict[str, Any]:
    """What a result's ``standings_input`` carries beyond the seats: Priffe's rubbers."""
    if game_family(game) in PARTNERSHIP_FAMILIES:
        return {"rubbers": priffe_rubbers(state)}
    return {}


@dataclass
class StoredResult:
    """What standings and ratings read of a ``MatchResult`` (not its record)."""

    pk: int
    match_id: int
    standings_input: dict[str, Any]

    @classmethod
    def of(cls, result: MatchResult) -> StoredResult:
        return cls(result.pk, result.match_id, result.standings_input)


def result_rubbers(stored: StoredResult) -> list[dict[str, Any]]:
    """A Priffe result's rubbers: stored with it, or (a result stored before they were)
    read once from its game record and stored. Empty if the record does not replay."""
    rubbers = stored.standings_input.get("rubbers")
    if rubbers is not None:
        return list(rubbers)
    record = MatchResult.objects.filter(pk=stored.pk).values_list("record", flat=True).first()
    try:
        state = replay_record(record or {})
    except (EngineError, ValueError, KeyError, TypeError) as exc:
        logger.warning("match %s: no rubbers in its result or its record: %s", stored.match_id, exc)
        return []
    rubbers = priffe_rubbers(state)
    stored.standings_input = {**stored.standings_input, "rubbers": rubbers}
    MatchResult.objects.filter(pk=stored.pk).update(standings_input=stored.standings_input)
    return rubbers


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


def game_trakarl(game: str) -> int:
    """The träkarl's seat in ``game`` (Priffe with three players), or -1."""
    return _game_trakarl(game)


def standings_results_of(
    result: StoredResult, *, game: str, entrants: Iterable[int], rules: StandingsRules
) -> list[StandingsResult]:
    """The pure results of one stored match result: one for an individual game (none for
    a table that is not of four), one per rubber for Priffe. Seats of competitors who are
    not entrants (the built-in bots that fill a table) are fillers (``None``); the Priffe
    träkarl is ``TRAKARL``."""
    entrant_set = entrants if isinstance(entrants, (set, frozenset)) else set(entrants)
    seats = result_seats(result.standings_input)
    if len(seats) != SEATS:
        return []
    occupants: list[Occupant] = [
        PlayerId(s.competitor) if s.competitor in entrant_set else None for s in seats
    ]
    round_number = int(result.standings_input.get("round", 1))
    if rules.mode is Mode.PARTNERSHIP:
        trakarl = _game_trakarl(game)
        if trakarl >= 0:
            occupants[trakarl] = TRAKARL
        return [
            StandingsResult(
                match_id=result.match_id * RUBBER_ID_BASE + int(rubber["number"]),
                round_number=round_number,
                seats=tuple(occupants[s] for s in rubber["seating"]),
                scores=tuple(int(rubber["points"][s]) for s in rubber["seating"]),
            )
            for rubber in result_rubbers(result)
        ]
    board = round_number if rules.rank_by is RankBy.PERCENTAGE else None
    return [
        StandingsResult(
            match_id=result.match_id,
            round_number=round_number,
            seats=tuple(occupants),
            scores=tuple(s.score for s in seats),
            board=board,
        )
    ]


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

    def apply(self, results: Sequence[StandingsResult]) -> None:
        for result in results:
            self.standings.apply(result)
            if self.margin is not None:
                self.margin.apply(result)

    def to_parts(self) -> dict[str, Any]:
        parts = self.standings.to_parts()
        if self.margin is not None:
            parts.update(self.margin.to_parts())
        return parts


def _part_keys(results: Sequence[StandingsResult], rules: StandingsRules) -> set[str]:
    keys: set[str] = set()
    for result in results:
        keys |= StandingsAccumulator.part_keys(result, rules.mode)
        if rules.mode is Mode.PARTNERSHIP:
            keys |= MarginRatingAccumulator.part_keys(result)
    return keys


def _parts_load(tournament_id: int, keys: Iterable[str] | None = None) -> dict[str, Any]:
    parts = StandingsPart.objects.filter(tournament_id=tournament_id)
    if keys is not None:
        parts = parts.filter(key__in=list(keys))
    return dict(parts.values_list("key", "data"))


def _parts_store(tournament_id: int, parts: Mapping[str, Any]) -> None:
    StandingsPart.objects.bulk_create(
        [StandingsPart(tournament_id=tournament_id, key=k, data=v) for k, v in parts.items()],
        update_conflicts=True,
        unique_fields=["tournament", "key"],
        update_fields=["data"],
        batch_size=1000,
    )


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


def _is_current(snapshot: StandingsSnapshot, rules: StandingsRules) -> bool:
    return snapshot.version == STATE_VERSION and snapshot.rules == _rules_json(rules)


def _snapshot_save(snapshot: StandingsSnapshot, rules: StandingsRules, *, results: int) -> None:
    snapshot.version = STATE_VERSION
    snapshot.rules = _rules_json(rules)
    snapshot.results = results
    snapshot.updated_at = timezone.now()
    snapshot.save(update_fields=["version", "rules", "results", "updated_at"])


def _rebuilt(snapshot: StandingsSnapshot, tournament: Tournament) -> Accumulators:
    """Rebuild the parts of ``snapshot`` (locked) from every stored result."""
    rules = standings_rules_of(tournament)
    accumulators = Accumulators.empty(rules)
    entrants = tournament_entrants(tournament.pk)
    count = 0
    rows = (
        MatchResult.objects.filter(match__tournament=tournament)
        .order_by("id")
        .values_list("id", "match_id", "standings_input")
    )
    for pk, match_id, standings_input in rows.iterator(chunk_size=2000):
        stored = StoredResult(pk, match_id, standings_input)
        accumulators.apply(
            standings_results_of(stored, game=tournament.game, entrants=entrants, rules=rules)
        )
        count += 1
    StandingsPart.objects.filter(tournament=tournament).delete()
    _parts_store(tournament.pk, accumulators.to_parts())
    _snapshot_save(snapshot, rules, results=count)
    return accumulators


def _standings_apply(*, match_result: MatchResult) -> None:
    tournament = match_result.match.tournament
    rules = standings_rules_of(tournament)
    snapshot = _snapshot_locked(tournament)
    if not _is_current(snapshot, rules):
        _rebuilt(snapshot, tournament)  # reads this transaction's result too
        return
    entrants = tournament_entrants(tournament.pk)
    results = standings_results_of(
        StoredResult.of(match_result), game=tournament.game, entrants=entrants, rules=rules
    )
    keys = _part_keys(results, rules)
    parts = _parts_load(tournament.pk, keys)
    holders = StandingsAccumulator.holder_keys(parts) - keys  # duplicate boards
    if holders:
        parts.update(_parts_load(tournament.pk, holders))
    accumulators = Accumulators.from_parts(rules, parts)
    accumulators.apply(results)
    _parts_store(tournament.pk, accumulators.to_parts())
    _snapshot_save(snapshot, rules, results=snapshot.results + 1)


def standings_apply_result(*, match_result: MatchResult) -> None:
    """Add a newly stored result to its tournament's standings. Call it in the
    transaction that stored ``match_result`` (``match_finish`` does): the standings and
    the result then commit together. A failure here (a bug) never stops the result from
    being stored: it is logged and the snapshot is marked to be rebuilt."""
    try:
        with transaction.atomic():
            _standings_apply(match_result=match_result)
    except Exception:
        logger.exception("standings of match %s: marked for a rebuild", match_result.match_id)
        StandingsSnapshot.objects.filter(tournament_id=match_result.match.tournament_id).update(
            version=0
        )


def standings_recompute(*, tournament: Tournament) -> int:
    """Rebuild the tournament's standings from all its stored results; returns how many."""
    with transaction.atomic():
        snapshot = _snapshot_locked(tournament)
        _rebuilt(snapshot, tournament)
        return snapshot.results


@dataclass(frozen=True)
class CurrentStandings:
    rules: StandingsRules
    standings: Standings
    margin: MarginRatings | None
    results: int


def standings_current(*, tournament: Tournament) -> CurrentStandings:
    """The standings from the stored parts (rebuilt first if missing or stale)."""
    rules = standings_rules_of(tournament)
    snapshot = StandingsSnapshot.objects.filter(tournament=tournament).first()
    if snapshot is not None and _is_current(snapshot, rules):
        accumulators = Accumulators.from_parts(rules, _parts_load(tournament.pk))
        results = snapshot.results
    else:
        with transaction.atomic():
            snapshot = _snapshot_locked(tournament)
            if _is_current(snapshot, rules):
                accumulators = Accumulators.from_parts(rules, _parts_load(tournament.pk))
            else:
                accumulators = _rebuilt(snapshot, tournament)
            results = snapshot.results
    margin = accumulators.margin.solve() if accumulators.margin is not None else None
    return CurrentStandings(rules, accumulators.standings.table(), margin, results)
