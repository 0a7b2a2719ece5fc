"""A real worker process runs a task sent through the project's own service.

Two paths: Redis with PostgreSQL (production's shape, run by CI), and the embedded broker
that needs no server (a fresh machine's shape). Both poll the test database for the row the
worker writes.
"""

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from django.db import connection

import psutil
import pytest

from league.models import Heartbeat
from league.services.heartbeats import heartbeat_send
from tests.celery_workers import REPOSITORY_ROOT, CeleryWorkerProcess
from tests.servers import database_url_for

# Generous: the row normally appears well within a second; this only bounds a broken path.
ROW_APPEARS_TIMEOUT_SECONDS = 60.0

WorkerFactory = Callable[..., CeleryWorkerProcess]


def heartbeat_wait(token: str, *, worker: CeleryWorkerProcess) -> Heartbeat:
    deadline = time.monotonic() + ROW_APPEARS_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        heartbeat = Heartbeat.objects.filter(token=token).first()
        if heartbeat is not None:
            return heartbeat
        if worker.process.poll() is not None:
            pytest.fail(f"the worker died:\n{worker.log()}")
        time.sleep(0.05)
    pytest.fail(f"no heartbeat {token} after {ROW_APPEARS_TIMEOUT_SECONDS:g} s:\n{worker.log()}")


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_worker_records_a_heartbeat_through_redis_into_postgres(
    celery_worker_factory: WorkerFactory, subprocess_environment: dict[str, str]
) -> None:
    # The worker must write into the test database that pytest-django created.
    environment = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict)
    }
    worker = celery_worker_factory(environment)

    token = heartbeat_send()

    heartbeat = heartbeat_wait(token, worker=worker)
    assert heartbeat.token == token
    assert "league.tasks.heartbeat_record" in worker.log()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_worker_records_a_heartbeat_through_the_embedded_broker(
    celery_worker_factory: WorkerFactory, subprocess_environment: dict[str, str], tmp_path: Path
) -> None:
    # No REDIS_URL: the sender and the worker share the embedded broker under VAR_DIR.
    environment = {
        key: value for key, value in subprocess_environment.items() if key != "REDIS_URL"
    } | {
        "VAR_DIR": str(tmp_path / "var"),
        "DATABASE_URL": database_url_for(connection.settings_dict),
    }
    worker = celery_worker_factory(environment)

    sender = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "--no-imports",
            "--command",
            "from league.services.heartbeats import heartbeat_send; print(heartbeat_send())",
        ],
        cwd=REPOSITORY_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert sender.returncode == 0, sender.stderr
    token = sender.stdout.strip().splitlines()[-1]

    heartbeat = heartbeat_wait(token, worker=worker)
    assert heartbeat.token == token
    assert "filesystem://" in worker.log()


def process_tree_niceness(pid: int) -> dict[int, int]:
    """The niceness of a process and of every process below it, by pid."""
    root = psutil.Process(pid)
    return {process.pid: process.nice() for process in [root, *root.children(recursive=True)]}


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("configured", "expected"), [(None, 10), ("15", 15), ("0", 0)])
def test_a_worker_and_its_pool_run_below_the_web_process_priority(
    celery_worker_factory: WorkerFactory,
    subprocess_environment: dict[str, str],
    tmp_path: Path,
    configured: str | None,
    expected: int,
) -> None:
    # settings.WORKER_NICENESS (default 10): bots' matches yield the CPU to the web process.
    environment = {
        key: value
        for key, value in subprocess_environment.items()
        if key not in ("REDIS_URL", "WORKER_NICENESS")
    } | {
        "VAR_DIR": str(tmp_path / "var"),
        "DATABASE_URL": database_url_for(connection.settings_dict),
    }
    if configured is not None:
        environment["WORKER_NICENESS"] = configured
    ours = os.getpriority(os.PRIO_PROCESS, 0)  # the worker starts at this test run's niceness
    worker = celery_worker_factory(environment)

    niceness = process_tree_niceness(worker.process.pid)

    assert len(niceness) >= 2, "the worker and its pool's process"
    # lowered to the configured niceness, never raised above the one it was started with
    assert set(niceness.values()) == {max(expected, ours)}, niceness
    assert os.getpriority(os.PRIO_PROCESS, 0) == ours  # the test process itself is untouched


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("queues", "expected"), [("interactive", 5), ("interactive,default,matches", 10)]
)
def test_the_interactive_lanes_own_worker_runs_between_the_web_process_and_bot_only_work(
    celery_worker_factory: WorkerFactory,
    subprocess_environment: dict[str, str],
    tmp_path: Path,
    queues: str,
    expected: int,
) -> None:
    # settings.INTERACTIVE_WORKER_NICENESS (default 5) for a worker of the `interactive`
    # queue only; a worker that takes bot-only work too keeps WORKER_NICENESS (10).
    environment = {
        key: value
        for key, value in subprocess_environment.items()
        if key not in ("REDIS_URL", "WORKER_NICENESS", "INTERACTIVE_WORKER_NICENESS")
    } | {
        "VAR_DIR": str(tmp_path / "var"),
        "DATABASE_URL": database_url_for(connection.settings_dict),
    }
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    worker = celery_worker_factory(environment, queues)

    niceness = process_tree_niceness(worker.process.pid)

    assert len(niceness) >= 2, "the worker and its pool's process"
    assert set(niceness.values()) == {max(expected, ours)}, niceness
