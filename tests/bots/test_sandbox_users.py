"""The machine's 32 sandbox users are shared by every worker process on it, and each
holds one per seat of its match and one per warm sandbox (issue 36): a worker says at
its start whether they suffice, naming the numbers, and ``python -m bots sandbox`` says
it too, rather than bots being refused under load ("all 32 sandbox users are busy")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bots.runner.sandbox import SANDBOX_USER_POOL
from bots.runner.warm import MATCH_SEATS, SandboxUsersDemand, sandbox_users_check
from tests.celery_workers import worker_start

PROJECT = Path(__file__).resolve().parents[2]


def test_two_processes_with_eight_warm_sandboxes_fit() -> None:
    demand = SandboxUsersDemand(processes=2, warm=8)
    assert (demand.each, demand.needed, demand.fits) == (12, 24, True)
    assert demand.message() == (
        "sandbox users: 2 worker process(es) x up to 12 each (4 seats + 8 warm sandboxes,"
        " WORKER_WARM_SANDBOXES) = 24 of the machine's 32, which every worker on it shares"
    )


def test_three_processes_with_eight_warm_sandboxes_do_not_and_it_says_what_to_change() -> None:
    demand = SandboxUsersDemand(processes=3, warm=8)
    assert (demand.needed, demand.fits) == (36, False)
    message = demand.message()
    assert "= 36, more than the machine's 32" in message
    assert "'all 32 sandbox users are busy'" in message
    assert message.endswith(
        "run at most 2 worker process(es) a machine at this setting,"
        " or set WORKER_WARM_SANDBOXES=6 for 3"
    )
    assert SandboxUsersDemand(processes=3, warm=6).fits  # the advice holds


def test_too_many_processes_for_even_no_warm_sandbox() -> None:
    processes = SANDBOX_USER_POOL // MATCH_SEATS + 1
    message = SandboxUsersDemand(processes=processes, warm=0).message()
    assert message.endswith("run at most 8 worker process(es) a machine at this setting")


def test_the_check_logs_a_warning_only_when_they_do_not_suffice(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level("INFO", logger="bots.runner.warm"):
        assert sandbox_users_check(2, 8).fits
        assert not sandbox_users_check(4, 8).fits
    levels = [(record.levelname, record.getMessage()) for record in caplog.records]
    assert levels == [
        ("INFO", SandboxUsersDemand(2, 8).message()),
        ("WARNING", SandboxUsersDemand(4, 8).message()),
    ]


def test_the_sandbox_command_names_the_numbers() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bots", "sandbox"],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=120,
        check=False,
        env=os.environ | {"WORKER_WARM_SANDBOXES": "5"},
    )
    if run.returncode == 3:
        pytest.skip(f"no sandbox here: {run.stderr.strip()}")  # tests/bots/kits.py fails CI
    assert run.returncode == 0, run.stderr
    processes = os.cpu_count() or 1
    expected = SandboxUsersDemand(processes, 5).message()
    assert expected.startswith(f"sandbox users: {processes} worker process(es) x up to 9 each")
    assert run.stdout.splitlines()[2] == expected


@pytest.mark.redis
@pytest.mark.worker
def test_a_worker_too_large_for_the_machines_users_says_so_at_start(
    tmp_path: Path, subprocess_environment: dict[str, str]
) -> None:
    """A real worker of 3 processes with 8 warm sandboxes each (36 users of 32) warns in
    its log as it starts; one of 2 says how many it may hold."""
    environment = subprocess_environment | {"WORKER_WARM_SANDBOXES": "8"}
    for processes, level in ((3, "WARNING"), (2, "INFO")):
        log_path = tmp_path / f"worker-{processes}.log"
        worker = worker_start(environment=environment, log_path=log_path, concurrency=processes)
        try:
            log = worker.log()
        finally:
            worker.stop(timeout=10)
        message = SandboxUsersDemand(processes, 8).message()
        lines = [line for line in log.splitlines() if message in line]
        assert len(lines) == 1, log
        assert f" {level} bots.runner.warm: " in lines[0], lines  # the project's log format


def test_spawners_hold_sandbox_users_too() -> None:
    from bots.runner.warm import SandboxUsersDemand

    without = SandboxUsersDemand(2, 8)
    with_spawners = SandboxUsersDemand(2, 8, 8)
    assert (without.needed, with_spawners.needed) == (24, 40)
    assert without.fits
    assert not with_spawners.fits
    assert "8 spawners, WORKER_BOT_SPAWNERS" in with_spawners.message()
    assert "WORKER_WARM_SANDBOXES=4 for 2" in with_spawners.message()  # 2 x (4 + 4 + 8) = 32
