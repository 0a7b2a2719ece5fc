"""Celery tasks: thin interfaces that take ids or tokens and call a service.

Tasks named league.tasks.run_match* are routed to the `matches` queue (settings).
"""

from celery import shared_task
from celery.contrib.django.task import DjangoTask


@shared_task(base=DjangoTask)
def heartbeat_record(token: str) -> None:
    """Record a heartbeat sent by league.services.heartbeats.heartbeat_send."""
    from league.services.heartbeats import heartbeat_record as heartbeat_record_service

    heartbeat_record_service(token=token)


@shared_task(base=DjangoTask)
def run_match(match_id: int) -> str:
    """Play a match's bot seats (routed to the `matches` queue); idempotent: a duplicate
    finds nothing to claim."""
    from league.services.matches import match_run

    return match_run(match_id=match_id).outcome


@shared_task(base=DjangoTask)
def matches_sweep() -> dict[str, list[int]]:
    """Beat: re-queue matches whose lease expired, apply the fallback for people whose
    deadline passed, re-send tasks of matches queued for long."""
    from dataclasses import asdict

    from league.services.matches import matches_sweep as matches_sweep_service

    return asdict(matches_sweep_service())
