"""The interactive lane: how long a person waits for a table (Play now) or a challenge to
come alive while bot-only ladder and league matches saturate the other worker processes.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.interactive_lane
    python -m bench.interactive_lane --seconds 30 --interval 1.5 --processes 2

It makes a scratch database of its own (``<name>_interactive_lane_bench``, dropped at the
end) and runs two phases in this process, each with its own Celery workers on it:

- **(a) lane off** (the reference, scripts/run before the lane): one worker of
  ``--processes`` processes for every queue; a people's table and a challenge share its
  processes with the bot-only matches;
- **(b) lane on** (scripts/run now): the same worker, and the `interactive` lane's own
  worker of one process, which bot-only work never occupies.

Each phase first fills the general worker's processes with a ladder's bot-only games of
the built-in ``strong`` bot (about a minute each: the issue's "slow bot"), queued as the
ladder queues them (the lowest priority), then queues a bot-only league of Kung och Adel
matches of ``greedy`` (a few seconds each, the demo league's part). While those play, it
opens every ``--interval`` seconds for ``--seconds`` a Kingen table of a person and three
``greedy`` bots (what *Play now* opens), and every other time an author's challenge too
(an uploaded bot that answers each request with its first legal action, against two
anchors and a ``greedy`` copy), as people arrive: nobody waits for the one before. Each is
measured in the database's own times:

- a table: from its start (``queued_at``: every seat taken) to its **first bot move**
  stored (when a bot acts before the person), and to the person's **first turn** (the
  worker hands the match to the person: ``deadline`` minus the move time); the person
  never moves, so the table costs no worker afterwards;
- a challenge: from its creation to its first move stored (a running match stores its
  moves every 0.25 s: what its watchers see).

A sample not served within ``--cap`` seconds counts as the cap (and is reported as not
served). Printed: p50, p95 and max per measure and phase, and the ratio (a)/(b). It
asserts nothing.
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
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

import league.tasks  # noqa: E402, F401 (registers the tasks this process sends)
from bench.scratch_database import scratch_database  # noqa: E402
from bots.runner.sandbox import sandbox_unavailable_reason  # noqa: E402
from config.celery import app  # noqa: E402
from config.configuration import database_url_for  # noqa: E402
from league.models import Ladder, LadderEntrant, Match, MatchEvent, MatchStatus  # noqa: E402
from league.services.clubs import club_create  # noqa: E402
from league.services.competitors import competitor_builtin  # noqa: E402
from league.services.ladder_authors import challenge_create  # noqa: E402
from league.services.ladders import (  # noqa: E402
    ladder_anchor_add,
    ladder_open,
    match_queue,
    round_next,
)
from league.services.tables import table_open  # noqa: E402
from league.services.tournaments import (  # noqa: E402
    seed_draw,
    tournament_create,
    tournament_round_start,
)
from tests.bots.botcode import PLAYER  # noqa: E402
from tests.celery_workers import CeleryWorkerProcess, process_stop, worker_start  # noqa: E402
from tests.league.builders import active_uploaded_version  # noqa: E402

GENERAL_QUEUES = "interactive,default,matches,ratings,analysis"  # scripts/run's `worker`
LEAGUE_GAME = "kung_och_adel(deals=300)"
LEAGUE_TABLES = 8
"""The bot-only league's matches (four greedy bots each) queued in each phase."""
SLOW_ANCHORS = 4
"""The ladder's ``strong`` anchors: one ladder game of four per general process."""
FIRST_LEGAL_BOT = PLAYER + "\nplay()\n"
POLL_SECONDS = 0.02


