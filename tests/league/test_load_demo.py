"""The demo: a club, a dozen built-in bots of three strengths, two leagues, their first
rounds queued; a second run changes nothing. The leagues keep playing: a round on their
schedule once the previous one is over, a new season when one ends (the beat entries'
tasks called directly). "Play now" seats a person with three demo bots."""

from __future__ import annotations

from io import StringIO

from django.contrib.auth.models import User
from django.core.management import call_command

import pytest
from django_celery_beat.models import PeriodicTask

from league.models import (
    Competitor,
    Entry,
    Match,
    MatchStatus,
    Round,
    RoundSchedule,
    Tournament,
    TournamentStatus,
)
from league.services.demo import (
    DEMO_ROUND_MINUTES,
    DEMO_SEASONS_TASK,
    DEMO_TABLE_BOTS,
    demo_table_open,
)
from league.services.matches import match_run
from league.services.tournaments import tournament_finish
from league.tasks import demo_seasons_renew, tournament_round_start_scheduled


@pytest.mark.django_db
def test_load_demo_is_idempotent_and_its_matches_play() -> None:
    call_command("load_demo", stdout=StringIO())
    counts = (Tournament.objects.count(), Round.objects.count(), Match.objects.count())
    assert counts == (2, 2, 6)  # 12 bots: three tables of four per round
    assert Competitor.objects.count() == 12
    call_command("load_demo", stdout=StringIO())
    assert (Tournament.objects.count(), Round.objects.count(), Match.objects.count()) == counts
    games = set(Tournament.objects.values_list("game", flat=True))
    assert games == {"kingen", "priffe(rubbers_per_game=2)"}
    match = Match.objects.filter(game="kingen").first()
    assert match is not None
    assert match_run(match_id=match.pk, worker="test").outcome == "finished"


def kingen_matches_played(tournament: Tournament) -> None:
    for match in Match.objects.filter(tournament=tournament, status=MatchStatus.QUEUED):
        assert match_run(match_id=match.pk, worker="test").outcome == "finished"


@pytest.mark.django_db
def test_the_demo_leagues_keep_playing_round_after_round_and_season_after_season() -> None:
    call_command("load_demo", stdout=StringIO())
    kingen = Tournament.objects.get(name="Demo Kingen league")
    priffe = Tournament.objects.get(name="Demo Priffe rotating partners")
    for league in (kingen, priffe):
        schedule = RoundSchedule.objects.select_related("periodic_task").get(tournament=league)
        assert schedule.interval_minutes == DEMO_ROUND_MINUTES
        assert schedule.periodic_task.enabled
    seasons = PeriodicTask.objects.get(name=DEMO_SEASONS_TASK)
    assert (seasons.task, seasons.enabled) == ("league.tasks.demo_seasons_renew", True)
    assert seasons.interval is not None
    assert seasons.interval.every == DEMO_ROUND_MINUTES

    # The schedule's task, as beat runs it: one round at a time.
    assert tournament_round_start_scheduled(kingen.pk) == (
        "no round started: round 1 still has 3 match(es) to play"
    )
    assert demo_seasons_renew() == []
    Tournament.objects.filter(pk=kingen.pk).update(rounds=2)  # a short season
    kingen_matches_played(kingen)
    assert tournament_round_start_scheduled(kingen.pk) == "round 2 started"
    assert demo_seasons_renew() == []  # round 2 is being played
    kingen_matches_played(kingen)
    assert tournament_round_start_scheduled(kingen.pk) == "all 2 rounds started: schedule disabled"

    # The season is over: the next one opens with the same entrants, round 1 queued.
    assert demo_seasons_renew() == [
        "Demo Kingen league is over: Demo Kingen league, season 2 started"
    ]
    assert demo_seasons_renew() == []  # once
    kingen.refresh_from_db()
    assert kingen.status == TournamentStatus.FINISHED
    season = Tournament.objects.get(name="Demo Kingen league, season 2")
    assert (season.game, season.format, season.rounds) == (kingen.game, kingen.format, 2)
    entrants = set(Entry.objects.filter(tournament=kingen).values_list("competitor", flat=True))
    assert set(Entry.objects.filter(tournament=season).values_list("competitor", flat=True)) == (
        entrants
    )
    assert Match.objects.filter(tournament=season, status=MatchStatus.QUEUED).count() == 3
    assert RoundSchedule.objects.get(tournament=season).periodic_task.enabled
    assert tournament_round_start_scheduled(season.pk) == (
        "no round started: round 1 still has 3 match(es) to play"
    )
    # The Priffe league plays on in its first season.
    assert Tournament.objects.filter(name__startswith=priffe.name).count() == 1

    # load_demo again: nothing new, and it knows the current season.
    counts = (Tournament.objects.count(), Round.objects.count(), Match.objects.count())
    output = StringIO()
    call_command("load_demo", stdout=output)
    assert (Tournament.objects.count(), Round.objects.count(), Match.objects.count()) == counts
    assert "Demo Kingen league, season 2" in output.getvalue()


@pytest.mark.django_db
def test_a_demo_league_finished_by_hand_gets_its_next_season() -> None:
    call_command("load_demo", stdout=StringIO())
    priffe = Tournament.objects.get(name="Demo Priffe rotating partners")
    demo = User.objects.get(username="demo")
    tournament_finish(actor=demo, tournament=priffe)
    assert demo_seasons_renew() == [
        "Demo Priffe rotating partners is over: Demo Priffe rotating partners, season 2 started"
    ]
    season = Tournament.objects.get(name="Demo Priffe rotating partners, season 2")
    assert season.game == "priffe(rubbers_per_game=2)"
    assert season.deals == 2


@pytest.mark.django_db
def test_play_now_seats_a_person_with_three_demo_bots() -> None:
    ann = User.objects.create_user(username="ann", password="a long password 1")
    match = demo_table_open(actor=ann)
    seats = list(match.seats.select_related("competitor").order_by("seat"))
    assert [s.competitor.name for s in seats] == ["ann", *DEMO_TABLE_BOTS]
    assert match.status == MatchStatus.QUEUED
    assert match.game == "kingen"
