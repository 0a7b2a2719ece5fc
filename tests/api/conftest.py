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
from collections.abc import Iterator
from pathlib import Path

from django.db import connection

import pytest

from tests.celery_workers import REPOSITORY_ROOT
from tests.parallel_processes import redis_own_database_flush
from tests.servers import database_url_for
from tests.uvicorn_servers import LiveServerStartError, web_server_process

UNLIMITED_RATES = (
    "sign_in=100000/minute,uploads=100000/hour,tables=100000/hour,actions=100000/minute,"
    "table_joins=100000/hour,table_code_writes=100000/hour,table_session_writes=100000/hour,"
    "table_code_guesses=100000/hour,settings=100000/hour,chat=100000/minute,sign_up=100000/hour"
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
    try:
        with web_server_process(
            port, environment, log_path=tmp_path / "server.log", cwd=REPOSITORY_ROOT
        ) as server:
            yield server.url
    except LiveServerStartError as error:
        pytest.fail(str(error))
    finally:
        redis_own_database_flush(redis_url)
