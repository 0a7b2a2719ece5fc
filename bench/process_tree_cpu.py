"""The CPU a benchmark's own processes spent, not the whole machine's.

The machine is shared (other sessions' tests, other benchmarks), so the busy time of
/proc/stat measures everybody: two runs of the same benchmark printed 825 and 2,382 ms a
match side by side. What is counted here instead, from /proc/PID/stat:

- **a process tree** (``ProcessTreeCpu(root)``): the root and every descendant, the exited
  ones included. Each process's ``utime + stime`` (all its threads, live and exited) plus
  its ``cutime + cstime``: what its children spent once it waited for them, recursively
  (a child's own times and the times of the children it waited for itself). The tree's
  CPU at an instant is that sum over the processes alive in it; a process that exits and
  is reaped by its parent moves its times into the parent's ``cutime/cstime``, so the
  difference of two readings is exact, however short-lived the children were (a
  sandbox's ``sh``, ``setpriv`` and ``bwrap`` live a few milliseconds). Sampling often and
  keeping each pid's last reading was not chosen for the tree: it loses every process
  that starts and ends between two samples and the last interval of the others. Orphans
  would leave the tree with their CPU (bubblewrap's outer process exits without reaping
  its PID 1 inside, which holds the bot's CPU): the measuring process makes itself their
  reaper (``ProcessTreeCpu``). What it misses: at most one process's CPU at a reading,
  when a child is reaped between the reading of itself and of its parent (rare).
- **PostgreSQL backends** (``postgres_backends``): the backends serving a database,
  found in ``pg_stat_activity`` (less the benchmark's own connections). They are the
  postmaster's children, not the benchmark's, and the postmaster's ``cutime`` holds every
  database's backends (other sessions use the same server), so exited backends cannot
  be read through a parent: they are sampled (listed every 25 ms, each listed one's
  /proc/PID/stat read every 5 ms) and the last reading of each kept. A backend that lives
  less than a listing's interval may be missed, and the last 0-5 ms of each one that
  exits are: an undercount.

The times are in clock ticks (``SC_CLK_TCK``, 10 ms here) per process: read over a
second or more of the tree's work. The measuring itself (a sampler thread: a few % of
a CPU) runs in the benchmark's process; when that process is the tree's root, its CPU is
taken out (``CpuSpent.measuring``).

Not counted: the kernel's own threads (work deferred out of the processes, such as a
namespace's removal after a sandbox exits), Redis, and every other process.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PR_SET_CHILD_SUBREAPER = 36
BACKENDS_LIST_SECONDS = 0.025
"""How often the backends are listed (a query of ``pg_stat_activity``)."""
BACKENDS_READ_SECONDS = 0.005
"""How often the listed backends' /proc/PID/stat are read: what each one's last reading
can miss (two short runs of bench.worker_throughput: 4.0-5.3 ms a match read every 25
ms, 6.0-7.0 ms read every 5 ms)."""
TREE_SAMPLE_SECONDS = 0.25
"""How often the tree's processes are looked for (to count them) and orphans reaped."""

ProcessKey = tuple[int, int]
"""A process, as (pid, start time in clock ticks since boot): a pid used again is another."""


@dataclass(frozen=True)
class CpuTimes:
    key: ProcessKey
    own: float
    """Seconds its threads ran, in user and kernel mode (utime + stime)."""
    reaped: float
    """Seconds of the children it waited for, and of theirs (cutime + cstime)."""


def cpu_times(pid: int) -> CpuTimes | None:
    """The CPU times of ``pid`` from /proc/PID/stat, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # "pid (comm) state ppid ...": the command may hold spaces and parentheses
    fields = text[text.rindex(")") + 2 :].split()
    # fields[0] is field 3 of proc(5): utime 14, stime 15, cutime 16, cstime 17, starttime 22
    utime, stime, cutime, cstime = (int(v) for v in fields[11:15])
    return CpuTimes(
        key=(pid, int(fields[19])),
        own=(utime + stime) / CLOCK_TICKS,
        reaped=(cutime + cstime) / CLOCK_TICKS,
    )


def children_map() -> dict[int, list[int]]:
    """Every process's children, from one look at /proc."""
    children: dict[int, list[int]] = {}
    for process in psutil.process_iter(["ppid"]):
        children.setdefault(process.info["ppid"], []).append(process.pid)
    return children


