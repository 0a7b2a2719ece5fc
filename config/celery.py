"""The Celery app. Its configuration is the CELERY_* part of config.settings.

A worker also sweeps: when it is ready it starts a thread that re-queues matches whose
lease expired and relays the task outbox every few seconds (config/worker_sweeper.py), so
recovering lost matches does not depend on beat alone. Before its pool starts it lowers its
own CPU priority to settings.WORKER_NICENESS: bots' matches yield to the web process, which
answers people waiting for the table to move.
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings

from celery import Celery
from celery.signals import worker_init, worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("league")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_sweepers: list[Any] = []


@worker_init.connect
def worker_priority_lower(**_kwargs: Any) -> None:
    """Lower the worker's CPU priority to settings.WORKER_NICENESS before its pool starts
    (the pool's processes and the bots they start inherit it). Never raises it: a worker
    started under `nice` keeps the lower priority it was given."""
    if os.getpriority(os.PRIO_PROCESS, 0) < settings.WORKER_NICENESS:
        os.setpriority(os.PRIO_PROCESS, 0, settings.WORKER_NICENESS)


@worker_ready.connect
def worker_sweeper_start(**_kwargs: Any) -> None:
    # Imported here: config/__init__.py imports this module before Django's apps are ready,
    # and the sweeper imports the league's services (their models).
    from config.worker_sweeper import WorkerSweeper

    sweeper = WorkerSweeper()
    sweeper.start()
    _sweepers.append(sweeper)


@worker_shutdown.connect
def worker_sweeper_stop(**_kwargs: Any) -> None:
    while _sweepers:
        _sweepers.pop().stop()
