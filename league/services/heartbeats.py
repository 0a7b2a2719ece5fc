"""Heartbeats: a round trip through the broker and a worker, to prove the path; and the
ticks of periodic processes (beat), which /healthz reads."""

import uuid
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from league.models import Heartbeat, ProcessTick
from league.services.task_outbox import task_enqueue
from league.task_names import HEARTBEAT_RECORD


def heartbeat_send(*, token: str | None = None) -> str:
    """Ask a worker to record a heartbeat; returns its token.

    The task goes through the task outbox: it is sent when the surrounding transaction
    commits (at once outside one), so a worker never looks for something that was rolled
    back.
    """
    token = token or uuid.uuid4().hex
    task_enqueue(HEARTBEAT_RECORD, token)
    return token


@transaction.atomic
def heartbeat_record(*, token: str) -> Heartbeat:
    """Store the heartbeat for token. Idempotent: a redelivered task finds the same row."""
    heartbeat, _created = Heartbeat.objects.get_or_create(token=token)
    return heartbeat


# ---------------------------------------------------------------- process ticks

BEAT = "beat"
"""The name of beat's tick (config/beat.py writes it, /healthz reads it)."""


def process_tick(*, name: str, process: str, now: datetime | None = None) -> None:
    """Record that process ``name`` is alive now (one row per name, overwritten)."""
    ProcessTick.objects.update_or_create(
        name=name,
        defaults={"ticked_at": now or timezone.now(), "stopped_at": None, "process": process},
    )


def process_stopped(*, name: str, process: str, now: datetime | None = None) -> None:
    """Record that process ``name`` stopped cleanly (only if it is the one that ticked)."""
    ProcessTick.objects.filter(name=name, process=process).update(stopped_at=now or timezone.now())
