"""Sandboxes started ahead of their match: a warm pool of fresh bot processes per version.

Starting a sandboxed bot (bubblewrap's namespaces, the seat's control group, the
interpreter) takes tens of milliseconds, most of a short match between quick bots. A
worker that has the pool on (``warm_pool_enable``, done by the league's worker) starts,
while a match plays, a fresh sandbox for each uploaded version the match seats, so that
the next match of that version finds its bot already waiting for ``hello``.

What stays exactly as without the pool (docs/bot-protocol.md, "The sandbox"):

- **A process serves one match.** A warm process is handed out once, to one seat, and
  stopped with that seat like any other; the pool never takes a process back. It was
  started for no match and has been told nothing before its ``hello``: it holds no memory
  of any match.
- **Never across versions.** An entry is kept under its bot's exact files (the bundle:
  name, kind, runtime and bytes) and the seat's limits; a seat is handed only a process
  started from the same.
- **The same sandbox.** A warm process is started by the same ``launch_spec`` (its own pool
  user, control group, rlimits, seccomp filter, files) and stopped the same way.
- **Bounded.** At most ``size`` processes wait in a worker process's pool; one that waited
  longer than ``max_idle`` seconds, or is evicted for room, is stopped and its user
  released. A worker that exits stops them (``warm_pool_close``; a worker killed
  outright takes them along: ``--die-with-parent``).

The start-up allowance of a warm bot counts from its ``hello`` (it cannot answer
earlier); the time it spent waiting before costs it nothing and gives it nothing (it does
not know its match yet).
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from bots.bundle import BotBundle
from bots.runner.affinity import background_thread_unpin, processes_pin
from bots.runner.process import BotProcess, child_pids
from bots.runner.sandbox import (
    SANDBOX_USER_POOL,
    BotFiles,
    Limits,
    SandboxUnavailableError,
    SandboxUser,
    launch_spec,
    sandbox_release_defer,
    sandbox_user_acquire,
    sandbox_users_released_together,
)

logger = logging.getLogger(__name__)

DEFAULT_SIZE = 8
"""Processes a worker process keeps waiting at most (two matches of four distinct bots)."""
DEFAULT_MAX_IDLE = 120.0
"""Seconds a warm process may wait for its match before it is stopped."""

MATCH_SEATS = 4
"""The most seats a match gives uploaded bots (the King family's four players)."""

WarmKey = tuple[BotBundle, Limits]


@dataclass(frozen=True)
class SandboxUsersDemand:
    """Whether a machine's sandbox users suffice for its worker processes: each holds one
    per seat of the match it plays, one per warm sandbox and one per spawner
    (bots.runner.spawner; and, its release deferred to its background thread, a finished
    seat's for a moment more)."""

    processes: int
    warm: int
    spawners: int = 0

    @property
    def each(self) -> int:
        return MATCH_SEATS + self.warm + self.spawners

    @property
    def needed(self) -> int:
        return self.processes * self.each

    @property
    def fits(self) -> bool:
        return self.needed <= SANDBOX_USER_POOL

    def message(self) -> str:
        """One line for the operator, naming the numbers."""
        counted = (
            f"sandbox users: {self.processes} worker process(es) x up to {self.each} each"
            f" ({MATCH_SEATS} seats + {self.warm} warm sandboxes, WORKER_WARM_SANDBOXES"
            + (f" + {self.spawners} spawners, WORKER_BOT_SPAWNERS" if self.spawners else "")
            + f") = {self.needed}"
        )
        if self.fits:
            return (
                f"{counted} of the machine's {SANDBOX_USER_POOL}, which every worker on it shares"
            )
        most = SANDBOX_USER_POOL // self.each
        advice = f"run at most {most} worker process(es) a machine at this setting"
        warm_fit = SANDBOX_USER_POOL // self.processes - MATCH_SEATS - self.spawners
        if warm_fit >= 0:
            advice += f", or set WORKER_WARM_SANDBOXES={warm_fit} for {self.processes}"
        return (
            f"{counted}, more than the machine's {SANDBOX_USER_POOL} (shared by every worker"
            f" on it): under load bots would be refused ('all {SANDBOX_USER_POOL} sandbox"
            f" users are busy'); {advice}"
        )


def sandbox_users_check(processes: int, warm: int, spawners: int = 0) -> SandboxUsersDemand:
    """Log, at a worker's start, whether the machine's sandbox users suffice for its
    ``processes`` worker processes with ``warm`` warm sandboxes and ``spawners`` spawners
    each: a warning naming the numbers when they do not (bots would be refused under
    load), else an info line."""
    demand = SandboxUsersDemand(processes, warm, spawners)
    if demand.fits:
        logger.info("%s", demand.message())
    else:
        logger.warning("%s", demand.message())
    return demand


class Stoppable(Protocol):
    def stop(self) -> None: ...


def stop_together(doomed: Iterable[Stoppable], what: str) -> None:
    """Stop each of ``doomed`` (warm sandboxes, spawners), their sandbox users released in
    one go; one that fails to stop is logged as ``what`` and the others still stop."""
    with sandbox_users_released_together():
        for item in doomed:
            try:
                item.stop()
            except Exception:
                logger.exception("%s did not stop cleanly", what)


@dataclass
class StartedBot:
    """A sandboxed bot process, started and not yet told anything; owned by whoever holds
    it (the pool, then the seat it is handed to), which stops it once."""

    process: BotProcess
    files: BotFiles
    user: SandboxUser | None
    started: float = field(default_factory=time.monotonic)

    def pin(self) -> None:
        """Its processes onto the CPU of the worker process that takes it for a match
        (bots.runner.affinity): it was started beside the match before."""
        pids = [self.process.pid] if self.process.pid is not None else []
        for pid in pids:  # and every process under it (bubblewrap's, the bot's)
            pids += child_pids(pid)
        processes_pin(pids)

    def stop(self) -> None:
        """Kill the process and everything it started, release its user, remove its files."""
        try:
            self.process.stop()
        finally:
            try:
                if self.user is not None:
                    self.user.release()
                    self.user = None
            finally:
                self.files.cleanup()


def bot_start(bundle: BotBundle, limits: Limits, *, sandboxed: bool) -> StartedBot:
    """Start ``bundle``'s bot in a sandbox of its own (or as a plain process): a pool user,
    its files, the process. OSError if it cannot be started; nothing is left then."""
    user = sandbox_user_acquire() if sandboxed else None
    files: BotFiles | None = None
    try:
        files = BotFiles.for_bundle(bundle)
        spec = launch_spec(files, sandboxed=sandboxed, user=user, limits=limits)
        process = BotProcess(spec)
        try:
            process.start()
        finally:
            for fd in spec.pass_fds:
                os.close(fd)
    except BaseException:
        try:
            if user is not None:
                user.release()
        finally:
            if files is not None:
                files.cleanup()
        raise
    return StartedBot(process, files, user)


class Janitor:
    """One background thread per worker process that does the sandboxes' slow chores off
    the match's path: the next match's starts (``WarmPool.refill``) and the end of the
    finished seats' users (the look at /proc, their control groups' removal), in order."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._jobs: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        """Started by the first chore (it inherits the CPU of the thread that submits it)."""

    def submit(self, job: Callable[[], None]) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="sandbox-janitor", daemon=True)
            self._thread.start()
        self._jobs.put(job)

    def _run(self) -> None:
        background_thread_unpin()  # beside the match, not on its CPU
        while True:
            job = self._jobs.get()
            try:
                if job is None:
                    return
                job()
            except Exception:  # a chore that fails must not stop the next ones
                logger.exception("a sandbox chore failed")
            finally:
                self._jobs.task_done()

    def drain(self) -> None:
        """Wait until every chore submitted so far is done."""
        self._jobs.join()

    def stop(self) -> None:
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join(timeout=10)
            self._thread = None


class WarmPool:
    """Fresh sandboxed processes waiting for their match, by version (see the module)."""

    def __init__(self, size: int = DEFAULT_SIZE, max_idle: float = DEFAULT_MAX_IDLE) -> None:
        self.size = size
        self.max_idle = max_idle
        self._waiting: OrderedDict[WarmKey, list[StartedBot]] = OrderedDict()
        self._wanted: OrderedDict[WarmKey, int] = OrderedDict()
        """Versions seated since the last refill, and how many seats each took."""
        self.hits = 0
        self.misses = 0
        self.pid = os.getpid()
        """The process the waiting bots belong to (a forked child starts a pool of its own)."""
        self._lock = threading.Lock()
        """Held while the waiting lists change (the janitor refills them)."""
        self.janitor = Janitor()

    def __len__(self) -> int:
        return sum(len(bots) for bots in self._waiting.values())

    def take(self, bundle: BotBundle, limits: Limits) -> StartedBot | None:
        """A waiting process of exactly this version and limits (handed over: the caller
        stops it), or None; either way the version is wanted again at the next refill."""
        key = (bundle, limits)
        ended: list[StartedBot] = []
        found: StartedBot | None = None
        with self._lock:
            self._wanted[key] = self._wanted.get(key, 0) + 1
            bots = self._waiting.get(key)
            while bots and found is None:
                bot = bots.pop(0)
                if bot.process.running:
                    found = bot
                else:  # it ended on its own while waiting: not handed out (a fresh start is)
                    ended.append(bot)
            if not bots:
                self._waiting.pop(key, None)
            if found is not None:
                self.hits += 1
            else:
                self.misses += 1
        if ended:
            self._stop_all(ended)
        if found is not None:
            found.pin()
        return found

    def refill(self) -> None:
        """Start (in the background) a fresh process for each seat of the versions taken
        since the last refill, as many as the pool has room for (the oldest waiting ones
        evicted), and stop the processes that waited too long."""
        with self._lock:
            wanted, self._wanted = self._wanted, OrderedDict()
        if wanted:
            self.janitor.submit(lambda: self._refill_now(wanted))

    def _refill_now(self, wanted: OrderedDict[WarmKey, int]) -> None:
        now = time.monotonic()
        with self._lock:
            doomed = [
                bot
                for key in list(self._waiting)
                for bot in self._pop_where(key, lambda bot: now - bot.started > self.max_idle)
            ]
        self._stop_all(doomed)
        for key, count in wanted.items():
            bundle, limits = key
            for _ in range(min(count, self.size)):
                with self._lock:
                    if len(self._waiting.get(key, [])) >= min(count, self.size):
                        break
                    evicted = self._evict_oldest(keep=key) if len(self) >= self.size else []
                    if len(self) >= self.size:
                        break
                self._stop_all(evicted)
                try:
                    bot = bot_start(bundle, limits, sandboxed=True)
                except (OSError, SandboxUnavailableError):
                    return  # a start that fails here fails again in the match, as its fault
                with self._lock:
                    self._waiting.setdefault(key, []).append(bot)

    def _pop_where(self, key: WarmKey, doomed: Callable[[StartedBot], bool]) -> list[StartedBot]:
        bots = self._waiting.get(key, [])
        popped = [bot for bot in bots if doomed(bot)]
        kept = [bot for bot in bots if not doomed(bot)]
        if kept:
            self._waiting[key] = kept
        else:
            self._waiting.pop(key, None)
        return popped

    def _evict_oldest(self, keep: WarmKey) -> list[StartedBot]:
        """The oldest waiting process of another version, taken out (under the lock)."""
        oldest: tuple[float, WarmKey] | None = None
        for key, bots in self._waiting.items():
            if key != keep and bots and (oldest is None or bots[0].started < oldest[0]):
                oldest = (bots[0].started, key)
        if oldest is None:
            return []
        first = self._waiting[oldest[1]][0]
        return self._pop_where(oldest[1], lambda bot: bot is first)

    def _stop_all(self, doomed: list[StartedBot]) -> None:
        stop_together(doomed, "a warm sandbox")

    def close(self) -> None:
        """Wait for the chores under way, then stop every waiting process and the thread."""
        self.janitor.drain()
        with self._lock:
            self._wanted.clear()
            doomed = [bot for bots in self._waiting.values() for bot in bots]
            self._waiting.clear()
        self._stop_all(doomed)
        self.janitor.stop()


_pool: WarmPool | None = None


def warm_pool() -> WarmPool | None:
    """This process's pool, None while it is off (the default: the command line, tests).
    A process forked from one with the pool on (a Celery worker's pool process) gets an
    empty pool of its own: the parent's waiting bots and thread are the parent's."""
    global _pool
    if _pool is not None and _pool.pid != os.getpid():
        _pool = _pool_new(_pool.size, _pool.max_idle)
    return _pool


def _pool_new(size: int, max_idle: float) -> WarmPool:
    pool = WarmPool(size, max_idle)
    # the seats' users are released by the pool's thread, after the match has returned
    sandbox_release_defer(pool.janitor.submit)
    return pool


def warm_pool_enable(size: int = DEFAULT_SIZE, max_idle: float = DEFAULT_MAX_IDLE) -> WarmPool:
    """Turn this process's pool on (the league's worker does, per worker process): from now
    on, sandboxed seats take their process from it, matches refill it, and the finished
    seats' users are released in its background thread. ``size`` 0 turns it off."""
    global _pool
    warm_pool_close()
    if size > 0:
        _pool = _pool_new(size, max_idle)
    return _pool  # type: ignore[return-value]


def warm_pool_close() -> None:
    """Stop the waiting processes, finish the pending releases, turn the pool off (at exit,
    too)."""
    global _pool
    pool, _pool = _pool, None
    if pool is not None and pool.pid == os.getpid():
        sandbox_release_defer(None)
        pool.close()


def warm_pool_refill() -> None:
    """Refill this process's pool, if it is on (bots.match.seats_play, once its seats are
    ready: the new processes start while the match plays)."""
    pool = warm_pool()
    if pool is not None:
        pool.refill()


atexit.register(warm_pool_close)
