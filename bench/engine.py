"""Engine benchmark: complete random-play deals per second through the public API.

    python -m bench.engine            # or: python bench/engine.py
    python -m bench.engine --runs 9 --deals 5000 kingen "kingen(rules=iwwa)"

Every family registered in ``engine.FAMILIES`` is played with its default options (and
``kingen(rules=iwwa)``), with every action checked by ``apply_action``::

    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))

A deal counts as ``len(state.deal_scores)``. Also: ``legal_actions()`` calls per second over
recorded card-play states, and, when ``open_spiel`` is installed (``pip install -e
'.[bench]'``), OpenSpiel's ``hearts(pass_cards=false)`` driven through pyspiel by the same
loop in the same run, with the ratio ours / pyspiel.

Figures are medians of several runs, interleaved (one run of every game, then the next
round) so that load from other processes falls on all of them alike, pinned to one CPU
where the OS allows. Time is this thread's CPU time (``time.thread_time``) unless
``--clock wall``: on a shared machine wall time also counts the other processes that the
scheduler runs on the same CPU. It prints figures; it asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    # Run as a file (python bench/engine.py): this file's folder comes first on sys.path
    # and its name would shadow the ``engine`` package, so put the repository root there.
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import datetime
import gc
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from engine import FAMILIES, load_game

PYSPIEL_GAME = "hearts(pass_cards=false)"

clock: Callable[[], float] = time.thread_time


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def pin_to_one_cpu() -> str:
    """Pin this process to one CPU (the last one it may use); describe what was done."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity on this OS)"
    cpus = sorted(os.sched_getaffinity(0))
    try:
        os.sched_setaffinity(0, {cpus[-1]})
    except OSError as exc:
        return f"not pinned ({exc})"
    return f"pinned to CPU {cpus[-1]} of {len(cpus)} available"


def play_deals(game: Any, deals: int, first_seed: int = 0) -> float:
    """Deals per second of whole seeded games, played until at least ``deals`` deals."""
    done = 0
    seed = first_seed
    gc.collect()
    start = clock()
    while done < deals:
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        done += len(state.deal_scores)
        seed += 1
    return done / (clock() - start)


def play_pyspiel(game: Any, deals: int, first_seed: int = 0) -> float:
    """The same loop on a pyspiel game (one deal per game; its chance nodes included)."""
    rng = random.Random(first_seed)
    gc.collect()
    start = clock()
    for _ in range(deals):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
    return deals / (clock() - start)


def record_play_states(game: Any, count: int, is_play: Callable[[Any], bool]) -> list[Any]:
    """Clones of ``count`` states at a card-play decision, from seeded random play."""
    states: list[Any] = []
    seed = 0
    while len(states) < count:
        rng = random.Random(10_000 + seed)
        state = game.new_initial_state(**({"seed": seed} if hasattr(game, "rules") else {}))
        while not state.is_terminal() and len(states) < count:
            if is_play(state):
                states.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
        seed += 1
    return states


def time_legal_actions(states: Sequence[Any], passes: int = 5) -> float:
    """Calls per second of ``legal_actions()``, a few passes over the recorded states.

    Our states keep the legal mask of the decision once computed (apply_action checks the
    card against it), so before each call the pass puts back the value it had when the
    state was recorded ("not computed"), and the cost of that, measured by the same loop
    without the call, is taken off: every call computes."""
    cached = [s for s in states if hasattr(s, "_legal_cache")]
    unknown = cached[0]._legal_cache if cached else None

    def clear_only() -> None:
        for s in cached:
            s._legal_cache = unknown

    def clear_and_call() -> None:
        for s in cached:
            s._legal_cache = unknown
            s.legal_actions()

    def call() -> None:
        for s in states:
            s.legal_actions()

    gc.collect()
    if not cached:
        call()  # warm up, as for the others: the first pass touches every state
        start = clock()
        for _ in range(passes):
            call()
        return passes * len(states) / (clock() - start)
    clear_and_call()
    start = clock()
    for _ in range(passes):
        clear_only()
    baseline = clock() - start
    start = clock()
    for _ in range(passes):
        clear_and_call()
    return passes * len(cached) / (clock() - start - baseline)


def import_pyspiel() -> Any:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    return pyspiel


def game_strings() -> list[str]:
    """``kingen``, ``kingen(rules=iwwa)``, then every other registered family."""
    names = ["kingen", "kingen(rules=iwwa)"]
    names += [f for f in sorted(FAMILIES) if f != "kingen"]
    return names


def fmt(x: float) -> str:
    return f"{x:,.0f}"


def spread(values: Sequence[float]) -> str:
    return f"({fmt(min(values))}-{fmt(max(values))})"


