"""One bot process for a whole match, and line-by-line talk with it under deadlines.

The runner writes a request line, flushes it (one ``write`` on the pipe), and reads the
answer from its own buffer fed by ``os.read`` of whatever the pipe holds, waiting with
``poll`` until the deadline: never an unbuffered ``readline`` (one syscall per byte) and
never a blocking read. The bot's stderr is drained while the runner waits on it and kept
for the author, capped (its start and its end; the middle of a long log is dropped).
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass, field

from bots.protocol import MAX_LINE_BYTES

READ_CHUNK = 65536
STDERR_HEAD_BYTES = 16 * 1024
STDERR_TAIL_BYTES = 48 * 1024


class BotIOError(Exception):
    """Base of what can go wrong talking to a bot process."""


class BotTimeoutError(BotIOError):
    """The deadline passed before the bot's line arrived."""


class BotExitedError(BotIOError):
    """The bot's process ended, or closed its end of a pipe."""


class BotLineTooLongError(BotIOError):
    """The bot wrote more than ``MAX_LINE_BYTES`` without a newline."""


@dataclass(frozen=True)
class LaunchSpec:
    """How to start a bot's process (built by bots.runner.sandbox)."""

    argv: list[str]
    env: dict[str, str]
    cwd: str = "/"
    uid: int | None = None
    gid: int | None = None
    pass_fds: tuple[int, ...] = ()
    description: str = ""


@dataclass
class CappedLog:
    """The first ``head`` bytes and the last ``tail`` bytes of a stream, and a count."""

    head_limit: int = STDERR_HEAD_BYTES
    tail_limit: int = STDERR_TAIL_BYTES
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    total: int = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > 2 * self.tail_limit:
                del self.tail[: len(self.tail) - self.tail_limit]

    def text(self) -> str:
        tail = self.tail[-self.tail_limit :] if self.tail else b""
        dropped = self.total - len(self.head) - len(tail)
        middle = f"\n[... {dropped} bytes dropped ...]\n".encode() if dropped > 0 else b""
        return (bytes(self.head) + middle + bytes(tail)).decode("utf-8", errors="replace")


