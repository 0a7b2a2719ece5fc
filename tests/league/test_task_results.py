"""Celery keeps no results nobody reads (settings' CELERY_TASK_IGNORE_RESULT): tasks run
by a real worker process leave no ``celery-task-meta-*`` key in Redis, so Redis's memory
does not grow with every task (issue 34: 2,537 such keys, about 40 MB, at steady state).
A task whose result is read would say so itself (``ignore_result=False``); none does."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping

from django.conf import settings
from django.db import connection

import pytest
import redis

from config.celery import app
from league import task_names
from league.models import Heartbeat
from tests.celery_workers import CeleryWorkerProcess
from tests.league.worker_runs import wait_until
from tests.servers import database_url_for

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
]

WAIT_SECONDS = 120.0
RESULT_KEY = "celery-task-meta-{}"


def test_no_task_registered_keeps_its_result() -> None:
    assert app.conf.task_ignore_result is True
    keeping = [name for name, task in app.tasks.items() if not task.ignore_result]
    assert keeping == [name for name in keeping if name.startswith("celery.")]


def test_tasks_run_by_a_worker_leave_no_result_in_redis(
    celery_worker_factory: Callable[[Mapping[str, str]], CeleryWorkerProcess],
    subprocess_environment: dict[str, str],
) -> None:
    worker = celery_worker_factory(
        subprocess_environment | {"DATABASE_URL": database_url_for(connection.settings_dict)}
    )
    tokens = [uuid.uuid4().hex for _ in range(3)]
    sent = [app.send_task(task_names.HEARTBEAT_RECORD, args=[token]).id for token in tokens]
    sent.append(app.send_task(task_names.LADDERS_MATCHMAKE).id)
    # One that fails: its error is logged by the worker, not stored either.
    sent.append(app.send_task(task_names.STANDINGS_REBUILD, args=["not a number"]).id)

    wait_until(
        "the worker ran every task",
        lambda: (
            Heartbeat.objects.filter(token__in=tokens).count() == len(tokens)
            and all(task_id in worker.log() for task_id in sent[3:])
            and worker.log().count(" succeeded in ") >= len(tokens) + 1
        ),
        worker.log,
        seconds=WAIT_SECONDS,
    )
    store = redis.Redis.from_url(settings.CELERY_RESULT_BACKEND)
    kept = [task_id for task_id in sent if store.exists(RESULT_KEY.format(task_id))]
    assert kept == []
