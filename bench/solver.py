"""Speed of the double-dummy solver (engine/double_dummy.py), per family.

    python bench/solver.py [--positions 20] [--families kingen,king] [--node-limit 0]
                           [--reference-so old/_dds.so]
                           [--python]

Positions come from games of four ``greedy`` players: for each family and each number
of tricks left (13: the whole deal from its first lead; 10, 7 and 4), ``--positions``
positions at the start of a trick, one per game seed. Each is solved (every legal card's
exact value) with a fresh transposition table; the bench prints the median and the 95th
percentile of the time per position, the nodes per second, and how many positions the
node limit cut short (counted at the time they took; ``--node-limit 0``: none). A
reference figure measured in the same run (a pure-Python loop of a fixed number of
steps) gives the ratio to compare runs on other machines. ``--reference-so PATH`` also
solves every position with an older build of the compiled solver (e.g. main's
``engine/_dds.c`` compiled to a file elsewhere) and prints both, their ratio and how many
positions' values differ (it should be none). It prints figures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.machinery
import importlib.util
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import load_game
from engine.double_dummy import (
    Problem,
    SearchLimitError,
    _c_arguments,
    _final,
    clear_table,
    compiled_available,
    last_nodes,
    problem_of,
    solve,
)
from engine.game import TrickTakingState
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
            isinstance(state, TrickTakingState)
            and state.phase == "play"
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


def load_reference(path: str) -> Any:
    """An older build of the compiled solver (a ``_dds`` shared object), to measure
    against in the same run: ``--reference-so``."""
    loader = importlib.machinery.ExtensionFileLoader("_dds", path)
    spec = importlib.util.spec_from_file_location("_dds", path, loader=loader)
    if spec is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def solve_reference(module: Any, problem: Problem, node_limit: int) -> dict[int, int] | None:
    """The reference build's values (None when cut), in the game's points: it predates
    the points' common divisor, so it gets the undivided points."""
    k = problem.scale
    unscaled = dataclasses.replace(
        problem,
        card_points=tuple(v * k for v in problem.card_points),
        trick_points=tuple(v * k for v in problem.trick_points),
        table=tuple(v * k for v in problem.table),
        scale=1,
    )
    if hasattr(module, "clear"):
        module.clear()
    answer = module.solve(_c_arguments(unscaled), node_limit)
    if answer is None:
        return None
    return {c: _final(unscaled, v) for c, v in answer}


@dataclass
class Figures:
    times: list[float] = field(default_factory=list)
    nodes: list[int] = field(default_factory=list)
    cut: int = 0

    def row(self, label: str) -> str:
        t = self.times
        rate = sum(self.nodes) / max(sum(t), 1e-9) / 1000
        return (
            f"{label:<20} {len(t):>3} {statistics.median(t):>10.1f} {percentile(t, 0.95):>10.1f} "
            f"{max(t):>10.1f} {statistics.median(self.nodes) / 1000:>9.0f}k {rate:>9.2f} "
            f"{self.cut:>4}\n"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--families", default="")
    parser.add_argument("--node-limit", type=int, default=0)
    parser.add_argument("--python", action="store_true", help="the pure-Python search")
    parser.add_argument("--tricks", default="13,10,7,4")
    parser.add_argument(
        "--reference-so", default="", help="an older compiled _dds build to compare with"
    )
    args = parser.parse_args(argv)
    chosen = [f for f in args.families.split(",") if f] or list(FAMILIES)
    compiled = False if args.python else None
    reference = load_reference(args.reference_so) if args.reference_so else None
    out = sys.stdout
    kind = "pure Python" if args.python or not compiled_available() else "compiled"
    out.write(f"double-dummy solver ({kind}), {args.positions} positions each\n")
    out.write(f"reference workload: {reference_ms():.0f} ms\n")
    out.write(f"load average: {Path('/proc/loadavg').read_text().split()[:3]}\n")
    out.write(
        f"{'family, tricks left':<20} {'n':>3} {'median ms':>10} {'p95 ms':>10} "
        f"{'max ms':>10} {'med nodes':>10} {'Mnodes/s':>9} {'cut':>4}\n"
    )
    for family in chosen:
        for left in (int(t) for t in args.tricks.split(",")):
            now = Figures()
            before = Figures()
            differ = 0
            seed = 0
            while len(now.times) < args.positions and seed < 20 * args.positions:
                state = position(family, seed, left)
                seed += 1
                if state is None:
                    continue
                values: dict[int, int] | None = None
                clear_table()
                started = time.perf_counter()
                try:
                    values = solve(state, compiled=compiled, node_limit=args.node_limit)
                except SearchLimitError:
                    now.cut += 1
                now.times.append((time.perf_counter() - started) * 1000)
                now.nodes.append(last_nodes[0])
                if reference is not None:
                    started = time.perf_counter()
                    old = solve_reference(reference, problem_of(state), args.node_limit)
                    before.times.append((time.perf_counter() - started) * 1000)
                    before.nodes.append(int(reference.last_nodes()))
                    before.cut += old is None
                    differ += old is not None and values is not None and old != values
            if not now.times:
                continue
            out.write(now.row(f"{family} {left}"))
            if reference is not None:
                out.write(before.row("  reference build"))
                ratio_t = statistics.median(before.times) / max(statistics.median(now.times), 1e-9)
                ratio_n = statistics.median(before.nodes) / max(statistics.median(now.nodes), 1)
                out.write(
                    f"  median ratio reference/now: time {ratio_t:.1f}x, nodes {ratio_n:.1f}x; "
                    f"positions whose values differ: {differ}\n"
                )
            out.flush()


if __name__ == "__main__":
    main()
