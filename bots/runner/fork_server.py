"""The fork server: a Python bot's interpreter, started once in the seat's sandbox, that
forks a fresh child for each match (the worker's side is bots.runner.spawner).

Copied next to the launcher in LIB_DIR (/kl in the sandbox) and run by it (the
``serve=PIPES_DIR`` argument) after the launcher has lowered the limits, so that the
server and every child it forks live under the sandbox's user, namespaces, seccomp filter
and rlimits. Standard library only. It imports what bots commonly import (``PRELOADED``,
the league's ``kingbot``, numpy where the runtime puts it on the path) and none of the
bot's code: the bot's folder is not on ``sys.path`` here, and nothing of a match is ever
written to this process. It makes itself non-dumpable, so that a child (same user, no
capability) cannot open its /proc files (its memory, its descriptors).

Its standard input and output are the control pipe of the worker (line by line):

- the server writes ``serving`` once its imports are done;
- ``spawn NAME``: the server kills whatever an earlier child left in the sandbox, empties
  /tmp (unless it did so when that child ended, and nothing ran since), then forks. The
  child opens the three FIFOs ``PIPES_DIR/NAME.in``, ``.out`` and ``.err`` (made by the
  worker, which holds their other ends), writes ``ready PID`` on the control pipe and
  waits; ``failed WHY`` if the fork or the clean-up failed (the server then exits: the
  worker starts another);
- ``go PID``: the child moves the FIFOs onto its descriptors 0, 1 and 2, closes every
  other descriptor (the control pipe included), drops the preloaded modules the bot ships
  a copy of, and runs the bot's ``main.py`` as the launcher would;
- when a child exits, the server reaps it, kills what it left, empties /tmp and writes
  ``exit PID STATUS`` (STATUS as bubblewrap reports a bot's: the exit code, or 128 + N
  for a signal N);
- at the end of its input (the worker is gone or retires it) the server exits.
"""

import _signal  # type: ignore[import-not-found]  # (no stubs: the C half of signal)
import contextlib
import ctypes
import gc
import io
import os
import select
import signal
import sys
import time
from collections.abc import Callable

PRELOADED = (
    "json",
    "random",
    "math",
    "collections",
    "itertools",
    "functools",
    "heapq",
    "dataclasses",
    "typing",
    "copy",
    "traceback",
    "kingbot",
)
"""What the server imports before any child (the bot's own copy of one wins in its child)."""
PR_SET_DUMPABLE = 4
SIGCHLD = int(signal.SIGCHLD)
SIG_DFL = int(signal.SIG_DFL)
TMP = "/tmp"
SWEEP_ROUNDS = 200


class BotLauncher:
    """What the launcher lends the server (it runs as ``__main__``: not importable)."""

    def __init__(
        self,
        bot_run: Callable[[str, str, list[str]], None],
        streams_make: Callable[[], list[io.TextIOWrapper]],
        streams_install: Callable[[list[io.TextIOWrapper]], None],
    ) -> None:
        self.bot_run = bot_run
        self.streams_make = streams_make
        """New standard streams for descriptors 0, 1 and 2, not installed."""
        self.streams_install = streams_install


class ServerError(Exception):
    """The sandbox cannot be made clean for the next child: the server must end."""


libc = ctypes.CDLL(None, use_errno=True)


def dumpable_set(dumpable: bool) -> None:
    """Whether this process's /proc files (its memory, descriptors, environment) are its
    user's (1) or root's (0: a process of the same user without capabilities cannot open
    them); inherited by a fork."""
    if libc.prctl(PR_SET_DUMPABLE, int(dumpable), 0, 0, 0) != 0:
        raise ServerError(f"prctl(PR_SET_DUMPABLE): errno {ctypes.get_errno()}")


def _others() -> list[int]:
    """The live processes of the sandbox but its PID 1 (bubblewrap's) and this one."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in (1, me):
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                state = stat.read().rpartition(b")")[2].split()[0]
        except (OSError, IndexError):
            continue
        if state not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def sweep() -> None:
    """Kill every process of the sandbox but PID 1 and this one (``kill(-1)``: all this
    user may signal), until none is left; reap this server's own."""
    for _ in range(SWEEP_ROUNDS):
        if not _others():
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)
        _reap()
        time.sleep(0.001)
    raise ServerError("processes of an earlier child do not die")


