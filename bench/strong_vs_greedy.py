"""Duplicate evaluation of the ``strong`` built-in bot against ``greedy``, per family.

    python bench/strong_vs_greedy.py [--deals 200] [--samples 16] [--workers 2]
                                     [--families kingen,king] [--first-seed 0]
                                     [--pair solver,strong] [--time-budget-ms 1000]

``--pair TESTED,OPPONENT`` evaluates another pair of built-in bots the same way (below,
"strong" stands for the tested bot and "greedy" for its opponent): ``solver,strong``
measures the double-dummy bot against ``strong``. With ``--time-budget-ms`` both search
bots get that clock per move and as many deals as it allows (the same budget for both);
without it they draw ``--samples`` deals each and the figures are reproducible.

Every measured deal is played twice from the same position with the seats swapped:
once with ``strong`` in seats 0 and 2 and ``greedy`` in 1 and 3, once the other way
round (in Priffe, a partnership game, ``strong`` plays one side of the deal and
``greedy`` the other, then the sides swap). The deal's margin is, per run, the mean
score of the strong seats minus the mean score of the greedy seats, averaged over the two
runs; the figure is the mean margin per deal with a 95% t-interval over deals.

Which deal: game seed ``s`` measures deal ``k = 1 + s mod L`` of its game (L = the
game's number of deals; 10 for Priffe, whose games are open-ended), so every contract of
the game's schedule is measured equally often. Deals 1..k-1 are played by four
``greedy`` players, so both runs reach deal k in the same state (with the same cards,
since the deal comes from the game's seed); from deal k's first action on, the tested
seating plays it, bidding included (``strong`` bids with the greedy policy, so the
bidding is the same in both runs and the runs differ only in the card play).

A deal's score is the engine's score of that deal for each seat; in Priffe it is what
the deal is worth in settlement points, (own side's points - other side's points) / 10
per player, or the misère points (the value the search bot itself maximises).

The strong bot runs with a fixed sample count and no clock, so the figures are
reproducible. It prints figures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.builtin.solver import SolverPlayer
from bots.builtin.strong import StrongPlayer
from engine import FAMILIES, load_game
from engine.players import GREEDY_POLICIES, GreedyPlayer, Player

FAMILY_ORDER = ("kingen", "dubbelkingen", "king", "kung_och_adel", "priffe")
PARTNERSHIP = {"priffe"}
OPEN_ENDED_DEALS = 10


@dataclass(frozen=True, slots=True)
class Task:
    family: str
    seed: int
    samples: int
    pair: tuple[str, str] = ("strong", "greedy")
    budget_ms: float | None = None


UNCAPPED_SAMPLES = 100_000
"""The sample cap when a clock limits the search instead."""


def make_bot(name: str, seed: int, samples: int, budget_ms: float | None) -> Player:
    cap = samples if budget_ms is None else UNCAPPED_SAMPLES
    if name == "strong":
        return StrongPlayer(seed, time_budget_ms=budget_ms, samples=cap)
    if name == "solver":
        return SolverPlayer(seed, time_budget_ms=budget_ms, samples=cap)
    if name == "greedy":
        return GreedyPlayer(seed)
    raise ValueError(f"unknown bot {name!r} (strong, solver, greedy)")


@dataclass(frozen=True, slots=True)
class Outcome:
    family: str
    seed: int
    deal: int
    margin: float
    """Strong minus greedy (per seat, or per player of a side), mean of the two runs."""
    strong_score: float
    greedy_score: float
    strong_seconds: float
    strong_moves: int


def families() -> list[str]:
    return [f for f in FAMILY_ORDER if f in FAMILIES and f in GREEDY_POLICIES]


def measured_deal(game: Any, seed: int) -> int:
    length = game.deal_count or OPEN_ENDED_DEALS
    return 1 + seed % length


def deal_values(state: Any, family: str, deal: int) -> list[float]:
    """Each seat's score for deal number ``deal`` (already played) of ``state``."""
    if family != "priffe":
        return [float(x) for x in state.deal_scores[deal - 1]]
    rubbers = [*state.rubbers, state.rubber]
    for rubber in rubbers:
        for sheet in rubber.sheets:
            if sheet.deal == deal:
                return _priffe_worth(state, rubber, sheet)
    raise LookupError(f"deal {deal} not found")


def _priffe_worth(state: Any, rubber: Any, sheet: Any) -> list[float]:
    if sheet.misere_made is not None:  # misère: individual points only
        return [float(x) for x in sheet.individual]
    side_of = [0] * 4
    for seat in rubber.partners[1]:
        side_of[seat] = 1
    points = [
        sheet.trick_points[s]
        + sheet.penalty_points[s]
        + sheet.honour_points[s]
        + sheet.bonus_points[s]
        for s in (0, 1)
    ]
    return [(points[side_of[s]] - points[1 - side_of[s]]) / 10 for s in range(4)]


def strong_seats_for(state: Any, family: str, run: int) -> set[int]:
    """Run 0: seats 0 and 2 (in Priffe, side 0 of the deal); run 1: the others."""
    if family in PARTNERSHIP:
        partners = state.view_for(0).public["partners"]
        return set(partners[run])
    return {0, 2} if run == 0 else {1, 3}


