"""Start and stop a real `celery -A config worker` process for integration tests."""

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

REPOSITORY_ROOT = Path(__file__).resolve().parent.parent

# Generous: a worker normally starts in a few seconds; this only bounds a broken one.
WORKER_START_TIMEOUT_SECONDS = 90.0
WORKER_STOP_TIMEOUT_SECONDS = 30.0
WORKER_TEARDOWN_STOP_SECONDS = 5.0
"""At a test's end nothing waits on the worker's matches any more: a warm shutdown gets this
long to finish the one in hand, then the worker is killed (a ladder worker otherwise spent
30 s finishing matches nobody would read)."""


def process_stop(process: subprocess.Popen[bytes], *, timeout: float) -> int:
    """SIGTERM, then SIGKILL to the process group if it has not ended within ``timeout``;
    the exit status. A process that has ended already is left as it is."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return process.returncode


class WorkerError(Exception):
    """The worker process did not start, or died; the message carries its log."""


@dataclass(kw_only=True)
class CeleryWorkerProcess:
    process: subprocess.Popen[bytes]
    node_name: str
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_until_ready(self, *, timeout: float = WORKER_START_TIMEOUT_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if f"{self.node_name} ready." in self.log():
                return
            if self.process.poll() is not None:
                raise WorkerError(
                    f"worker exited with status {self.process.returncode}:\n{self.log()}"
                )
            time.sleep(0.1)
        raise WorkerError(f"worker not ready after {timeout:g} s:\n{self.log()}")

    def stop(self, *, timeout: float = WORKER_STOP_TIMEOUT_SECONDS) -> None:
        """Warm shutdown (SIGTERM), then SIGKILL if it does not stop within ``timeout``."""
        process_stop(self.process, timeout=timeout)


def worker_start(
    *,
    environment: Mapping[str, str],
    log_path: Path,
    queues: str = "interactive,default,matches,analysis",
    node_name: str | None = None,
    concurrency: int = 1,
    command_prefix: Sequence[str] = (),
) -> CeleryWorkerProcess:
    """Start `celery -A config worker` with the given environment; return once it is ready.
    ``command_prefix``: what runs it, e.g. ``ip netns exec HOST`` (tests/network_hosts.py)."""
    node_name = node_name or f"test-{uuid.uuid4().hex[:8]}@localhost"
    command = [
        *command_prefix,
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--queues",
        queues,
        "--concurrency",
        str(concurrency),
        "--hostname",
        node_name,
        "--loglevel",
        "INFO",
        "--without-gossip",
        "--without-mingle",
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=REPOSITORY_ROOT,
            env=dict(environment),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so SIGKILL reaches the pool too
        )
    worker = CeleryWorkerProcess(process=process, node_name=node_name, log_path=log_path)
    try:
        worker.wait_until_ready()
    except BaseException:
        worker.stop()
        raise
    return worker
