"""scripts/run's supervisor (config/process_supervisor.py) with real child processes.

- a child that keeps exiting is restarted (with the pause growing) a bounded number of
  times, then everything is stopped with one line naming it, its status and last words;
- a child that exits once is restarted and then left running; stopping stops them all;
- a configuration error (status 2) is not restarted; a killed child is named by signal;
- ``python -m config.process_supervisor`` exits 1 with that line, or 0 on SIGTERM.
"""

from __future__ import annotations

import io
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from config.process_supervisor import Supervisor, exit_reason
from tests.celery_workers import REPOSITORY_ROOT

PYTHON = sys.executable
STEADY = ("steady", [PYTHON, "-c", "import time; print('steady up', flush=True); time.sleep(600)"])


def supervisor_for(*children: tuple[str, list[str]], **options: object) -> Supervisor:
    return Supervisor(
        children,
        backoff=(0.05, 0.1, 0.2),
        stop_timeout=10,
        output=io.StringIO(),
        messages=io.StringIO(),
        **options,  # type: ignore[arg-type]
    )


def messages(supervisor: Supervisor) -> list[str]:
    stream = supervisor.messages
    assert isinstance(stream, io.StringIO)
    return stream.getvalue().splitlines()


def run_with_deadline(supervisor: Supervisor, seconds: float = 60.0) -> int:
    """run() with a stop after ``seconds``, so a broken supervisor cannot hang the test."""
    timer = threading.Timer(seconds, supervisor.stop)
    timer.start()
    try:
        supervisor.start_all()
        return supervisor.run(poll_seconds=0.02)
    finally:
        timer.cancel()
        supervisor.stop_all()


def test_a_child_that_keeps_exiting_is_restarted_then_everything_stops_with_one_line() -> None:
    flaky = ("flaky", [PYTHON, "-c", "import sys; print('boom: no luck', flush=True); sys.exit(3)"])
    supervisor = supervisor_for(flaky, STEADY, max_restarts=3)

    status = run_with_deadline(supervisor)

    assert status == 1
    lines = messages(supervisor)
    restarts = [line for line in lines if "restarting it in" in line]
    assert [line.split("restarting it in ")[1].split(" s")[0] for line in restarts] == [
        "0.05",
        "0.1",
        "0.2",
    ]
    assert lines[-1] == (
        "king-league: flaky exited with status 3 (last words: boom: no luck), restarted "
        "3 times in 600 s already: giving up; stopping steady"
    )
    assert supervisor.gave_up == lines[-1].removeprefix("king-league: ")
    steady = supervisor.children[1].process
    assert steady is not None
    assert steady.poll() is not None
    output = supervisor.output
    assert isinstance(output, io.StringIO)
    assert output.getvalue().count("flaky  | boom: no luck") == 4  # the first run and 3 more


def test_a_child_that_exits_once_is_restarted_and_stop_stops_them_all(tmp_path: Path) -> None:
    marker = tmp_path / "crashed-once"
    once = (
        "once",
        [
            PYTHON,
            "-c",
            "import pathlib, sys, time\n"
            f"marker = pathlib.Path({str(marker)!r})\n"
            "if not marker.exists():\n"
            "    marker.touch(); sys.exit(1)\n"
            "print('second life', flush=True); time.sleep(600)\n",
        ],
    )
    supervisor = supervisor_for(once, STEADY)
    supervisor.start_all()
    deadline = time.monotonic() + 30
    output = supervisor.output
    assert isinstance(output, io.StringIO)
    while "second life" not in output.getvalue() and time.monotonic() < deadline:
        assert supervisor.check()
        time.sleep(0.02)
    assert "second life" in output.getvalue()

    supervisor.stop()
    assert supervisor.run() == 0
    supervisor.stop_all()

    assert all(c.process is not None and c.process.poll() is not None for c in supervisor.children)
    assert messages(supervisor) == [
        "king-league: once exited with status 1; restarting it in 0.05 s (restart 1 of at most 5)"
    ]


def test_a_configuration_error_is_not_restarted() -> None:
    broken = (
        "web",
        [PYTHON, "-c", "import sys; print('DATABASE_URL: malformed', flush=True); sys.exit(2)"],
    )
    supervisor = supervisor_for(broken, STEADY)

    assert run_with_deadline(supervisor) == 1

    assert messages(supervisor) == [
        "king-league: web exited with status 2 (last words: DATABASE_URL: malformed): a "
        "configuration error; stopping steady"
    ]


def test_exit_reasons_name_the_status_or_the_signal() -> None:
    assert exit_reason(1) == "exited with status 1"
    assert exit_reason(-signal.SIGKILL) == "was killed by SIGKILL"


def test_the_command_exits_1_with_the_line_or_0_when_stopped() -> None:
    command = [
        PYTHON,
        "-m",
        "config.process_supervisor",
        "--max-restarts",
        "1",
        f"dies={PYTHON} -c 'import os, signal; os.kill(os.getpid(), signal.SIGKILL)'",
        f"steady={PYTHON} -c 'import time; time.sleep(600)'",
    ]
    result = subprocess.run(
        command, cwd=REPOSITORY_ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines()[-1] == (
        "king-league: dies was killed by SIGKILL, restarted 1 times in 600 s already: giving "
        "up; stopping steady"
    )

    up = f"steady={PYTHON} -c 'import time; print(\"up\", flush=True); time.sleep(600)'"
    process = subprocess.Popen(
        [*command[:3], up],
        cwd=REPOSITORY_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "steady | up\n"  # started, its child too
    process.send_signal(signal.SIGTERM)
    _stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    assert stderr.splitlines() == ["king-league: stopping"]
