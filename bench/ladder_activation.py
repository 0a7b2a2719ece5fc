"""From a version's activation to its first ten games, on a ladder that is already busy.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.ladder_activation
    python -m bench.ladder_activation --versions 3 --concurrency 2 --queued-limit 6

REDIS_URL must name a Redis database that no other worker consumes (its worker would take
their tasks, and theirs its tasks). It makes a scratch database of its own
(``<name>_ladder_activation_bench``, dropped at the end) and runs the ladder as it runs in
production: a real ``celery -A config worker`` (``--concurrency``, queues default, matches
and ratings) and a real ``celery -A config beat`` (the matchmaker's pass every 10 s), the
real matchmaker (league.services.ladders.ladder_matchmake,
league.domain.ladder_matchmaking), a Kingen ladder opened as ``manage.py ladder_open
kingen`` opens it (its limits: ``--queued-limit``, ``--concurrent-limit``,
``--placement-games``), anchored by four built-in bots, and ``--residents`` uploaded
versions that keep it busy (anchors are never a table's focus). Every uploaded version is
the Python starter kit (bots/examples/python/main.py), played in the sandbox. Once the
ladder has played ``2 x --queued-limit`` matches, ``--versions`` new versions become
active one after the other; for each, from the moment its status became active (the
commit), it prints when its first match was queued, when the worker started it, and when
its tenth match finished; and, as the reference measured in the same run, the time its ten
matches took to play (their started-to-finished seconds, divided by the matches it may
play at once: the least the ten can take on this worker), and the ratio of the two. It
asserts nothing
(docs/benchmarks.md, *A new version's first ten games*).
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import contextlib
import signal
import statistics
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.db import connection, transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.scratch_database import scratch_database  # noqa: E402
from tests.celery_beat import beat_start  # noqa: E402
from tests.celery_workers import WorkerError, worker_start  # noqa: E402

REPOSITORY = Path(__file__).resolve().parent.parent
WAIT_SECONDS = 600.0
GAMES = 10
STARTER_BOT = REPOSITORY / "bots" / "examples" / "python" / "main.py"
"""The newcomers' code: the Python starter kit (docs/bot-protocol.md)."""


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def say(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


@dataclass(frozen=True)
class Newcomer:
    activated: datetime
    first_queued: float
    first_started: float
    tenth_finished: float
    playing_seconds: float
    """Its ten matches' started-to-finished seconds, added up."""


def wait_for(
    what: str, predicate: object, processes: Sequence[tuple[str, subprocess.Popen[bytes], Path]]
) -> None:
    assert callable(predicate)
    deadline = time.monotonic() + WAIT_SECONDS
    while not predicate():
        for name, process, log_path in processes:
            if process.poll() is not None:
                raise SystemExit(f"the {name} died:\n{log_path.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            raise SystemExit(f"not within {WAIT_SECONDS:g} s: {what}")
        time.sleep(0.05)


def version_activate(name: str) -> tuple[int, datetime]:
    """An uploaded version made active now (as its validation game makes it); its id and
    the moment of the commit."""
    from django.contrib.auth.models import User

    from bots.models import BotVersion
    from bots.services import bot_create, bot_version_store

    owner = User.objects.create_user(f"author-{name}", password="x" * 12)
    bot = bot_create(owner=owner, name=name, families=["kingen"])
    version = bot_version_store(
        owner=owner, bot=bot, filename="main.py", data=STARTER_BOT.read_bytes()
    )
    with transaction.atomic():
        version.status = BotVersion.Status.ACTIVE
        version.validated_at = timezone.now()
        version.save(update_fields=["status", "validated_at"])
    return version.pk, timezone.now()


def newcomer_measure(
    version_id: int,
    activated: datetime,
    tournament_id: int,
    processes: Sequence[tuple[str, subprocess.Popen[bytes], Path]],
) -> Newcomer:
    from league.models import Match, MatchStatus

    def mine() -> list[Match]:
        return list(
            Match.objects.filter(
                tournament_id=tournament_id, seats__competitor__bot_version_id=version_id
            )
            .distinct()
            .order_by("id")
        )

    wait_for(
        f"version {version_id} finishes {GAMES} games",
        lambda: sum(m.status == MatchStatus.FINISHED for m in mine()) >= GAMES,
        processes,
    )
    matches = mine()
    finished = sorted(
        (m for m in matches if m.status == MatchStatus.FINISHED and m.finished_at is not None),
        key=lambda m: m.finished_at or activated,
    )[:GAMES]
    started = [m.started_at for m in matches if m.started_at is not None]

    def after(moment: datetime) -> float:
        return (moment - activated).total_seconds()

    return Newcomer(
        activated=activated,
        first_queued=after(min(m.created_at for m in matches)),
        first_started=after(min(started)),
        tenth_finished=after(max(m.finished_at for m in finished if m.finished_at)),
        playing_seconds=sum(
            (m.finished_at - m.started_at).total_seconds()
            for m in finished
            if m.finished_at and m.started_at
        ),
    )


def run(args: argparse.Namespace, database_url: str) -> None:
    from bots.runner.sandbox import sandbox_unavailable_reason
    from league.models import Match, MatchStatus
    from league.services.ladders import ladder_anchor_add, ladder_matchmake, ladder_open

    reason = sandbox_unavailable_reason()
    if reason is not None:
        raise SystemExit(f"the sandbox is unavailable: {reason}")
    ladder = ladder_open(
        game="kingen",
        anchors=("greedy", "random"),
        queued_limit=args.queued_limit,
        concurrent_limit=args.concurrent_limit,
        placement_games=args.placement_games,
    )
    ladder_anchor_add(ladder=ladder, name="greedy", bot_name="greedy-2")
    ladder_anchor_add(ladder=ladder, name="random", bot_name="random-2")
    for number in range(1, args.residents + 1):  # the anchors alone are never a table's focus
        version_activate(f"resident{number}")
    environment = dict(os.environ) | {"DATABASE_URL": database_url}
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as running:
        try:
            worker = worker_start(
                environment=environment,
                log_path=Path(folder) / "worker.log",
                queues="interactive,default,matches,ratings",
                concurrency=args.concurrency,
                node_name=f"activation-{os.getpid()}@localhost",
            )
        except WorkerError as error:
            raise SystemExit(str(error)) from None
        running.callback(worker.stop)
        beat = beat_start(environment=environment, directory=Path(folder))
        running.callback(beat.stop)  # stopped first
        processes = [
            ("worker", worker.process, worker.log_path),
            ("beat", beat.process, beat.log_path),
        ]
        ladder_matchmake(ladder_id=ladder.pk)
        warm = 2 * args.queued_limit
        began = time.perf_counter()
        wait_for(
            f"the ladder plays {warm} matches",
            lambda: (
                Match.objects.filter(
                    tournament=ladder.tournament, status=MatchStatus.FINISHED
                ).count()
                >= warm
            ),
            processes,
        )
        warm_seconds = time.perf_counter() - began
        say(f"load average before: {load_average()}")
        say(
            f"ladder kingen: 4 anchors and {args.residents} uploaded versions, queued "
            f"limit {args.queued_limit}, concurrent limit {args.concurrent_limit}, "
            f"placement games {args.placement_games}; one worker, "
            f"concurrency {args.concurrency}; beat's pass every 10 s"
        )
        say(
            f"warm-up: {warm} matches in {warm_seconds:.1f} s "
            f"({warm / warm_seconds * 60:.0f} per minute)"
        )
        at_once = min(args.concurrency, args.concurrent_limit)
        say(
            f"{'version':>8} {'queued':>8} {'started':>8} {'10th done':>10} "
            f"{'ten games':>10} {'ratio':>6}   (seconds after activation)"
        )
        results: list[Newcomer] = []
        for number in range(1, args.versions + 1):
            version_id, activated = version_activate(f"newcomer{number}")
            newcomer = newcomer_measure(version_id, activated, ladder.tournament_id, processes)
            results.append(newcomer)
            least = newcomer.playing_seconds / at_once
            say(
                f"{number:>8} {newcomer.first_queued:8.1f} {newcomer.first_started:8.1f} "
                f"{newcomer.tenth_finished:10.1f} {least:10.1f} "
                f"{newcomer.tenth_finished / least:6.2f}"
            )
        tenth = [r.tenth_finished for r in results]
        ratios = [r.tenth_finished / (r.playing_seconds / at_once) for r in results]
        say(
            f"median: tenth game done {statistics.median(tenth):.1f} s after activation, "
            f"{statistics.median(ratios):.2f} x the least its ten games take on this worker"
        )
        say(f"load average after: {load_average()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--versions", type=int, default=3, help="newcomers, one after another")
    parser.add_argument(
        "--residents", type=int, default=2, help="uploaded versions on the ladder before"
    )
    parser.add_argument("--concurrency", type=int, default=2, help="the worker's processes")
    parser.add_argument("--queued-limit", type=int, default=6)
    parser.add_argument("--concurrent-limit", type=int, default=2)
    parser.add_argument("--placement-games", type=int, default=10)
    args = parser.parse_args()
    if connection.vendor != "postgresql" or not os.environ.get("REDIS_URL"):
        raise SystemExit("set DATABASE_URL=postgres://... and REDIS_URL=redis://...")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stop the worker and beat too
    with scratch_database("ladder_activation_bench") as database_url:
        run(args, database_url)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