def play_run(task: Task, run: int) -> tuple[list[float], set[int], float, int]:
    game = load_game(task.family)
    deal = measured_deal(game, task.seed)
    state = game.new_initial_state(seed=task.seed)
    warmup: list[Player] = [GreedyPlayer(1000 * task.seed + s) for s in range(4)]
    while not state.is_terminal() and len(state.deal_scores) < deal - 1:
        seat = state.acting_seat()
        state.apply_action(warmup[seat].choose(state.view_for(seat)), seat=seat)
    if state.is_terminal():
        raise RuntimeError(f"{task.family} seed {task.seed}: the game ended before deal {deal}")
    strong_seats = strong_seats_for(state, task.family, run)
    tested, opponent = task.pair
    players: list[Player] = [
        make_bot(
            tested if s in strong_seats else opponent,
            1000 * task.seed + s,
            task.samples,
            task.budget_ms,
        )
        for s in range(4)
    ]
    thinking = 0.0
    moves = 0
    while len(state.deal_scores) < deal:
        seat = state.acting_seat()
        view = state.view_for(seat)
        started = time.perf_counter()
        action = players[seat].choose(view)
        if seat in strong_seats:
            thinking += time.perf_counter() - started
            moves += 1
        state.apply_action(action, seat=seat)
    return deal_values(state, task.family, deal), strong_seats, thinking, moves


def play_pair(task: Task) -> Outcome:
    margins = []
    strong_total = greedy_total = 0.0
    seconds = 0.0
    moves = 0
    deal = measured_deal(load_game(task.family), task.seed)
    for run in (0, 1):
        values, strong_seats, thinking, count = play_run(task, run)
        strong = statistics.fmean(values[s] for s in strong_seats)
        greedy = statistics.fmean(values[s] for s in range(4) if s not in strong_seats)
        margins.append(strong - greedy)
        strong_total += strong
        greedy_total += greedy
        seconds += thinking
        moves += count
    return Outcome(
        task.family,
        task.seed,
        deal,
        statistics.fmean(margins),
        strong_total / 2,
        greedy_total / 2,
        seconds,
        moves,
    )


def t_quantile_975(df: int) -> float:
    """The 0.975 quantile of Student's t (Cornish-Fisher expansion; exact to ~1e-4 for
    df >= 10, which a 200-deal evaluation always has)."""
    z = 1.959963984540054
    v = float(df)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
    )


def summarise(outcomes: Sequence[Outcome]) -> dict[str, float]:
    margins = [o.margin for o in outcomes]
    n = len(margins)
    mean = statistics.fmean(margins)
    sd = statistics.stdev(margins) if n > 1 else 0.0
    half = t_quantile_975(n - 1) * sd / math.sqrt(n) if n > 1 else math.inf
    moves = sum(o.strong_moves for o in outcomes)
    return {
        "deals": n,
        "mean": mean,
        "low": mean - half,
        "high": mean + half,
        "sd": sd,
        "strong": statistics.fmean(o.strong_score for o in outcomes),
        "greedy": statistics.fmean(o.greedy_score for o in outcomes),
        "ms_per_move": 1000 * sum(o.strong_seconds for o in outcomes) / max(moves, 1),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200, help="deals per family")
    parser.add_argument("--samples", type=int, default=16, help="strong's deals per move")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--families", default="", help="comma-separated (default: all)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--pair", default="strong,greedy", help="TESTED,OPPONENT bots")
    parser.add_argument("--time-budget-ms", type=float, default=None)
    args = parser.parse_args(argv)
    chosen = [f for f in args.families.split(",") if f] or families()
    tested, _, opponent = args.pair.partition(",")
    pair = (tested, opponent)
    out = sys.stdout
    limit = (
        f"{args.time_budget_ms:g} ms a move"
        if args.time_budget_ms is not None
        else f"samples={args.samples}, no clock"
    )
    out.write(
        f"{tested} vs {opponent} ({limit}), duplicate, "
        f"{args.deals} deals per family, {args.workers} worker(s)\n"
    )
    out.write(
        f"{'family':<14} {'deals':>5} {'margin':>9} {'95% CI':>22} {'sd':>8} "
        f"{tested[:9]:>9} {opponent[:9]:>9} {'ms/move':>8} {'time':>8}\n"
    )
    out.flush()
    seeds = range(args.first_seed, args.first_seed + args.deals)
    with multiprocessing.Pool(args.workers) as pool:
        for family in chosen:
            started = time.perf_counter()
            tasks = [Task(family, seed, args.samples, pair, args.time_budget_ms) for seed in seeds]
            outcomes = pool.map(play_pair, tasks, chunksize=1)
            elapsed = time.perf_counter() - started
            s = summarise(outcomes)
            interval = f"[{s['low']:+.3f}, {s['high']:+.3f}]"
            out.write(
                f"{family:<14} {s['deals']:>5} {s['mean']:>+9.3f} {interval:>22} "
                f"{s['sd']:>8.3f} {s['strong']:>+9.3f} {s['greedy']:>+9.3f} "
                f"{s['ms_per_move']:>8.1f} {elapsed:>7.0f}s\n"
            )
            out.flush()


if __name__ == "__main__":
    main()
