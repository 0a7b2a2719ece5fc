"""Where a league stands, from plain counts: the round it is in out of the rounds planned,
the games played out of the games that exist, and what comes next (games still to play in
the current round, the next round at a scheduled time, the organiser's start, or the end).
league.selectors.tournaments reads the counts; league.words.league_progress says it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class RoundCount:
    """One round that exists: its number and its games, all and finished."""

    number: int
    games: int
    finished: int


class NextStep:
    """What a league waits for (``LeagueProgress.next_step``)."""

    NOT_STARTED = "not_started"
    """No round yet: the organiser starts the first (or the schedule does)."""
    GAMES = "games"
    """Games of the current round are still to be played."""
    SCHEDULED_ROUND = "scheduled_round"
    """The current round is played; the next starts at ``next_round_at``."""
    ORGANISER_ROUND = "organiser_round"
    """The current round is played; the next starts when the organiser starts it."""
    FINISHED = "finished"
    """Every planned round is played (or the league was finished)."""


@dataclass(frozen=True, slots=True)
class LeagueProgress:
    rounds_planned: int
    """The rounds the league was made with, or the rounds that exist if more."""
    current_round: int
    """The highest round that exists (0: none yet)."""
    round_numbers: tuple[int, ...]
    """Every round that exists, in order: the standings' round columns."""
    games_played: int
    games_total: int
    games_waiting: int
    """Games of every started round not finished yet."""
    next_step: str
    next_round_at: datetime | None


def league_progress(
    *,
    rounds_planned: int,
    rounds: list[RoundCount],
    league_finished: bool,
    next_round_at: datetime | None,
) -> LeagueProgress:
    """The league's standing from its rounds' counts. ``next_round_at`` is the schedule's
    next start (None without a schedule); it only counts while a round is still to come."""
    ordered = sorted(rounds, key=lambda r: r.number)
    current = ordered[-1].number if ordered else 0
    planned = max(rounds_planned, current)
    played = sum(r.finished for r in ordered)
    total = sum(r.games for r in ordered)
    waiting = total - played
    if league_finished or (current >= planned and waiting == 0 and current > 0):
        step = NextStep.FINISHED
    elif waiting > 0:
        step = NextStep.GAMES
    elif next_round_at is not None:
        step = NextStep.SCHEDULED_ROUND
    elif current == 0:
        step = NextStep.NOT_STARTED
    else:
        step = NextStep.ORGANISER_ROUND
    return LeagueProgress(
        rounds_planned=planned,
        current_round=current,
        round_numbers=tuple(r.number for r in ordered),
        games_played=played,
        games_total=total,
        games_waiting=waiting,
        next_step=step,
        next_round_at=next_round_at if step == NextStep.SCHEDULED_ROUND else None,
    )
