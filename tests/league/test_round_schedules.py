"""Rounds on a schedule: the beat entry a tournament's schedule creates (django-celery-beat's
database scheduler loads it), the task it runs (one round at a time, disabled when every
round has started), and the API that sets it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

import pytest
from celery.schedules import crontab, schedule
from django_celery_beat import schedulers as beat_schedulers
from django_celery_beat.models import PeriodicTask
from django_celery_beat.schedulers import DatabaseScheduler

from config.celery import app
from league.errors import InvalidInputError
from league.models import Match, MatchStatus, RoundSchedule
from league.services.matches import match_run
from league.services.schedules import (
    TASK,
    periodic_task_name,
    tournament_schedule_set,
)
from league.services.tournaments import tournament_finish
from league.tasks import tournament_round_start_scheduled
from tests.league.builders import bot_tournament, user_create


def matches_played(tournament_id: int) -> None:
    for match in Match.objects.filter(tournament_id=tournament_id, status=MatchStatus.QUEUED):
        assert match_run(match_id=match.pk, worker="test").outcome == "finished"


@pytest.mark.django_db
def test_the_scheduled_task_starts_one_round_at_a_time_and_stops_after_the_last() -> None:
    tournament, organiser = bot_tournament(entrants=4, rounds=2)
    tournament_schedule_set(actor=organiser, tournament=tournament, interval_minutes=5)

    assert tournament_round_start_scheduled(tournament.pk) == "round 1 started"
    assert tournament_round_start_scheduled(tournament.pk) == (
        "no round started: round 1 still has 1 match(es) to play"
    )
    assert tournament.round_set.count() == 1  # never two rounds at once
    matches_played(tournament.pk)
    assert tournament_round_start_scheduled(tournament.pk) == "round 2 started"
    matches_played(tournament.pk)
    assert tournament_round_start_scheduled(tournament.pk) == (
        "all 2 rounds started: schedule disabled"
    )

    assert tournament.round_set.count() == 2
    assert not PeriodicTask.objects.get(name=periodic_task_name(tournament.pk)).enabled


@pytest.mark.django_db
def test_a_finished_or_paused_tournament_starts_nothing() -> None:
    tournament, organiser = bot_tournament(entrants=4, rounds=3)
    tournament_schedule_set(actor=organiser, tournament=tournament, cron="0 20 * * *")
    tournament.status = "paused"
    tournament.save()
    assert tournament_round_start_scheduled(tournament.pk) == "paused: no round started"
    tournament.status = "open"
    tournament.save()
    tournament_finish(actor=organiser, tournament=tournament)

    assert tournament_round_start_scheduled(tournament.pk) == "finished: schedule disabled"
    assert tournament.round_set.count() == 0
    assert not PeriodicTask.objects.get(name=periodic_task_name(tournament.pk)).enabled


@pytest.fixture
def database_scheduler(monkeypatch: pytest.MonkeyPatch) -> Callable[[], DatabaseScheduler]:
    """Beat's database scheduler reading the test's database. Beat closes "old"
    connections before it reads, which would close the test's open transaction: not here."""
    monkeypatch.setattr(beat_schedulers, "close_old_connections", lambda: None)
    return lambda: DatabaseScheduler(app=app)


@pytest.mark.django_db
def test_a_schedule_is_a_beat_entry_that_the_database_scheduler_runs(
    database_scheduler: Callable[[], DatabaseScheduler],
) -> None:
    tournament, organiser = bot_tournament(entrants=4, rounds=2)
    name = periodic_task_name(tournament.pk)

    tournament_schedule_set(
        actor=organiser, tournament=tournament, cron="0 20 * * *", time_zone="Europe/Stockholm"
    )

    task = PeriodicTask.objects.get(name=name)
    assert (task.task, task.args, task.enabled) == (TASK, f"[{tournament.pk}]", True)
    assert (task.crontab.minute, task.crontab.hour, str(task.crontab.timezone)) == (
        "0",
        "20",
        "Europe/Stockholm",
    )
    entry = DatabaseScheduler.Entry(task, app=app)  # what beat makes of the row
    assert entry.task == TASK
    assert list(entry.args) == [tournament.pk]
    assert isinstance(entry.schedule, crontab)
    assert entry.schedule.hour == {20}  # type: ignore[attr-defined]
    # Beat loads cron entries due within two hours (django-celery-beat 2.9): one this hour.
    hour = timezone.now().hour
    tournament_schedule_set(actor=organiser, tournament=tournament, cron=f"0 {hour} * * *")
    scheduler = database_scheduler()
    assert scheduler.schedule[name].schedule.hour == {hour}
    assert "league.matches_sweep" in scheduler.schedule  # settings' entries are there too

    # An interval replaces the cron entry; beat runs the entry's task with its arguments.
    tournament_schedule_set(actor=organiser, tournament=tournament, interval_minutes=1)
    entry = database_scheduler().schedule[name]
    assert isinstance(entry.schedule, schedule)
    assert entry.schedule.run_every == timedelta(minutes=1)  # type: ignore[attr-defined]
    assert PeriodicTask.objects.filter(name=name).count() == 1
    assert app.tasks[entry.task](*entry.args) == "round 1 started"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"cron": "0 20 * *"}, "needs 5 fields"),
        ({"cron": "61 20 * * *"}, "cron"),
        ({"cron": "0 20 * * *", "interval_minutes": 5}, "either"),
        ({}, "either"),
        ({"cron": "0 20 * * *", "time_zone": "Mars/Olympus"}, "unknown time zone"),
        ({"cron": "0 20 * * *", "time_zone": "America"}, "unknown time zone"),  # a folder
        ({"cron": "1,,2 20 * * *"}, "empty part"),
        ({"cron": "0 20 * * " + "1," * 40 + "2"}, "longer than 64 characters"),
    ],
)
def test_a_bad_schedule_is_refused_with_its_reason(fields: dict[str, object], problem: str) -> None:
    tournament, organiser = bot_tournament(entrants=4)
    with pytest.raises(InvalidInputError, match=problem):
        tournament_schedule_set(actor=organiser, tournament=tournament, **fields)  # type: ignore[arg-type]
    assert not RoundSchedule.objects.exists()


@pytest.mark.django_db
def test_the_schedule_api() -> None:
    tournament, organiser = bot_tournament(entrants=4, rounds=2)
    url = f"/api/tournaments/{tournament.pk}/schedule/"
    client = APIClient()
    assert client.get(url).status_code == 404
    assert client.put(url, {"cron": "0 20 * * *"}, format="json").status_code in (401, 403)
    client.force_authenticate(user_create("stranger"))
    assert client.put(url, {"cron": "0 20 * * *"}, format="json").status_code == 403
    client.force_authenticate(User.objects.get(pk=organiser.pk))

    answer = client.put(url, {"cron": "30 19 * * 1-5", "time_zone": "Europe/Brussels"}, "json")
    assert answer.status_code == 200, answer.json()
    assert answer.json()["cron"] == "30 19 * * 1-5"
    assert answer.json()["enabled"] is True
    bad = client.put(url, {"cron": "every evening"}, format="json")
    assert bad.status_code == 400
    assert "cron" in bad.json()["detail"]
    assert client.get(url).json()["time_zone"] == "Europe/Brussels"

    assert client.delete(url).status_code == 204
    assert client.get(url).status_code == 404
    assert not PeriodicTask.objects.filter(name=periodic_task_name(tournament.pk)).exists()
    assert client.delete(url).status_code == 409
