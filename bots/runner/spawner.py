"""Spawners: a fork server per (bot version, limits) that starts a seat's bot in a fork.

Starting a Python bot in the sandbox costs 30-40 ms of CPU a seat (bubblewrap, the
interpreter's start, ``import json``). A spawner pays that once: its fork server
(bots.runner.fork_server) is started by today's launch path (``launch_spec``: the
version's files, a pool user, the seat's rlimits, seccomp filter and control group) and
imports what bots commonly import, but none of the bot's code; for each match it forks a
child that runs the bot. docs/bot-protocol.md ("The sandbox", "Spawners") holds the
argument that no child learns anything of an earlier one.

How a child's standard streams reach the worker: the fork server's sandbox cannot pass
descriptors (its seccomp filter forbids every socket call) and needs none. For each child
the worker makes three FIFOs with random names in a folder of its own (``pipes``: mode
0711, bound read-only at /spawn in the sandbox), owned by the pool user and mode 0600,
opens their reading ends, and asks for a child (``spawn NAME``). The child opens the
FIFOs, says ``ready PID``, and waits. The worker then finds the child's pid on the host,
moves it into a control group of its own (memory and processes: one match's memory bomb
cannot starve the next; an ended child's group, empty and its memory given back, is the
next child's: ``Spawner.child_group_return``), opens the FIFO the child reads, removes
the three names and says ``go PID``: the child closes every other descriptor and runs
the bot. From then on the child is a bot started as today (``SpawnedBotProcess``: the
same protocol, clock, verdicts and messages), which only the worker's pipes reach.

A spawner serves one version and one child at a time (a seat slot); once a child has
ended, the next is forked ahead in the worker's background thread (``prepare``, the
warm pool's ``Janitor``) and waits for its match told nothing. It is stopped:
after ``DEFAULT_MAX_CHILDREN`` children; when a child escaped a limit (its control group
counted an OOM kill, or it outlived its match: still running after ``end`` and the
grace, or not reported dead once killed); when its fork server fails or cannot clean up;
when it waited unused for ``max_idle`` seconds (a retired version is never seated again,
so its spawner ends so); and at the worker's exit (``--die-with-parent`` besides).
Only the runtimes of ``FORK_SERVER_RUNTIMES`` use one: the others start as before.

A worker process turns its spawners on with ``spawner_pool_enable`` (the league's worker:
settings.WORKER_BOT_SPAWNERS) or the environment variable ``KING_LEAGUE_SPAWNERS``
(how many spawners a process keeps at most; 0 or unset: off).

Why this module is long: the worker's side of one protocol (the FIFOs, the child's
control group, the handshake, the clean-up and every reason to stop a spawner) is one
sequence of steps whose safety argument reads top to bottom; split up, each part would
only make sense with the others (the fork server's side is bots/runner/fork_server.py).
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import logging
import os
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bots.bundle import BotBundle
from bots.runner.cgroups import CgroupError, SeatCgroup
from bots.runner.process import (
    REAP_SECONDS,
    BotIOError,
    BotProcess,
    LaunchSpec,
    child_pids,
    exit_description,
)
from bots.runner.runtimes import FORK_SERVER_RUNTIMES
from bots.runner.sandbox import (
    BotFiles,
    Limits,
    SandboxUnavailableError,
    launch_spec,
    sandbox_user_acquire,
    staging_dir,
)
from bots.runner.warm import Janitor, stop_together

logger = logging.getLogger(__name__)

SWITCH_VARIABLE = "KING_LEAGUE_SPAWNERS"
DEFAULT_SIZE = 8
"""Spawners a worker process keeps at most (two matches of four distinct versions)."""
DEFAULT_MAX_CHILDREN = 256
"""Children a spawner forks before it is replaced by a fresh one."""
DEFAULT_MAX_IDLE = 300.0
"""Seconds a spawner may wait unused before it is stopped."""
SERVER_START_SECONDS = 30.0
"""How long a fork server may take to start and import (numpy's among them)."""
SPAWN_SECONDS = 5.0
"""How long a fork may take to report its child ready."""
GROUP_SLACK = 1024 * 1024
"""Bytes an ended child's control group may still be charged with (the page cache of the
files it read: 4-540 KiB seen) and be handed to the next child; a group charged with more
is removed."""


class SpawnerError(RuntimeError):
    """A spawner failed: it is stopped, and the seat starts its bot as before."""


class Spawner:
    """One fork server, in a sandbox of its own, for one version and limits."""

    def __init__(
        self, bundle: BotBundle, limits: Limits, home: Callable[[Spawner], None] | None = None
    ) -> None:
        self.bundle = bundle
        self.limits = limits
        self.home = home
        """Called when a child has ended (the pool takes the spawner back)."""
        self.children = 0
        self.retired = False
        self.last_used = time.monotonic()
        self._server_pid: int | None = None
        self._exits: dict[int, int] = {}
        self._lock = threading.Lock()
        """Held while a child is forked (``prepare`` runs in the worker's background thread)."""
        self._ready: SpawnedBotProcess | None = None
        """A child forked ahead, told nothing yet (``prepare``)."""
        self._stopping = False
        self.in_use = False
        """A seat holds a child of it (``take`` until the child has ended)."""
        self.files: BotFiles | None = None
        self.pipes: Path | None = None
        self.process: BotProcess | None = None
        self._child_group: SeatCgroup | None = None
        """The control group the last child left, emptied: the next child's (``reuse``)."""
        self.user = sandbox_user_acquire()
        try:
            self.files = BotFiles.for_bundle(bundle)
            self.pipes = Path(tempfile.mkdtemp(prefix="king-league-spawn-", dir=staging_dir()))
            self.pipes.chmod(0o711)
            # the server is one more process of the pool user than a bot started as before
            server_limits = dataclasses.replace(limits, processes=limits.processes + 1)
            spec = launch_spec(
                self.files,
                sandboxed=True,
                user=self.user,
                limits=server_limits,
                fork_server_pipes=self.pipes,
            )
            self.process = BotProcess(spec)
            try:
                self.process.start()
            finally:
                for fd in spec.pass_fds:
                    os.close(fd)
            words = self._next(time.perf_counter() + SERVER_START_SECONDS)
            if words != ["serving"]:
                raise SpawnerError(f"the fork server said {' '.join(words)!r}")
        except BaseException:
            self.stop()
            raise

    @property
    def key(self) -> tuple[BotBundle, Limits]:
        return (self.bundle, self.limits)

    @property
    def alive(self) -> bool:
        return not self.retired and self.process is not None and self.process.running

    # --- the control pipe ---------------------------------------------------------------

    def _next(self, deadline: float) -> list[str]:
        """The fork server's next line but ``exit`` reports (kept for ``exit_status``)."""
        while True:
            words = self._line(deadline)
            if words:
                return words

    def _line(self, deadline: float) -> list[str]:
        """The fork server's next line; empty for an ``exit`` report, kept."""
        process = self.process
        assert process is not None
        try:
            line = process.receive(deadline)
        except BotIOError as exc:
            raise SpawnerError(f"the fork server: {exc}; {self._stderr_tail()}") from None
        words = line.decode("ascii", errors="replace").split()
        if len(words) == 3 and words[0] == "exit":
            self._exits[int(words[1])] = int(words[2])
            return []
        return words

    def _stderr_tail(self) -> str:
        text = self.process.stderr.text().strip() if self.process is not None else ""
        return text[-300:] or "nothing on its stderr"

    def _send(self, line: str) -> None:
        process = self.process
        assert process is not None
        try:
            process.send(line.encode() + b"\n", time.perf_counter() + SPAWN_SECONDS)
        except BotIOError as exc:
            raise SpawnerError(f"the fork server: {exc}") from None

    def exit_status(self, pid: int, timeout: float) -> int | None:
        """Child ``pid``'s exit status (as bubblewrap gives a bot's), waiting at most
        ``timeout`` seconds for the fork server's report; None if it has not come."""
        deadline = time.perf_counter() + timeout
        while pid not in self._exits:
            if self.process is None:
                return None
            try:
                words = self._line(deadline)
            except SpawnerError:
                return None
            if not words:
                continue
            self.retired = True  # anything but an exit report here: the server is confused
            logger.warning("a fork server said %r while a child ran", " ".join(words))
        return self._exits.pop(pid)

    def exited(self, pid: int) -> bool:
        """Whether child ``pid``'s exit is reported already (not waiting)."""
        process = self.process
        if pid in self._exits or process is None:
            return True
        with contextlib.suppress(BotIOError):
            process.pump()
            while (line := process.take_line()) is not None:
                words = line.decode("ascii", errors="replace").split()
                if len(words) == 3 and words[0] == "exit":
                    self._exits[int(words[1])] = int(words[2])
        return pid in self._exits

    # --- children -------------------------------------------------------------------------

    def prepare(self) -> None:
        """Fork the next child ahead of its match (off the match's path: the worker's
        background thread), unless one waits already; a failure retires the spawner."""
        with self._lock:
            idle = self._ready is None and not self.in_use
            if idle and not self.retired and self.process is not None:
                with contextlib.suppress(SpawnerError):
                    self._ready = self.spawn()

    def take(self) -> SpawnedBotProcess:
        """A fresh child for a seat: the one forked ahead if it waits still, else a new one
        (SpawnerError: the spawner is broken; the caller stops it)."""
        with self._lock:
            child, self._ready = self._ready, None
            if child is not None and not child.running:  # it died waiting: not handed out
                child.discard()
                child = None
            if self.retired:
                raise SpawnerError("the spawner is retired")
            self.in_use = True  # from here on no child is forked ahead
            return child if child is not None else self.spawn()

    def spawn(self) -> SpawnedBotProcess:
        """A new child, ready to run the bot and not yet told anything (SpawnerError: the
        spawner is broken; the caller stops it)."""
        assert self.pipes is not None
        started_at = time.perf_counter()
        self.last_used = time.monotonic()
        name = secrets.token_hex(12)
        paths = [self.pipes / f"{name}.{kind}" for kind in ("in", "out", "err")]
        opened: list[int] = []
        cgroup: SeatCgroup | None = None
        try:
            for path in paths:
                os.mkfifo(path, 0o600)
                if self.user is not None:
                    os.chown(path, self.user.uid, self.user.gid)
            for path in paths[1:]:
                # one by one: those opened are closed if a later one fails
                opened.append(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC))  # noqa: PERF401
            deadline = time.perf_counter() + SPAWN_SECONDS
            self._send(f"spawn {name}")
            words = self._next(deadline)
            if len(words) != 2 or words[0] != "ready":
                raise SpawnerError(f"the fork server: {' '.join(words)}")
            child = int(words[1])
            host_pid = self._host_pid(child)
            cgroup = self._child_cgroup(host_pid)
            opened.insert(0, os.open(paths[0], os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC))
            self._send(f"go {child}")
        except (OSError, SpawnerError) as exc:
            for fd in opened:
                os.close(fd)
            if cgroup is not None:
                cgroup.remove()
            self.retired = True
            raise SpawnerError(str(exc)) from None
        finally:
            for path in paths:
                with contextlib.suppress(OSError):
                    path.unlink()
        self.children += 1
        stdin, stdout, stderr = opened
        return SpawnedBotProcess(self, child, host_pid, cgroup, (stdin, stdout, stderr), started_at)

    def _host_pid(self, child: int) -> int:
        """The host's pid of the child whose pid in the sandbox is ``child``."""
        if self._server_pid is None:
            assert self.process is not None
            assert self.process.pid is not None
            # bubblewrap's outer process, its PID 1 in the sandbox, then the fork server
            for init in child_pids(self.process.pid):
                servers = child_pids(init)
                if servers:
                    self._server_pid = servers[0]
        if self._server_pid is not None:
            for pid in child_pids(self._server_pid):
                if _pid_in_namespace(pid) == child:
                    return pid
        raise SpawnerError(f"the fork server's child {child} is not found")

    def _child_cgroup(self, host_pid: int) -> SeatCgroup | None:
        """A control group of the child's own (where the spawner has one), the child in
        it: the one the last child left, emptied (``child_group_return``), or a new one."""
        if self.user is None or self.user.cgroup is None:
            return None
        group, self._child_group = self._child_group, None
        if group is None:
            group = SeatCgroup.for_seat(
                self.user.cgroup.host,
                f"{self.user.name}-child",
                memory=self.limits.memory,
                processes=self.limits.processes,
            )
        try:
            for directory in group.directories:
                (directory / "cgroup.procs").write_text(str(host_pid))
        except OSError as exc:
            group.remove()
            raise CgroupError(exc.errno, f"cannot move the child into its group: {exc}") from None
        return group

    def child_group_return(self, group: SeatCgroup, *, escaped: bool) -> None:
        """An ended child's control group: kept for the next child where the spawner goes
        on and the group is empty, its memory given back but ``GROUP_SLACK`` (its OOM kills
        then counted afresh); else removed. One child at a time is ever in it."""
        keep = not escaped and not self.retired and not self._stopping
        if keep and self._child_group is None and group.reuse(GROUP_SLACK):
            self._child_group = group
        else:
            group.remove()

    def child_ended(self, *, escaped: bool) -> None:
        """A child is over (``escaped``: it broke out of a limit, so this spawner ends)."""
        self.last_used = time.monotonic()
        self.in_use = False
        if escaped:
            self.retired = True
        if self.home is not None:
            self.home(self)
        elif not self._stopping:
            self.stop()

    def stop(self) -> None:
        """End the fork server (the end of its input; killed after a moment), release the
        user, remove the files. Waits for a fork under way in the background thread."""
        if self._stopping:
            return
        self._stopping = True
        self.retired = True
        self.home = None
        with self._lock:  # a child being forked ahead is then in _ready, and discarded
            ready, self._ready = self._ready, None
        if ready is not None:
            ready.discard()
        try:
            if self.process is not None:
                self.process.stop(grace=0.2)
                self.process = None
        finally:
            group, self._child_group = self._child_group, None
            if group is not None:
                group.remove()
            try:
                if self.user is not None:
                    self.user.release()
                    self.user = None
            finally:
                if self.files is not None:
                    self.files.cleanup()
                    self.files = None
                if self.pipes is not None:
                    shutil.rmtree(self.pipes, ignore_errors=True)
                    self.pipes = None


