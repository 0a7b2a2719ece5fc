"""League benchmark: matches through a worker, the cost of storing events, loading records.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.league
    python -m bench.league --matches 40 --in-process 10

It creates a scratch database of its own (``<name>_league_bench``, dropped at the end),
so it never touches the service's data. Printed:

- **storing events per action**: matches played in this process through the service
  (``league.services.matches.match_run``, what the ``run_match`` task calls), with the time
  spent choosing and applying actions (bots + engine) and the time spent writing events
  (the batched inserts with their lease renewals, and the final transaction with the
  result and its record), per action and as a share of the engine time (target: under
  one fifth);
- **matches per minute through one worker**: a real ``celery -A league worker``
  (concurrency 1) plays queued Kingen matches (10 deals, built-in greedy bots), timed
  from the first task sent to the last result stored;
- **loading a record**: ``GET /api/matches/{id}/record/`` of a finished match (the stored
  record) and the same match rebuilt from its events (how a running match is served).

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
import tempfile
import time
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

GAME = "kingen"
BOT = "greedy"


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def matches_queue(count: int, *, send: bool) -> list[int]:
    """``count`` Kingen matches of four built-in bots, in one round of a fresh tournament."""
    from league.models import Match, Round
    from league.services.clubs import club_create
    from league.services.competitors import competitor_builtin
    from league.services.tournaments import tournament_create, tournament_round_start
    from tests.league.builders import user_create

    stamp = f"{time.time_ns()}"
    organiser = user_create(f"bench-{stamp}")
    club = club_create(user=organiser, name=f"Bench {stamp}")
    bots = [competitor_builtin(name=BOT, bot_name=f"{BOT}-{i}") for i in range(4 * count)]
    tournament = tournament_create(
        actor=organiser, club=club, name="bench", game=GAME, entrants=bots
    )
    if send:
        round_ = tournament_round_start(actor=organiser, tournament=tournament)
    else:
        # Queued without tasks: this process plays them.
        from league.models import MatchSeat
        from league.services.tournaments import seed_draw

        round_ = Round.objects.create(tournament=tournament, number=1)
        for table in range(count):
            match = Match.objects.create(
                tournament=tournament, round=round_, table=table + 1, game=GAME, seed=seed_draw()
            )
            MatchSeat.objects.bulk_create(
                MatchSeat(match=match, seat=s, competitor=bots[4 * table + s]) for s in range(4)
            )
    return list(round_.matches.order_by("id").values_list("id", flat=True))


def bench_in_process(count: int) -> list[int]:
    from league.services.matches import match_run

    ids = matches_queue(count, send=False)
    engine: list[float] = []
    store: list[float] = []
    finish: list[float] = []
    walls: list[float] = []
    events = 0
    for match_id in ids:
        began = time.perf_counter()
        stats = match_run(match_id=match_id, worker="bench")
        walls.append(time.perf_counter() - began)
        assert stats.outcome == "finished", stats
        engine.append(stats.engine_seconds)
        store.append(stats.store_seconds)
        finish.append(stats.finish_seconds)
        events += stats.events
    per_match = events / count
    engine_ms = statistics.median(engine) * 1000
    store_ms = statistics.median(store) * 1000
    say(
        f"in process: {count} matches of {GAME} ({BOT} bots), {per_match:.0f} events each (medians)"
    )
    say(f"  engine (bots + rules) per match   {engine_ms:8.1f} ms")
    say(f"  storing events per match          {store_ms:8.1f} ms")
    say(f"  storing events per action         {store_ms / per_match * 1000:8.1f} us")
    say(f"  storing / engine                  {store_ms / engine_ms:8.2f}   (target < 0.20)")
    say(
        f"  finishing transaction per match   {statistics.median(finish) * 1000:8.1f} ms"
        "   (events, result, record, commit)"
    )
    say(f"  whole run_match per match (wall)  {statistics.median(walls) * 1000:8.1f} ms")
    return ids


def bench_worker(count: int) -> None:
    from league.models import Match, MatchStatus
    from tests.celery_workers import worker_start
    from tests.servers import database_url_for

    environment = dict(os.environ) | {"DATABASE_URL": database_url_for(connection.settings_dict)}
    with tempfile.TemporaryDirectory() as folder:
        worker = worker_start(environment=environment, log_path=Path(folder) / "worker.log")
        try:
            began = time.perf_counter()
            ids = matches_queue(count, send=True)
            while Match.objects.filter(pk__in=ids, status=MatchStatus.FINISHED).count() < count:
                if worker.process.poll() is not None:
                    raise SystemExit(f"the worker died:\n{worker.log()[-3000:]}")
                time.sleep(0.05)
            seconds = time.perf_counter() - began
        finally:
            worker.stop()
    broker = "Redis" if os.environ.get("REDIS_URL") else "the embedded broker"
    say(f"one worker (concurrency 1, {broker}): {count} matches in {seconds:.1f} s")
    say(f"  matches per minute                {count / seconds * 60:8.1f}")


def bench_record_load(match_ids: list[int], repeat: int) -> None:
    from league.selectors import match_get, match_record
    from league.services.matches import match_replay

    finished = []
    rebuilt = []
    for match_id in match_ids[:repeat]:
        began = time.perf_counter()
        match = match_get(match_id=match_id)
        match_record(match=match, viewer_seat=None)
        finished.append(time.perf_counter() - began)
        began = time.perf_counter()
        from engine.record import record_from_state

        replay = match_replay(match)
        record_from_state(replay.state, times=replay.times)
        rebuilt.append(time.perf_counter() - began)
    say("loading a match's record")
    say(f"  finished (stored record)          {statistics.median(finished) * 1000:8.2f} ms")
    say(f"  rebuilt from its events           {statistics.median(rebuilt) * 1000:8.2f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=30, help="matches through the worker")
    parser.add_argument("--in-process", type=int, default=40, help="matches in this process")
    args = parser.parse_args()

    database = settings.DATABASES["default"]
    database.setdefault("TEST", {})["NAME"] = f"{database['NAME']}_league_bench"
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        say(f"database: {connection.vendor}, {connection.settings_dict['NAME']}")
        ids = bench_in_process(args.in_process)
        bench_record_load(ids, repeat=min(10, len(ids)))
        bench_worker(args.matches)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
