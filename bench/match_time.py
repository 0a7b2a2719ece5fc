"""Where a spawned match's time goes: one worker process's match, the in-process reference
against four spawned trivial bots, part by part, beside the floors no runner change can
go below, in one process and one run (issue 36).

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.match_time
    python -m bench.match_time --matches 60

It creates a scratch database of its own (``<name>_match_time_bench``, dropped at the end).
This process is a worker process: pinned to a CPU with its bots (bots.runner.affinity),
its warm pool and spawners on (``WORKER_BOT_SPAWNERS=8``), and it plays queued Kingen
matches with ``league.services.matches.match_run``, what the ``run_match`` task calls:
four built-in ``random`` bots (the reference of bench.worker_throughput), then four trivial
uploaded bots (bench.bots.TRIVIAL_BOT, four versions). Per match, printed for each:

- **wall**, split by the match's own ``PlayStats``: the decisions (each asked of its seat
  and applied: the runner, the bot, the rules), the finish (the last events, the result,
  the standings, the notices, in one transaction), and the rest (the claim, the replay,
  the seats' start and close, the batches of events stored during play);
- **CPU**: this process's and the other processes' of its tree (the bots, their fork
  servers; bench.process_tree_cpu), measured over as many matches again (the meter's
  thread runs on the same CPU, and would be in the wall time). PostgreSQL's is not: it
  runs on the other CPU while this process waits, which the wall time holds.

Then the floors, measured in the same run: a decision by the trivial bot over plain pipes
against the in-process decision (bench.decision_floor), and a seat's life forked by a
spawner (bench.bots.seat_lives): what a process per seat and a fresh process per match cost
at the least. The last lines put them against the one-process goal of bench.worker_throughput
(0.6 times the reference's matches a minute: a match may take 1/0.6 of the reference's time).
It prints figures; it asserts nothing.
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
import time
from dataclasses import dataclass

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from bench.bots import GAME, seat_lives  # noqa: E402
from bench.decision_floor import in_process, over_a_pipe  # noqa: E402
from bench.process_tree_cpu import ProcessTreeCpu  # noqa: E402
from bench.scratch_database import scratch_database  # noqa: E402
from bench.worker_throughput import competitors, matches_create  # noqa: E402
from bots.runner.affinity import worker_cpu_pin  # noqa: E402
from bots.runner.spawner import spawner_pool_close, spawner_pool_enable  # noqa: E402
from bots.runner.warm import warm_pool_close, warm_pool_enable  # noqa: E402
from engine import load_game  # noqa: E402
from league.services.matches import PlayStats, match_run  # noqa: E402

GOAL = 0.6
"""bench.worker_throughput's one-process goal: matches a minute against the reference's."""
SPAWNERS = 8
WARM_SANDBOXES = 2


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


@dataclass(frozen=True)
class MatchTime:
    """Milliseconds a match, on average."""

    wall: float
    decisions: float
    finish: float
    own_cpu: float
    others_cpu: float

    @property
    def rest(self) -> float:
        return self.wall - self.decisions - self.finish

    def row(self, label: str) -> str:
        return (
            f"{label:28} {self.wall:7.1f} {self.decisions:10.1f} {self.finish:7.1f}"
            f" {self.rest:6.1f} {self.own_cpu:9.1f} {self.others_cpu:10.1f}"
        )


HEADER = (
    f"{'ms a match':28} {'wall':>7} {'decisions':>10} {'finish':>7} {'rest':>6}"
    f" {'CPU: own':>9} {'bots etc.':>10}"
)


def played(match_id: int) -> PlayStats:
    stats = match_run(match_id=match_id, worker="match-time")
    if stats.outcome != "finished":
        raise SystemExit(f"match {match_id}: {stats.outcome}")
    return stats


def matches_timed(*, uploaded: bool, count: int) -> MatchTime:
    """``count`` matches played here after three to warm up (the pools, the caches), then
    ``count`` more with their CPU metered (apart: the meter's thread shares the CPU)."""
    seat_ids = competitors(uploaded=uploaded)
    for match_id in matches_create(seat_ids, 3):
        played(match_id)
    ids = matches_create(seat_ids, count)
    began = time.perf_counter()
    decisions = finish = 0.0
    for match_id in ids:
        stats = played(match_id)
        decisions += stats.engine_seconds
        finish += stats.finish_seconds
    wall = time.perf_counter() - began

    ids = matches_create(seat_ids, count)
    meter = ProcessTreeCpu(os.getpid())
    meter.start()
    own = time.process_time()
    for match_id in ids:
        played(match_id)
    own = time.process_time() - own
    spent = meter.stop()
    own -= spent.sampling

    def each(seconds: float) -> float:
        return seconds / count * 1000

    return MatchTime(
        wall=each(wall),
        decisions=each(decisions),
        finish=each(finish),
        own_cpu=each(own),
        others_cpu=each(spent.tree - own),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40, help="matches of each kind")
    parser.add_argument("--games", type=int, default=5, help="games of each floor")
    parser.add_argument("--seat-lives", type=int, default=40, help="tables of the seat floor")
    args = parser.parse_args()
    with scratch_database("match_time_bench"):
        cpu = worker_cpu_pin()
        say(f"# pinned to CPU {cpu} with the bots; load average {os.getloadavg()}")
        warm_pool_enable(WARM_SANDBOXES)
        spawner_pool_enable(SPAWNERS)
        try:
            reference = matches_timed(uploaded=False, count=args.matches)
            spawned = matches_timed(uploaded=True, count=args.matches)
        finally:
            spawner_pool_close()
            warm_pool_close()
    seeds = range(1, args.games + 1)
    games = [in_process(seed) for seed in seeds]
    decisions = sum(count for _, count in games) / len(games)
    alone = sum(cpu for cpu, _ in games) / len(games)
    empty = [over_a_pipe(None) for _ in seeds]  # the bot's start and end alone
    start_runner = statistics.median(runner for runner, _ in empty)
    start_bot = statistics.median(bot for _, bot in empty)
    piped = [over_a_pipe(seed) for seed in seeds]
    pipe = statistics.fmean(r + b for r, b in piped) - start_runner - start_bot
    seat_life, _, _ = seat_lives(args.seat_lives, True, spawned=True)

    say(HEADER)
    say(reference.row("in process (built-in random)"))
    say(spawned.row("spawned trivial bots"))
    extra = spawned.wall - reference.wall
    say(
        f"the spawned match takes {extra:.1f} ms more: decisions"
        f" {spawned.decisions - reference.decisions:+.1f}, finish"
        f" {spawned.finish - reference.finish:+.1f}, the rest {spawned.rest - reference.rest:+.1f};"
        f" {spawned.wall / reference.wall:.2f} x the reference"
        f" ({reference.wall / spawned.wall:.2f} of its matches a minute)"
    )
    floor_decisions = (pipe - alone) * 1000
    floor_seats = seat_life * load_game(GAME).num_seats
    allowed = reference.wall / GOAL - reference.wall
    say(
        f"floors: a process a seat adds {floor_decisions / decisions * 1000:.1f} us a decision"
        f" ({floor_decisions:.1f} ms a match of {decisions:.0f}), its seats' lives forked"
        f" {floor_seats:.1f} ms ({seat_life:.2f} ms each): {floor_decisions + floor_seats:.1f} ms"
    )
    say(
        f"the goal ({GOAL} x the reference's matches a minute) allows {allowed:.1f} ms more"
        f" than the reference: the floors take {floor_decisions + floor_seats:.1f}, leaving"
        f" {allowed - floor_decisions - floor_seats:.1f} for the rest of the spawned match's"
        f" {extra:.1f} ms above the reference, which take"
        f" {extra - floor_decisions - floor_seats:.1f} today"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
