"""Where a league stands (league.domain.league_progress, league.selectors.tournaments'
``league_progress_of``, league.words.league_progress): the pure counting, then a real league
on PostgreSQL through its page and its API detail."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.test import Client
from django.utils import timezone, translation

import pytest

from league.domain.league_progress import NextStep, RoundCount, league_progress
from league.selectors.tournaments import league_progress_of
from league.services.matches import match_run
from league.services.schedules import tournament_schedule_set
from league.services.tournaments import tournament_round_start
from league.words.league_progress import progress_words
from tests.league.builders import bot_tournament

AT = datetime(2026, 11, 25, 20, 0, tzinfo=UTC)


def test_a_league_in_its_fifth_round_of_six_waits_for_its_last_game() -> None:
    rounds = [RoundCount(number=n, games=3, finished=3) for n in range(1, 5)]
    rounds.append(RoundCount(number=5, games=3, finished=2))
    progress = league_progress(
        rounds_planned=6, rounds=rounds, league_finished=False, next_round_at=AT
    )
    assert (progress.current_round, progress.rounds_planned) == (5, 6)
    assert (progress.games_played, progress.games_total, progress.games_waiting) == (14, 15, 1)
    assert progress.round_numbers == (1, 2, 3, 4, 5)
    assert progress.next_step == NextStep.GAMES
    assert progress.next_round_at is None  # not while games of this round are unplayed
    with translation.override("en"):
        assert progress_words(progress) == {
            "round": "Round 5 of 6",
            "games": "14 of 15 games played",
            "next": "Waiting for 1 game",
        }


def test_what_comes_after_a_played_round() -> None:
    played = [RoundCount(number=1, games=2, finished=2)]
    scheduled = league_progress(
        rounds_planned=2, rounds=played, league_finished=False, next_round_at=AT
    )
    assert scheduled.next_step == NextStep.SCHEDULED_ROUND
    assert scheduled.next_round_at == AT
    by_hand = league_progress(
        rounds_planned=2, rounds=played, league_finished=False, next_round_at=None
    )
    assert by_hand.next_step == NextStep.ORGANISER_ROUND
    over = league_progress(rounds_planned=1, rounds=played, league_finished=False, next_round_at=AT)
    assert over.next_step == NextStep.FINISHED
    assert over.next_round_at is None
    none_yet = league_progress(
        rounds_planned=3, rounds=[], league_finished=False, next_round_at=None
    )
    assert (none_yet.next_step, none_yet.current_round, none_yet.games_total) == (
        NextStep.NOT_STARTED,
        0,
        0,
    )
    with translation.override("en"):
        assert progress_words(by_hand)["next"] == "Round 2 starts when the organiser starts it"
        assert progress_words(scheduled, UTC)["next"] == (
            "Round 2 starts Wed 25 Nov 2026, 20:00 UTC"
        )
        assert progress_words(none_yet)["round"] == "No round started yet (3 planned)"
    with translation.override("nl"):
        assert progress_words(by_hand)["next"] != "Round 2 starts when the organiser starts it"
    with translation.override("sv"):
        assert progress_words(over)["next"] != "Every round is played: the league is over."


@pytest.mark.django_db(transaction=True)  # committed: each write moves the read cache on
def test_a_real_league_counts_its_rounds_and_games_on_its_page_and_in_the_api() -> None:
    tournament, organiser = bot_tournament(entrants=8, rounds=3)
    assert league_progress_of(tournament=tournament).next_step == NextStep.NOT_STARTED

    round_ = tournament_round_start(actor=organiser, tournament=tournament)
    games = list(round_.matches.order_by("pk"))
    assert len(games) == 2
    assert match_run(match_id=games[0].pk, worker="test").outcome == "finished"

    progress = league_progress_of(tournament=tournament)
    assert (progress.current_round, progress.rounds_planned) == (1, 3)
    assert (progress.games_played, progress.games_total, progress.games_waiting) == (1, 2, 1)
    assert progress.next_step == NextStep.GAMES

    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    page = client.get(f"/leagues/{tournament.pk}/").content.decode()
    assert "Round 1 of 3" in page
    assert "1 of 2 games played" in page
    assert "Waiting for 1 game" in page
    assert 'data-key="round-1">R1<' in page  # the started round has its column, results or not
    assert 'data-key="round-2"' not in page
    standing = client.get(f"/api/tournaments/{tournament.pk}/").json()["standing"]
    assert standing["words"] == {
        "round": "Round 1 of 3",
        "games": "1 of 2 games played",
        "next": "Waiting for 1 game",
    }
    assert (standing["games_played"], standing["games_total"], standing["round_numbers"]) == (
        1,
        2,
        [1],
    )

    assert match_run(match_id=games[1].pk, worker="test").outcome == "finished"
    assert league_progress_of(tournament=tournament).next_step == NextStep.ORGANISER_ROUND
    tournament_schedule_set(actor=organiser, tournament=tournament, interval_minutes=60)
    scheduled = league_progress_of(tournament=tournament)
    assert scheduled.next_step == NextStep.SCHEDULED_ROUND
    assert scheduled.next_round_at is not None
    now = timezone.now()
    assert now - timedelta(seconds=1) <= scheduled.next_round_at <= now + timedelta(minutes=61)
    signed_in = Client(HTTP_ACCEPT_LANGUAGE="en")  # the shared part: the schedule moved it on
    signed_in.force_login(organiser)
    assert "Round 2 starts " in signed_in.get(f"/leagues/{tournament.pk}/").content.decode()
