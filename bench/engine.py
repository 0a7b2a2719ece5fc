"""Engine benchmark: complete random-play deals per second through the public API.

    python -m bench.engine            # or: python bench/engine.py
    python -m bench.engine --runs 9 --deals 5000

Every family registered in ``engine.FAMILIES`` is played with its default options (and
``kingen(rules=iwwa)``), with every action checked by ``apply_action``::

    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))

A deal counts as ``len(state.deal_scores)``. Also: ``legal_actions()`` calls per second over
recorded play-phase states, and, when ``open_spiel`` is installed (``pip install -e
.[bench]``), OpenSpiel's ``hearts(pass_cards=false)`` driven through pyspiel by the same
loop in the same run, with the ratio ours / pyspiel. Figures are medians of several runs,
pinned to one CPU where the OS allows. It prints figures; it asserts nothing.
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


def play_deals(game: Any, deals: int, first_seed: int = 0) -> tuple[int, float]:
    """Play whole seeded games until at least ``deals`` deals; (deals, seconds)."""
    done = 0
    seed = first_seed
    gc.collect()
    start = time.perf_counter()
    while done < deals:
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        done += len(state.deal_scores)
        seed += 1
    return done, time.perf_counter() - start


def play_pyspiel(game: Any, deals: int, first_seed: int = 0) -> tuple[int, float]:
    """The same loop on a pyspiel game (one deal per game; chance nodes included)."""
    rng = random.Random(first_seed)
    gc.collect()
    start = time.perf_counter()
    for _ in range(deals):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
    return deals, time.perf_counter() - start


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


def time_legal_actions(states: Sequence[Any], batch: int = 500) -> float:
    """Calls per second of ``legal_actions()``, once on each fresh clone (nothing cached).

    Clones are made a batch at a time just before they are timed, so that they are in the
    CPU cache, as the state of a game being played is."""
    seconds = 0.0
    gc.collect()
    for i in range(0, len(states), batch):
        fresh = [s.clone() for s in states[i : i + batch]]
        start = time.perf_counter()
        for s in fresh:
            s.legal_actions()
        seconds += time.perf_counter() - start
    return len(states) / seconds


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


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per figure (median)")
    parser.add_argument("--deals", type=int, default=3000, help="deals per run per game")
    parser.add_argument("--pyspiel-deals", type=int, default=1000, help="pyspiel deals per run")
    parser.add_argument("--states", type=int, default=20000, help="states for legal_actions")
    parser.add_argument("--no-pyspiel", action="store_true", help="skip OpenSpiel")
    parser.add_argument("--no-pin", action="store_true", help="do not pin to one CPU")
    parser.add_argument("games", nargs="*", help="game strings (default: every family)")
    args = parser.parse_args(argv)

    pinned = "not pinned (--no-pin)" if args.no_pin else pin_to_one_cpu()
    out(
        f"Python {platform.python_version()} ({platform.python_implementation()}, "
        f"{' '.join(platform.python_build())}, {platform.python_compiler()})"
    )
    out(f"Machine: {machine_description()}; {pinned}")
    out(
        f"Date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; "
        f"medians of {args.runs} runs, runs interleaved"
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

    # One warm-up deal set each (imports, tables, caches), then interleaved timed runs so
    # that load from other processes falls on every figure alike.
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
            done, seconds = play_deals(game, args.deals)
            rates[text].append(done / seconds)
        if spiel_game is not None:
            done, seconds = play_pyspiel(spiel_game, args.pyspiel_deals)
            spiel_rates.append(done / seconds)

    out()
    out("Complete random-play deals per second (public API, every action checked):")
    base = statistics.median(rates["kingen"]) if rates.get("kingen") else None
    for text, values in rates.items():
        med = statistics.median(values)
        ratio = f"  {med / base:5.2f}x kingen" if base else ""
        out(
            f"  {text:<34} {fmt(med):>8} deals/s  ({fmt(min(values))}-{fmt(max(values))})"
            f"  {1e6 / med:6.1f} us/deal{ratio}"
        )
    if spiel_rates:
        spiel = statistics.median(spiel_rates)
        out(
            f"  {'pyspiel ' + PYSPIEL_GAME:<34} {fmt(spiel):>8} deals/s  "
            f"({fmt(min(spiel_rates))}-{fmt(max(spiel_rates))})  {1e6 / spiel:6.1f} us/deal"
        )
        for text in ("kingen", "kingen(rules=iwwa)"):
            if text in rates:
                paired = statistics.median(
                    a / b for a, b in zip(rates[text], spiel_rates, strict=True)
                )
                out(
                    f"  ratio {text} / pyspiel: {statistics.median(rates[text]) / spiel:.2f}"
                    f" (median of per-run ratios {paired:.2f})"
                )

    out()
    out(
        f"legal_actions() calls per second ({args.states:,} recorded play-phase states, "
        "one call on each fresh clone):"
    )
    for text in ("kingen", "kingen(rules=iwwa)"):
        if text in games:
            states = record_play_states(games[text], args.states, lambda s: s.phase == "play")
            calls = [time_legal_actions(states) for _ in range(args.runs)]
            out(
                f"  {text:<34} {fmt(statistics.median(calls)):>10} calls/s  "
                f"{1e9 / statistics.median(calls):5.0f} ns/call"
            )
    if spiel_game is not None:
        states = record_play_states(
            spiel_game, args.states, lambda s: not s.is_chance_node() and s.current_player() >= 0
        )
        calls = [time_legal_actions(states) for _ in range(args.runs)]
        out(
            f"  {'pyspiel ' + PYSPIEL_GAME:<34} {fmt(statistics.median(calls)):>10} calls/s  "
            f"{1e9 / statistics.median(calls):5.0f} ns/call"
        )


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