def _pid_in_namespace(pid: int) -> int | None:
    """The innermost pid of host process ``pid`` (/proc/PID/status, ``NSpid``)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("NSpid:"):
                    return int(line.split()[-1])
    except (OSError, ValueError):
        return None
    return None


class SpawnedBotProcess(BotProcess):
    """A child of a spawner, running a bot: talked to like any bot process."""

    def __init__(
        self,
        spawner: Spawner,
        child: int,
        host_pid: int,
        cgroup: SeatCgroup | None,
        fds: tuple[int, int, int],
        started_at: float,
    ) -> None:
        user = spawner.user.name if spawner.user is not None else os.getuid()
        spec = LaunchSpec(
            [],
            {},
            description=f"sandbox as {user}, forked by its spawner",
            explain_exit=cgroup.exit_explanation if cgroup is not None else None,
        )
        super().__init__(spec)
        self.spawner = spawner
        self.child = child
        """Its pid in the sandbox."""
        self.host_pid = host_pid
        self.cgroup = cgroup
        self.started_at = started_at
        self._in_fd, self._out_fd, self._err_fd = fds
        self._out_pipe = self._out_fd
        for fd in fds:
            os.set_blocking(fd, False)
        self._poll.register(self._out_fd, 1)  # select.POLLIN
        self._poll.register(self._err_fd, 1)
        self._status: int | None = None
        self._over = False

    @property
    def pid(self) -> int | None:
        return None if self._over else self.host_pid

    @property
    def running(self) -> bool:
        return not self._over and self._status is None and not self.spawner.exited(self.child)

    def _exit_description(self) -> str:
        if self._status is None:
            self._status = self.spawner.exit_status(self.child, 0.2)
        return exit_description(self._status, self.spec)

    def discard(self) -> None:
        """Stop a child no seat took (forked ahead): the spawner is not handed back."""
        home, self.spawner.home = self.spawner.home, None
        stopping, self.spawner._stopping = self.spawner._stopping, True
        try:
            self.stop()
        finally:
            self.spawner.home = home
            self.spawner._stopping = stopping

    def stop(self, grace: float = 0.0) -> None:
        """Close its input, give it ``grace`` seconds to exit, then kill what is left of it
        (its control group, or its process), collect its stderr, and give the spawner
        back: stopped instead if the child escaped a limit."""
        if self._over:
            return
        self.close_input()
        deadline = time.perf_counter() + grace
        while self._status is None and time.perf_counter() < deadline:
            if self._out_fd < 0 and self._err_fd < 0:
                self._status = self.spawner.exit_status(self.child, deadline - time.perf_counter())
                break
            self._wait_output(deadline)
            if self.spawner.exited(self.child):
                self._status = self.spawner.exit_status(self.child, 0)
        outlived = grace > 0 and self._status is None
        if self._status is None:
            if self.cgroup is not None:
                self.cgroup.kill()
            else:
                with contextlib.suppress(OSError):
                    os.kill(self.host_pid, signal.SIGKILL)
            self._status = self.spawner.exit_status(self.child, REAP_SECONDS)
        self.returncode = self._status
        deadline = time.perf_counter() + 0.2
        while self._err_fd >= 0 and time.perf_counter() < deadline:
            self._drain_stderr()
            if self._err_fd >= 0:
                self._wait_output(deadline)
        for fd in (self._out_pipe, self._err_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._out_pipe = self._out_fd = self._err_fd = -1
        self._over = True
        escaped = outlived or self._status is None
        if self.cgroup is not None:
            # a child of the bot killed for memory while the bot played on (cgroup v1)
            self.memory_fault = self.cgroup.memory_fault()
            escaped = escaped or self.memory_fault is not None
            self.spawner.child_group_return(self.cgroup, escaped=escaped)
        self.spawner.child_ended(escaped=escaped)


class SpawnerPool:
    """A worker process's spawners, idle ones by version, at most ``size`` in all."""

    def __init__(
        self,
        size: int = DEFAULT_SIZE,
        max_children: int = DEFAULT_MAX_CHILDREN,
        max_idle: float = DEFAULT_MAX_IDLE,
        *,
        ahead: bool = True,
    ) -> None:
        self.size = size
        self.max_children = max_children
        self.max_idle = max_idle
        self.pid = os.getpid()
        self._idle: list[Spawner] = []
        self._busy = 0
        self._closed = False
        self._lock = threading.Lock()
        self.ahead = ahead
        """Fork each spawner's next child ahead, in a background thread of its own."""
        self.janitor = Janitor()
        self.started = 0
        self.replaced = 0
        """Spawners stopped because a child escaped a limit or the server failed."""

    def child_start(self, bundle: BotBundle, limits: Limits) -> SpawnedBotProcess | None:
        """A fresh child of a spawner of this version (started if need be), or None
        where none can serve (another runtime, every slot busy, a spawner that failed:
        the seat starts its bot as before)."""
        if bundle.runtime not in FORK_SERVER_RUNTIMES or self._closed:
            return None
        key = (bundle, limits)
        now = time.monotonic()
        spawner: Spawner | None = None
        doomed: list[Spawner] = []
        with self._lock:
            for candidate in list(self._idle):
                if now - candidate.last_used > self.max_idle or not candidate.alive:
                    self._idle.remove(candidate)
                    doomed.append(candidate)
                elif spawner is None and candidate.key == key:
                    self._idle.remove(candidate)
                    spawner = candidate
            if spawner is None and self._idle and len(self._idle) + self._busy >= self.size:
                doomed.append(self._idle.pop(0))  # the least recently used
            full = spawner is None and len(self._idle) + self._busy >= self.size
            if not full:
                self._busy += 1
        self._stop_all(doomed)
        if full:
            return None
        try:
            if spawner is None:
                spawner = Spawner(bundle, limits, self._home)
                self.started += 1
            return spawner.take()
        except (OSError, SpawnerError, SandboxUnavailableError) as exc:
            logger.warning("a spawner failed (%s): the bot starts as before", exc)
            with self._lock:
                self._busy -= 1
            if spawner is not None:
                self.replaced += 1
                self._stop_all([spawner])
            return None

    def _home(self, spawner: Spawner) -> None:
        with self._lock:
            self._busy -= 1
            keep = (
                not spawner.retired
                and not self._closed
                and spawner.children < self.max_children
                and self.pid == os.getpid()
            )
            if keep:
                self._idle.append(spawner)
            elif spawner.retired:
                self.replaced += 1
        if not keep:
            self._stop_all([spawner])
        elif self.ahead:
            self.janitor.submit(spawner.prepare)  # its next child, beside the match

    def idle(self) -> list[Spawner]:
        with self._lock:
            return list(self._idle)

    def _stop_all(self, doomed: list[Spawner]) -> None:
        stop_together(doomed, "a spawner")

    def drain(self) -> None:
        """Stop the idle spawners (the pool stays on: the next seat starts a new one)."""
        self.janitor.drain()
        with self._lock:
            doomed, self._idle = self._idle, []
        self._stop_all(doomed)

    def close(self) -> None:
        """Stop the idle spawners; the busy ones stop when their child ends."""
        with self._lock:
            self._closed = True
        self.janitor.drain()
        with self._lock:
            doomed, self._idle = self._idle, []
        self._stop_all(doomed)
        self.janitor.stop()


