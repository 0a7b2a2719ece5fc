"""Production's web server keeps a busy process and replaces a hung one (config/web_server.py,
docs/operations.md "The web server"). A process stopped (SIGSTOP) answers nothing, as one
starved of CPU on a loaded machine answers late: stopped for 8 s, longer than uvicorn's own
5 s health check allowed, it is kept and serves again when it goes on; stopped for longer
than WEB_PROCESS_HUNG_SECONDS, it is hung, and a new process takes its place."""

from __future__ import annotations

import os
import signal
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from django.db import connection

import psutil
import pytest

from config.web_server import HUNG_SECONDS, hung_seconds_from
from tests.api.conftest import free_port
from tests.celery_workers import REPOSITORY_ROOT
from tests.servers import database_url_for
from tests.uvicorn_servers import WebServerProcess, web_server_process

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

PAUSE_SECONDS = 8
"""Longer than uvicorn's default health check (5 s), which killed busy processes."""
HUNG_IN_TEST_SECONDS = 3
WAIT_SECONDS = 60


def serving_processes(server: WebServerProcess) -> list[int]:
    """The manager's living children that serve (multiprocessing's resource tracker aside).

    A child just killed is a zombie, or gone, until the manager reaps it: it serves no more.
    """
    serving = []
    for child in psutil.Process(server.pid).children():
        try:
            if child.status() == psutil.STATUS_ZOMBIE:
                continue
            if "resource_tracker" not in " ".join(child.cmdline()):
                serving.append(child.pid)
        except (psutil.ZombieProcess, psutil.NoSuchProcess):
            continue
    return sorted(serving)


ANSWERED = "/api/docs/"
"""What the tests ask the web processes for: a page of the API's documentation, answered
from a template (2 ms of CPU), not /api/schema/, which drf-spectacular generates afresh
for every request (350 ms: 40 requests and their scrapes were half of this module's CPU)."""


def answers(url: str) -> bool:
    with urllib.request.urlopen(f"{url}{ANSWERED}", timeout=30) as response:
        return bool(response.status == 200)


def eventually(condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def test_the_hung_time_is_a_minute_unless_set() -> None:
    assert hung_seconds_from({}) == HUNG_SECONDS == 60
    assert hung_seconds_from({"WEB_PROCESS_HUNG_SECONDS": "90"}) == 90


def test_a_paused_web_process_is_kept_and_a_hung_one_is_replaced(
    subprocess_environment: dict[str, str], tmp_path: Path
) -> None:
    environment = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "DEBUG": "false",
    }
    # The default: a process paused 8 s is busy, not hung.
    with web_server_process(
        free_port(), environment, log_path=tmp_path / "busy.log", cwd=REPOSITORY_ROOT, processes=2
    ) as server:
        assert eventually(lambda: len(serving_processes(server)) == 2)
        before = serving_processes(server)
        os.kill(before[0], signal.SIGSTOP)
        try:
            time.sleep(PAUSE_SECONDS)
        finally:
            os.kill(before[0], signal.SIGCONT)
        assert answers(server.url)
        assert serving_processes(server) == before
        assert psutil.Process(before[0]).status() != psutil.STATUS_ZOMBIE

    # Told that 3 s without an answer is hung: a process stopped for good is replaced, and
    # the server goes on answering.
    hung = environment | {"WEB_PROCESS_HUNG_SECONDS": str(HUNG_IN_TEST_SECONDS)}
    with web_server_process(
        free_port(), hung, log_path=tmp_path / "hung.log", cwd=REPOSITORY_ROOT, processes=2
    ) as server:
        assert eventually(lambda: len(serving_processes(server)) == 2)
        before = serving_processes(server)
        os.kill(before[0], signal.SIGSTOP)
        assert eventually(lambda: before[0] not in serving_processes(server))
        assert eventually(lambda: len(serving_processes(server)) == 2)
        assert answers(server.url)


REQUESTS = 40


def requests_counted(url: str, token: str) -> float:
    """The scraped count of GET requests answered 200 by the documentation's view."""
    request = urllib.request.Request(f"{url}/metrics", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read().decode()
    total = 0.0
    for line in text.splitlines():
        if line.startswith("django_http_responses_total_by_status_view_method_total{") and (
            'view="api-docs"' in line and 'status="200"' in line and 'method="GET"' in line
        ):
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_every_scrape_counts_the_requests_of_every_web_process(
    subprocess_environment: dict[str, str], tmp_path: Path
) -> None:
    """Two processes share the requests (the kernel gives each connection to either), and
    each scrape is answered by either: every scrape sums both."""
    environment = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "DEBUG": "false",
        "METRICS_TOKEN": "scrape-token",
        "VAR_DIR": str(tmp_path / "var"),
    }
    with web_server_process(
        free_port(), environment, log_path=tmp_path / "web.log", cwd=REPOSITORY_ROOT, processes=2
    ) as server:
        assert eventually(lambda: len(serving_processes(server)) == 2)
        already = requests_counted(server.url, "scrape-token")  # the start's own checks
        for _ in range(REQUESTS):
            assert answers(server.url)
        scrapes = [requests_counted(server.url, "scrape-token") for _ in range(4)]
        assert scrapes == [already + REQUESTS] * 4
        assert len(list((tmp_path / "var" / "metrics").glob("*/*.db"))) >= 2  # each process's