def main(argv: Sequence[str] | None = None) -> None:
    global clock  # chosen once, before anything is timed
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per figure (median)")
    parser.add_argument("--deals", type=int, default=3000, help="deals per run per game")
    parser.add_argument("--pyspiel-deals", type=int, default=1000, help="pyspiel deals per run")
    parser.add_argument("--states", type=int, default=5000, help="states for legal_actions")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--no-pyspiel", action="store_true", help="skip OpenSpiel")
    parser.add_argument("--no-pin", action="store_true", help="do not pin to one CPU")
    parser.add_argument("games", nargs="*", help="game strings (default: every family)")
    args = parser.parse_args(argv)
    clock = time.thread_time if args.clock == "cpu" else time.perf_counter

    pinned = "not pinned (--no-pin)" if args.no_pin else pin_to_one_cpu()
    out(
        f"Python {platform.python_version()} ({platform.python_implementation()}, "
        f"{' '.join(platform.python_build())}, {platform.python_compiler()})"
    )
    out(f"Machine: {machine_description()}; {pinned}")
    out(
        f"Date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; "
        f"medians of {args.runs} interleaved runs; "
        f"{'CPU time of this thread' if args.clock == 'cpu' else 'wall time'}"
    )

    games: dict[str, Any] = {}
    for text in args.games or game_strings():
        try:
            games[text] = load_game(text)
        except Exception as exc:  # a family in progress must not stop the benchmark
            out(f"  {text}: cannot load ({type(exc).__name__}: {exc})")
    pyspiel = None if args.no_pyspiel else import_pyspiel()
    spiel_game = pyspiel.load_game(PYSPIEL_GAME) if pyspiel else None
    if not args.no_pyspiel and pyspiel is None:
        out("  pyspiel: open_spiel is not installed (pip install -e '.[bench]'); skipped")

    # A warm-up for each (imports, tables, caches), then the timed runs, interleaved.
    for text, game in list(games.items()):
        try:
            play_deals(game, 20, first_seed=1_000_000)
        except Exception as exc:
            out(f"  {text}: random play failed ({type(exc).__name__}: {exc})")
            del games[text]
    if spiel_game is not None:
        play_pyspiel(spiel_game, 50)
    rates: dict[str, list[float]] = {text: [] for text in games}
    spiel_rates: list[float] = []
    for _ in range(args.runs):
        for text, game in games.items():
            rates[text].append(play_deals(game, args.deals))
        if spiel_game is not None:
            spiel_rates.append(play_pyspiel(spiel_game, args.pyspiel_deals))

    out()
    out(
        f"Complete random-play deals per second (public API, every action checked; "
        f"{args.deals:,} deals a run):"
    )
    base = statistics.median(rates["kingen"]) if rates.get("kingen") else None
    for text, values in rates.items():
        med = statistics.median(values)
        ratio = f"  {med / base:4.2f}x kingen" if base else ""
        out(f"  {text:<34} {fmt(med):>7}  {spread(values):<15} {1e6 / med:6.1f} us/deal{ratio}")
    if spiel_rates:
        spiel = statistics.median(spiel_rates)
        name = f"pyspiel {PYSPIEL_GAME}"
        out(f"  {name:<34} {fmt(spiel):>7}  {spread(spiel_rates):<15} {1e6 / spiel:6.1f} us/deal")
        for text in ("kingen", "kingen(rules=iwwa)"):
            if text in rates:
                paired = statistics.median(
                    a / b for a, b in zip(rates[text], spiel_rates, strict=True)
                )
                out(
                    f"  ratio {text} / pyspiel: {statistics.median(rates[text]) / spiel:.2f}"
                    f" (median of the per-round ratios: {paired:.2f})"
                )

    out()
    out(f"legal_actions() calls per second ({args.states:,} recorded card-play states):")
    for text in ("kingen", "kingen(rules=iwwa)"):
        if text in games:
            states = record_play_states(games[text], args.states, lambda s: s.phase == "play")
            calls = [time_legal_actions(states) for _ in range(args.runs)]
            med = statistics.median(calls)
            out(f"  {text:<34} {fmt(med):>10}  {1e9 / med:5.0f} ns/call")
    if spiel_game is not None:
        states = record_play_states(
            spiel_game, args.states, lambda s: not s.is_chance_node() and s.current_player() >= 0
        )
        calls = [time_legal_actions(states) for _ in range(args.runs)]
        med = statistics.median(calls)
        out(f"  {'pyspiel ' + PYSPIEL_GAME:<34} {fmt(med):>10}  {1e9 / med:5.0f} ns/call")


def machine_description() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"


if __name__ == "__main__":
    main()
