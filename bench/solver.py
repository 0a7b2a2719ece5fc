"""Speed of the double-dummy solver (engine/double_dummy.py), per family.

    python bench/solver.py [--positions 20] [--families kingen,king] [--node-limit 0]
                           [--python]

Positions come from games of four ``greedy`` players: for each family and each number
of tricks left (13: the whole deal from its first lead; 10, 7 and 4), ``--positions``
positions at the start of a trick, one per game seed. Each is solved (every legal card's
exact value) with a fresh transposition table; the bench prints the median and the 95th
percentile of the time per position, the nodes per second, and how many positions the
node limit cut short (counted at the time they took; ``--node-limit 0``: none). A
reference figure measured in the same run (a pure-Python loop of a fixed number of
steps) gives the ratio to compare runs on other machines. It prints figures; it asserts
nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import load_game
from engine.double_dummy import SearchLimitError, compiled_available, last_nodes, solve
from engine.players import make_player

FAMILIES = ("kingen", "dubbelkingen", "king", "kung_och_adel", "priffe")
TRICKS_LEFT = (13, 10, 7, 4)


def position(family: str, seed: int, tricks_left: int) -> Any:
    """A trick's start with ``tricks_left`` tricks to play, in the game of ``seed``
    (its first deal that gets there), or None."""
    game = load_game(family)
    state = game.new_initial_state(seed=seed)
    players = [make_player("greedy", seed * 11 + s) for s in range(game.num_seats)]
    deals = 0
    while not state.is_terminal() and deals < 3:
        if (
            state.phase == "play"
            and state.current_seat >= 0
            and not state.trick
            and state.tricks_per_deal - len(state.completed) == tricks_left
        ):
            copy = state.clone()
            copy.rng = None
            copy.stop_after_deal = True
            return copy
        before = len(state.deal_scores)
        seat = state.acting_seat()
        state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)
        deals += len(state.deal_scores) - before
    return None


def reference_ms() -> float:
    """A fixed pure-Python workload, for the ratio between machines."""
    started = time.perf_counter()
    total = 0
    for i in range(2_000_000):
        total += i & 7
    return (time.perf_counter() - started) * 1000


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--families", default="")
    parser.add_argument("--node-limit", type=int, default=0)
    parser.add_argument("--python", action="store_true", help="the pure-Python search")
    parser.add_argument("--tricks", default="13,10,7,4")
    args = parser.parse_args(argv)
    chosen = [f for f in args.families.split(",") if f] or list(FAMILIES)
    compiled = False if args.python else None
    out = sys.stdout
    kind = "pure Python" if args.python or not compiled_available() else "compiled"
    out.write(f"double-dummy solver ({kind}), {args.positions} positions each\n")
    out.write(f"reference workload: {reference_ms():.0f} ms\n")
    out.write(
        f"{'family':<14} {'left':>4} {'n':>3} {'median ms':>10} {'p95 ms':>10} "
        f"{'max ms':>10} {'Mnodes/s':>9} {'cut':>4}\n"
    )
    for family in chosen:
        for left in (int(t) for t in args.tricks.split(",")):
            times: list[float] = []
            nodes = 0
            cut = 0
            seed = 0
            while len(times) < args.positions and seed < 20 * args.positions:
                state = position(family, seed, left)
                seed += 1
                if state is None:
                    continue
                started = time.perf_counter()
                try:
                    solve(state, compiled=compiled, node_limit=args.node_limit)
                except SearchLimitError:
                    cut += 1
                times.append((time.perf_counter() - started) * 1000)
                nodes += last_nodes[0]
            if not times:
                continue
            rate = nodes / max(sum(times), 1e-9) / 1000
            out.write(
                f"{family:<14} {left:>4} {len(times):>3} {statistics.median(times):>10.1f} "
                f"{percentile(times, 0.95):>10.1f} {max(times):>10.1f} {rate:>9.2f} {cut:>4}\n"
            )
            out.flush()


if __name__ == "__main__":
    main()
