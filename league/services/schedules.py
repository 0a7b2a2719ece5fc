"""Rounds on a schedule: a tournament's celery beat entry (django-celery-beat's database
scheduler, which beat runs: config/beat.py).

An organiser gives a tournament a schedule, either cron-like (``"0 20 * * *"``: every day
at 20:00 in ``time_zone``) or an interval in minutes. The schedule is a ``PeriodicTask``
that calls ``league.tasks.tournament_round_start_scheduled`` with the tournament's id; beat
reads the database, so a new or changed schedule needs no restart. Each call starts the
next round (``tournament_next_round_start``, under the tournament's row lock) unless a round
is still being played: never two rounds at once, and a call that finds one running does
nothing. When every round has been started, or the tournament is finished, the entry is
disabled.
"""

from __future__ import annotations

import functools
import json
import logging
import zoneinfo
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from celery.schedules import ParseException
from celery.schedules import crontab as celery_crontab
from django_celery_beat.models import (
    CrontabSchedule,
    IntervalSchedule,
    PeriodicTask,
)

from league.errors import ConflictError, InvalidInputError
from league.models import RoundSchedule, Tournament, TournamentFormat, TournamentStatus
from league.services.tournaments import (
    User,
    tournament_next_round_start,
    tournament_organiser_require,
)
from league.task_names import TOURNAMENT_ROUND_START_SCHEDULED

logger = logging.getLogger(__name__)

TASK = TOURNAMENT_ROUND_START_SCHEDULED
CRON_FIELDS = ("minute", "hour", "day_of_month", "month_of_year", "day_of_week")


def periodic_task_name(tournament_id: int) -> str:
    return f"league: rounds of tournament {tournament_id}"


def cron_fields(cron: str) -> dict[str, str]:
    """``"m h dom mon dow"`` as django-celery-beat's fields; InvalidInputError naming the
    problem otherwise."""
    parts = cron.split()
    if len(parts) != len(CRON_FIELDS):
        raise InvalidInputError(
            _("cron: %(repr)s needs 5 fields (minute hour day-of-month month day-of-week)")
            % {"repr": repr(cron)},
            errors={"cron": ["5 fields: minute hour day-of-month month day-of-week"]},
        )
    fields = dict(zip(CRON_FIELDS, parts, strict=True))
    for name, value in fields.items():
        longest = CrontabSchedule._meta.get_field(name).max_length or 0
        if len(value) > longest:
            raise InvalidInputError(
                _("cron: the %(name)s field is longer than %(longest)s characters")
                % {"name": name, "longest": longest},
                errors={"cron": [f"{name}: at most {longest} characters"]},
            )
    try:
        celery_crontab(**fields)
    except (ValueError, TypeError, KeyError, IndexError, ParseException) as exc:
        raise InvalidInputError(
            _("cron: %(repr)s: %(exc)s") % {"repr": repr(cron), "exc": exc},
            errors={"cron": [str(exc)]},
        ) from None
    return fields


@functools.cache
def _time_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def _time_zone(name: str) -> zoneinfo.ZoneInfo:
    """An IANA time zone by name (``Europe/Stockholm``); InvalidInputError otherwise."""
    if name not in _time_zones():
        raise InvalidInputError(
            _("time_zone: unknown time zone %(repr)s") % {"repr": repr(name)},
            errors={"time_zone": ["unknown time zone"]},
        )
    return zoneinfo.ZoneInfo(name)


@transaction.atomic
def tournament_schedule_set(
    *,
    actor: User,
    tournament: Tournament,
    cron: str = "",
    interval_minutes: int | None = None,
    time_zone: str = "UTC",
) -> RoundSchedule:
    """Give ``tournament`` a schedule for its rounds (replacing any it had): ``cron`` or
    ``interval_minutes``, exactly one."""
    tournament_organiser_require(user=actor, tournament=tournament)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.format == TournamentFormat.TABLE:
        raise ConflictError(_("a table has one match; it has no rounds to schedule"))
    if tournament.status == TournamentStatus.FINISHED:
        raise ConflictError(_("the tournament is finished"))
    cron = cron.strip()
    if bool(cron) == (interval_minutes is not None):
        raise InvalidInputError(
            _("give either cron or interval_minutes"),
            errors={"cron": ["cron or interval_minutes, exactly one"]},
        )
    task_fields: dict[str, Any]
    if cron:
        zone = _time_zone(time_zone)
        crontab, _created = CrontabSchedule.objects.get_or_create(
            **cron_fields(cron), timezone=zone
        )
        task_fields = {"crontab": crontab, "interval": None}
    else:
        assert interval_minutes is not None
        if interval_minutes < 1:
            raise InvalidInputError(
                _("interval_minutes: at least 1"), errors={"interval_minutes": ["at least 1"]}
            )
        interval, _created = IntervalSchedule.objects.get_or_create(
            every=interval_minutes, period=IntervalSchedule.MINUTES
        )
        task_fields = {"interval": interval, "crontab": None}
        time_zone = "UTC"
    task, _created = PeriodicTask.objects.update_or_create(
        name=periodic_task_name(tournament.pk),
        defaults={
            "task": TASK,
            "args": json.dumps([tournament.pk]),
            "enabled": True,
            "description": f"Starts the next round of {tournament.name}.",
            **task_fields,
        },
    )
    schedule, _created = RoundSchedule.objects.update_or_create(
        tournament=tournament,
        defaults={
            "periodic_task": task,
            "cron": cron,
            "interval_minutes": interval_minutes if not cron else None,
            "time_zone": time_zone,
            "created_by": actor if actor.is_authenticated else None,
        },
    )
    return schedule


@transaction.atomic
def tournament_schedule_delete(*, actor: User, tournament: Tournament) -> None:
    """Remove the tournament's schedule (its beat entry too); rounds are then started by
    an organiser only."""
    tournament_organiser_require(user=actor, tournament=tournament)
    schedule = RoundSchedule.objects.filter(tournament=tournament).first()
    if schedule is None:
        raise ConflictError(_("the tournament has no schedule"))
    PeriodicTask.objects.filter(pk=schedule.periodic_task_id).delete()  # cascades


def _disable(tournament_id: int) -> None:
    PeriodicTask.objects.filter(name=periodic_task_name(tournament_id)).update(enabled=False)


def tournament_round_start_scheduled(*, tournament_id: int) -> str:
    """What the beat entry runs: start the next round if none is being played."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        _disable(tournament_id)
        return "no such tournament"
    if tournament.status == TournamentStatus.FINISHED:
        _disable(tournament_id)
        return "finished: schedule disabled"
    if tournament.round_set.count() >= tournament.rounds:
        _disable(tournament_id)
        return f"all {tournament.rounds} rounds started: schedule disabled"
    if tournament.status == TournamentStatus.PAUSED:
        return "paused: no round started"
    try:
        round_ = tournament_next_round_start(tournament=tournament)
    except ConflictError as exc:
        return f"no round started: {exc}"
    logger.info("tournament %s: round %s started on its schedule", tournament_id, round_.number)
    return f"round {round_.number} started"
