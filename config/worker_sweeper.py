"""Every worker sweeps too: recovery of lost matches does not depend on beat being alive.

A Celery worker starts a ``WorkerSweeper`` thread in its main process when it is ready
(config/celery.py). At once and then every ``SWEEP_SECONDS`` it runs ``sweep_once``: the
matches sweep (expired leases re-queued, people's deadlines, lost tasks re-sent: the same
service beat's task runs) and a relay of the task outbox. Both are safe in any number of
processes at once: a match is re-queued under its row lock only while it is still running
with an expired lease, its task is a conditional claim, and outbox rows being sent by one
relay are skipped by the others.

While the database is away a pass fails; the thread drops its connection and tries
again after 0.5, 1, 2, 2, ... seconds, so a match whose worker died during the
outage is re-queued within seconds of the database's return.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from dataclasses import dataclass

from django.db import Error as DatabaseError
from django.db import connections

from league.services.matches import matches_sweep
from league.services.task_outbox import outbox_relay

logger = logging.getLogger(__name__)

SWEEP_SECONDS = 5.0
RETRY_SECONDS = (0.5, 1.0, 2.0)
LOG_EVERY_SECONDS = 60.0


@dataclass(frozen=True)
class SweepOutcome:
    requeued: list[int]
    errored: list[int]
    sent: int
    """Tasks sent from the outbox."""


def sweep_once() -> SweepOutcome:
    """One pass: the matches sweep, then the outbox relay. Raises the database's errors."""
    report = matches_sweep()
    relay = outbox_relay()
    if report.requeued or report.errored:
        logger.warning(
            "sweeper: re-queued %s, gave up on %s (expired leases)",
            report.requeued,
            report.errored,
        )
    if report.analyses_resent or report.analyses_failed:
        logger.warning(
            "sweeper: sent again the analyses of matches %s, gave up on %s (lost workers)",
            report.analyses_resent,
            report.analyses_failed,
        )
    return SweepOutcome(requeued=report.requeued, errored=report.errored, sent=len(relay.sent))


class WorkerSweeper(threading.Thread):
    """A daemon thread that runs ``sweep_once`` now and every ``interval`` seconds."""

    def __init__(self, *, interval: float = SWEEP_SECONDS) -> None:
        super().__init__(name="league-sweeper", daemon=True)
        self.interval = interval
        self.passes = 0
        self._stopping = threading.Event()
        self._failures = 0
        self._down_since: float | None = None
        self._last_logged = -math.inf

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout)

    def run(self) -> None:
        wait = 0.0
        while not self._stopping.wait(wait):
            wait = self.sweep()

    def sweep(self) -> float:
        """One pass; the seconds until the next."""
        try:
            sweep_once()
        except DatabaseError as exc:
            return self._database_unavailable(exc)
        except Exception:
            logger.exception("sweeper: the pass failed")
            return self.interval
        finally:
            with contextlib.suppress(DatabaseError):
                connections.close_all()  # nothing held between passes (nor across a fork)
        self.passes += 1
        if self._down_since is not None:
            logger.warning(
                "sweeper: the database answers again after %.1f s",
                time.monotonic() - self._down_since,
            )
            self._down_since = None
            self._failures = 0
        return self.interval

    def _database_unavailable(self, error: BaseException) -> float:
        now = time.monotonic()
        if self._down_since is None:
            self._down_since = now
            self._last_logged = -math.inf
        if now - self._last_logged >= LOG_EVERY_SECONDS:
            self._last_logged = now
            reason = (str(error).strip() or type(error).__name__).splitlines()[0]
            logger.error("sweeper: the database is unavailable (%s); trying again", reason)
        wait = RETRY_SECONDS[min(self._failures, len(RETRY_SECONDS) - 1)]
        self._failures += 1
        return wait
