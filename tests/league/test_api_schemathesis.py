"""schemathesis against the project's own OpenAPI schema on a live server (daphne on a
free loopback port, on the test database): no 5xx, no response that breaks the schema.

The server's tasks go to a Redis database of their own (``SCRATCH_REDIS_DB``), emptied
afterwards, so that the matches this test opens do not reach other tests' workers.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.contrib.auth.models import User
from django.db import connection
from rest_framework.authtoken.models import Token

import pytest
import redis

from league.services.clubs import club_create
from tests.celery_workers import REPOSITORY_ROOT
from tests.league.builders import bot_tournament
from tests.servers import database_url_for

SCRATCH_REDIS_DB = 14
SERVER_START_SECONDS = 60.0
SCHEMATHESIS_SECONDS = 240


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def scratch_redis_url(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{SCRATCH_REDIS_DB}"))


@pytest.fixture
def live_server_url(subprocess_environment: dict[str, str], tmp_path: Path) -> Iterator[str]:
    port = free_port()
    redis_url = scratch_redis_url(subprocess_environment["REDIS_URL"])
    environment = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "REDIS_URL": redis_url,
        "DEBUG": "false",
    }
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "daphne"),
                "--bind",
                "127.0.0.1",
                "--port",
                str(port),
                "league.asgi:application",
            ],
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
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        redis.Redis.from_url(redis_url).flushdb()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_schemathesis_finds_no_server_error_and_no_response_that_breaks_the_schema(
    live_server_url: str, tmp_path: Path
) -> None:
    tournament, organiser = bot_tournament()
    assert tournament.club is not None
    club_create(user=organiser, name="Second club")
    token = Token.objects.create(user=User.objects.get(pk=organiser.pk))
    everything_but_the_upload = [
        "--checks",
        "not_a_server_error,response_schema_conformance,content_type_conformance",
        "--exclude-path-regex",
        UPLOAD_PATH,
    ]
    # daphne (Twisted) answers a malformed multipart body itself, with an empty 400,
    # before Django sees it: the upload is checked for server errors only.
    the_upload = ["--checks", "not_a_server_error", "--include-path-regex", UPLOAD_PATH]
    for selection in (everything_but_the_upload, the_upload):
        schemathesis_run(live_server_url, token.key, selection, cwd=tmp_path)


UPLOAD_PATH = r"^/api/bots/\{bot_id\}/versions/$"


def schemathesis_run(url: str, token: str, selection: list[str], *, cwd: Path) -> None:
    command = [
        str(Path(sys.executable).parent / "schemathesis"),
        "run",
        f"{url}/api/schema/",
        *selection,
        "--header",
        f"Authorization: Token {token}",
        "--max-examples",
        "12",
        "--phases",
        "examples,coverage,fuzzing",
        "--seed",
        "1",
        "--workers",
        "2",
        "--no-color",
        "--request-timeout",
        "30",
    ]
    run = subprocess.run(
        command,
        cwd=cwd,  # its example database (.schemathesis/) goes there
        capture_output=True,
        text=True,
        timeout=SCHEMATHESIS_SECONDS,
        check=False,
    )
    failures = max(run.stdout.find("= FAILURES ="), 0)
    output = run.stdout[failures : failures + 15000] + run.stdout[-3000:] + run.stderr[-3000:]
    assert run.returncode == 0, output