def _reap() -> list[tuple[int, int]]:
    reaped: list[tuple[int, int]] = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid == 0:
            return reaped
        reaped.append((pid, status))


def tmp_empty() -> None:
    """Remove everything under /tmp (made by earlier children, the same user), without
    following links; folders made unreadable are opened again first."""
    stack = [TMP]
    folders = []
    while stack:
        folder = stack.pop()
        folders.append(folder)
        for entry in os.scandir(folder):
            if entry.is_dir(follow_symlinks=False):
                os.chmod(entry.path, 0o700)
                stack.append(entry.path)
            else:
                os.unlink(entry.path)
    for folder in reversed(folders[1:]):
        os.rmdir(folder)


def _status(raw: int) -> int:
    if os.WIFSIGNALED(raw):
        return 128 + os.WTERMSIG(raw)
    return os.waitstatus_to_exitcode(raw)


class Server:
    def __init__(
        self,
        bot_dir: str,
        lib_dir: str,
        extra_paths: list[str],
        pipes: str,
        launcher: BotLauncher,
    ) -> None:
        self.launcher = launcher
        self.bot_dir = bot_dir
        self.lib_dir = lib_dir
        self.extra_paths = extra_paths
        self.pipes = pipes
        self.children: dict[int, int] = {}
        """Each child waiting for ``go``: the write end of its pipe."""
        self.running: set[int] = set()
        self.preloaded: set[str] = set()
        self.preloaded_tops: frozenset[str] = frozenset()
        """The top-level names of ``preloaded`` (``json``, ``kingbot``, ...)."""
        self.clean = False
        """Nothing has run in the sandbox since it was last swept and /tmp emptied."""
        self.path: list[str] = []
        """``sys.path`` as the launcher left it (restored in each child)."""
        self.wakeup = -1
        self.streams: list[io.TextIOWrapper] = []
        """The standard streams a child installs for its FIFOs at 0, 1 and 2: made here
        once, never used by the server (which talks on 0 and 1 with ``os.read`` and
        ``os.write``), so each child gets them as made, empty."""

    def preload(self) -> None:
        before = set(sys.modules)
        self.path = list(sys.path)
        sys.path[:] = [self.lib_dir, *sys.path[1:], *self.extra_paths]
        for name in PRELOADED:
            __import__(name)
        if self.extra_paths:
            with contextlib.suppress(ImportError):
                __import__("numpy")
        self.preloaded = set(sys.modules) - before
        self.preloaded_tops = frozenset(name.split(".")[0] for name in self.preloaded)

    def serve(self) -> None:
        self.preload()
        self.streams = self.launcher.streams_make()
        dumpable_set(False)
        # what is loaded now stays out of the collector's reach: a child's collection
        # would otherwise touch (and copy) every page of the server's objects
        gc.collect()
        gc.freeze()
        gc.disable()
        read_end, write_end = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.wakeup = read_end
        signal.set_wakeup_fd(write_end)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        os.write(1, b"serving\n")
        pending = b""
        while True:
            self._exits()
            ready = _wait_readable([0, read_end])
            if read_end in ready:
                while True:
                    try:
                        if not os.read(read_end, 64):
                            break
                    except BlockingIOError:
                        break
            if 0 not in ready:
                continue
            chunk = os.read(0, 4096)
            if not chunk:
                sweep()
                return
            pending += chunk
            while b"\n" in pending:
                line, _, pending = pending.partition(b"\n")
                self._command(line.decode("ascii", errors="replace").split())

    def _command(self, words: list[str]) -> None:
        if len(words) == 2 and words[0] == "spawn":
            self._spawn(words[1])
        elif len(words) == 2 and words[0] == "go":
            pid = int(words[1])
            go = self.children.pop(pid, -1)
            if go >= 0:
                with contextlib.suppress(OSError):  # the child was killed meanwhile
                    os.write(go, b"g")
                os.close(go)

    def _exits(self) -> None:
        for pid, raw in _reap():
            if pid in self.running:
                self.running.discard(pid)
                go = self.children.pop(pid, -1)
                if go >= 0:
                    os.close(go)
                try:
                    self._clean_up()
                except (OSError, ServerError) as exc:
                    os.write(1, f"failed clean-up: {exc}\n".encode())
                    raise SystemExit(1) from None
                os.write(1, f"exit {pid} {_status(raw)}\n".encode())

    def _clean_up(self) -> None:
        """Kill what a child left in the sandbox and empty /tmp. Once that is done and
        until the next fork, nothing runs in the sandbox but this server (a child's
        processes are all gone), so the next ``spawn`` need not do it again."""
        sweep()
        tmp_empty()
        self.clean = True

    def _spawn(self, name: str) -> None:
        try:
            if self.running:
                raise ServerError("a child still runs")
            if not self.clean:
                self._clean_up()
            go_read, go_write = os.pipe2(os.O_CLOEXEC)
            self.clean = False
            pid = os.fork()
        except (OSError, ServerError) as exc:
            os.write(1, f"failed {exc}\n".encode())
            raise SystemExit(1) from None
        if pid == 0:
            os._exit(self._child(name, go_read))
        os.close(go_read)
        self.children[pid] = go_write
        self.running.add(pid)

    def _child(self, name: str, go_read: int) -> int:
        """Runs in the child: enter its pipes, wait for ``go``, run the bot."""
        try:
            signal.set_wakeup_fd(-1)
            # the C function: ``signal.signal`` would look the old handler up among the
            # Handlers enum (an exception raised and caught), 60 pages written a child
            _signal.signal(SIGCHLD, SIG_DFL)
            base = f"{self.pipes}/{name}"
            stdin = os.open(base + ".in", os.O_RDONLY | os.O_NONBLOCK)
            os.set_blocking(stdin, True)
            stdout = os.open(base + ".out", os.O_WRONLY)
            stderr = os.open(base + ".err", os.O_WRONLY)
            os.write(1, f"ready {os.getpid()}\n".encode())
            if os.read(go_read, 1) != b"g":
                return 1
            for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
                os.dup2(fd, target)
            os.closerange(3, os.sysconf("SC_OPEN_MAX"))
            # its own /proc files its own again, as a bot started by exec has them (the
            # server stays non-dumpable: a dumpable child reaches only itself)
            dumpable_set(True)
        except (OSError, ServerError):
            return 1
        self._shadowed_drop()
        gc.enable()
        sys.path[:] = self.path
        self.launcher.streams_install(self.streams)
        numpy_random = sys.modules.get("numpy.random")
        if numpy_random is not None:
            numpy_random.seed()  # its own entropy, as in a fresh start
        return _run(
            lambda: self.launcher.bot_run(self.bot_dir, self.lib_dir, self.extra_paths),
            self.lib_dir,
        )

    def _shadowed_drop(self) -> None:
        """Forget the preloaded modules of which the bot ships its own (``json.py``,
        ``kingbot/``, ...): its copy is imported instead, as in a fresh interpreter."""
        try:
            names = {entry.split(".")[0] for entry in os.listdir(self.bot_dir)}
        except OSError:
            return
        shadowed = names & self.preloaded_tops
        # only then the modules' names are gone through: each name read is a write to its
        # object (its reference count), a page copied from the server's memory
        for module in self.preloaded if shadowed else ():
            if module.split(".")[0] in shadowed:
                sys.modules.pop(module, None)


def _wait_readable(fds: list[int]) -> list[int]:
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    while True:
        try:
            return [fd for fd, _ in poller.poll()]
        except InterruptedError:  # pragma: no cover - retried by Python itself
            continue


def _run(bot: Callable[[], None], lib_dir: str) -> int:
    """Run the bot; its exit code, as the interpreter would give."""
    code = 0
    try:
        bot()
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            sys.stderr.write(f"{exc.code}\n")
            code = 1
    except BaseException as exc:
        # the traceback from the bot's own code on, as the launcher's would show it
        trace = exc.__traceback__
        while trace is not None and trace.tb_frame.f_code.co_filename.startswith(lib_dir):
            trace = trace.tb_next
        sys.excepthook(type(exc), exc.with_traceback(trace), trace)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    return code & 0xFF


def serve(
    bot_dir: str, lib_dir: str, extra_paths: list[str], pipes: str, launcher: BotLauncher
) -> None:
    Server(bot_dir, lib_dir, extra_paths, pipes, launcher).serve()
