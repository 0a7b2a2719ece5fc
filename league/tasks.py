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