def tree_pids(root: int, children: dict[int, list[int]] | None = None) -> list[int]:
    """``root`` and its descendants alive now (zombies included), each after its parent
    (breadth first); empty if ``root`` is gone."""
    children = children_map() if children is None else children
    if not psutil.pid_exists(root):
        return []
    found = [root]
    for pid in found:  # grows while it is read
        found += children.get(pid, [])
    return found


def processes_cpu(pids: Iterable[int]) -> tuple[float, set[ProcessKey]]:
    """Own + reaped seconds of ``pids``, summed, and the processes read."""
    seconds = 0.0
    keys = set()
    for pid in pids:
        times = cpu_times(pid)
        if times is not None:
            seconds += times.own + times.reaped
            keys.add(times.key)
    return seconds, keys


def tree_cpu(root: int) -> tuple[float, set[ProcessKey]]:
    """The CPU the tree under ``root`` has spent: over its live processes, own + reaped.
    Descendants are read before their ancestors, so that a child reaped in between is
    counted twice rather than lost (it is read, then found again in its parent's
    ``cutime``); either is at most one process's CPU."""
    return processes_cpu(reversed(tree_pids(root)))


def child_subreaper(on: bool) -> None:
    """Make this process its descendants' orphans' reaper (or not): prctl
    PR_SET_CHILD_SUBREAPER."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(error)}")


@dataclass(frozen=True)
class CpuSpent:
    """What a ``ProcessTreeCpu`` measured between its start and its stop."""

    tree: float
    """Seconds of the process tree, exited descendants and adopted orphans included."""
    tree_processes_seen: int
    """Distinct processes of the tree seen alive at the readings and samples, and the
    orphans reaped here (those that lived between two samples, most of a sandbox's, are
    counted in ``tree`` but not here)."""
    measuring: float
    """Seconds of this process's own measuring (the sampler thread, the readings),
    taken out of ``tree`` when ``root`` is this process (0 otherwise: not in the tree)."""
    sampling: float
    """Seconds of the sampler thread alone (part of ``measuring`` when that is not 0)."""
    orphans: int
    """Orphans of the tree adopted and reaped by this process (``root`` not this one)."""
    backends: float
    """Seconds of the sampled PostgreSQL backends (0 without ``backends``)."""
    backends_seen: int

    @property
    def seconds(self) -> float:
        return self.tree + self.backends


class ProcessTreeCpu:
    """CPU of the tree under ``root`` (this process or one it started) and, if given, of
    the processes ``backends`` lists (sampled in a thread of this process: listed every
    ``BACKENDS_LIST_SECONDS``, read every ``BACKENDS_READ_SECONDS``), from ``start`` to
    ``stop``. ``backends`` is called from that
    thread only; ``backends_close`` there at the end (a database connection of its own).

    Orphans: bubblewrap's outer process exits without reaping its PID 1 inside (which
    reaped the bot, so holds its CPU in its ``cutime``), and an orphan goes to the nearest
    child subreaper, else to init, out of the tree with the bot's CPU. So this process
    is made a child subreaper while it measures. With ``root`` this process, the orphans
    join its tree (the bot runner reaps the ones it adopted). Otherwise the sampler reaps
    each process that became this process's child after ``start`` (``wait4``: its own and
    its reaped descendants' CPU) and counts it in the tree; the benchmark must not start
    processes of its own while it measures."""

    def __init__(
        self,
        root: int,
        *,
        backends: Callable[[], Iterable[int]] | None = None,
        backends_close: Callable[[], None] | None = None,
    ) -> None:
        self.root = root
        self.backends = backends
        self.backends_close = backends_close
        self._first: dict[ProcessKey, float] = {}
        self._last: dict[ProcessKey, float] = {}
        self._live: set[ProcessKey] = set()
        """The backends listed and not gone yet: read every ``BACKENDS_READ_SECONDS``."""
        self._tree_seen: set[ProcessKey] = set()
        self._start = 0.0
        self._mine: set[int] = set()
        """This process's children at the start: never reaped here."""
        self._orphans = 0.0
        self._orphans_reaped = 0
        self._measuring = 0.0
        """CPU of this process's threads spent measuring (between the root's readings)."""
        self._sampling = 0.0
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None

    def _backends_list(self, *, first: bool) -> None:
        assert self.backends is not None
        for pid in self.backends():
            times = cpu_times(pid)
            if times is None:
                continue
            if times.key not in self._last:
                # there at the start: from its reading then; new: forked with no CPU
                self._first[times.key] = times.own if first else 0.0
                self._live.add(times.key)
            self._last[times.key] = times.own

    def _backends_read(self) -> None:
        for key in list(self._live):
            times = cpu_times(key[0])
            if times is None or times.key != key:  # gone (its pid maybe used again)
                self._live.discard(key)
            else:
                self._last[key] = times.own

    def _adopted(self, children: dict[int, list[int]]) -> list[int]:
        me = os.getpid()
        if self.root == me:
            return []
        return [pid for pid in children.get(me, []) if pid not in self._mine]

    def _orphans_reap(self, children: dict[int, list[int]]) -> None:
        """Reap the adopted orphans that have exited, counting their CPU."""
        for pid in self._adopted(children):
            try:
                reaped, _, usage = os.wait4(pid, os.WNOHANG)
            except ChildProcessError:
                continue
            if reaped:
                self._orphans += usage.ru_utime + usage.ru_stime
                self._orphans_reaped += 1

    def _sample(self) -> None:
        began = time.thread_time()
        try:
            turn = 0
            tick = BACKENDS_READ_SECONDS if self.backends is not None else TREE_SAMPLE_SECONDS
            listing = round(BACKENDS_LIST_SECONDS / tick)
            looking = round(TREE_SAMPLE_SECONDS / tick)
            while not self._stopping.wait(tick):
                turn += 1
                if self.backends is not None:
                    if turn % listing == 0:
                        self._backends_list(first=False)
                    self._backends_read()
                if turn % looking == 0:
                    children = children_map()
                    self._orphans_reap(children)
                    for pid in tree_pids(self.root, children):
                        times = cpu_times(pid)
                        if times is not None:
                            self._tree_seen.add(times.key)
            if self.backends is not None:
                self._backends_list(first=False)
                self._backends_read()
        except BaseException as exc:  # handed to the caller by stop()
            self._failure = exc
        finally:
            if self.backends_close is not None:
                self.backends_close()
            self._sampling = time.thread_time() - began
            self._measuring += self._sampling

    def start(self) -> None:
        child_subreaper(True)
        self._mine = set(children_map().get(os.getpid(), []))
        if self.backends is not None:
            self._backends_list(first=True)
        self._start, seen = tree_cpu(self.root)
        began = time.thread_time()  # from the root's reading on: counted in its tree
        self._tree_seen |= seen
        self._thread = threading.Thread(target=self._sample, name="cpu-sampler", daemon=True)
        self._thread.start()
        self._measuring += time.thread_time() - began

    def stop(self) -> CpuSpent:
        assert self._thread is not None, "not started"
        began = time.thread_time()
        self._stopping.set()
        self._thread.join()
        self._orphans_reap(children_map())
        end, seen = tree_cpu(self.root)
        self._measuring += time.thread_time() - began  # up to the root's reading, last
        # orphans adopted and not ended yet: read as they are
        alive, adopted = processes_cpu(self._adopted(children_map()))
        child_subreaper(False)
        if self._failure is not None:
            raise self._failure
        self._tree_seen |= seen | adopted
        # the measuring itself runs in this process: in the tree when it is the root
        measuring = self._measuring if self.root == os.getpid() else 0.0
        return CpuSpent(
            tree=end - self._start + self._orphans + alive - measuring,
            measuring=measuring,
            sampling=self._sampling,
            tree_processes_seen=len(self._tree_seen) + self._orphans_reaped,
            orphans=self._orphans_reaped,
            backends=sum(self._last[key] - self._first[key] for key in self._last),
            backends_seen=len(self._last),
        )


def postgres_backends(
    exclude: Sequence[int] = (),
) -> tuple[Callable[[], list[int]], Callable[[], None]]:
    """A ``backends`` source for ``ProcessTreeCpu`` (and its ``backends_close``): the
    client backends of the default database's current database, less the sampler's own
    and ``exclude`` (the benchmark's other connections' ``pg_backend_pid()``). The
    PostgreSQL server must run on this machine, in its PID namespace. Django must be set
    up; the sampler thread opens a connection of its own."""
    from django.db import connection

    excluded = list(exclude)

    def pids() -> list[int]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
                " AND NOT (pid = ANY(%s))",
                [excluded],
            )
            return [int(row[0]) for row in cursor.fetchall()]

    def close() -> None:  # the calling thread's connection (``connection`` is a proxy)
        connection.close()

    return pids, close


def own_backend_pid() -> int:
    """This thread's connection's backend (Django's default database)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        row = cursor.fetchone()
    assert row is not None
    return int(row[0])
