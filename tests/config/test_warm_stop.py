"""Stopping the service lets the matches in play finish (config/process_supervisor.py,
docs/operations.md "Processes"): the supervisor that ./scripts/run starts is told to stop
(SIGTERM, as Ctrl-C does) while its worker plays a bots' match; the worker finishes that
match itself (its own lease, one claim) and exits cleanly, rather than its pool process
being killed and the match recovered later by another worker."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from django.db import connection

import pytest

from league.models import Match, MatchStatus
from league.services.tournaments import tournament_round_start
from tests.celery_workers import REPOSITORY_ROOT
from tests.league.builders import bot_tournament
from tests.servers import database_url_for

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
]

GAME = "kung_och_adel(deals=60)"
"""A bots' match of some seconds: long enough to be stopped in the middle."""
WAIT_SECONDS = 120.0


def wait_for(what: str, condition: object, log: Path) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"not within {WAIT_SECONDS:g} s: {what}\n{log.read_text()[-4000:]}")
        time.sleep(0.05)


def test_stopping_the_service_lets_the_worker_finish_the_match_in_play(
    subprocess_environment: dict[str, str], tmp_path: Path
) -> None:
    node = f"warm-{uuid.uuid4().hex[:8]}@localhost"
    worker = (
        f"worker={sys.executable} -m celery -A config worker --queues matches --concurrency 1"
        f" --hostname {node}"
        " --without-gossip --without-mingle --loglevel INFO"
    )
    environment = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict)
    }
    log_path = tmp_path / "supervisor.log"
    with log_path.open("wb") as log:
        supervisor = subprocess.Popen(
            [sys.executable, "-m", "config.process_supervisor", worker],
            cwd=REPOSITORY_ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for("the worker is ready", lambda: f"{node} ready." in log_path.read_text(), log_path)
        tournament, organiser = bot_tournament(game=GAME, bot="greedy")
        match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
        wait_for(
            "the worker plays the match",
            lambda: Match.objects.get(pk=match.pk).status == MatchStatus.RUNNING,
            log_path,
        )
        supervisor.send_signal(signal.SIGTERM)  # Ctrl-C on ./scripts/run does the same
        assert supervisor.wait(timeout=WAIT_SECONDS) == 0
    finally:
        if supervisor.poll() is None:
            supervisor.kill()
            supervisor.wait()
    played = Match.objects.get(pk=match.pk)
    output = log_path.read_text()
    assert played.status == MatchStatus.FINISHED, output[-4000:]
    assert played.attempts == 1  # claimed once: by this worker, not recovered by another
    assert played.played_by.startswith(node)
    assert "WorkerLostError" not in output
    assert "Warm shutdown" in output
