"""Fixtures of the API's tests: the site served as it runs in production.

``live_server_url`` starts production's web server (``python -m config.web_server``:
uvicorn, tests/uvicorn_servers.py) on a free loopback port on the test database (the test
must use ``django_db(transaction=True)`` so that the server sees its rows). The server
uses the process's own Redis database (tests/parallel_processes.py), emptied afterwards,
so that the tasks it queued do not reach a later test's workers; no other database is
touched (another one may be another process's or another run's). Its rate limits are raised
out of the way of a test that sends many requests (tests/api/test_throttling.py tests
the limits themselves).
"""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from django.db import connection

import pytest

from tests.celery_workers import REPOSITORY_ROOT
from tests.parallel_processes import redis_own_database_flush
from tests.servers import database_url_for
from tests.uvicorn_servers import web_server_command

SERVER_START_SECONDS = 60.0
UNLIMITED_RATES = (
    "sign_in=100000/minute,uploads=100000/hour,tables=100000/hour,actions=100000/minute,"
    "table_joins=100000/hour,table_code_writes=100000/hour,table_session_writes=100000/hour,"
    "table_code_guesses=100000/hour"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def live_server_url(subprocess_environment: dict[str, str], tmp_path: Path) -> Iterator[str]:
    port = free_port()
    redis_url = subprocess_environment["REDIS_URL"]
    environment = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "REDIS_URL": redis_url,
        "DEBUG": "false",
        "RATE_LIMITS": UNLIMITED_RATES,
    }
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            web_server_command(port),
            cwd=REPOSITORY_ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/schema/", timeout=5):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the server did not start:\n{log_path.read_text()}")
                time.sleep(0.05)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        redis_own_database_flush(redis_url)
