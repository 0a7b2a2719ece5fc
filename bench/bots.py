"""Bot runner benchmark: protocol overhead, sandbox start-up, deals per second.

    python -m bench.bots                  # pinned to one CPU, sandboxed bots
    python -m bench.bots --no-sandbox     # the same bots as plain processes
    python -m bench.bots --cpus all --matches 5

Four trivial uploaded bots (read a line, ``json.loads`` it, answer the first legal action)
play whole ``kingen`` matches through the real runner and sandbox. Printed:

- **per-move round trip**, p50 and p99: from the runner starting a decision (building the
  request from the view) to the checked action, as the match records it. With a trivial
  bot this is the runner's overhead plus the bot's own JSON work and two wake-ups.
- **what the engine costs of that**: ``view_for`` + ``to_json`` per decision (in process),
  the floor of any runner that sends the whole view;
- **sandbox start-up** per bot: from starting bubblewrap to the bot's ``ready`` line;
- **deals per second** of a match: deals / wall time of the play (excluding the start and
  the end of the bots), and with them included.
- **a seat's life in CPU** (``--seat-lives N``: N tables of four seats started,
  ``ready``, told the end and closed): the CPU this process's tree spent per seat (the
  runner, the seats' processes and everything they started, exited ones included:
  bench.process_tree_cpu), as a plain process and in the sandbox, with the runner's own
  share; and in the sandbox forked by a spawner (bots.runner.spawner: the fork servers,
  started in a warm-up table, are in the tree). Not counted: the kernel's own threads (a
  sandbox's namespaces removed after it exits), other processes.

Targets (docs/benchmarks.md, on one core): p50 <= 100 us, start-up <= 50 ms,
>= 300 deals/s. It prints figures; it asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import platform
import statistics
import time
from typing import Any

from bench.process_tree_cpu import ProcessTreeCpu
from bots.bundle import BotBundle
from bots.match import BotSpec, match_play
from bots.protocol import TimeControl
from bots.runner.sandbox import sandbox_unavailable_reason, sandbox_users_released_together
from bots.runner.seat import UploadedSeat
from bots.runner.spawner import spawner_pool_close, spawner_pool_enable
from bots.seats import Hello
from engine import load_game

TRIVIAL_BOT = b"""import json, sys
out = sys.stdout
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "request":
        out.write('{"action": "%s"}\\n' % message["legal"][0])
    elif kind == "hello":
        out.write('{"type": "ready"}\\n')
    else:
        break
    out.flush()
