"""Does the ladder find the truth fast? Ten bots of known, graded strength on one ladder.

    python -m bench.ladder_truth [--game kingen] [--games-per-bot 100] [--every 10]
                                 [--workers 2] [--runs 5] [--seed 1] [--rating-tau T]

The bots, strongest first (their true order): ``strong`` with 4, 2 and 1 samples (no
clock, so reproducible), ``greedy``, then greedy that plays a random legal action with
probability 0.1, 0.2, 0.35, 0.5 and 0.75, and ``random``. Two ladders are run in the same
process on the same stream of game seeds:

- **matchmaker**: the ladder's own, ``league.domain.ladder_matchmaking.plan_tables``, with
  its history of meetings and seats, planning ``--workers`` tables at a time (as the
  ladder plans several queued tables per pass) from the ratings so far;
- **random tables**: four bots drawn at random for every table, in random seats.

Each match is played in process with the engine directly (no database, no worker, no
sandbox), in ``--workers`` processes, and rated with the league's own openskill update
(league.domain.ratings_book's model: Plackett-Luce, ranked by score). Every ``--every``
games per bot the leaderboard (ranked by mu - 3 sigma, as the pages rank) is compared with
the true order by Kendall's tau, and so is the order by mu alone (does the leaderboard's
conservative value cost places?); the curve is the mean (and the lowest) over ``--runs``
runs of different seeds. It prints each run's final orders with each bot's games, and the
curves; it asserts nothing
(docs/benchmarks.md, *The ladder finds the truth*).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scipy.stats import kendalltau

from bots.builtin.strong import StrongPlayer
from engine import load_game
from engine.game import PlayerView
from engine.players import GreedyPlayer, Player, RandomPlayer
from league.domain import ladder_matchmaking
from league.domain.ladder_matchmaking import (
    Candidate,
    LadderShape,
    PlannedTable,
    plan_tables,
    turned,
)
from league.domain.ladder_results import tables_history
from league.domain.ratings_book import BETA, KAPPA, TAU, conservative
from league.domain.ratings_maths import DEFAULT_MU, DEFAULT_SIGMA, plackett_luce_update

BOTS: tuple[str, ...] = (
    "strong-4",
    "strong-2",
    "strong-1",
    "greedy",
    "noisy-0.1",
    "noisy-0.2",
    "noisy-0.35",
    "noisy-0.5",
    "noisy-0.75",
    "random",
)
"""The true order, strongest first."""


class NoisyGreedy:
    """Greedy, but a random legal action with probability ``noise``."""

    def __init__(self, seed: int, noise: float) -> None:
        self.greedy = GreedyPlayer(seed)
        self.random = RandomPlayer(seed + 1)
        self.rng = random.Random(seed + 2)
        self.noise = noise

    def choose(self, view: PlayerView) -> int:
        player = self.random if self.rng.random() < self.noise else self.greedy
        return player.choose(view)


def make(name: str, seed: int) -> Player | NoisyGreedy:
    if name.startswith("strong-"):
        return StrongPlayer(seed, time_budget_ms=None, samples=int(name.split("-")[1]))
    if name.startswith("noisy-"):
        return NoisyGreedy(seed, float(name.split("-")[1]))
    return GreedyPlayer(seed) if name == "greedy" else RandomPlayer(seed)


def play(job: tuple[str, tuple[int, ...], int]) -> list[int]:
    """One match of ``game`` with the bots ``seats`` (indices into BOTS), seed ``seed``."""
    game_text, seats, seed = job
    state = load_game(game_text).new_initial_state(seed=seed)
    players = [make(BOTS[bot], seed * 16 + seat) for seat, bot in enumerate(seats)]
    while not state.is_terminal():
        seat = state.acting_seat()
        state.apply_action(players[seat].choose(state.view_for(seat)))
    return list(state.scores())


@dataclass
class Ladder:
    method: str
    rng: random.Random
    ratings: list[tuple[float, float]]
    games: list[int]
    tables: list[dict[int, int]]
    rating_tau: float
    """The sigma added per game (openskill's tau): the league's, unless ``--rating-tau``."""

    @classmethod
    def new(cls, method: str, seed: int, rating_tau: float) -> Ladder:
        n = len(BOTS)
        start = [(DEFAULT_MU, DEFAULT_SIGMA)] * n
        return cls(method, random.Random(seed), start, [0] * n, [], rating_tau)

    def plan(self, shape: LadderShape, count: int) -> list[PlannedTable]:
        """At most ``count`` tables; a duplicate pair's two share a ``deal_group``."""
        if self.method == "random":
            tables = []
            for group in range(count // 2 if shape.duplicate else count):
                seats = tuple(self.rng.sample(range(len(BOTS)), shape.seats))
                tables.append(PlannedTable(seats, group, seats[0]))
                if shape.duplicate:
                    tables.append(PlannedTable(turned(seats, shape), group, seats[0]))
            return tables
        candidates = [
            Candidate(i, mu, sigma, self.games[i]) for i, (mu, sigma) in enumerate(self.ratings)
        ]
        return plan_tables(
            candidates,
            shape,
            room=count,
            history=tables_history(self.tables[-400:], partnership=shape.partnership),
            seed=self.rng.randrange(2**31),
        )

    def rate(self, seats: Sequence[int], scores: Sequence[int]) -> None:
        updated = plackett_luce_update(
            [[self.ratings[bot]] for bot in seats],
            [float(s) for s in scores],
            beta=BETA,
            tau=self.rating_tau,
            kappa=KAPPA,
        )
        for bot, (new,) in zip(seats, updated, strict=True):
            self.ratings[bot] = new
            self.games[bot] += 1
        self.tables.append(dict(enumerate(seats)))

    def board(self, by: str = "shown") -> list[int]:
        """The bots, first place first: by mu - 3 sigma (``shown``, as the pages rank) or by
        mu alone (``mu``)."""
        if by == "mu":
            return sorted(range(len(BOTS)), key=lambda i: -self.ratings[i][0])
        return sorted(range(len(BOTS)), key=lambda i: -conservative(*self.ratings[i]))

    def tau(self, by: str = "shown") -> float:
        board = self.board(by)
        rank_of = {bot: place for place, bot in enumerate(board)}
        statistic = kendalltau(list(range(len(BOTS))), [rank_of[i] for i in range(len(BOTS))])
        return float(statistic.statistic)


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def run(
    pool: Any,
    game: str,
    shape: LadderShape,
    *,
    seed: int,
    games_per_bot: int,
    every: int,
    rating_tau: float = TAU,
) -> tuple[dict[int, tuple[float, float, float, float]], list[Ladder]]:
    """One run of both ladders on one stream of game seeds: tau per checkpoint, of the order
    shown (matchmaker, random tables), then of the order by mu (matchmaker, random)."""
    seeds = random.Random(seed)
    ladders = [Ladder.new(method, seed, rating_tau) for method in ("matchmaker", "random")]
    curve: dict[int, tuple[float, float, float, float]] = {}
    checkpoint = every
    while True:
        done = min(sum(ladder.games) / len(BOTS) for ladder in ladders)
        if done >= checkpoint:
            curve[checkpoint] = (
                ladders[0].tau(),
                ladders[1].tau(),
                ladders[0].tau("mu"),
                ladders[1].tau("mu"),
            )
            checkpoint += every
        if done >= games_per_bot:
            return curve, ladders
        batch = [seeds.randrange(2**62) for _ in range(shape.concurrent_limit)]
        for ladder in ladders:
            if sum(ladder.games) / len(BOTS) >= games_per_bot:
                continue
            tables = ladder.plan(shape, len(batch))
            seed_of: dict[int, int] = {}  # a duplicate pair's tables: one seed
            for table in tables:
                seed_of.setdefault(table.deal_group, batch[len(seed_of)])
            jobs = [(game, table.seats, seed_of[table.deal_group]) for table in tables]
            for table, scores in zip(tables, pool.map(play, jobs), strict=True):
                ladder.rate(table.seats, scores)


def order_check(pool: Any, game: str, shape: LadderShape, *, pairs: int, seed: int) -> None:
    """Is the true order true? Each two neighbours of BOTS, head to head: ``pairs``
    duplicate pairs of tables (two seats each, alternating; the second table turned by one
    seat, so each bot holds the other's cards), the stronger's mean lead per seat and game
    with its 95 % interval."""
    seeds = random.Random(seed)
    out("\n| stronger | weaker | games | lead per seat and game | 95 % interval |")
    out("|---|---|---:|---:|---|")
    for stronger in range(len(BOTS) - 1):
        weaker = stronger + 1
        seats = tuple(stronger if seat % 2 == 0 else weaker for seat in range(shape.seats))
        other = seats[1:] + seats[:1]
        jobs = []
        for _ in range(pairs):
            s = seeds.randrange(2**62)
            jobs += [(game, seats, s), (game, other, s)]
        leads = []
        for index in range(0, len(jobs), 2):
            lead = 0.0
            for (_, table, _), scores in zip(
                jobs[index : index + 2], pool.map(play, jobs[index : index + 2]), strict=True
            ):
                for bot, score in zip(table, scores, strict=True):
                    lead += score if bot == stronger else -score
            leads.append(lead / (2 * shape.seats))
        mean = statistics.fmean(leads)
        half = 1.96 * statistics.stdev(leads) / len(leads) ** 0.5
        out(
            f"| {BOTS[stronger]} | {BOTS[weaker]} | {2 * pairs} | {mean:+.3f} "
            f"| [{mean - half:+.3f}, {mean + half:+.3f}] |"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kingen")
    parser.add_argument("--games-per-bot", type=int, default=100)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5, help="runs (seeds) averaged")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--meeting-penalty",
        type=float,
        default=ladder_matchmaking.MEETING_PENALTY,
        help="try another push away from opponents met before (the matchmaker's constant)",
    )
    parser.add_argument(
        "--focus",
        choices=("doubt", "sigma"),
        default="doubt" if ladder_matchmaking.FOCUS_ON_PLACE_DOUBT else "sigma",
        help="the matchmaker's focus once placed: most doubt about its place, or widest sigma",
    )
    parser.add_argument(
        "--rating-tau",
        type=float,
        default=TAU,
        help="try another rating dynamics (the sigma added per game; the league's by default)",
    )
    parser.add_argument(
        "--no-duplicate",
        action="store_true",
        help="every table its own seed even where the game's deals are fixed by the seed",
    )
    parser.add_argument(
        "--order-check",
        type=int,
        default=0,
        metavar="PAIRS",
        help="only check the true order: each two neighbours head to head, PAIRS duplicate pairs",
    )
    args = parser.parse_args(argv)
    ladder_matchmaking.MEETING_PENALTY = args.meeting_penalty
    ladder_matchmaking.FOCUS_ON_PLACE_DOUBT = args.focus == "doubt"
    loaded = load_game(args.game)
    duplicate = loaded.deals_fixed_by_seed and not args.no_duplicate
    shape = LadderShape(
        seats=len(loaded.player_seats),
        partnership=loaded.partnership_play,
        duplicate=duplicate,  # the ladder's own choice; random tables are paired alike
        concurrent_limit=2 * args.workers if duplicate else args.workers,
        placement_games=10,
    )
    out(
        f"# {loaded}: ten bots, {args.games_per_bot} games per bot, {args.runs} runs "
        f"(seeds {args.seed}..{args.seed + args.runs - 1}), {args.workers} workers, "
        f"meeting penalty {args.meeting_penalty:g}, focus {args.focus}, "
        f"rating tau {args.rating_tau:.4g}, "
        + ("duplicate pairs" if duplicate else "a seed per table")
    )
    began = time.perf_counter()
    curves = []
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        if args.order_check:
            order_check(pool, str(loaded), shape, pairs=args.order_check, seed=args.seed)
            out(f"\n{time.perf_counter() - began:.0f} s")
            return 0
        for r in range(args.runs):
            curve, ladders = run(
                pool,
                str(loaded),
                shape,
                seed=args.seed + r,
                games_per_bot=args.games_per_bot,
                every=args.every,
                rating_tau=args.rating_tau,
            )
            curves.append(curve)
            for ladder in ladders:
                for by in ("shown", "mu"):
                    board = ladder.board(by)
                    out(
                        f"run {r + 1}, {ladder.method}, by {by}: "
                        + ", ".join(f"{BOTS[i]} ({ladder.games[i]})" for i in board)
                    )
    out(
        "\n| games per bot | tau, matchmaker: mean (min) | tau, random tables: mean (min) "
        "| by mu alone: matchmaker | by mu alone: random tables |"
    )
    out("|---:|---:|---:|---:|---:|")
    for checkpoint in sorted(curves[0]):
        cells = []
        for column in range(4):
            taus = [curve[checkpoint][column] for curve in curves]
            cells.append(f"{statistics.fmean(taus):.3f} ({min(taus):.3f})")
        out(f"| {checkpoint} | " + " | ".join(cells) + " |")
    out(f"\n{time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
