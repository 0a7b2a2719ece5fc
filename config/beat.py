"""Celery beat's scheduler: django-celery-beat's database scheduler, made to ride out outages.

``celery -A config beat -S config.beat:OutageTolerantScheduler`` (the settings name it too,
so a plain ``celery -A config beat`` uses it). On top of ``DatabaseScheduler`` it

- waits for the database at start instead of exiting (a beat restarted during an outage
  comes up when the database does);
- survives every database error in a tick (django-celery-beat's own handling covers some
  paths, not the full re-read of the schedule): it closes the connection, waits with
  backoff, checks the database with ``SELECT 1`` and, once it answers, reads the schedule
  afresh and goes on;
- writes its tick (``ProcessTick`` ``beat``) every ``TICK_SECONDS``, which /healthz
  compares with a threshold, and marks it stopped when beat shuts down cleanly;
- relays the task outbox every ``RELAY_SECONDS`` (league/services/task_outbox.py).

A broker that is down holds nothing up: beat's connection is tried once per pass (Celery's
own retries for minutes), a due entry that cannot be sent is logged, and the next pass
comes on time, ticks included. docs/operations.md, *Outages*.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import time
from typing import Any

from django.db import Error as DatabaseError
from django.db import connection

from django_celery_beat.schedulers import DatabaseScheduler
from kombu import Connection
from kombu.exceptions import KombuError

from league.services.heartbeats import BEAT, process_stopped, process_tick
from league.services.task_outbox import outbox_relay

logger = logging.getLogger(__name__)

TICK_SECONDS = 5.0
"""How often beat writes its tick (/healthz calls beat stale well after several)."""
RELAY_SECONDS = 5.0
"""How often beat sends the tasks waiting in the outbox."""
RETRY_SECONDS = (1.0, 2.0)
"""Waits between checks while the database is away (the last one repeats)."""
LOG_EVERY_SECONDS = 60.0
"""While the database is away, one line this often."""
BROKER_TIMEOUT_SECONDS = 2
BROKER_RETRY_SECONDS = 2.0
"""After the broker did not answer, the next pass comes this much later."""


class OutageTolerantScheduler(DatabaseScheduler):
    """DatabaseScheduler that waits out database outages, ticks for /healthz and relays the
    task outbox."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.process_name = f"{socket.gethostname()}:{os.getpid()}"
        self.database_lost_at: float | None = None
        self._failures = 0
        self._last_logged = -math.inf
        self._last_tick_written = -math.inf
        self._last_relay = -math.inf
        super().__init__(*args, **kwargs)

    # ------------------------------------------------------------ start and stop

    def setup_schedule(self) -> None:
        while True:
            try:
                super().setup_schedule()
            except DatabaseError as exc:
                time.sleep(self._database_unavailable(exc))
            else:
                self._database_answers_again()
                return

    def close(self) -> None:
        try:
            process_stopped(name=BEAT, process=self.process_name)
        except DatabaseError:
            logger.warning("beat: could not mark its tick stopped (the database is away)")
        super().close()

    # ------------------------------------------------------------ the loop

    def _ensure_connected(self) -> Connection:
        """The broker connection for sending due entries: one quick try. (Celery's own
        retries for minutes, holding beat's loop, and its ticks, through a Redis outage.)
        Raises when the broker does not answer; the next pass tries again."""
        connection: Connection = self.connection
        return connection.ensure_connection(
            max_retries=1, interval_start=0, interval_step=0, timeout=BROKER_TIMEOUT_SECONDS
        )

    def tick(self, *args: Any, **kwargs: Any) -> float:
        """One pass of beat's loop; the seconds until the next."""
        if self.database_lost_at is not None and not self._database_answers():
            return self._next_wait()
        try:
            self._tick_write()
            interval = float(super().tick(*args, **kwargs))
            self._relay()
        except DatabaseError as exc:
            return self._database_unavailable(exc)
        except (OSError, KombuError) as exc:
            logger.error("beat: the broker is unavailable (%s); trying again", exc)
            self._heap = None  # the entry taken off the heap was not put back
            return BROKER_RETRY_SECONDS
        except Exception:  # beat goes on; the error is in the log
            logger.exception("beat: a pass failed")
            self._heap = None
            return BROKER_RETRY_SECONDS
        self._database_answers_again()
        until_tick = self._last_tick_written + TICK_SECONDS - time.monotonic()
        return max(0.0, min(interval, until_tick))

    def _tick_write(self) -> None:
        if time.monotonic() - self._last_tick_written < TICK_SECONDS:
            return
        process_tick(name=BEAT, process=self.process_name)
        self._last_tick_written = time.monotonic()

    def _relay(self) -> None:
        if time.monotonic() - self._last_relay < RELAY_SECONDS:
            return
        self._last_relay = time.monotonic()
        outbox_relay()

    # ------------------------------------------------------------ outages

    def _database_answers(self) -> bool:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
        except DatabaseError:
            connection.close()
            return False
        return True

    def _database_unavailable(self, error: BaseException) -> float:
        """Note the outage, drop the connection and what was read through it; the wait."""
        now = time.monotonic()
        if self.database_lost_at is None:
            self.database_lost_at = now
            self._failures = 0
            self._last_logged = -math.inf
        connection.close()
        # Read the schedule afresh once the database answers: a pass cut short may have
        # left the heap or the schedule half updated.
        self._initial_read = True
        self._heap = None
        if now - self._last_logged >= LOG_EVERY_SECONDS:
            self._last_logged = now
            reason = (str(error).strip() or type(error).__name__).splitlines()[0]
            logger.error(
                "beat: the database is unavailable (%s); waiting for it (down %.0f s)",
                reason,
                now - self.database_lost_at,
            )
        return self._next_wait()

    def _next_wait(self) -> float:
        wait = RETRY_SECONDS[min(self._failures, len(RETRY_SECONDS) - 1)]
        self._failures += 1
        return wait

    def _database_answers_again(self) -> None:
        if self.database_lost_at is None:
            return
        logger.warning(
            "beat: the database answers again after %.1f s",
            time.monotonic() - self.database_lost_at,
        )
        self.database_lost_at = None
        self._failures = 0
