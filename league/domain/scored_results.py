"""Stored match results as the standings and ratings mathematics read them: the seats and
scores of one result (``standings_input``), and for partnership play its units, become the
pure ``ScoredMatch`` records (league.domain.standings_maths) that the accumulators add up.

Tables of three, four or five (Kingen for three or five players) are individual play: every
seat is ranked, every other seat at the table is an opponent.

A game whose family says so (``Game.partnership_play``: Priffe) is ranked as partnership
play **per unit** (Priffe's rubber): each unit of a match is one result whose seats are
the unit's clockwise seating (partners opposite, as ``engine.game.PartnershipUnit`` says),
and whose scores are the players' individual points of that unit (in Priffe its settlement
plus any misère points). So a player's total is his individual points summed over units,
the partner-pair table has every pair that played a unit together, and the ridge margin
rating (league.domain.ratings_maths) is kept alongside. ``match_finish`` stores the units
in ``standings_input["rubbers"]`` (:data:`UNITS_KEY`, from ``Game.partnership_units``); a
result stored before that has them read from its game record once (league.selectors.standings,
which passes that reading in as ``rubbers_of``). A dummy seat (``Game.dummy_seat``:
Priffe's träkarl) is ``TRAKARL``.

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

Plain data in and out: the games are asked what they are (the engine), nothing is read
from the database.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.game import State
from engine.variants import load_game
from league.domain.scheduling.model import SEATS, TRAKARL, Mode, Occupant, PlayerId
from league.domain.standings_maths import (
    MAX_SEATS,
    MIN_SEATS,
    RankBy,
    ScoredMatch,
    StandingsRules,
)

RUBBER_ID_BASE = 100
"""A Priffe rubber's result id: ``match id * RUBBER_ID_BASE + rubber number`` (at most 99
rubbers a game)."""
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


def partnership_units(state: State[Any]) -> list[dict[str, Any]]:
    """The units of partnership play of a finished game, as its game gives them
    (``Game.partnership_units``: Priffe's rubbers, each with its number, the ``deals`` it
    lasted, its clockwise ``seating`` and each seat's ``points``)."""
    return state.game.partnership_units(state)


@dataclass
class StoredResult:
    """What standings and ratings read of a stored match result (not its record:
    league.selectors.standings.stored_result_of)."""

    pk: int
    match_id: int
    standings_input: dict[str, Any]
    rubbers_read: bool = False
    """The rubbers were read from the game record (a result stored before they were)."""


RubbersOf = Callable[[StoredResult], list[dict[str, Any]]]
"""How a Priffe result stored without its rubbers gets them: league.selectors.standings's
``result_rubbers_read`` (reads them from its record), or
league.services.standings.result_rubbers (also stores them)."""


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
    rubbers_of: RubbersOf,
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
    rubbers_of: RubbersOf,
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
