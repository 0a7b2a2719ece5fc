"""Reachability of what the service needs: the database, the broker, a worker and beat.

Used by /healthz and by `manage.py preflight`. Every check returns a ComponentHealth
rather than raising, so one report names everything that is down.

Beat is alive when its tick (``ProcessTick`` ``beat``, written every few seconds by
config/beat.py) is younger than ``BEAT_STALE_SECONDS`` (the setting of that name, 60 s
unless set) and it has not stopped since.
"""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.utils import Error as DatabaseError
from django.utils import timezone

from kombu import Connection
from kombu.exceptions import KombuError
from kombu.pidbox import Mailbox

from config.celery import app
from config.configuration import (
    database_connect_failure,
    database_failure_reason,
    database_url_for_display,
    url_for_display,
)
from league.models import ProcessTick
from league.services.heartbeats import BEAT

BROKER_CONNECT_TIMEOUT_SECONDS = 2
WORKER_PING_TIMEOUT_SECONDS = 1.5
BEAT_STALE_SECONDS = 60.0
"""Beat writes its tick every 5 s; one older than this means beat is dead or stuck."""
HEALTH_SCOPES = ("", "web")
"""/healthz's ``scope``: none, everything; ``web``, what a web machine needs to serve."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ComponentHealth:
    """One component: what was checked (target) and, when down, why (problem)."""

    name: str
    target: str
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None

    @property
    def detail(self) -> str:
        return self.target if self.problem is None else f"{self.target}: {self.problem}"

    def as_json(self) -> dict[str, object]:
        return {"ok": self.ok, "detail": self.detail}


@dataclass(frozen=True, kw_only=True, slots=True)
class HealthReport:
    components: tuple[ComponentHealth, ...]

    @property
    def ok(self) -> bool:
        return all(component.ok for component in self.components)

    @property
    def down(self) -> list[str]:
        return [component.name for component in self.components if not component.ok]

    def as_json(self) -> dict[str, object]:
        return {
            "status": "ok" if self.ok else "down",
            "down": self.down,
            "checks": {component.name: component.as_json() for component in self.components},
        }


def database_health(alias: str = "default") -> ComponentHealth:
    """SELECT 1 on the database."""
    connection = connections[alias]
    target = database_url_for_display(connection.settings_dict)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        # A pool that timed out knows only that it waited: a connection of its own says why.
        problem = database_connect_failure(alias) or database_failure_reason(exc)
        return ComponentHealth(name="database", target=target, problem=problem)
    return ComponentHealth(name="database", target=target)


def broker_connection(
    *, broker_url: str | None = None, transport_options: Mapping[str, Any] | None = None
) -> Connection:
    """A new connection to the configured broker (settings are read at call time)."""
    return Connection(
        broker_url or settings.CELERY_BROKER_URL,
        transport_options=dict(
            settings.CELERY_BROKER_TRANSPORT_OPTIONS
            if transport_options is None
            else transport_options
        ),
        connect_timeout=BROKER_CONNECT_TIMEOUT_SECONDS,
    )


def broker_health(connection: Connection) -> ComponentHealth:
    """Open a connection to the broker (for the embedded one: its folders are usable)."""
    if connection.transport_cls == "filesystem":
        options = connection.transport_options or {}
        target = f"embedded broker in {options['data_folder_in']}"
        folders = {options["data_folder_in"], options["data_folder_out"], options["control_folder"]}
        unusable = sorted(
            folder for folder in folders if not os.access(folder, os.R_OK | os.W_OK | os.X_OK)
        )
        if unusable:
            return ComponentHealth(
                name="broker", target=target, problem=f"cannot use {', '.join(unusable)}"
            )
        return ComponentHealth(name="broker", target=target)
    target = url_for_display(connection.as_uri(include_password=True))
    try:
        connection.ensure_connection(
            max_retries=1,
            interval_start=0,
            interval_step=0,
            interval_max=0,
            timeout=BROKER_CONNECT_TIMEOUT_SECONDS,
        )
    except (OSError, KombuError) as exc:
        return ComponentHealth(name="broker", target=target, problem=broker_failure_reason(exc))
    return ComponentHealth(name="broker", target=target)


def broker_failure_reason(error: BaseException) -> str:
    message = str(error).strip() or type(error).__name__
    lowered = message.lower()
    if "connection refused" in lowered:
        return "connection refused"
    if "timed out" in lowered or "timeout" in lowered:
        return "timed out"
    return message.splitlines()[0]


def worker_ping(connection: Connection, *, timeout: float, limit: int | None) -> list[str]:
    """`celery control ping` over this connection; the names of the workers that answered.

    A mailbox of our own rather than app.control, which would publish the ping through the
    app's producer pool (its broker of record) instead of the connection we were given.
    """
    mailbox = Mailbox(
        app.conf.control_exchange,
        type="fanout",
        connection=connection,
        accept=["json"],
        serializer="json",
        reply_queue_ttl=app.conf.control_queue_ttl,
        reply_queue_expires=app.conf.control_queue_expires,
    )
    replies = mailbox.multi_call("ping", timeout=timeout, limit=limit)
    return sorted(name for reply in replies or [] for name in reply)


def worker_health(connection: Connection, *, broker: ComponentHealth) -> ComponentHealth:
    """A ping with a short timeout: the first worker to answer is named."""
    target = "celery workers"
    if not broker.ok:
        return ComponentHealth(
            name="worker", target=target, problem="not asked: the broker is down"
        )
    try:
        names = worker_ping(connection, timeout=WORKER_PING_TIMEOUT_SECONDS, limit=1)
    except (OSError, KombuError) as exc:
        return ComponentHealth(name="worker", target=target, problem=broker_failure_reason(exc))
    if not names:
        return ComponentHealth(
            name="worker",
            target=target,
            problem=f"no worker answered a ping within {WORKER_PING_TIMEOUT_SECONDS:g} s",
        )
    return ComponentHealth(name="worker", target=", ".join(names))


def broker_only_health() -> ComponentHealth:
    """Redis (the broker, the channel layer and the cache) answers; no worker is asked."""
    with broker_connection() as connection:
        return broker_health(connection)


def messaging_health() -> tuple[ComponentHealth, ComponentHealth]:
    """The broker and the workers behind it. Touches no database: safe in any thread."""
    with broker_connection() as connection:
        broker = broker_health(connection)
        worker = worker_health(connection, broker=broker)
    return broker, worker


def beat_stale_seconds() -> float:
    return float(getattr(settings, "BEAT_STALE_SECONDS", BEAT_STALE_SECONDS))


def beat_health(*, database: ComponentHealth, now: datetime | None = None) -> ComponentHealth:
    """Beat's last tick: younger than beat_stale_seconds() and not stopped since."""
    target = "celery beat"
    if not database.ok:
        return ComponentHealth(
            name="beat", target=target, problem="not asked: the database is down"
        )
    try:
        tick = ProcessTick.objects.filter(name=BEAT).first()
    except DatabaseError as exc:
        return ComponentHealth(name="beat", target=target, problem=database_failure_reason(exc))
    if tick is None:
        return ComponentHealth(
            name="beat", target=target, problem="beat has never ticked (is it running?)"
        )
    now = now or timezone.now()
    age = max(0.0, (now - tick.ticked_at).total_seconds())
    if tick.process:
        target = f"celery beat on {tick.process}"
    if tick.stopped_at is not None:
        stopped = max(0.0, (now - tick.stopped_at).total_seconds())
        return ComponentHealth(name="beat", target=target, problem=f"stopped {stopped:.0f} s ago")
    threshold = beat_stale_seconds()
    if age > threshold:
        return ComponentHealth(
            name="beat",
            target=target,
            problem=f"last tick {age:.0f} s ago (over {threshold:g} s): dead or stuck",
        )
    return ComponentHealth(name="beat", target=f"{target}, last tick {age:.1f} s ago")
