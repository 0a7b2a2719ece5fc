"""Heartbeats: a round trip through the broker and a worker, to prove the path."""

import uuid

from django.db import transaction

from league.models import Heartbeat
from league.tasks import heartbeat_record as heartbeat_record_task


def heartbeat_send(*, token: str | None = None) -> str:
    """Ask a worker to record a heartbeat; returns its token.

    The task is sent when the surrounding transaction commits (at once outside one), so a
    worker never looks for something that was rolled back.
    """
    token = token or uuid.uuid4().hex
    heartbeat_record_task.delay_on_commit(token)
    return token


@transaction.atomic
def heartbeat_record(*, token: str) -> Heartbeat:
    """Store the heartbeat for token. Idempotent: a redelivered task finds the same row."""
    heartbeat, _created = Heartbeat.objects.get_or_create(token=token)
    return heartbeat
