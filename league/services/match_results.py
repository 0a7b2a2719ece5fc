"""What a finished league match stores, assembled in one place.

``match_result_assemble`` turns the played engine state, the match's seat rows and the
bots' reports into everything the finishing transaction writes: the game record, each
seat's outcome and faults, the standings input and the faults kept for the bots' authors.
It writes nothing; league.services.matches stores what it is given (``_result_write``)
and hands the result to the standings, the ratings and the notifications.

A seat's outcome is decided by its first fault: a person's missed deadlines are on the
seat's row already, a bot's faults come from its report (``seat_outcome_and_faults``,
also used when a run stops at a person's turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bots.models import BotFault
from bots.seats import SeatReport
from engine.game import State
from engine.record import record_from_state
from league.models import Match, MatchSeat, SeatOutcome
from league.services.standings import standings_input_extra

BOT_FAULT_LOG_CHARS = 8000
"""The end of a seat's log kept with each of its faults for the bot's author."""


@dataclass(frozen=True)
class SeatChange:
    """A seat row whose outcome or faults the finished match changes."""

    row_id: int
    outcome: str
    faults: list[dict[str, Any]]


@dataclass(frozen=True)
class ResultToStore:
    """Everything the finishing transaction writes for one match (see the module)."""

    scores: list[int]
    outcomes: list[str]
    """Per seat: ok, timeout, crash, ..., forfeit."""
    faults: list[dict[str, Any]]
    """Every fault of the match, each with its ``seat``."""
    record: dict[str, Any]
    """The engine's game record with the league's seats and meta."""
    standings_input: dict[str, Any]
    seat_changes: list[SeatChange]
    bot_faults: list[BotFault]
    """Unsaved rows: the uploaded bots' faults for their authors."""


def seat_outcome_and_faults(row: MatchSeat, report: SeatReport | None) -> tuple[str, list[Any]]:
    """A seat's outcome and faults: those stored on its row (a person's missed deadlines,
    a bot's faults before a person's turn) followed by its bot's report of this run. A
    person's seat (no bot version) keeps its row's."""
    outcome = str(row.outcome)
    faults = list(row.faults)
    if report is not None and row.competitor.bot_version is not None:
        faults += [fault.to_json() for fault in report.faults]
        if outcome == SeatOutcome.OK:
            outcome = str(report.outcome.value)
    return outcome, faults


def match_result_assemble(
    *,
    match: Match,
    rows: Sequence[MatchSeat],
    state: State[Any],
    times: dict[int, float],
    reports: Sequence[SeatReport | None],
    finished: datetime,
) -> ResultToStore:
    """The record, outcomes, faults and standings input of ``match`` played to its end
    (``state`` terminal); ``rows`` are its seats in order with their competitors and bot
    versions, ``reports`` the bots' reports by seat (None for a person's seat)."""
    scores = state.scores()
    outcomes: list[str] = []
    faults: list[dict[str, Any]] = []
    record_seats: list[dict[str, Any]] = []
    standings: list[dict[str, Any]] = []
    seat_changes: list[SeatChange] = []
    bot_faults: list[BotFault] = []
    for row in rows:
        report = reports[row.seat] if row.seat < len(reports) else None
        outcome, seat_faults = seat_outcome_and_faults(row, report)
        outcomes.append(outcome)
        faults += [{"seat": row.seat, **f} for f in seat_faults]
        version = row.competitor.bot_version
        if version is not None and not version.is_builtin:
            log = (report.log if report is not None else "")[-BOT_FAULT_LOG_CHARS:]
            bot_faults += [
                BotFault(
                    version=version,
                    match_id=match.pk,
                    seat=row.seat,
                    cause=str(f.get("cause", "")),
                    message=str(f.get("message", "")),
                    log=log,
                )
                for f in seat_faults
            ]
        if outcome != row.outcome or seat_faults != row.faults:
            seat_changes.append(SeatChange(row_id=row.pk, outcome=outcome, faults=seat_faults))
        record_seats.append(
            {
                "name": row.competitor.name,
                "player": version.label if version is not None else "person",
                "competitor": row.competitor_id,
                "outcome": outcome,
            }
        )
        standings.append(
            {
                "seat": row.seat,
                "competitor": row.competitor_id,
                "score": scores[row.seat],
                "outcome": outcome,
            }
        )
    meta: dict[str, Any] = {
        "match": match.pk,
        "tournament": match.tournament_id,
        "round": match.round.number,
        "table": match.table,
        "finished": finished.isoformat(),
    }
    if faults:
        meta["faults"] = faults
    return ResultToStore(
        scores=scores,
        outcomes=outcomes,
        faults=faults,
        record=record_from_state(state, seats=record_seats, times=times, meta=meta),
        standings_input={
            "tournament": match.tournament_id,
            "round": match.round.number,
            "table": match.table,
            "game": match.game,
            "seats": standings,
            **standings_input_extra(game=match.game, state=state),  # Priffe: the rubbers
        },
        seat_changes=seat_changes,
        bot_faults=bot_faults,
    )