_pool: SpawnerPool | None = None
_configured = False


def spawner_pool() -> SpawnerPool | None:
    """This process's spawners, None while they are off. Unless ``spawner_pool_enable``
    was called, ``KING_LEAGUE_SPAWNERS`` decides (read once). A process forked from one
    with spawners (a Celery pool process) gets a pool of its own."""
    global _pool, _configured
    if not _configured:
        _configured = True
        try:
            size = int(os.environ.get(SWITCH_VARIABLE, "0") or "0")
        except ValueError:
            size = 0
        if size > 0:
            _pool = SpawnerPool(size)
    if _pool is not None and _pool.pid != os.getpid():
        _pool = SpawnerPool(_pool.size, _pool.max_children, _pool.max_idle)
    return _pool


def spawner_pool_enable(
    size: int = DEFAULT_SIZE, max_children: int = DEFAULT_MAX_CHILDREN
) -> SpawnerPool | None:
    """Turn this process's spawners on (``size`` of them at most; 0: off)."""
    global _pool, _configured
    spawner_pool_close()
    _configured = True
    _pool = SpawnerPool(size, max_children) if size > 0 else None
    return _pool


def spawner_pool_close() -> None:
    """Stop this process's spawners and turn them off."""
    global _pool
    pool, _pool = _pool, None
    if pool is not None and pool.pid == os.getpid():
        pool.close()


atexit.register(spawner_pool_close)
