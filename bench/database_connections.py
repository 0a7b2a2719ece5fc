"""PostgreSQL connections opened per 1,000 requests and per 100 matches, with each process's
connection pool (DATABASE_POOL_SIZE, config/configuration.py) and without it (0: a new
connection a request and a task, as before issue 34), in the same run.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.database_connections
    python -m bench.database_connections --requests 1000 --matches 100

It creates a scratch database of its own (``<name>_connections_bench``, dropped at the end)
and counts the sessions PostgreSQL reports for it (``pg_stat_database.sessions``, counted as
each starts):

- **requests**: production's web server (``python -m config.web_server``, one process)
  answers ``--requests`` API reads of a person who does not exist (each a database lookup,
  never served from the read cache), one client after another;
- **matches**: a real Celery worker of two processes plays ``--matches`` queued Kingen
  matches of four built-in bots.

It prints figures and the ratio of pooled to unpooled; it asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import socket
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.db import connection  # noqa: E402

from bench.scratch_database import scratch_database  # noqa: E402
from bench.worker_throughput import (  # noqa: E402
    WORKER_STOP_SECONDS,
    competitors,
    loadavg,
    matches_create,
    say,
    worker_start,
)
from config.configuration import DATABASE_POOL_SIZE  # noqa: E402
from tests.celery_workers import REPOSITORY_ROOT, process_stop  # noqa: E402
from tests.uvicorn_servers import web_server_process  # noqa: E402

UNLIMITED_RATES = "actions=1000000/minute,tables=1000000/hour,table_joins=1000000/hour"


def sessions_opened() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        (count,) = cursor.fetchone()
    return int(count)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def requests_run(database_url: str, pool: int, count: int) -> tuple[int, float]:
    """(connections opened, requests a second) for ``count`` reads of one web process."""
    environment = dict(os.environ) | {
        "DATABASE_URL": database_url,
        "DATABASE_POOL_SIZE": str(pool),
        "DEBUG": "false",
        "RATE_LIMITS": UNLIMITED_RATES,
    }
    with tempfile.TemporaryDirectory() as folder:
        log_path = Path(folder) / "server.log"
        with web_server_process(
            free_port(), environment, log_path=log_path, cwd=REPOSITORY_ROOT
        ) as server:
            url = server.url
            before = sessions_opened()
            began = time.perf_counter()
            for number in range(count):
                try:
                    with urllib.request.urlopen(f"{url}/api/people/nobody-{number}/", timeout=30):
                        raise SystemExit("a person who does not exist was found")
                except urllib.error.HTTPError as answer:
                    if answer.code != 404:
                        raise SystemExit(f"expected 404, got {answer.code}") from None
            seconds = time.perf_counter() - began
            return sessions_opened() - before, count / seconds


def matches_run(database_url: str, pool: int, count: int, seat_ids: list[int]) -> int:
    """Connections opened while a worker of two processes plays ``count`` matches."""
    from config.celery import app
    from league.models import Match, MatchStatus
    from league.task_names import RUN_MATCH

    environment = dict(os.environ) | {
        "DATABASE_URL": database_url,
        "DATABASE_POOL_SIZE": str(pool),
    }
    ids = matches_create(seat_ids, count)
    with tempfile.TemporaryDirectory() as folder:
        worker = worker_start(environment, Path(folder) / "worker.log", processes=2)
        try:
            before = sessions_opened()
            for match_id in ids:
                app.send_task(RUN_MATCH, args=[match_id])
            while Match.objects.filter(pk__in=ids, status=MatchStatus.FINISHED).count() < count:
                if worker.poll() is not None:
                    raise SystemExit("the worker died")
                time.sleep(0.1)
            return sessions_opened() - before
        finally:
            process_stop(worker, timeout=WORKER_STOP_SECONDS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=100)
    args = parser.parse_args()

    with scratch_database("connections_bench") as database_url:
        say(f"# bench.database_connections (load {loadavg()})")
        opened: dict[int, int] = {}
        for pool in (0, DATABASE_POOL_SIZE):
            sessions, rate = requests_run(database_url, pool, args.requests)
            opened[pool] = sessions
            say(
                f"requests  pool {pool}: {sessions:5d} connections for {args.requests} requests"
                f" ({sessions / args.requests * 1000:.0f} per 1,000; {rate:.0f} requests/s)"
            )
        say(f"requests  pooled / unpooled: {opened[DATABASE_POOL_SIZE] / max(1, opened[0]):.3f}")
        seat_ids = competitors(uploaded=False)
        for pool in (0, DATABASE_POOL_SIZE):
            sessions = matches_run(database_url, pool, args.matches, seat_ids)
            opened[pool] = sessions
            say(
                f"matches   pool {pool}: {sessions:5d} connections for {args.matches} matches"
                f" ({sessions / args.matches * 100:.0f} per 100)"
            )
        say(f"matches   pooled / unpooled: {opened[DATABASE_POOL_SIZE] / max(1, opened[0]):.3f}")
        say(f"# load {loadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
