"""Worker throughput: matches per minute of one and two worker processes, sandboxed bots
against the in-process reference, in the same run.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.worker_throughput
    python -m bench.worker_throughput --matches 200 --rounds 2

It creates a scratch database of its own (``<name>_throughput_bench``, dropped at the end).
A real ``celery -A config worker`` (``--concurrency`` 1, then 2: one and two worker
processes) plays queued Kingen matches (10 deals, 520 decisions), timed from the first
task sent to the last result stored:

- **in process**: four built-in ``random`` bots (no sandbox; the reference);
- **sandboxed, as before**: four uploaded trivial bots (bench.bots.TRIVIAL_BOT: answer the
  first legal action), each in its sandbox, with the worker's warm pool and CPU pinning
  off (``WORKER_WARM_SANDBOXES=0 WORKER_PIN_CPU=0``);
- **sandboxed**: the same with the worker's defaults (bots.runner.warm: sandboxes started
  ahead of their match; bots.runner.affinity: each worker process and its bots on a CPU
  of their own);
- **sandboxed, spawners**: the defaults and ``WORKER_BOT_SPAWNERS=8`` (bots.runner.spawner:
  each seat's bot forked by its version's spawner).

Each configuration runs ``--rounds`` times, interleaved (the machine is shared: the load
changes), and the ratio to the in-process figure of the same round is printed beside the
figure, with the load average, and so is the CPU a match cost while they played, counted
for the benchmark's own processes only (the machine is shared: bench.process_tree_cpu):
the worker's process tree (the worker, its pool processes, their bots and the bots'
sandboxes, the exited ones included) and the PostgreSQL backends serving the scratch
database (sampled), with the most matches a minute that cost allows on this machine's
CPUs, however well the work overlaps. Not counted: this process's polling and its own
backend, Redis, the kernel's own threads, every other process.
Targets (issue 18): 900 sandboxed matches per minute for one worker process, two processes
at least 1.8 times one. It prints figures; it asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.bots import TRIVIAL_BOT  # noqa: E402
from bench.process_tree_cpu import (  # noqa: E402
    BACKENDS_LIST_SECONDS,
    BACKENDS_READ_SECONDS,
    CpuSpent,
    ProcessTreeCpu,
    own_backend_pid,
    postgres_backends,
)
from bench.scratch_database import scratch_database  # noqa: E402
from tests.celery_workers import process_stop  # noqa: E402

GAME = "kingen"
WORKER_READY_SECONDS = 90.0
WORKER_STOP_SECONDS = 60.0


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


CPU_COUNTED = (
    "CPU counted: the worker's process tree (the worker, its pool processes, their bots and"
    " sandboxes; the exited ones through their parents' cutime/cstime, the orphans among"
    " them reaped by this process) and the"
    " PostgreSQL backends of the scratch database (listed every"
    f" {BACKENDS_LIST_SECONDS * 1000:.0f} ms, read every {BACKENDS_READ_SECONDS * 1000:.0f}"
    " ms: the last reading of each, its last few ms missed); not counted: this"
    " process's polling and its backend, Redis, the kernel's own threads, other processes"
)


@dataclass(frozen=True)
class Measured:
    per_minute: float
    count: int
    cpu: CpuSpent

    @property
    def cpu_ms_per_match(self) -> float:
        return self.cpu.seconds / self.count * 1000

    def cpu_described(self) -> str:
        tree = self.cpu.tree / self.count * 1000
        backends = self.cpu.backends / self.count * 1000
        return (
            f"CPU {self.cpu_ms_per_match:5.1f} ms a match (worker tree {tree:5.1f},"
            f" {self.cpu.tree_processes_seen} processes seen, {self.cpu.orphans} orphans"
            f" reaped here; PostgreSQL {backends:4.1f},"
            f" {self.cpu.backends_seen} backends)"
        )


@dataclass(frozen=True)
class Setup:
    label: str
    uploaded: bool
    environment: dict[str, str]


SETUPS = (
    Setup("in process (built-in random)", False, {}),
    Setup("sandboxed, as before", True, {"WORKER_WARM_SANDBOXES": "0", "WORKER_PIN_CPU": "0"}),
    Setup("sandboxed", True, {}),
    Setup("sandboxed, spawners", True, {"WORKER_BOT_SPAWNERS": "8"}),
)


def competitors(*, uploaded: bool) -> list[int]:
    """Four competitors: built-in random bots, or four trivial uploaded versions (distinct
    files, so four versions as four authors' bots would be)."""
    from bots.models import BotVersion
    from bots.services import bot_create, bot_version_store
    from league.services.competitors import competitor_builtin, competitor_for_bot_version

    if not uploaded:
        return [competitor_builtin(name="random", bot_name=f"random-{i}").pk for i in range(4)]
    owner = User.objects.create_user(username=f"author-{time.time_ns()}", password=None)
    ids = []
    for index in range(4):
        bot = bot_create(owner=owner, name=f"trivial{index}", families=[GAME])
        code = TRIVIAL_BOT + f"# bot {index}\n".encode()
        version = bot_version_store(owner=owner, bot=bot, filename="main.py", data=code)
        version.status = BotVersion.Status.ACTIVE
        version.validated_at = timezone.now()
        version.save(update_fields=["status", "validated_at"])
        ids.append(competitor_for_bot_version(version=version).pk)
    return ids


def matches_create(seat_ids: list[int], count: int) -> list[int]:
    """``count`` queued Kingen matches of these four competitors (no task sent yet)."""
    from league.models import Match, MatchSeat, Round, Tournament
    from league.services.clubs import club_create
    from league.services.tournaments import seed_draw

    organiser = User.objects.create_user(username=f"bench-{time.time_ns()}", password=None)
    club = club_create(user=organiser, name=f"Bench {time.time_ns()}")
    tournament = Tournament.objects.create(club=club, name="throughput", game=GAME, rounds=1)
    round_ = Round.objects.create(tournament=tournament, number=1)
    ids = []
    for table in range(count):
        match = Match.objects.create(
            tournament=tournament, round=round_, table=table + 1, game=GAME, seed=seed_draw()
        )
        MatchSeat.objects.bulk_create(
            MatchSeat(match=match, seat=s, competitor_id=seat_ids[s]) for s in range(4)
        )
        ids.append(match.pk)
    return ids


def worker_start(
    environment: dict[str, str], log_path: Path, processes: int
) -> subprocess.Popen[bytes]:
    node = f"throughput-{os.getpid()}-{time.time_ns()}@localhost"
    command = [sys.executable, "-m", "celery", "-A", "config", "worker"]
    command += ["--concurrency", str(processes), "--queues", "matches", "--hostname", node]
    command += ["--loglevel", "WARNING", "--without-heartbeat", "--without-gossip"]
    command += ["--without-mingle", "--prefetch-multiplier", "1"]
    with log_path.open("wb") as log:
        worker = subprocess.Popen(
            command,
            cwd=Path(__file__).resolve().parent.parent,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    # ready once it answers a ping
    from config.celery import app

    deadline = time.monotonic() + WORKER_READY_SECONDS
    while not app.control.ping(destination=[node], timeout=0.5):
        if worker.poll() is not None or time.monotonic() > deadline:
            process_stop(worker, timeout=WORKER_STOP_SECONDS)
            raise SystemExit(f"the worker did not start:\n{log_path.read_text()[-3000:]}")
    time.sleep(1.0)  # its pool processes: started and initialised
    return worker


def run(
    setup: Setup, processes: int, count: int, seat_ids: list[int], database_url: str
) -> Measured:
    """Matches per minute of ``processes`` worker processes playing ``count`` matches, and
    the CPU of the worker's tree and its PostgreSQL backends meanwhile."""
    from config.celery import app
    from league.models import Match, MatchStatus
    from league.task_names import RUN_MATCH

    environment = dict(os.environ) | {"DATABASE_URL": database_url} | setup.environment
    warm_up = matches_create(seat_ids, 2 * processes)
    ids = matches_create(seat_ids, count)
    with tempfile.TemporaryDirectory() as folder:
        log_path = Path(folder) / "worker.log"
        worker = worker_start(environment, log_path, processes)
        try:
            for match_id in warm_up:  # the first matches start the pool and its caches
                app.send_task(RUN_MATCH, args=[match_id])
            wanted = warm_up
            while Match.objects.filter(pk__in=wanted, status=MatchStatus.FINISHED).count() < len(
                wanted
            ):
                time.sleep(0.05)
            backends, backends_close = postgres_backends(exclude=[own_backend_pid()])
            meter = ProcessTreeCpu(worker.pid, backends=backends, backends_close=backends_close)
            began = time.perf_counter()
            meter.start()
            try:
                for match_id in ids:
                    app.send_task(RUN_MATCH, args=[match_id])
                while Match.objects.filter(pk__in=ids, status=MatchStatus.FINISHED).count() < count:
                    if worker.poll() is not None:
                        raise SystemExit(f"the worker died:\n{log_path.read_text()[-3000:]}")
                    time.sleep(0.05)
                seconds = time.perf_counter() - began
            finally:
                spent = meter.stop()
        finally:
            process_stop(worker, timeout=WORKER_STOP_SECONDS)
    return Measured(per_minute=count / seconds * 60, count=count, cpu=spent)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=150, help="matches per measurement")
    parser.add_argument("--rounds", type=int, default=1, help="interleaved repetitions")
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--skip", nargs="*", default=[], help="labels of sandboxed setups to leave out"
    )
    args = parser.parse_args()
    setups = [setup for setup in SETUPS if setup.label not in args.skip]

    with scratch_database("throughput_bench") as database_url:
        try:
            say(f"# bench.worker_throughput: {GAME}, {args.matches} matches a measurement")
            say(f"# {os.cpu_count()} CPUs, load average at the start {loadavg()}")
            say(f"# {CPU_COUNTED}")
            seats = {setup.uploaded: competitors(uploaded=setup.uploaded) for setup in SETUPS}
            figures: dict[tuple[str, int], list[float]] = {}
            ratios: dict[tuple[str, int], list[float]] = {}
            cpu_ms: dict[tuple[str, int], list[float]] = {}
            cpus = os.cpu_count() or 1
            for round_number in range(args.rounds):
                for processes in args.processes:
                    reference = 0.0
                    for setup in setups:
                        measured = run(
                            setup, processes, args.matches, seats[setup.uploaded], database_url
                        )
                        per_minute = measured.per_minute
                        if not setup.uploaded:
                            reference = per_minute
                        key = (setup.label, processes)
                        figures.setdefault(key, []).append(per_minute)
                        ratios.setdefault(key, []).append(per_minute / reference)
                        cpu_ms.setdefault(key, []).append(measured.cpu_ms_per_match)
                        say(
                            f"round {round_number + 1}, {processes} process(es), {setup.label:30s}"
                            f" {per_minute:7.0f} matches/min   {per_minute / reference:5.2f} x in"
                            f" process   {measured.cpu_described()}"
                            f" (at most {cpus * 60_000 / measured.cpu_ms_per_match:5.0f}/min)"
                            f"   (load {loadavg()})"
                        )
            say("medians:")
            for (label, processes), values in figures.items():
                ratio = statistics.median(ratios[(label, processes)])
                line = f"  {processes} process(es), {label:30s}"
                line += f" {statistics.median(values):7.0f}/min   {ratio:5.2f} x in process"
                if processes > 1 and (label, 1) in figures:
                    scale = statistics.median(values) / statistics.median(figures[(label, 1)])
                    line += f"   {scale:4.2f} x one process"
                ms = statistics.median(cpu_ms[(label, processes)])
                line += f"   CPU {ms:5.1f} ms a match (at most {cpus * 60_000 / ms:5.0f}/min)"
                say(line)
        finally:
            from config.celery import app

            app.control.purge()  # the ratings and other tasks nobody consumed here
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