"""
GAME = "kingen"


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def pin(cpus: str) -> str:
    if cpus == "all" or not hasattr(os, "sched_setaffinity"):
        return f"not pinned ({os.cpu_count()} CPUs)"
    available = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {available[-1]})
    return f"pinned to CPU {available[-1]} (the bots inherit it)"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def engine_view_cost(seed: int) -> float:
    """Microseconds per decision of view_for + to_json over one whole game."""
    game = load_game(GAME)
    state = game.new_initial_state(seed=seed)
    spent = 0.0
    decisions = 0
    while not state.is_terminal():
        seat = state.current_seat
        started = time.perf_counter()
        state.view_for(seat).to_json()
        spent += time.perf_counter() - started
        decisions += 1
        state.apply_action(state.legal_actions()[0])
    return spent / decisions * 1e6


def seat_lives(count: int, sandbox: bool, *, spawned: bool = False) -> tuple[float, float, int]:
    """A seat's whole life, four at a time as at a table (started, ``ready``, told the
    end, closed: its process gone and its user released), ``count`` times four: the CPU
    milliseconds a seat of this process's tree (the runner and every process it started,
    exited ones included), the runner's own, and how many of the tree's processes were
    seen alive (sampled; most live between two samples). ``spawned``: each seat's bot is
    forked by its version's spawner (bots.runner.spawner), started in the warm-up table;
    their fork servers are in the tree (their CPU and their children's is counted)."""
    if spawned:
        spawner_pool_enable(size=4)
        try:
            return seat_lives(count, sandbox)
        finally:
            spawner_pool_close()
            spawner_pool_enable(size=0)
    game = load_game(GAME)

    def table() -> None:
        seats = [
            UploadedSeat(BotBundle("trivial.py", "py", TRIVIAL_BOT), seed=i, sandboxed=sandbox)
            for i in range(4)
        ]  # one version at four seats: four spawners when they are on
        try:
            for index, seat in enumerate(seats):
                seat.start(Hello(game, index, TimeControl()))
            for seat in seats:
                seat.wait_ready()
                assert seat.startup_ms is not None, seat.report().faults
            for seat in seats:
                seat.finish([0, 0, 0, 0])
        finally:
            with sandbox_users_released_together():  # one look at /proc, as a match does
                for seat in seats:
                    seat.close()

    table()  # warm-up
    meter = ProcessTreeCpu(os.getpid())  # its own CPU is taken out of both figures
    meter.start()
    runner = time.process_time()
    for _ in range(count):
        table()
    runner = time.process_time() - runner
    spent = meter.stop()
    runner -= spent.sampling
    seats = 4 * count
    return spent.tree / seats * 1000, runner / seats * 1000, spent.tree_processes_seen


def startup_times(count: int, sandbox: bool) -> list[float]:
    """Milliseconds from start to ready, one bot at a time."""
    game = load_game(GAME)
    times = []
    for index in range(count):
        seat = UploadedSeat(
            BotBundle("trivial.py", "py", TRIVIAL_BOT), seed=index, sandboxed=sandbox
        )
        try:
            seat.start(Hello(game, 0, TimeControl()))
            seat.wait_ready()
            assert seat.startup_ms is not None, seat.report().faults
            times.append(seat.startup_ms)
        finally:
            seat.close()
    return times


def matches(count: int, sandbox: bool) -> dict[str, Any]:
    bundle = BotBundle("trivial.py", "py", TRIVIAL_BOT)
    moves: list[float] = []
    deals_per_second_play: list[float] = []
    deals_per_second_all: list[float] = []
    for seed in range(count):
        began = time.perf_counter()
        result = match_play(GAME, [BotSpec.uploaded(bundle)] * 4, seed=seed, sandbox=sandbox)
        whole = time.perf_counter() - began
        assert all(r.outcome.value == "ok" for r in result.seats), result.to_json()
        times = [
            float(e["ms"]) for deal in result.record["deals"] for e in deal["actions"] if "ms" in e
        ]
        moves += times
        deals = len(result.record["deals"])
        deals_per_second_play.append(deals / (sum(times) / 1000))
        deals_per_second_all.append(deals / whole)
    return {
        "moves": len(moves),
        "p50_us": percentile(moves, 0.5) * 1000,
        "p99_us": percentile(moves, 0.99) * 1000,
        "mean_us": statistics.fmean(moves) * 1000,
        "deals_s_play": statistics.median(deals_per_second_play),
        "deals_s_all": statistics.median(deals_per_second_all),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpus", choices=["one", "all"], default="one")
    parser.add_argument("--matches", type=int, default=5)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--no-sandbox", dest="sandbox", action="store_false", default=True)
    parser.add_argument(
        "--seat-lives",
        type=int,
        default=25,
        metavar="TABLES",
        help="tables of four seats whose whole lives are measured in CPU (0: none)",
    )
    args = parser.parse_args()
    if args.sandbox and (reason := sandbox_unavailable_reason()) is not None:
        say(f"the sandbox is missing here: {reason}")
        return 3
    pinning = pin(args.cpus)
    say(f"# bench.bots: {platform.python_implementation()} {platform.python_version()}, {pinning}")
    say(f"# bots: 4 trivial {'sandboxed' if args.sandbox else 'unsandboxed'} bots, game {GAME}")
    matches(1, args.sandbox)  # warm-up: caches, the sandbox probe, users
    startups = startup_times(args.starts, args.sandbox)
    figures = matches(args.matches, args.sandbox)
    view_us = statistics.median(engine_view_cost(seed) for seed in range(3))
    say(
        f"per-move round trip: p50 {figures['p50_us']:.0f} us, p99 {figures['p99_us']:.0f} us, "
        f"mean {figures['mean_us']:.0f} us over {figures['moves']} moves (target p50 <= 100 us)"
    )
    say(f"  of which the engine's view_for + to_json: {view_us:.0f} us per decision")
    say(
        f"start-up to ready: p50 {statistics.median(startups):.1f} ms, "
        f"min {min(startups):.1f} ms, max {max(startups):.1f} ms over {len(startups)} bots "
        "(target <= 50 ms)"
    )
    say(
        f"deals per second: {figures['deals_s_play']:.0f} during play, "
        f"{figures['deals_s_all']:.0f} with the bots' start and end "
        f"(median of {args.matches} matches; target >= 300)"
    )
    if args.seat_lives:
        say(
            "# CPU counted: this process's tree (the runner and the seats' processes, exited"
            " ones included, through their parents' cutime/cstime; this process their"
            " orphans' reaper); not counted: the"
            " kernel's own threads, other processes"
        )
        plain = seat_lives(args.seat_lives, sandbox=False)
        say(
            f"a seat's life (start, ready, end, exit; four at a time, {4 * args.seat_lives} "
            f"seats), CPU of this process's tree: plain process {plain[0]:.1f} ms (the "
            f"runner's own {plain[1]:.1f} ms; {plain[2]} processes seen)"
        )
        if args.sandbox:
            boxed = seat_lives(args.seat_lives, sandbox=True)
            say(
                f"  in the sandbox {boxed[0]:.1f} ms (the runner's own {boxed[1]:.1f} ms;"
                f" {boxed[2]} processes seen): {boxed[0] / plain[0]:.2f} x the plain process"
            )
            spawned = seat_lives(args.seat_lives, sandbox=True, spawned=True)
            say(
                f"  in the sandbox, forked by a spawner {spawned[0]:.1f} ms (the runner's own"
                f" {spawned[1]:.1f} ms; {spawned[2]} processes seen):"
                f" {spawned[0] / boxed[0]:.3f} x the sandbox's start as before"
                f" ({boxed[0] / spawned[0]:.1f} times cheaper; target < 3 ms)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
