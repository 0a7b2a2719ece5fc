"""One bot process for a whole match, and line-by-line talk with it under deadlines.

The runner writes a request line, flushes it (one ``write`` on the pipe), and reads the
answer from its own buffer (``LineBuffer``) fed by ``os.read`` of whatever the pipe holds,
waiting with ``poll`` until the deadline: never an unbuffered ``readline`` (one syscall per
byte) and never a blocking read. Before any timeout verdict it reads what the pipe already
holds: a line that arrived is never called late because the runner was busy elsewhere (with
another seat, say). The bot's stderr is drained whenever the runner waits on it (also while
a request is being written) and kept for the author, capped (its start and its end; the
middle of a long log is dropped).

The protocol's two pipes belong to the bot alone. Where the command is the launcher
(``LaunchSpec.stdio_fds``), they are handed to it as extra descriptors that it moves onto
its standard input and output, and the command's own standard input and output are
/dev/null: bubblewrap's processes keep their standard streams open for the life of the
sandbox, so a bot that closed its stdout would otherwise look merely silent (three
timeouts) instead of gone (a crash, at once).
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bots.protocol import MAX_LINE_BYTES

READ_CHUNK = 65536
REAP_SECONDS = 1.0
"""How long a killed bot's outer process may take to reap what it started (milliseconds
in practice) before its process group is killed too."""
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


class LineBuffer:
    """Bytes read from a bot, cut into lines: ``feed`` what was read, ``take`` a line.

    ``take`` returns the next whole line without its newline, None while the line is
    incomplete, and raises BotLineTooLongError once a line is longer than ``limit`` (the
    stream cannot be trusted after it)."""

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self.limit = limit
        self._data = bytearray()
        self._scanned = 0
        """How much of ``_data`` is known to hold no newline."""

    def __len__(self) -> int:
        return len(self._data)

    def feed(self, chunk: bytes) -> None:
        self._data += chunk

    def take(self) -> bytes | None:
        data = self._data
        end = data.find(b"\n", self._scanned)
        if end < 0:
            self._scanned = len(data)
            if len(data) > self.limit:
                raise BotLineTooLongError(f"an answer longer than {self.limit} bytes")
            return None
        line = bytes(data[:end])
        del data[: end + 1]
        self._scanned = 0
        if len(line) > self.limit:
            raise BotLineTooLongError(f"an answer longer than {self.limit} bytes")
        return line


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
    stdio_fds: bool = False
    """The command is bots/runner/launcher.py: give it the protocol's pipes as extra
    descriptors (an argument ``stdio=IN,OUT`` appended to ``argv``) that it moves onto its
    standard input and output, so that no other process (bubblewrap's) holds them."""
    explain_exit: Callable[[], str | None] | None = None
    """Why the bot's processes ended, when the sandbox knows more than the exit status
    (its control group: "memory limit exceeded"); asked once the bot's output closes."""


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
        self._lines = LineBuffer()
        self._process: subprocess.Popen[bytes] | None = None
        self._poll = select.poll()
        self._out_fd = -1
        self._out_pipe = -1
        """The runner's end of the bot's stdout, open until ``stop`` (``_out_fd`` is -1
        from the end of the bot's output on)."""
        self._err_fd = -1
        self._in_fd = -1
        self.started_at = 0.0
        self.returncode: int | None = None
        self.memory_fault: str | None = None
        """What a control group of the process's own said of its memory once it was
        stopped (a spawned child's: bots.runner.spawner); a seat's group is its user's."""
        self._closed_description = ""

    def start(self) -> None:
        """Start the process (OSError if it cannot be started at all)."""
        spec = self.spec
        self.started_at = time.perf_counter()
        # the runner's ends stay non-inheritable (os.pipe); the bot's ends are closed here
        # once the process has them
        bot_in, runner_in = os.pipe()
        runner_out, bot_out = os.pipe()
        try:
            if spec.stdio_fds:
                argv = [*spec.argv, f"stdio={bot_in},{bot_out}"]
                stdin: int = subprocess.DEVNULL
                stdout: int = subprocess.DEVNULL
                pass_fds = (*spec.pass_fds, bot_in, bot_out)
            else:
                argv, stdin, stdout, pass_fds = spec.argv, bot_in, bot_out, spec.pass_fds
            process = subprocess.Popen(
                argv,
                stdin=stdin,
                stdout=stdout,
                stderr=subprocess.PIPE,
                bufsize=0,
                env=spec.env,
                cwd=spec.cwd,
                close_fds=True,
                pass_fds=pass_fds,
                start_new_session=True,
                user=spec.uid,
                group=spec.gid,
                extra_groups=[] if spec.uid is not None else None,
            )
        except BaseException:
            os.close(runner_in)
            os.close(runner_out)
            raise
        finally:
            os.close(bot_in)
            os.close(bot_out)
        self._process = process
        assert process.stderr is not None
        self._in_fd = runner_in
        self._out_fd = self._out_pipe = runner_out
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
                # while the pipe is full, keep reading the bot's output: a bot blocked
                # writing its stderr (or stdout) cannot read its input
                writer = select.poll()
                writer.register(self._in_fd, select.POLLOUT)
                for fd in self.watched_fds():
                    writer.register(fd, select.POLLIN)
                writer.poll(math.ceil(remaining * 1000))
                self.pump()

    def receive(self, deadline: float) -> bytes:
        """The next line the bot writes (without its newline), by ``deadline``
        (a ``time.perf_counter()`` value). Whatever the pipe holds when the deadline has
        passed is read before the verdict: a line already written is never late."""
        while True:
            line = self.take_line()
            if line is not None:
                return line
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                self.pump()
                line = self.take_line()
                if line is not None:
                    return line
                raise BotTimeoutError("no answer in time")
            for fd, _ in self._poll.poll(math.ceil(remaining * 1000)):
                if fd == self._out_fd:
                    self._read_output()  # one read: what a poll says is there
                else:
                    self._drain_stderr()

    def take_line(self) -> bytes | None:
        """The next whole line already read, or None; BotExitedError once the bot's output
        is closed and no line is left, BotLineTooLongError for a line over the cap."""
        line = self._lines.take()
        if line is None and self._out_fd < 0:
            raise BotExitedError(self._closed_description or "the bot's output is closed")
        return line

    def watched_fds(self) -> list[int]:
        """The bot's output and stderr descriptors still open (to ``poll`` for input)."""
        return [fd for fd in (self._out_fd, self._err_fd) if fd >= 0]

    def pump(self) -> None:
        """Read, without waiting, whatever the bot's stdout and stderr hold now (stdout up
        to a little beyond a line's cap: a flood is cut there by ``take_line``)."""
        self._drain_stderr()
        while self._out_fd >= 0 and len(self._lines) <= MAX_LINE_BYTES:
            if not self._read_output():
                return

    def _read_output(self) -> bool:
        """One read of the bot's stdout into the line buffer; False when nothing was
        there (or its end: the bot closed it)."""
        fd = self._out_fd
        try:
            chunk = os.read(fd, READ_CHUNK)
        except BlockingIOError:
            return False
        if not chunk:
            self._poll.unregister(fd)
            self._out_fd = -1
            self._closed_description = self._exit_description()
            return False
        self._lines.feed(chunk)
        return True

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
        exit_wait(process, 0.2)
        return exit_description(process.returncode, self.spec)

    def close_input(self) -> None:
        """Close the bot's stdin (it reads end of file)."""
        if self._in_fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._in_fd)
        self._in_fd = -1

    def stop(self, grace: float = 0.0) -> None:
        """Close stdin, give the process ``grace`` seconds to exit, then kill it (its
        children first: ``kill_and_reap``); collect what is left of its stderr."""
        process = self._process
        if process is None:
            return
        self.close_input()
        if grace > 0:
            deadline = time.perf_counter() + grace
            while process.poll() is None and time.perf_counter() < deadline:
                self._wait_output(deadline)
        kill_and_reap(process)
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
        if self._out_pipe >= 0:
            with contextlib.suppress(OSError):
                os.close(self._out_pipe)
            self._out_pipe = -1
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
                exit_wait(self._process, remaining)
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