class BotProcess:
    """A running bot: send lines, receive lines by a deadline, stop it for good."""

    def __init__(self, spec: LaunchSpec) -> None:
        self.spec = spec
        self.stderr = CappedLog()
        self._buffer = bytearray()
        self._process: subprocess.Popen[bytes] | None = None
        self._poll = select.poll()
        self._out_fd = -1
        self._err_fd = -1
        self._in_fd = -1
        self.started_at = 0.0
        self.returncode: int | None = None

    def start(self) -> None:
        """Start the process (OSError if it cannot be started at all)."""
        spec = self.spec
        self.started_at = time.perf_counter()
        process = subprocess.Popen(
            spec.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            env=spec.env,
            cwd=spec.cwd,
            close_fds=True,
            pass_fds=spec.pass_fds,
            start_new_session=True,
            user=spec.uid,
            group=spec.gid,
            extra_groups=[] if spec.uid is not None else None,
        )
        self._process = process
        assert process.stdin is not None
        assert process.stdout is not None
        assert process.stderr is not None
        self._in_fd = process.stdin.fileno()
        self._out_fd = process.stdout.fileno()
        self._err_fd = process.stderr.fileno()
        for fd in (self._in_fd, self._out_fd, self._err_fd):
            os.set_blocking(fd, False)
        self._poll.register(self._out_fd, select.POLLIN)
        self._poll.register(self._err_fd, select.POLLIN)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def send(self, line: bytes, deadline: float) -> None:
        """Write one whole line; BotExitedError if the bot is gone, BotTimeoutError if the
        pipe stays full (a bot that reads nothing) until the deadline."""
        if self._in_fd < 0:
            raise BotExitedError("the bot's input is closed")
        view = memoryview(line)
        while view:
            try:
                written = os.write(self._in_fd, view)
            except BlockingIOError:
                written = 0
            except (BrokenPipeError, ConnectionResetError):
                raise BotExitedError("the bot closed its input") from None
            view = view[written:]
            if view:
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    raise BotTimeoutError("the bot does not read its input")
                writer = select.poll()
                writer.register(self._in_fd, select.POLLOUT)
                writer.poll(math.ceil(remaining * 1000))

    def receive(self, deadline: float) -> bytes:
        """The next line the bot writes (without its newline), by ``deadline``
        (a ``time.perf_counter()`` value)."""
        buffer = self._buffer
        while True:
            end = buffer.find(b"\n")
            if end >= 0:
                line = bytes(buffer[:end])
                del buffer[: end + 1]
                if len(line) > MAX_LINE_BYTES:
                    raise BotLineTooLongError(f"an answer longer than {MAX_LINE_BYTES} bytes")
                return line
            if len(buffer) > MAX_LINE_BYTES:
                raise BotLineTooLongError(f"an answer longer than {MAX_LINE_BYTES} bytes")
            if self._out_fd < 0:
                raise BotExitedError("the bot's output is closed")
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise BotTimeoutError("no answer in time")
            for fd, _ in self._poll.poll(math.ceil(remaining * 1000)):
                if fd == self._out_fd:
                    try:
                        chunk = os.read(fd, READ_CHUNK)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        self._poll.unregister(fd)
                        self._out_fd = -1
                        raise BotExitedError(self._exit_description())
                    buffer += chunk
                else:
                    self._drain_stderr()

    def _drain_stderr(self) -> None:
        if self._err_fd < 0:
            return
        while True:
            try:
                chunk = os.read(self._err_fd, READ_CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                self._poll.unregister(self._err_fd)
                self._err_fd = -1
                return
            self.stderr.add(chunk)

    def _exit_description(self) -> str:
        process = self._process
        if process is None:
            return "the bot never started"
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(0.2)
        code = process.returncode
        if code is None:
            return "the bot closed its output"
        return f"the bot exited: {describe_exit(code)}"

    def close_input(self) -> None:
        """Close the bot's stdin (it reads end of file)."""
        if self._process is not None and self._process.stdin is not None:
            with contextlib.suppress(OSError):
                self._process.stdin.close()
        self._in_fd = -1

    def stop(self, grace: float = 0.0) -> None:
        """Close stdin, give the process ``grace`` seconds to exit, then kill its process
        group; collect what is left of its stderr."""
        process = self._process
        if process is None:
            return
        self.close_input()
        if grace > 0:
            deadline = time.perf_counter() + grace
            while process.poll() is None and time.perf_counter() < deadline:
                self._wait_output(deadline)
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        process.wait()
        self.returncode = process.returncode
        # what the bot wrote last: bounded, as a process left holding the pipe may never end it
        deadline = time.perf_counter() + 0.2
        while self._err_fd >= 0 and time.perf_counter() < deadline:
            self._drain_stderr()
            if self._err_fd >= 0:
                self._wait_output(deadline)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._out_fd = self._err_fd = -1
        self._process = None

    def _wait_output(self, deadline: float) -> None:
        """Wait (at most until ``deadline``) for output, keeping stderr and dropping stdout;
        once both are closed, for the process to exit."""
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return
        if self._out_fd < 0 and self._err_fd < 0:
            if self._process is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._process.wait(remaining)
            return
        events = self._poll.poll(min(50, math.ceil(remaining * 1000)))
        for fd, _ in events:
            if fd == self._out_fd:
                try:
                    chunk = os.read(fd, READ_CHUNK)
                except BlockingIOError:
                    continue
                if not chunk:
                    self._poll.unregister(fd)
                    self._out_fd = -1
            elif fd == self._err_fd:
                self._drain_stderr()
        if not events:
            return


def describe_exit(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}"
    return f"exit status {code}"