def say(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


@dataclass
class Samples:
    first_bot: list[float] = field(default_factory=list)
    first_turn: list[float] = field(default_factory=list)
    challenge: list[float] = field(default_factory=list)
    timed_out: dict[str, int] = field(default_factory=dict)


def percentiles(values: Sequence[float]) -> tuple[float, float, float]:
    """p50, p95 and max (p95 by statistics.quantiles, inclusive of the extremes)."""
    if len(values) == 1:
        return values[0], values[0], values[0]
    cuts = statistics.quantiles(values, n=20, method="inclusive")
    return statistics.median(values), cuts[18], max(values)


def wait_for(predicate: Callable[[], Any], cap: float) -> Any:
    """``predicate()`` once true, or None after ``cap`` seconds."""
    deadline = time.monotonic() + cap
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(POLL_SECONDS)
    return None


# ---------------------------------------------------------------- the bot-only load


@dataclass
class Scene:
    """What the phases share: the ladder (its slow anchors and its challengeable ones)."""

    ladder: Ladder
    slow: list[int]
    opponents: list[int]


def scene_make() -> Scene:
    ladder = ladder_open(game="kingen", anchors=("greedy", "random"))
    ladder_anchor_add(ladder=ladder, name="greedy", bot_name="greedy-2")
    slow = [
        ladder_anchor_add(ladder=ladder, name="strong", bot_name=f"strong-{n}").competitor_id
        for n in range(1, SLOW_ANCHORS + 1)
    ]
    opponents = list(
        LadderEntrant.objects.filter(ladder=ladder, anchor=True)
        .exclude(competitor_id__in=slow)
        .values_list("competitor_id", flat=True)
    )
    return Scene(ladder=ladder, slow=slow, opponents=opponents)


def load_queue(scene: Scene, processes: int, cap: float) -> list[int]:
    """The ladder's slow games first (one per general process; a ladder queues them at
    the lowest priority) until they hold every general process, then the league's."""
    with transaction.atomic():  # as the matchmaker's pass (sent when it commits)
        round_ = round_next(scene.ladder.tournament)
        ladder_games = [
            match_queue(round_=round_, table=n, seed=seed_draw(), players=scene.slow).pk
            for n in range(1, processes + 1)
        ]
    held = wait_for(
        lambda: (
            Match.objects.filter(pk__in=ladder_games, status=MatchStatus.RUNNING).count()
            == processes
        ),
        cap,
    )
    if not held:
        raise SystemExit("the ladder's games did not start: is the worker running?")
    stamp = time.time_ns()
    organiser = User.objects.create_user(username=f"organiser-{stamp}", password=None)
    tournament = tournament_create(
        actor=organiser,
        club=club_create(user=organiser, name=f"Bench {stamp}"),
        name="Bot-only league",
        game=LEAGUE_GAME,
        entrants=[
            competitor_builtin(name="greedy", bot_name=f"greedy-{stamp}-{n}")
            for n in range(4 * LEAGUE_TABLES)
        ],
    )
    league = tournament_round_start(actor=organiser, tournament=tournament)
    return ladder_games + list(league.matches.values_list("id", flat=True))


def load_cancel(match_ids: Sequence[int]) -> None:
    """End what is left of a phase's load: its messages find nothing to claim."""
    Match.objects.filter(pk__in=list(match_ids)).exclude(status=MatchStatus.FINISHED).update(
        status=MatchStatus.ERROR, error="bench: phase over", lease_until=None, worker=""
    )
    app.control.purge()


# ---------------------------------------------------------------- samples


@dataclass
class Waiting:
    """A table or a challenge opened, not measured yet."""

    match_id: int
    queued_at: datetime
    challenge: bool


def table_open_now(number: int) -> Waiting:
    """Play now: a person's Kingen table with three greedy bots, the person at seat 0."""
    person = User.objects.create_user(username=f"lane-{time.time_ns()}-{number}", password=None)
    match = table_open(actor=person, game="kingen", seats=["me", *["builtin:greedy"] * 3])
    match.refresh_from_db()
    assert match.queued_at is not None
    return Waiting(match.pk, match.queued_at, challenge=False)


def challenge_open_now(number: int, scene: Scene) -> Waiting:
    author = User.objects.create_user(username=f"author-{time.time_ns()}-{number}", password=None)
    mine = active_uploaded_version(author, f"mine-{number}", FIRST_LEGAL_BOT)
    match = challenge_create(
        actor=author, ladder=scene.ladder, competitor_id=mine.pk, opponent_ids=scene.opponents
    )
    match.refresh_from_db()
    assert match.queued_at is not None
    return Waiting(match.pk, match.queued_at, challenge=True)


def first_bot_move_at(match_id: int, *, person_seat: int | None) -> datetime | None:
    moves = MatchEvent.objects.filter(match_id=match_id, seat__isnull=False)
    if person_seat is not None:
        moves = moves.exclude(seat=person_seat)
    return moves.order_by("index").values_list("created_at", flat=True).first()


def measured(waiting: Waiting, samples: Samples) -> bool:
    """Record the sample if it was served (True), else leave it waiting."""
    since = waiting.queued_at
    if waiting.challenge:
        first = first_bot_move_at(waiting.match_id, person_seat=None)
        if first is None:
            return False
        samples.challenge.append((first - since).total_seconds())
        return True
    match = Match.objects.select_related("tournament").get(pk=waiting.match_id)
    if match.deadline is None:
        return False  # not handed to the person yet
    turn_at = match.deadline - timedelta(seconds=match.tournament.move_seconds)
    samples.first_turn.append((turn_at - since).total_seconds())
    first_bot = first_bot_move_at(waiting.match_id, person_seat=0)
    if first_bot is not None:  # a bot acted before the person
        samples.first_bot.append((first_bot - since).total_seconds())
    return True


def measure_all(waiting: list[Waiting], samples: Samples, *, cap: float) -> None:
    """Measure what was served; what waits past ``cap`` seconds counts as the cap."""
    while waiting:
        waiting[:] = [w for w in waiting if not measured(w, samples)]
        now = timezone.now()
        late = [w for w in waiting if (now - w.queued_at).total_seconds() > cap]
        for w in late:
            what = "challenges" if w.challenge else "tables"
            samples.timed_out[what] = samples.timed_out.get(what, 0) + 1
            (samples.challenge if w.challenge else samples.first_turn).append(cap)
            waiting.remove(w)
        if not waiting:
            return
        time.sleep(POLL_SECONDS)


# ---------------------------------------------------------------- phases


@contextmanager
def workers(folder: Path, *, lane: bool, processes: int) -> Iterator[list[CeleryWorkerProcess]]:
    environment = dict(os.environ) | {"DATABASE_URL": database_url_for(connection.settings_dict)}
    layout = [(GENERAL_QUEUES, processes, "general")]
    if lane:
        layout.append(("interactive", 1, "interactive"))
    started: list[CeleryWorkerProcess] = []
    try:
        for queues, concurrency, name in layout:
            started.append(
                worker_start(
                    environment=environment,
                    log_path=folder / f"{name}-{'on' if lane else 'off'}.log",
                    queues=queues,
                    concurrency=concurrency,
                    node_name=f"{name}-{os.getpid()}@localhost",
                )
            )
        yield started
    finally:
        for worker in started:
            process_stop(worker.process, timeout=5)  # the slow games are not waited for


def phase(scene: Scene, *, lane: bool, args: argparse.Namespace, folder: Path) -> Samples:
    samples = Samples()
    with workers(folder, lane=lane, processes=args.processes):
        load = load_queue(scene, args.processes, args.cap)
        try:
            began = time.monotonic()
            waiting: list[Waiting] = []
            number = 0
            while time.monotonic() - began < args.seconds:
                number += 1
                waiting.append(table_open_now(number))
                if args.challenges and number % 2 == 0:
                    waiting.append(challenge_open_now(number, scene))
                pause_until = began + number * args.interval
                while time.monotonic() < pause_until:  # measured while the next is due
                    waiting[:] = [w for w in waiting if not measured(w, samples)]
                    time.sleep(POLL_SECONDS)
            measure_all(waiting, samples, cap=args.cap)
            held = Match.objects.filter(pk__in=load, status=MatchStatus.RUNNING).count()
            left = Match.objects.filter(pk__in=load, status=MatchStatus.QUEUED).count()
            say(
                f"  {number} tables opened; at the end {held} bot-only matches running and "
                f"{left} queued (of {len(load)})"
            )
        finally:
            load_cancel(load)
    return samples


def report(name: str, samples: Samples) -> None:
    rows = [
        ("Play now: first bot move", samples.first_bot),
        ("Play now: the person's first turn", samples.first_turn),
        ("challenge: first move", samples.challenge),
    ]
    for label, values in rows:
        if values:
            p50, p95, most = percentiles(values)
            say(
                f"  {name}  {label:36} n={len(values):3}  p50 {p50 * 1000:8.0f} ms  "
                f"p95 {p95 * 1000:8.0f} ms  max {most * 1000:8.0f} ms"
            )
    for what, count in samples.timed_out.items():
        say(f"  {name}  {count} {what} not served within the cap (counted as the cap)")


def ratios(off: Samples, on: Samples, cap: float) -> None:
    """(a)/(b) per measure; ">=" where (a)'s figure is the cap (not served by then)."""
    for label, before, after in (
        ("Play now: first bot move", off.first_bot, on.first_bot),
        ("Play now: the person's first turn", off.first_turn, on.first_turn),
        ("challenge: first move", off.challenge, on.challenge),
    ):
        if before and after:
            b50, b95, _ = percentiles(before)
            a50, a95, _ = percentiles(after)
            at_least = [">=" if b >= cap else "  " for b in (b50, b95)]
            say(
                f"  {label:36} p50 {at_least[0]}{b50 / a50:6.1f}x   "
                f"p95 {at_least[1]}{b95 / a95:6.1f}x"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="arrivals per phase for")
    parser.add_argument("--interval", type=float, default=1.5, help="seconds between tables")
    parser.add_argument("--processes", type=int, default=2, help="the general worker's")
    parser.add_argument("--cap", type=float, default=60.0, help="a sample's longest wait")
    parser.add_argument("--no-challenges", dest="challenges", action="store_false")
    args = parser.parse_args()
    if settings.MESSAGING.embedded:
        raise SystemExit("REDIS_URL: the bench runs its workers on Redis")
    if args.challenges and (reason := sandbox_unavailable_reason()) is not None:
        say(f"no challenges: the sandbox is unavailable ({reason})")
        args.challenges = False
    say(
        f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; general worker: "
        f"{args.processes} processes; {args.seconds:g} s of samples a phase"
    )
    with scratch_database("interactive_lane_bench"), tempfile.TemporaryDirectory() as name:
        scene = scene_make()
        say("(a) lane off: people's tables and challenges share the general worker")
        off = phase(scene, lane=False, args=args, folder=Path(name))
        report("(a)", off)
        say("(b) lane on: the general worker and the interactive worker (one process)")
        on = phase(scene, lane=True, args=args, folder=Path(name))
        report("(b)", on)
        say("(a)/(b):")
        ratios(off, on, args.cap)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
