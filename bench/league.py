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
- **matches per minute through one worker**: a real ``celery -A config worker``
  (concurrency 1) plays queued Kingen matches (10 deals, built-in greedy bots), timed
  from the first task sent to the last result stored;
- **loading a record**: ``GET /api/matches/{id}/record/`` of a finished match (the stored
  record) and the same match rebuilt from its events (how a running match is served);
- **standings and ratings through the services** (``--standings N``, default 10,000;
  ``--only-standings`` skips the rest): synthetic stored results of 40 entrants (Kingen, and
  Priffe with two rubbers a match); ``standings_apply_result`` per result in a transaction
  of its own (what ``match_finish`` adds), in a fresh league and in one of N results
  (target: under 10 ms); the ratings queue's run per result stored (one result waiting)
  and for the results stored at once; the full recomputations of the N results
  (``standings_recompute``, and ``ratings_recompute`` of the tournament's ratings with their
  history, which writes only the rows that differ; target: under one second together;
  and the tournament's ratings recomputed when every history row differs and when none is
  stored); the table from the stored parts.

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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import connection  # noqa: E402

from bench.scratch_database import scratch_database  # noqa: E402
from tests.celery_workers import worker_start  # noqa: E402

GAME = "kingen"
RECOMPUTE_RUNS = 5
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

    stamp = f"{time.time_ns()}"
    organiser = User.objects.create_user(username=f"bench-{stamp}", password=None)
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


"""How long the worker may take to start (a few seconds normally)."""


def bench_worker(count: int, database_url: str) -> None:
    from league.models import Match, MatchStatus

    environment = dict(os.environ) | {"DATABASE_URL": database_url}
    with tempfile.TemporaryDirectory() as folder:
        log_path = Path(folder) / "worker.log"
        worker = worker_start(environment=environment, log_path=log_path, queues="default,matches")
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
    from league.selectors.matches import match_get, match_record
    from league.selectors.replays import match_replay

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


def _percentiles(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))] * 1000
    mean = statistics.fmean(ordered) * 1000
    return f"mean {mean:6.2f} ms  p50 {p50:6.2f} ms  p99 {p99:6.2f} ms"


def _applied_one_by_one(results: Sequence[Any]) -> tuple[list[float], list[float]]:
    """``standings_apply_result`` for each result in a transaction of its own (as
    ``match_finish`` calls it): the call alone, and the call with its commit."""
    from django.db import transaction

    from league.services.standings import standings_apply_result

    calls = []
    commits = []
    for result in results:
        began = time.perf_counter()
        with transaction.atomic():
            standings_apply_result(match_result=result)
            called = time.perf_counter()
        ended = time.perf_counter()
        calls.append(called - began)
        commits.append(ended - began)
    return calls, commits


def _rated_one_by_one(tournament: Any, *, priffe: bool, count: int) -> list[float]:
    """The ratings queue's run after each of ``count`` results stored one at a time (as
    after each ``match_finish``: one result waiting)."""
    from bench.synthetic import synthetic_results
    from league.services.ratings import ratings_update

    seconds = []
    for index in range(count):
        synthetic_results(
            tournament, count=1, seed=100 + index, priffe=priffe, first_round=30_000 + index
        )
        began = time.perf_counter()
        rated = ratings_update()
        seconds.append(time.perf_counter() - began)
        assert rated == 1, rated
    return seconds


def _rerated_after_damage(tournament: Any) -> list[tuple[str, float, int]]:
    """The tournament's ratings recomputation when its stored history differs: every
    row's numbers (as after a change of the model), and no row at all."""
    from league.models import RatingChange
    from league.services.ratings import ratings_recompute

    timings = []
    history = RatingChange.objects.filter(tournament=tournament)
    for label, damage in (
        ("every history row's numbers differ", lambda: history.update(mu_before=0.0)),
        ("the history is empty", history.delete),
    ):
        damage()
        began = time.perf_counter()
        report = ratings_recompute(tournament_id=tournament.pk)
        timings.append((label, time.perf_counter() - began, report.written))
    return timings


