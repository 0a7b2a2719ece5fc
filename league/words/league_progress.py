"""Where a league stands, in words a player reads at a glance (league.domain.league_progress
gives the facts): ``Round 5 of 6``, ``14 of 15 games played``, and what is next and when
(``Waiting for 1 game``, ``Round 6 starts Tue 25 Nov 2026, 20:00 UTC``)."""

from __future__ import annotations

from datetime import tzinfo

from django.utils.translation import gettext, ngettext

from league.domain.league_progress import LeagueProgress, NextStep
from league.words.games_and_times import moment_words


def round_words(progress: LeagueProgress) -> str:
    """``Round 5 of 6``; ``No round played yet (6 planned)`` before the first."""
    if progress.current_round == 0:
        return gettext("No round started yet (%(planned)s planned)") % {
            "planned": progress.rounds_planned
        }
    return gettext("Round %(current)s of %(planned)s") % {
        "current": progress.current_round,
        "planned": progress.rounds_planned,
    }


def games_words(progress: LeagueProgress) -> str:
    """``14 of 15 games played``."""
    return ngettext(
        "%(played)s of %(total)s game played",
        "%(played)s of %(total)s games played",
        progress.games_total,
    ) % {"played": progress.games_played, "total": progress.games_total}


def next_words(progress: LeagueProgress, zone: tzinfo | None = None) -> str:
    """What the league waits for, and when where it is known."""
    following = progress.current_round + 1
    if progress.next_step == NextStep.FINISHED:
        return gettext("Every round is played: the league is over.")
    if progress.next_step == NextStep.GAMES:
        return ngettext(
            "Waiting for %(count)s game",
            "Waiting for %(count)s games",
            progress.games_waiting,
        ) % {"count": progress.games_waiting}
    if progress.next_step == NextStep.SCHEDULED_ROUND and progress.next_round_at is not None:
        return gettext("Round %(number)s starts %(moment)s") % {
            "number": following,
            "moment": moment_words(progress.next_round_at, zone),
        }
    return gettext("Round %(number)s starts when the organiser starts it") % {"number": following}


def progress_words(progress: LeagueProgress, zone: tzinfo | None = None) -> dict[str, str]:
    """The three lines, by name (the page and the API's ``standing``)."""
    return {
        "round": round_words(progress),
        "games": games_words(progress),
        "next": next_words(progress, zone),
    }