def child_pids(pid: int) -> list[int]:
    """The children of process ``pid`` (from /proc; empty once it is gone).

    Read from /proc/PID/task/*/children, not with psutil: ``Process.children()`` reads the
    parent of every process on the machine, 1.8 ms against 0.02 ms for these few files
    (``python -m bench.numerics``)."""
    children: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as file:
                children += [int(child) for child in file.read().split()]
    return children


def exit_wait(process: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait at most ``timeout`` seconds for ``process`` to exit, and reap it; whether it
    has. Woken by the exit itself (a pidfd), not by ``Popen.wait``'s sleeps, which double
    up to 50 ms and overshoot a bot's exit of a few milliseconds by as much again, once per
    seat at the end of every match."""
    if process.poll() is not None:
        return True
    try:
        pidfd = os.pidfd_open(process.pid)  # our unreaped child: the pid is still its own
    except (AttributeError, OSError):  # not Linux 5.3 or later
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout)
        return process.returncode is not None
    try:
        exited = select.poll()
        exited.register(pidfd, select.POLLIN)
        exited.poll(max(0, math.ceil(timeout * 1000)))
    finally:
        os.close(pidfd)
    return process.poll() is not None


def kill_and_reap(process: subprocess.Popen[bytes], timeout: float = REAP_SECONDS) -> None:
    """Kill a bot's process and everything it started, and reap it: no zombie is left.

    The process is bubblewrap's outer process (or the launcher, without the sandbox). Its
    children are killed first: bubblewrap's PID 1 inside the sandbox, whose death takes
    every process of the PID namespace along, the kernel making it reap them. bubblewrap
    then reaps its child and exits, and the runner reaps bubblewrap. Killing both at once
    (the process group) would leave bubblewrap's PID 1 to whatever adopts orphans, and a
    container's PID 1 that is not an init never reaps it. After ``timeout`` the process
    group is killed all the same."""
    if process.poll() is None:
        for child in child_pids(process.pid):
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
        exit_wait(process, timeout)
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            process.kill()
    process.wait()


def exit_description(code: int | None, spec: LaunchSpec) -> str:
    """Why a bot's output ended: its exit status (``None``: still running, it closed its
    output) and what its launch spec can tell of the cause (a limit it hit)."""
    cause = spec.explain_exit() if spec.explain_exit is not None else None
    if code is None:
        return f"the bot closed its output: {cause}" if cause else "the bot closed its output"
    if cause:
        return f"the bot exited: {cause}; {describe_exit(code)}"
    return f"the bot exited: {describe_exit(code)}"


def describe_exit(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}"
    if 128 < code < 128 + 65:
        # bubblewrap exits with 128 + N when the bot inside was killed by signal N
        try:
            name = signal.Signals(code - 128).name
        except ValueError:
            return f"exit status {code}"
        if name == "SIGSYS":
            return f"exit status {code} (killed by SIGSYS: a system call the sandbox forbids)"
        return f"exit status {code} (killed by {name})"
    return f"exit status {code}"
