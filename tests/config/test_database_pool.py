"""PostgreSQL connections come from a pool (config/configuration.py's database_pool,
docs/operations.md "Database connections"): production's web server opens a handful for
many requests, not one a request, and a forked worker process opens its own instead of
sharing its parent's."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from django.db import connection

import pytest

from config.configuration import DATABASE_POOL_SIZE, WEB_DATABASE_POOL_SIZE
from tests.api.conftest import UNLIMITED_RATES, free_port
from tests.celery_workers import REPOSITORY_ROOT
from tests.parallel_processes import redis_own_database_flush
from tests.servers import database_url_for
from tests.uvicorn_servers import web_server_process

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

REQUESTS = 60


def sessions_opened() -> int:
    """Connections opened to the test database so far (PostgreSQL counts them as they
    start)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        (count,) = cursor.fetchone()
    return int(count)


def connections_for_requests(environment: dict[str, str], tmp_path: Path, pool: int | None) -> int:
    """Connections the web server opened for REQUESTS reads of the API (each asks the
    database for a person), started with DATABASE_POOL_SIZE=``pool`` (None: not given,
    the web server's own default)."""
    env = {name: value for name, value in environment.items() if name != "DATABASE_POOL_SIZE"}
    if pool is not None:
        env["DATABASE_POOL_SIZE"] = str(pool)
    log_path = tmp_path / f"server-{pool}.log"
    with web_server_process(free_port(), env, log_path=log_path, cwd=REPOSITORY_ROOT) as server:
        url = server.url
        before = sessions_opened()
        for number in range(REQUESTS):
            assert person_missing(f"{url}/api/people/nobody-{number}/")
        return sessions_opened() - before


def person_missing(url: str) -> bool:
    """The API looked the person up in the database and found nobody (404)."""
    try:
        with urllib.request.urlopen(url, timeout=30):
            return False
    except urllib.error.HTTPError as answer:
        return answer.code == 404 and "detail" in json.load(answer)


def test_the_web_server_serves_many_requests_on_a_few_pooled_connections(
    subprocess_environment: dict[str, str], tmp_path: Path
) -> None:
    environment = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "DEBUG": "false",
        "RATE_LIMITS": UNLIMITED_RATES,
    }
    try:
        unpooled = connections_for_requests(environment, tmp_path, pool=0)
        pooled = connections_for_requests(environment, tmp_path, pool=DATABASE_POOL_SIZE)
        by_default = connections_for_requests(environment, tmp_path, pool=None)
    finally:
        redis_own_database_flush(environment["REDIS_URL"])
    # Without the pool, a connection each request (the count measures what it should);
    # with it, no more than the one process's pool holds; and the web server pools unless
    # told not to (one request at a time: a connection or two, not one a request).
    assert unpooled >= REQUESTS
    assert pooled <= DATABASE_POOL_SIZE
    assert by_default <= WEB_DATABASE_POOL_SIZE
    assert by_default < REQUESTS / 4


FORK_CHECK = """
import os, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from django.db import connection, connections
import config.celery  # registers the forgetting at fork, as a worker does

def backend_pid():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]

assert connection.settings_dict["OPTIONS"].get("pool"), "not pooled"
parent = backend_pid()
connections.close_all()  # back to the pool, which keeps it open: the child inherits it
read, write = os.pipe()
child = os.fork()
if child == 0:
    code = 1
    try:
        os.close(read)
        os.write(write, str(backend_pid()).encode())
        connections.close_all()
        code = 0
    finally:
        os._exit(code)
os.close(write)
with os.fdopen(read) as pipe:
    child_pid = int(pipe.read() or "0")
_, status = os.waitpid(child, 0)
with connection.cursor() as cursor:  # the parent's first connection still open?
    cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [parent])
    alive = cursor.fetchone()[0]
print(parent, child_pid, alive, os.waitstatus_to_exitcode(status))
"""


def test_a_forked_process_opens_its_own_connection_and_leaves_the_parents_alone(
    subprocess_environment: dict[str, str],
) -> None:
    """A pooled process (as a worker's main process is) forks: the child asks PostgreSQL on
    a connection of its own, and the parent's pooled connection still answers after."""
    environment = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "DATABASE_POOL_SIZE": str(DATABASE_POOL_SIZE),
    }
    done = subprocess.run(
        [sys.executable, "-c", FORK_CHECK],
        cwd=REPOSITORY_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    parent, child, parent_alive, child_status = (int(x) for x in done.stdout.split()[-4:])
    assert child_status == 0
    assert child not in (0, parent)
    assert parent_alive == 1  # the child did not close the parent's pooled connection
