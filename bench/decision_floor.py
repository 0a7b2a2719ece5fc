"""The floor of a decision made by a bot in a process of its own: what a Kingen match's
decisions cost when each one is a line to another process and a line back, before the
sandbox, the FIFOs, the clock and the match's records add anything (issue 36).

    python -m bench.decision_floor                 # 5 games, pinned to one CPU
    python -m bench.decision_floor --games 20

Both processes on one CPU, as a worker pins its seats (bots.runner.affinity), CPU from
``time.process_time`` (this process) and ``getrusage`` (the bot's). Per decision:

- **in process**: the engine's ``view_for`` and the first legal action: a built-in bot's
  decision, what the in-process reference of bench.worker_throughput pays;
- **the request**: ``view_for``, ``to_json`` and the request line (bots.protocol): what a
  runner pays before anything is sent;
- **over a pipe**: the request written to bench.bots.TRIVIAL_BOT, run by the bots' own
  interpreter (bots.runner.sandbox.BOT_PYTHON, ``-E -s -S -B``), its answer read, checked
  (``read_answer``, ``parse_action``, legal) and applied, the runner's CPU and the bot's
  apart (the bot's start and end, measured in a run of no decision, taken out).

Then per match (its decisions times the figures): what a process-per-seat design adds to
a match at the least, against the in-process decision.

``--request legal`` sends requests without the view (``"view": {}``, no ``to_json``): the
legal actions and the clock alone. No protocol could send less for a bot to decide on, so
the difference to ``--request view`` (the protocol's request) is the most that any smaller
request (a view's changes since the last one, say) could save. It prints figures; it
asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import resource
import statistics
import subprocess
import time

from bench.bots import GAME, TRIVIAL_BOT, pin
from bots.protocol import ProtocolFault, encode, read_answer, request_message
from bots.runner.sandbox import BOT_PYTHON
from engine import load_game
from engine.game import PlayerView

HELLO = b'{"type": "hello", "protocol": 1, "seat": 0, "seats": 4, "game": "kingen"}\n'
END = b'{"type": "end", "scores": [0, 0, 0, 0], "outcome": "ok"}\n'


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def in_process(seed: int) -> tuple[float, int]:
    """CPU seconds of a game's decisions made in process, and how many there were."""
    state = load_game(GAME).new_initial_state(seed=seed)
    decisions = 0
    started = time.process_time()
    while not state.is_terminal():
        view = state.view_for(state.current_seat)
        state.apply_action(view.legal[0])
        decisions += 1
    return time.process_time() - started, decisions


def request_line(view: PlayerView, request_id: int, *, with_view: bool) -> bytes:
    """The request of a decision: with the seat's view (the protocol's), or the legal
    actions alone (``--request legal``)."""
    if with_view:
        body = view.to_json()
        legal = body["legal"]
    else:
        body, legal = {}, [view.game.action_to_string(action) for action in view.legal]
    return encode(
        request_message(request_id=request_id, view=body, legal=legal, move_ms=1000, bank_ms=1000)
    )


def requests_built(seed: int, *, with_view: bool) -> float:
    """CPU seconds of a game's decisions with each request line built (nothing sent)."""
    state = load_game(GAME).new_initial_state(seed=seed)
    started = time.process_time()
    while not state.is_terminal():
        view = state.view_for(state.current_seat)
        request_line(view, 1, with_view=with_view)
        state.apply_action(view.legal[0])
    return time.process_time() - started


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def line_read(fd: int, pending: bytearray) -> bytes:
    while (end := pending.find(b"\n")) < 0:
        chunk = os.read(fd, 65536)
        if not chunk:
            raise RuntimeError("the bot's output ended")
        pending += chunk
    line = bytes(pending[:end])
    del pending[: end + 1]
    return line


