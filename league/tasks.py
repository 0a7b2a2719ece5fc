"""Celery tasks: thin interfaces that take ids or tokens and call a service.

The arrows point one way: tasks import services; services send tasks by name
(league/task_names.py) through the task outbox and never import this module.

A match is played by one of four tasks, one per lane (league.domain.lanes, chosen by
league.services.match_lanes): run_match_interactive on the `interactive` queue (a person
sits at the match), run_match_challenge there after the tables, run_match on
`matches`, run_match_ladder on `matches` at the lowest priority.
league.tasks.ratings_update goes to the `ratings` queue and league.tasks.match_analyse to
the `analysis` queue (settings' CELERY_TASK_ROUTES).
"""

from dataclasses import asdict
from typing import Any

from django.db import InterfaceError, OperationalError

from celery import Task, shared_task
from celery.contrib.django.task import DjangoTask

from league import task_names
from league.services.analysis import match_analyse as match_analyse_service
from league.services.demo import demo_seasons_renew as demo_seasons_renew_service
from league.services.heartbeats import heartbeat_record as heartbeat_record_service
from league.services.ladders import ladders_matchmake as ladders_matchmake_service
from league.services.matches import match_run, worker_name
from league.services.matches import matches_sweep as matches_sweep_service
from league.services.notification_emails import (
    notification_email_send as notification_email_send_service,
)
from league.services.notification_emails import (
    notification_emails_send_due as notification_emails_send_due_service,
)
from league.services.ratings import ratings_update as ratings_update_service
from league.services.schedules import (
    tournament_round_start_scheduled as tournament_round_start_scheduled_service,
)
from league.services.standings import standings_rebuild as standings_rebuild_service

DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)
"""What django.db raises when the database cannot be reached (or went away)."""


@shared_task(base=DjangoTask, name=task_names.HEARTBEAT_RECORD)
def heartbeat_record(token: str) -> None:
    """Record a heartbeat sent by league.services.heartbeats.heartbeat_send."""
    heartbeat_record_service(token=token)


RUN_MATCH_RETRIES: dict[str, Any] = {
    # The database was unreachable before the match was claimed (once claimed, match_run
    # releases it itself): try again shortly rather than leave the match queued until the
    # sweep re-sends its task minutes later.
    "autoretry_for": DATABASE_UNAVAILABLE,
    "retry_backoff": 1,
    "retry_backoff_max": 30,
    "max_retries": 20,
}


@shared_task(bind=True, base=DjangoTask, name=task_names.RUN_MATCH, **RUN_MATCH_RETRIES)
def run_match(self: Task[Any, str], match_id: int) -> str:
    """Play a match's bot seats (routed to the `matches` queue); idempotent: a duplicate
    finds nothing to claim. The worker's node name (``--hostname``) says who played it."""
    return match_run(match_id=match_id, worker=worker_name(self.request.hostname)).outcome


@shared_task(bind=True, base=DjangoTask, name=task_names.RUN_LADDER_MATCH, **RUN_MATCH_RETRIES)
def run_match_ladder(self: Task[Any, str], match_id: int) -> str:
    """``run_match`` at the lowest priority (settings' routes): other matches go first."""
    return match_run(match_id=match_id, worker=worker_name(self.request.hostname)).outcome


@shared_task(bind=True, base=DjangoTask, name=task_names.RUN_INTERACTIVE_MATCH, **RUN_MATCH_RETRIES)
def run_match_interactive(self: Task[Any, str], match_id: int) -> str:
    """``run_match`` for a match a person waits for (a person seated, a challenge): on the
    `interactive` queue, whose worker processes bot-only matches never occupy."""
    return match_run(match_id=match_id, worker=worker_name(self.request.hostname)).outcome


@shared_task(bind=True, base=DjangoTask, name=task_names.RUN_CHALLENGE_MATCH, **RUN_MATCH_RETRIES)
def run_match_challenge(self: Task[Any, str], match_id: int) -> str:
    """``run_match`` for an author's challenge: on the `interactive` queue, after the
    people's tables waiting there (settings' routes)."""
    return match_run(match_id=match_id, worker=worker_name(self.request.hostname)).outcome


@shared_task(base=DjangoTask, name=task_names.LADDERS_MATCHMAKE)
def ladders_matchmake() -> dict[str, int]:
    """Beat, every few seconds, and after each ladder match: each ladder's roster brought
    up to date and its queue refilled (league.services.ladders); matches queued per ladder."""
    return ladders_matchmake_service()


@shared_task(base=DjangoTask, name=task_names.MATCHES_SWEEP)
def matches_sweep() -> dict[str, list[int]]:
    """Beat: re-queue matches whose lease expired, apply the fallback for people whose
    deadline passed, re-send tasks of matches queued for long. (Every worker also runs the
    same sweep in a thread of its own: config/worker_sweeper.py.)"""
    return asdict(matches_sweep_service())


@shared_task(base=DjangoTask, name=task_names.RATINGS_UPDATE)
def ratings_update() -> int:
    """Rate the results waiting in the rating queue (``RatingQueueEntry``), in the order
    they were stored (routed to the `ratings` queue, which one worker process consumes with
    concurrency 1; the service also serialises itself with a lock). Idempotent: a
    duplicate finds nothing to rate; beat runs it every minute for a lost message."""
    return ratings_update_service()


@shared_task(base=DjangoTask, name=task_names.TOURNAMENT_ROUND_START_SCHEDULED)
def tournament_round_start_scheduled(tournament_id: int) -> str:
    """A tournament's schedule (a django-celery-beat entry): start its next round unless
    one is still being played; what happened, in a few words."""
    return tournament_round_start_scheduled_service(tournament_id=tournament_id)


@shared_task(base=DjangoTask, name=task_names.STANDINGS_REBUILD)
def standings_rebuild(tournament_id: int) -> int:
    """Rebuild a tournament's stored standings from its results if they are missing or
    stale (a format or rules change, a failed update); idempotent: how many results the
    current standings hold."""
    return standings_rebuild_service(tournament_id=tournament_id)


@shared_task(
    base=DjangoTask,
    name=task_names.NOTIFICATION_EMAIL_SEND,
    # The mail server or the database did not answer: try again shortly (the notice stays
    # due, and beat's pass mails it anyway if every retry fails).
    autoretry_for=(OSError, *DATABASE_UNAVAILABLE),
    retry_backoff=5,
    retry_backoff_max=300,
    max_retries=5,
)
def notification_email_send(notification_id: int) -> bool:
    """Mail a notice to its person if it is still due; idempotent (a notice is mailed once)."""
    return notification_email_send_service(notification_id=notification_id)


@shared_task(base=DjangoTask, name=task_names.NOTIFICATION_EMAILS_SEND_DUE)
def notification_emails_send_due() -> int:
    """Beat, every minute: mail the notices still due (a lost task, a mail server that was
    down); how many were sent."""
    return notification_emails_send_due_service()


@shared_task(base=DjangoTask, name=task_names.DEMO_SEASONS_RENEW)
def demo_seasons_renew() -> list[str]:
    """The demo's beat entry (manage.py load_demo): a demo league whose rounds are all
    played is finished and its next season opened; idempotent (a season is renewed once)."""
    return demo_seasons_renew_service()


@shared_task(base=DjangoTask, name=task_names.MATCH_ANALYSE)
def match_analyse(match_id: int) -> str:
    """Analyse a finished match's card play and store it (routed to the `analysis` queue;
    docs/engine.md, "Analysis"); idempotent: a duplicate finds it done."""
    return match_analyse_service(match_id=match_id)
