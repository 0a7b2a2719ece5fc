"""The transactional outbox: tasks are rows written with the change that asks for them.

``task_enqueue(run_match_task, match.pk)`` inside a service's transaction writes an
``OutboxTask`` row in that transaction, so the task exists exactly when the change does:
a rolled-back change sends nothing, and a committed one is never without its task, even
when the broker is down. When the transaction commits, the process tries to send the
rows it wrote at once, with a short broker timeout (``SEND_TIMEOUT_SECONDS``); what
cannot be sent stays in the outbox, and the relays (every worker's sweeper thread and
beat, every few seconds) send it as soon as the broker answers. A sent row is deleted.

A task can therefore be sent twice (sent, then the deletion lost with the database):
that is harmless because the services behind tasks are idempotent (a duplicate
``run_match`` finds nothing to claim). docs/operations.md, *Outages*.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import F

from celery import current_app
from kombu import Connection

from league.models import OutboxTask

logger = logging.getLogger(__name__)

SEND_TIMEOUT_SECONDS = 2
"""How long a send may wait for the broker to accept a connection."""
BROKER_DOWN_PAUSE_SECONDS = 10.0
"""After a failed send, this process leaves sending after commit to the relays for this
long, so that during an outage only the first request waits for the broker's timeout."""
RELAY_BATCH = 500
"""The most rows one relay pass sends."""

_pending = threading.local()
_broker_down_until = 0.0


def _task_name(task: Any) -> str:
    return task if isinstance(task, str) else str(task.name)


def task_enqueue(task: Any, *args: Any) -> OutboxTask:
    """Write ``task(*args)`` to the outbox in the current transaction; it is sent when the
    transaction commits (at once outside one), or by a relay if the broker is down then.

    ``task`` is a Celery task or its name; the arguments must be JSON (ids)."""
    row = OutboxTask.objects.create(task=_task_name(task), args=list(args))
    ids: list[int] = getattr(_pending, "ids", None) or []
    ids.append(row.pk)
    _pending.ids = ids
    transaction.on_commit(_send_pending, robust=True)
    return row


def _send_pending() -> None:
    """After a commit: send the rows this thread wrote (the first callback of a commit
    sends them all; the others find nothing left)."""
    ids: list[int] = getattr(_pending, "ids", None) or []
    _pending.ids = []
    if not ids or broker_presumed_down():
        return
    try:
        outbox_relay(ids=ids)
    except Exception:  # the database went away after the commit: a relay sends them
        logger.warning("task outbox: could not send %d task(s) after commit", len(ids))


def broker_presumed_down() -> bool:
    """True for a while after this process failed to reach the broker."""
    return time.monotonic() < _broker_down_until


def broker_presumed_up() -> None:
    """Forget a failed send: the next commit tries the broker again."""
    global _broker_down_until
    _broker_down_until = 0.0


def _broker_failed() -> None:
    global _broker_down_until
    _broker_down_until = time.monotonic() + BROKER_DOWN_PAUSE_SECONDS


@dataclass
class RelayReport:
    sent: list[int] = field(default_factory=list)
    """Ids of the rows sent (and deleted)."""
    waiting: int = 0
    """Rows of this pass that could not be sent (the broker did not answer)."""
    error: str = ""


def broker_failure_text(error: BaseException) -> str:
    message = str(error).strip() or type(error).__name__
    return message.splitlines()[0][:500]


def _send(rows: Sequence[OutboxTask], report: RelayReport, broker_url: str | None) -> None:
    """Publish the rows over one fresh connection; stop at the first failure."""
    connection: Connection = current_app.connection_for_write(
        broker_url,
        connect_timeout=SEND_TIMEOUT_SECONDS,
        transport_options={"socket_timeout": SEND_TIMEOUT_SECONDS},
    )
    try:
        connection.ensure_connection(
            max_retries=1, interval_start=0, interval_step=0, timeout=SEND_TIMEOUT_SECONDS
        )
        for row in rows:
            # By name, routed by CELERY_TASK_ROUTES: the sending process need not have
            # imported the task's module (the web process has not: looking the task up in
            # its registry failed there, and every task it wrote waited for a relay).
            current_app.send_task(
                row.task, args=tuple(row.args), connection=connection, retry=False
            )
            report.sent.append(row.pk)
    except Exception as exc:  # kombu's and the transport's errors, whatever the broker
        report.error = broker_failure_text(exc)
    finally:
        with contextlib.suppress(Exception):
            connection.release()


def outbox_relay(
    *, ids: Sequence[int] | None = None, limit: int = RELAY_BATCH, broker_url: str | None = None
) -> RelayReport:
    """Send waiting tasks to the broker (``broker_url``, the configured one by default),
    oldest first, and delete the rows sent.

    ``ids`` limits the pass to those rows (a commit's own). Rows another relay is sending
    are skipped (locked). Raises the database's errors; a broker that does not answer is
    reported in ``RelayReport.error`` and leaves the rows waiting."""
    report = RelayReport()
    with transaction.atomic():
        query = OutboxTask.objects.select_for_update(skip_locked=True).order_by("id")
        if ids is not None:
            query = query.filter(pk__in=list(ids))
        rows = list(query[:limit])
        if not rows:
            return report
        _send(rows, report, broker_url)
        if report.sent:
            OutboxTask.objects.filter(pk__in=report.sent).delete()
        sent = set(report.sent)
        unsent = [row.pk for row in rows if row.pk not in sent]
        report.waiting = len(unsent)
        if unsent:
            OutboxTask.objects.filter(pk__in=unsent).update(
                attempts=F("attempts") + 1, last_error=report.error
            )
    if report.error:
        _broker_failed()
        logger.warning(
            "task outbox: %d task(s) wait for the broker (%s)", report.waiting, report.error
        )
    else:
        broker_presumed_up()
    return report
