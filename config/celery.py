"""The Celery app. Its configuration is the CELERY_* part of config.settings.

A worker also sweeps: when it is ready it starts a thread that re-queues matches whose
lease expired and relays the task outbox every few seconds (config/worker_sweeper.py), so
recovering lost matches does not depend on beat alone. Before its pool starts it lowers its
own CPU priority to settings.WORKER_NICENESS (settings.INTERACTIVE_WORKER_NICENESS for the
`interactive` lane's own worker): bots' matches yield to the web process, which answers
people waiting for the table to move.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from django.conf import settings

from celery import Celery
from celery.signals import (
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_init,
    worker_process_shutdown,
    worker_ready,
    worker_shutdown,
)

from config.database_pool import fork_safe_pools

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

fork_safe_pools()  # the prefork pool's processes open their own database connections

app = Celery("league")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_sweepers: list[Any] = []


INTERACTIVE_QUEUE = "interactive"


def worker_niceness(consumed: Iterable[str]) -> int:
    """The niceness of a worker consuming the queues ``consumed``: the interactive lane's
    own worker (that queue only) plays what people wait for, the others bot-only work."""
    if set(consumed) == {INTERACTIVE_QUEUE}:
        return int(settings.INTERACTIVE_WORKER_NICENESS)
    return int(settings.WORKER_NICENESS)


@worker_init.connect
def worker_priority_lower(sender: Any = None, **_kwargs: Any) -> None:
    """Lower the worker's CPU priority to its niceness (``worker_niceness``) before its
    pool starts (the pool's processes and the bots they start inherit it). Never raises
    it: a worker started under `nice` keeps the lower priority it was given."""
    consumed = getattr(getattr(sender, "app", app).amqp.queues, "consume_from", None) or {}
    niceness = worker_niceness(consumed)
    if os.getpriority(os.PRIO_PROCESS, 0) < niceness:
        os.setpriority(os.PRIO_PROCESS, 0, niceness)


@worker_init.connect
def worker_sandbox_users_check(sender: Any = None, **_kwargs: Any) -> None:
    """Say at start whether the machine's sandbox users suffice for this worker's
    processes and their warm sandboxes (a warning naming the numbers if not), rather
    than refusing bots under load: bots.runner.warm.sandbox_users_check."""
    from bots.runner.warm import sandbox_users_check  # as in worker_process_sandboxes

    processes = int(getattr(sender, "concurrency", None) or os.cpu_count() or 1)
    sandbox_users_check(processes, settings.WORKER_WARM_SANDBOXES, settings.WORKER_BOT_SPAWNERS)


@worker_process_init.connect
def worker_process_sandboxes(**_kwargs: Any) -> None:
    """Each worker process (of the prefork pool) pins itself and the bots it starts to one
    CPU of its own (settings.WORKER_PIN_CPU) and keeps uploaded bots' sandboxes started
    ahead of their matches (settings.WORKER_WARM_SANDBOXES), and spawners that fork Python
    bots (settings.WORKER_BOT_SPAWNERS): docs/operations.md."""
    # Imported here: config/__init__.py imports this module before Django's apps are ready,
    # and only worker processes need the runner (the web server never starts a sandbox).
    from bots.runner.affinity import worker_cpu_pin
    from bots.runner.spawner import spawner_pool_enable
    from bots.runner.warm import warm_pool_enable

    if settings.WORKER_PIN_CPU:
        worker_cpu_pin()
    warm_pool_enable(settings.WORKER_WARM_SANDBOXES)
    spawner_pool_enable(settings.WORKER_BOT_SPAWNERS)


@worker_process_shutdown.connect
def worker_process_sandboxes_stop(**_kwargs: Any) -> None:
    # Imported here, as in worker_process_sandboxes above.
    from bots.runner.spawner import spawner_pool_close
    from bots.runner.warm import warm_pool_close

    warm_pool_close()
    spawner_pool_close()


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


@task_prerun.connect
@task_postrun.connect
def task_database_connection_return(**_kwargs: Any) -> None:
    """Before and after each task, hand the thread's database connection back to the pool
    (or drop it, if it broke), as Django does at the end of a request. Celery's own
    closing after each task is off (settings.CELERY_DB_REUSE_MAX): it closed the pool."""
    from django.db import close_old_connections

    close_old_connections()