def over_a_pipe(seed: int | None, *, with_view: bool = True) -> tuple[float, float]:
    """CPU seconds of a game played by the trivial bot over plain pipes (None: hello and end
    alone): this process's share and the bot's (its whole life)."""
    game = load_game(GAME)
    bot_before, runner_before = children_cpu(), time.process_time()
    process = subprocess.Popen(
        [BOT_PYTHON, "-E", "-s", "-S", "-B", "-c", TRIVIAL_BOT.decode()],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        bufsize=0,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
    )
    assert process.stdin is not None
    assert process.stdout is not None
    to_bot, from_bot = process.stdin.fileno(), process.stdout.fileno()
    pending = bytearray()
    os.write(to_bot, HELLO)
    line_read(from_bot, pending)
    if seed is not None:
        state = game.new_initial_state(seed=seed)
        request_id = 0
        while not state.is_terminal():
            view = state.view_for(state.current_seat)
            request_id += 1
            os.write(to_bot, request_line(view, request_id, with_view=with_view))
            answer = read_answer(line_read(from_bot, pending))
            if isinstance(answer, ProtocolFault):
                raise RuntimeError(f"the bot: {answer.problem}")
            action = game.parse_action(answer.action)
            if action not in view.legal:
                raise RuntimeError(f"not legal: {answer.action}")
            state.apply_action(action)
    os.write(to_bot, END)
    process.stdin.close()
    process.wait()
    process.stdout.close()
    return time.process_time() - runner_before, children_cpu() - bot_before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="games a figure (seeds 1..N)")
    parser.add_argument("--cpus", choices=["one", "all"], default="one")
    parser.add_argument(
        "--request",
        choices=["view", "legal"],
        default="view",
        help="what a request carries: the view (the protocol's) or the legal actions alone",
    )
    args = parser.parse_args()
    if not os.path.exists(BOT_PYTHON):
        say(f"# {BOT_PYTHON} is missing: the bots' interpreter")
        return 1
    with_view = args.request == "view"
    say(
        f"# {GAME}, {args.games} games; requests with {'the view' if with_view else 'no view'};"
        f" {pin(args.cpus)}; load average {os.getloadavg()}"
    )
    seeds = range(1, args.games + 1)
    games = [in_process(seed) for seed in seeds]
    own = [cpu for cpu, _ in games]
    decisions = sum(count for _, count in games)
    built = sum(requests_built(seed, with_view=with_view) for seed in seeds)
    empty = [over_a_pipe(None) for _ in seeds]
    start_runner = statistics.median(runner for runner, _ in empty)
    start_bot = statistics.median(bot for _, bot in empty)
    played = [over_a_pipe(seed, with_view=with_view) for seed in seeds]
    runner = sum(cpu for cpu, _ in played) - start_runner * len(played)
    bot = sum(cpu for _, cpu in played) - start_bot * len(played)

    def each(seconds: float) -> float:
        return seconds / decisions * 1e6

    per_match = decisions / len(seeds)
    rows = [
        ("in process (view_for, the first legal action)", each(sum(own))),
        ("the request built (view_for, to_json if sent, the line)", each(built)),
        ("over a pipe: the runner (the request, write, read, check)", each(runner)),
        ("over a pipe: the trivial bot (read, json.loads, answer, flush)", each(bot)),
        ("over a pipe: both", each(runner + bot)),
    ]
    say(f"{'per decision':66} {'CPU us':>8}  {'a match, ms':>11}")
    for label, micros in rows:
        say(f"{label:66} {micros:8.1f}  {micros * per_match / 1000:11.1f}")
    added = each(runner + bot) - each(sum(own))
    say(
        f"a process per seat adds at least {added:.1f} us a decision, "
        f"{added * per_match / 1000:.1f} ms a match of {per_match:.0f} decisions, before the "
        "sandbox, the FIFOs, the clock, the records and the seats' starts"
    )
    say(
        f"(the bot's start and end, taken out above: {start_bot * 1000:.1f} ms of its CPU, "
        f"{start_runner * 1000:.1f} ms of the runner's)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
