"""Cost of a match's analysis (engine/analysis.py), per family.

    python bench/analysis.py [--games 2] [--samples 8] [--node-limit 1000000]
                             [--families kingen,king]

Each game is a whole game of four ``greedy`` players (Kung och Adel: 4 deals, Priffe: one
rubber), analysed with the given budget as the league's `analysis` worker would. The bench
prints per family the seconds per game and per card, the share of cards analysed and the
reasons of the others, the marks, and the ratio of the analysis's time to a reference
measured in the same run (bench/solver.py's fixed pure-Python loop). It prints figures; it
asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import load_game
from engine.analysis import AnalysisSettings, analyse_record
from engine.players import make_player
from engine.record import record_from_state


def reference_ms() -> float:
    """A fixed pure-Python workload (bench/solver.py's), for the ratio between machines."""
    started = time.perf_counter()
    total = 0
    for i in range(2_000_000):
        total += i & 7
    return (time.perf_counter() - started) * 1000


GAMES = {
    "kingen": "kingen",
    "dubbelkingen": "dubbelkingen",
    "king": "king",
    "kung_och_adel": "kung_och_adel(deals=4)",
    "priffe": "priffe(rubbers_per_game=1)",
}


def played_record(game_string: str, seed: int) -> dict[str, object]:
    game = load_game(game_string)
    state = game.new_initial_state(seed=seed)
    players = [make_player("greedy", seed * 11 + s) for s in range(game.num_seats)]
    while not state.is_terminal():
        seat = state.acting_seat()
        state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)
    return record_from_state(state)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--node-limit", type=int, default=1_000_000)
    parser.add_argument("--families", default=",".join(GAMES))
    args = parser.parse_args()
    reference = reference_ms()
    out = sys.stdout
    out.write(f"reference workload: {reference:.0f} ms\n")
    with open("/proc/loadavg", encoding="ascii") as load:
        out.write(f"load average: {load.read().split()[0]}\n")
    settings = AnalysisSettings(samples=args.samples, node_limit=args.node_limit)
    for family in args.families.split(","):
        seconds = 0.0
        cards = 0
        analysed = 0
        reasons: Counter[str] = Counter()
        marks: Counter[str] = Counter()
        for seed in range(1, args.games + 1):
            record = played_record(GAMES[family], seed)
            began = time.perf_counter()
            analysis = analyse_record(record, settings)
            seconds += time.perf_counter() - began
            for card in analysis["cards"]:
                cards += 1
                analysed += card["analysed"]
                if not card["analysed"]:
                    reasons[card["reason"]] += 1
                if card["mark"]:
                    marks[card["mark"]] += 1
        per_game = seconds / args.games
        out.write(
            f"{family:14} {per_game:7.1f} s/game ({per_game * 1000 / reference:6.0f}x ref)"
            f"  {1000 * seconds / max(cards, 1):6.1f} ms/card  analysed {analysed}/{cards}"
            f" ({100 * analysed / max(cards, 1):.0f}%)  marks {dict(marks)}\n"
        )
        for reason, count in reasons.most_common():
            out.write(f"{'':14} not analysed: {count:5} {reason}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
