"""A worker process and the bots it starts on one CPU of their own.

A match is a conversation: the runner writes a request and sleeps until the bot answers,
the bot sleeps until the next request. On one CPU each wake-up hands the CPU over at once;
spread over several, every move pays a cross-CPU wake-up and cold caches, and on a
shared machine the woken bot may wait behind another program. A worker process pins
itself (``worker_cpu_pin``) before it starts any bot; the bots it starts inherit the CPU
(bubblewrap, the launcher and the bot keep their parent's affinity), and the worker
processes of one machine take different CPUs while there are free ones. Its background
thread (bots.runner.warm: the next match's starts, the last one's clean-up) runs on every
CPU the process had, beside the match; a bot it started ahead is moved onto the worker's
CPU when a match takes it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

from bots.runner.sandbox import sandbox_lock_dir

_held: list[int] = []
"""The lock file of the CPU this process holds (open for the life of the process)."""


@dataclass(frozen=True)
class Pinned:
    pid: int
    """The process that pinned itself (a child forked from it is not pinned by this)."""
    cpu: frozenset[int]
    before: frozenset[int]
    """The CPUs it had before."""


_pinned: list[Pinned] = []


def worker_cpu_pin(lock_dir: Path | None = None) -> int | None:
    """Pin this process (its calling thread, and every thread and process it starts from
    now on) to one of the CPUs it may run on: the first that no other worker process of
    this machine holds (a lock file per CPU in ``lock_dir``), else the one its pid picks.
    Returns the CPU, or None where the system cannot pin."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return allowed[0] if allowed else None
    chosen = allowed[os.getpid() % len(allowed)]
    with contextlib.suppress(OSError):
        lock_dir = lock_dir or sandbox_lock_dir()
        lock_dir.mkdir(mode=0o700, exist_ok=True)
        for cpu in allowed:
            fd = os.open(lock_dir / f"cpu{cpu}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            for old in _held:
                os.close(old)
            _held[:] = [fd]
            chosen = cpu
            break
    os.sched_setaffinity(0, {chosen})
    _pinned[:] = [Pinned(os.getpid(), frozenset({chosen}), frozenset(allowed))]
    return chosen


def _pinned_here() -> Pinned | None:
    return _pinned[0] if _pinned and _pinned[0].pid == os.getpid() else None


def background_thread_unpin() -> None:
    """Give the calling thread back the CPUs the process had before it pinned itself: a
    worker's background chores (the next match's bots start, the last one's users are
    released: bots.runner.warm) run beside the match instead of taking its CPU."""
    pinned = _pinned_here()
    if pinned is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, pinned.before)


def processes_pin(pids: list[int]) -> None:
    """Move ``pids`` (every thread of each) to this worker process's CPU: a bot started
    ahead by the background thread joins its match's CPU. Nothing where not pinned."""
    pinned = _pinned_here()
    if pinned is None:
        return
    for pid in pids:
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for thread in threads:
            with contextlib.suppress(OSError, ValueError):
                os.sched_setaffinity(int(thread), pinned.cpu)
