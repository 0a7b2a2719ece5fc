"""Start and stop a real `celery -A config beat` process for integration tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.celery_workers import REPOSITORY_ROOT, process_stop

BEAT_START_TIMEOUT_SECONDS = 60.0
BEAT_STOP_TIMEOUT_SECONDS = 20.0


class BeatError(Exception):
    """The beat process did not start, or died; the message carries its log."""


@dataclass(kw_only=True)
class CeleryBeatProcess:
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> int:
        """SIGTERM (beat stops cleanly), then SIGKILL if it does not; its exit status."""
        return process_stop(self.process, timeout=BEAT_STOP_TIMEOUT_SECONDS)

    def kill(self) -> None:
        """SIGKILL: beat gets no chance to say it stopped."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def beat_start(*, environment: Mapping[str, str], directory: Path) -> CeleryBeatProcess:
    """Start `celery -A config beat` (the scheduler of the settings) with ``environment``;
    returns at once (it is ready when it writes its tick)."""
    log_path = directory / f"beat-{time.monotonic_ns()}.log"
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "beat",
        "--loglevel",
        "INFO",
        "--schedule",
        str(directory / "celerybeat-schedule"),
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=REPOSITORY_ROOT,
            env=dict(environment),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return CeleryBeatProcess(process=process, log_path=log_path)
