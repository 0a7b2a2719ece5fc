"""Run the service's processes together and keep them running (what scripts/run starts).

    python -m config.process_supervisor --health-url http://127.0.0.1:8000/healthz \\
        web='python -m config.web_server --port 8000' \\
        worker='celery -A config worker' beat='celery -A config beat'

Each child runs in a process group of its own; its output is passed on with its name in
front (``beat   | ...``). When a child exits, it is started again after a pause that grows
(1, 2, 4, 8, 16 s), at most ``max_restarts`` times within ``restart_window`` seconds; a
child that exits with status 2 (a configuration error, one line naming the variable) is
not restarted. Past that, everything is stopped with one line saying which process died
and why (its exit status or signal and its last line of output), and the supervisor exits
with status 1. Ctrl-C or SIGTERM stops the children (SIGTERM to each child itself, which
stops its own processes as it needs: a worker finishes its matches in hand; then SIGKILL to
what is left of its group after ``stop_timeout``, default 120 s, the grace a match in play
has: --stop-timeout) and exits 0. Standard library only: no Django here.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import TextIO

CONFIGURATION_ERROR_STATUS = 2
"""A child that exits with this status said what is misconfigured: no restart helps."""
BACKOFF_SECONDS = (1.0, 2.0, 4.0, 8.0, 16.0)
STOP_TIMEOUT_SECONDS = 120.0
"""How long a stopped child may take: a worker finishes the matches in hand (a bots' match
takes seconds; the task's hard limit is 10 minutes, and a match cut here is recovered by
another worker's sweep), uvicorn its requests (20 s)."""


def exit_reason(status: int) -> str:
    """``exited with status 1`` or ``was killed by SIGKILL`` for a Popen return code."""
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"was killed by {name}"
    return f"exited with status {status}"


@dataclass
class Child:
    name: str
    command: list[str]
    process: subprocess.Popen[bytes] | None = None
    restarts: deque[float] = field(default_factory=deque)
    """When it was restarted (monotonic), within the window."""
    restart_at: float | None = None
    last_line: str = ""
    reader: threading.Thread | None = None


class Supervisor:
    """Starts ``children`` (name, command), restarts those that exit, stops them all."""

    def __init__(
        self,
        children: Sequence[tuple[str, Sequence[str]]],
        *,
        max_restarts: int = 5,
        restart_window: float = 600.0,
        backoff: Sequence[float] = BACKOFF_SECONDS,
        stop_timeout: float = STOP_TIMEOUT_SECONDS,
        output: TextIO | None = None,
        messages: TextIO | None = None,
        prefix: str = "king-league",
        environment: dict[str, str] | None = None,
    ) -> None:
        self.children = [Child(name, list(command)) for name, command in children]
        self.max_restarts = max_restarts
        self.restart_window = restart_window
        self.backoff = tuple(backoff) or (1.0,)
        self.stop_timeout = stop_timeout
        self.output = output or sys.stdout
        """Where the children's output goes."""
        self.messages = messages or sys.stderr
        """Where the supervisor's own lines go."""
        self.prefix = prefix
        self.environment = environment
        self.stopping = threading.Event()
        self.gave_up: str | None = None
        """The one line said when the supervisor gave up (None while it has not)."""
        self._write_lock = threading.Lock()
        self._width = max((len(child.name) for child in self.children), default=0)

    # ------------------------------------------------------------ output

    def say(self, line: str) -> None:
        self._write(f"{self.prefix}: {line}\n", self.messages)

    def _write(self, text: str, stream: TextIO | None = None) -> None:
        stream = stream or self.output
        with self._write_lock:
            stream.write(text)
            stream.flush()

    def _pass_on(self, child: Child, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        for raw in process.stdout:
            line = raw.decode(errors="replace").rstrip()
            if line.strip():
                child.last_line = line.strip()
            self._write(f"{child.name:<{self._width}} | {line}\n")

    # ------------------------------------------------------------ children

    def start(self, child: Child) -> None:
        process = subprocess.Popen(
            child.command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches the supervisor only; it stops them
            env=self.environment,
        )
        child.process = process
        child.restart_at = None
        child.reader = threading.Thread(
            target=self._pass_on, args=(child, process), name=f"output-{child.name}", daemon=True
        )
        child.reader.start()

    def start_all(self) -> None:
        for child in self.children:
            self.start(child)

    def stop_all(self) -> None:
        """SIGTERM to each child's own process, not its group: the child stops its
        children the way it needs (a Celery worker lets its pool processes finish the
        matches in hand, then stops them; uvicorn's manager lets its processes finish their
        requests). Whatever of a group is left after ``stop_timeout`` gets SIGKILL."""
        running = [c for c in self.children if c.process is not None and c.process.poll() is None]
        for child in running:
            assert child.process is not None
            with contextlib.suppress(ProcessLookupError):
                child.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + self.stop_timeout
        for child in running:
            assert child.process is not None
            try:
                child.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.process.kill()
                child.process.wait()
            _signal_group(child.process, signal.SIGKILL)  # anything it left behind
        for child in self.children:
            if child.reader is not None:
                child.reader.join(timeout=5)

    def check(self) -> bool:
        """Restart children that exited, when due; False once it gave up (all stopped)."""
        now = time.monotonic()
        for child in self.children:
            process = child.process
            if process is None or self.stopping.is_set():
                continue
            if child.restart_at is not None:
                if now >= child.restart_at:
                    self.start(child)
                continue
            status = process.poll()
            if status is None:
                continue
            if child.reader is not None:
                child.reader.join(timeout=2)  # its last words
            if not self._restart_later(child, status, now):
                return False
        return True

    def _restart_later(self, child: Child, status: int, now: float) -> bool:
        while child.restarts and now - child.restarts[0] > self.restart_window:
            child.restarts.popleft()
        reason = exit_reason(status)
        words = f" (last words: {child.last_line})" if child.last_line else ""
        others = [c.name for c in self.children if c is not child]
        stopping = f"; stopping {', '.join(others)}" if others else ""
        if status == CONFIGURATION_ERROR_STATUS:
            self._give_up(f"{child.name} {reason}{words}: a configuration error{stopping}")
            return False
        if len(child.restarts) >= self.max_restarts:
            self._give_up(
                f"{child.name} {reason}{words}, restarted {len(child.restarts)} times in "
                f"{self.restart_window:g} s already: giving up{stopping}"
            )
            return False
        wait = self.backoff[min(len(child.restarts), len(self.backoff) - 1)]
        child.restarts.append(now)
        child.restart_at = now + wait
        self.say(
            f"{child.name} {reason}{words}; restarting it in {wait:g} s "
            f"(restart {len(child.restarts)} of at most {self.max_restarts})"
        )
        return True

    def _give_up(self, line: str) -> None:
        self.gave_up = line
        self.say(line)
        self.stop_all()

    # ------------------------------------------------------------ the loop

    def wait_until_healthy(self, url: str, *, timeout: float) -> bool:
        """Until ``url`` answers 200 (children supervised meanwhile); False if it gave up
        or the time ran out (everything stopped then)."""
        deadline = time.monotonic() + timeout
        down = "the web server"
        while time.monotonic() < deadline and not self.stopping.is_set():
            if not self.check():
                return False
            try:
                with urllib.request.urlopen(url, timeout=5):
                    return True
            except urllib.error.HTTPError as error:
                down = _down_from(error) or "something"
            except OSError:
                pass
            self.stopping.wait(0.5)
        if self.stopping.is_set():
            return False
        self._give_up(f"still down after {timeout:g} s: {down} (see the messages above)")
        return False

    def run(self, *, poll_seconds: float = 0.2) -> int:
        """Supervise until stopped (0) or given up (1)."""
        while not self.stopping.is_set():
            if not self.check():
                return 1
            self.stopping.wait(poll_seconds)
        return 0

    def stop(self, *_args: object) -> None:
        self.stopping.set()


def _down_from(error: urllib.error.HTTPError) -> str:
    import json

    try:
        body = json.load(error)
    except ValueError:
        return ""
    return ", ".join(body.get("down", [])) if isinstance(body, dict) else ""


def _signal_group(process: subprocess.Popen[bytes], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signum)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m config.process_supervisor")
    parser.add_argument("--health-url", help="wait until this answers 200, then say so")
    parser.add_argument("--health-timeout", type=float, default=90.0)
    parser.add_argument("--ready-message", default="", help="said once healthy")
    parser.add_argument("--max-restarts", type=int, default=5)
    parser.add_argument("--restart-window", type=float, default=600.0)
    parser.add_argument(
        "--stop-timeout",
        type=float,
        default=STOP_TIMEOUT_SECONDS,
        help="seconds a child may take to stop before it is killed",
    )
    parser.add_argument("children", nargs="+", metavar="NAME=COMMAND")
    arguments = parser.parse_args(argv)
    children: list[tuple[str, list[str]]] = []
    for spec in arguments.children:
        name, _, command = spec.partition("=")
        if not name or not command.strip():
            parser.error(f"{spec!r}: give NAME=COMMAND")
        children.append((name, shlex.split(command)))
    supervisor = Supervisor(
        children,
        max_restarts=arguments.max_restarts,
        restart_window=arguments.restart_window,
        stop_timeout=arguments.stop_timeout,
    )

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        if not supervisor.stopping.is_set():
            supervisor.say("stopping")
        supervisor.stop()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    supervisor.start_all()
    try:
        if arguments.health_url and not supervisor.wait_until_healthy(
            arguments.health_url, timeout=arguments.health_timeout
        ):
            return 1 if supervisor.gave_up else 0
        if arguments.ready_message and not supervisor.stopping.is_set():
            supervisor.say(arguments.ready_message)
        return supervisor.run()
    finally:
        if supervisor.gave_up is None:
            supervisor.stop_all()


if __name__ == "__main__":
    sys.exit(main())