def bench_standings(count: int, sample: int) -> None:
    """Standings and ratings through the services on PostgreSQL: the incremental update
    per stored result in a fresh league and in one of ``count`` results, the ratings
    queue's work per result, and the full recomputations of ``count`` results."""
    from bench.synthetic import synthetic_results
    from league.selectors.standings import standings_current
    from league.services.clubs import club_create
    from league.services.competitors import competitor_builtin
    from league.services.ratings import ratings_recompute, ratings_update
    from league.services.standings import standings_recompute
    from league.services.tournaments import tournament_create

    for game, priffe in (("kingen", False), ("priffe(rubbers_per_game=2)", True)):
        organiser = User.objects.create_user(username=f"bench-{priffe}", password=None)
        club = club_create(user=organiser, name=f"Bench {game}")
        tournament = tournament_create(
            actor=organiser,
            club=club,
            name="bench",
            game=game,
            rounds=10**6,
            entrants=[competitor_builtin(name="random", bot_name=f"random-{i}") for i in range(40)],
        )
        say(f"standings and ratings: {game}, 40 entrants")
        first = synthetic_results(tournament, count=sample, seed=1, priffe=priffe)
        for result in first:
            result.match.tournament = tournament
        calls, commits = _applied_one_by_one(first)
        say(f"  update per result, fresh league     {_percentiles(calls)}")
        say(f"    with a commit of its own          {_percentiles(commits)}")
        synthetic_results(
            tournament, count=count - sample, seed=2, priffe=priffe, first_round=10_000
        )
        began = time.perf_counter()
        standings_recompute(tournament=tournament)
        recompute = time.perf_counter() - began
        began = time.perf_counter()
        rated = ratings_update()
        rating = time.perf_counter() - began
        began = time.perf_counter()
        report = ratings_recompute(tournament_id=tournament.pk)
        rerating = time.perf_counter() - began
        both = []  # the pair again, RECOMPUTE_RUNS times: one run is at the mercy of load
        for _ in range(RECOMPUTE_RUNS):
            began = time.perf_counter()
            standings_recompute(tournament=tournament)
            ratings_recompute(tournament_id=tournament.pk)
            both.append(time.perf_counter() - began)
        began = time.perf_counter()
        everything = ratings_recompute()
        rerating_all = time.perf_counter() - began
        began = time.perf_counter()
        standings_current(tournament=tournament)
        table = time.perf_counter() - began
        more = synthetic_results(
            tournament, count=sample, seed=3, priffe=priffe, first_round=20_000
        )
        for result in more:
            result.match.tournament = tournament
        calls, commits = _applied_one_by_one(more)
        say(f"  update per result, {count} stored  {_percentiles(calls)}   (target < 10 ms)")
        say(f"    with a commit of its own          {_percentiles(commits)}")
        began = time.perf_counter()
        burst = ratings_update()  # the results just stored, in one run of the queue
        burst_seconds = time.perf_counter() - began
        per_rating = _rated_one_by_one(tournament, priffe=priffe, count=sample)
        say(f"  ratings queue per result            {_percentiles(per_rating)}")
        say(f"    {burst} results waiting, one run     {burst_seconds * 1000:8.0f} ms")
        say(f"  standings recomputation, {count}      {recompute * 1000:8.0f} ms")
        say(
            f"  ratings recomputation (tournament), {report.results} "
            f"{rerating * 1000:8.0f} ms   ({report.changes} history rows, "
            f"{report.written} written)"
        )
        say(
            f"  ratings recomputation (every scope), {everything.results} "
            f"{rerating_all * 1000:8.0f} ms   ({everything.changes} history rows, "
            f"{everything.written} written)"
        )
        for label, seconds, written in _rerated_after_damage(tournament):
            say(f"    {label:33s} {seconds * 1000:8.0f} ms   ({written} written)")
        say(f"  standings + ratings recomputation   {(recompute + rerating) * 1000:8.0f} ms")
        say(
            f"    the same, {RECOMPUTE_RUNS} more runs: median "
            f"{statistics.median(both) * 1000:.0f} ms, {min(both) * 1000:.0f}-"
            f"{max(both) * 1000:.0f} ms   (target < 1 s)"
        )
        say(f"  rating {rated} results for the first time {rating * 1000:8.0f} ms")
        say(f"  the table from the stored parts     {table * 1000:8.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=30, help="matches through the worker")
    parser.add_argument("--in-process", type=int, default=40, help="matches in this process")
    parser.add_argument(
        "--standings", type=int, default=10_000, help="stored results for the standings part"
    )
    parser.add_argument(
        "--only-standings", action="store_true", help="only the standings and ratings part"
    )
    args = parser.parse_args()

    with scratch_database("league_bench") as database_url:
        say(f"database: {connection.vendor}, {connection.settings_dict['NAME']}")
        if not args.only_standings:
            ids = bench_in_process(args.in_process)
            bench_record_load(ids, repeat=min(10, len(ids)))
            bench_worker(args.matches, database_url)
        bench_standings(args.standings, sample=200)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
