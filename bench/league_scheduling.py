"""Scheduling, standings and ratings benchmark (the pure functions; no database).

    python -m bench.league_scheduling              # or: python bench/league_scheduling.py
    python -m bench.league_scheduling --matches 10000 --runs 5

Printed (medians of ``--runs`` runs):

- **scheduling a 40-player rotating-partner season**: ``rotating_partners`` on 40 players
  (the whist design Wh(40), 39 rounds, seats balanced), and for comparison a 38-player
  season (no design exists: the local search, 37 rounds with two byes a round) and a club
  evening (20 players, 6 rounds, local search);
- **incremental standings update per match**: ``StandingsAccumulator.apply`` on each of
  ``--matches`` random results (mean, p50, p99), and ``apply`` followed by ``table()`` (what
  a service does to show the new table) on a 40-player league;
- **full recomputation for ``--matches`` matches**: ``compute_standings`` (individual and
  Priffe), the ridge margin rating and the openskill ratings, and all three together.

Targets (issue 9): recomputation under one second for 10,000 matches; incremental update
under 10 ms per match. It prints figures; it asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import gc
import platform
import random
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial

from league.domain.ratings_maths import margin_ratings, skill_ratings
from league.domain.scheduling import Fill, Mode, PlayerId, plan_rounds, rotating_partners
from league.domain.standings_maths import (
    ScoredMatch,
    StandingsAccumulator,
    StandingsRules,
    compute_standings,
)


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def median_seconds(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def random_league(count: int, *, mode: Mode, seed: int, players: int = 40) -> list[ScoredMatch]:
    """``count`` matches among ``players`` entrants, results drawn from skill plus luck."""
    rng = random.Random(seed)
    entrants = [PlayerId(i) for i in range(1, players + 1)]
    skill = {p: rng.gauss(0, 1) for p in entrants}
    results = []
    for i in range(count):
        seats = rng.sample(entrants, 4)
        scores: tuple[int, ...]
        if mode is Mode.PARTNERSHIP:
            a, b, c, d = (skill[p] for p in seats)
            settlement = round(2 * (a + c - b - d) + rng.gauss(0, 8))
            scores = (settlement, -settlement, settlement, -settlement)
        else:
            scores = tuple(round(10 * skill[p] + rng.gauss(0, 40)) for p in seats)
        results.append(
            ScoredMatch(match_id=i, round_number=i // 10, seats=tuple(seats), scores=scores)
        )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    n, runs = args.matches, args.runs

    out(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    if hasattr(os, "getloadavg"):
        out(f"Load average at start: {os.getloadavg()[0]:.2f}")
    out()

    out("Scheduling a rotating-partner season (Priffe):")
    players40 = [PlayerId(i) for i in range(1, 41)]
    t = median_seconds(lambda: rotating_partners(players40, seed=1), runs)
    out(f"  40 players, whist design Wh(40), 39 rounds:        {t * 1000:8.1f} ms")
    players38 = [PlayerId(i) for i in range(1, 39)]
    t = median_seconds(lambda: rotating_partners(players38, seed=1), max(1, runs // 2))
    out(f"  38 players, local search, 37 rounds, 2 byes/round: {t * 1000:8.1f} ms")
    players20 = [PlayerId(i) for i in range(1, 21)]
    t = median_seconds(
        lambda: plan_rounds(players20, 6, mode=Mode.PARTNERSHIP, fill=Fill.BYES, seed=1), runs
    )
    out(f"  club evening, 20 players, 6 rounds, local search:  {t * 1000:8.1f} ms")
    out()

    solo = random_league(n, mode=Mode.SOLO, seed=1)
    priffe = random_league(n, mode=Mode.PARTNERSHIP, seed=2)

    out(f"Incremental standings update (40 players, {n} matches):")
    for label, results, mode in (
        ("individual", solo, Mode.SOLO),
        ("Priffe", priffe, Mode.PARTNERSHIP),
    ):
        accumulator = StandingsAccumulator(StandingsRules(mode=mode, min_games=10))
        each = []
        for r in results:
            start = time.perf_counter_ns()
            accumulator.apply(r)
            each.append(time.perf_counter_ns() - start)
        each.sort()
        mean = statistics.fmean(each) / 1000
        p50, p99 = each[len(each) // 2] / 1000, each[int(len(each) * 0.99)] / 1000
        out(f"  apply, {label:10s}: mean {mean:6.1f} us, p50 {p50:6.1f} us, p99 {p99:6.1f} us")
        fresh = iter(range(len(results), len(results) + runs))
        template = results[-1]

        def apply_and_show(
            acc: StandingsAccumulator = accumulator,
            template: ScoredMatch = template,
            fresh: Iterator[int] = fresh,
        ) -> None:
            acc.apply(replace(template, match_id=next(fresh)))  # one new match, then the table
            acc.table()

        with_table = median_seconds(apply_and_show, runs)
        out(f"  apply + table(), {label:10s}: {with_table * 1000:6.2f} ms")
    out()

    out(f"Full recomputation, {n} matches (40 players):")
    for label, results, mode in (
        ("individual", solo, Mode.SOLO),
        ("Priffe", priffe, Mode.PARTNERSHIP),
    ):
        rules = StandingsRules(mode=mode, min_games=10)
        standings = median_seconds(partial(compute_standings, results, rules), runs)
        margins = median_seconds(partial(margin_ratings, results, mode=mode, ridge=5.0), runs)
        skills = median_seconds(partial(skill_ratings, results, mode=mode), runs)

        def everything(
            results: list[ScoredMatch] = results, rules: StandingsRules = rules, mode: Mode = mode
        ) -> None:
            compute_standings(results, rules)
            margin_ratings(results, mode=mode, ridge=5.0)
            skill_ratings(results, mode=mode)

        both = median_seconds(everything, runs)
        out(f"  {label}:")
        out(f"    standings (table included):          {standings * 1000:7.1f} ms")
        out(f"    ridge margin rating:                  {margins * 1000:7.1f} ms")
        out(f"    openskill ratings (with history):     {skills * 1000:7.1f} ms")
        out(f"    all three:                            {both * 1000:7.1f} ms")
    if hasattr(os, "getloadavg"):
        out()
        out(f"Load average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
