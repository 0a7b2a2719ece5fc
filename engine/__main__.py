"""The engine's command line: play a game, verify a record, show a record.

    python -m engine play GAME --seed N [--bots random,greedy,greedy,greedy] [--out FILE]
    python -m engine verify FILE      (FILE "-": standard input)
    python -m engine show FILE [--html OUT.html [--four-colour]]
    python -m engine solve FILE --deal N --event K
    python -m engine solver

``solve`` prints, as one JSON line, the double-dummy value of each legal card at the
position just before event K of deal N (both from 1): the acting seat's score of the
whole deal if it plays that card and every seat then plays with all hands known
(engine/double_dummy.py says how); the card the record played there, if any. ``solver``
says whether the compiled solver was built here (exit 0) or the pure-Python search runs,
and what to install for the compiled one (exit 3). ``show --html OUT.html`` writes a
standalone page that replays the record in the site's viewer, with no server and no
network (engine/viewer).

Exit codes: 0 success; 1 a record that breaks the rules (verify); 2 bad input (a game
string, a file that is not a record, a file larger than MAX_RECORD_BYTES); 3 the compiled
solver is not built here (solver). Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from engine.cards import card_name
from engine.double_dummy import (
    NotSolvableError,
    compiled_available,
    compiled_unavailable_reason,
    solve,
)
from engine.errors import EngineError
from engine.game import TrickTakingState
from engine.players import make_player
from engine.record import (
    dumps_record,
    read_record,
    record_from_state,
    state_before_event,
    verify_record,
)
from engine.show import show_record, show_record_html
from engine.variants import load_game

EXIT_OK, EXIT_MISMATCH, EXIT_BAD_INPUT, EXIT_NOT_COMPILED = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"usage error: {message}\n")
        raise SystemExit(EXIT_BAD_INPUT)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="python -m engine", description="King League rules engine")
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("play", help="play a whole game with reference players")
    play.add_argument("game", help="game string, e.g. 'kingen(rules=iwwa)'")
    play.add_argument("--seed", type=int, required=True)
    play.add_argument(
        "--bots", default="greedy", help="one player name, or one per seat, comma separated"
    )
    play.add_argument("--out", help="write the record here (default: standard output)")
    verify = commands.add_parser("verify", help="replay a record through the rules")
    verify.add_argument("file", help="the record ('-': standard input)")
    show = commands.add_parser("show", help="print a record trick by trick")
    show.add_argument("file", help="the record ('-': standard input)")
    show.add_argument(
        "--html",
        metavar="OUT",
        help="write a standalone page that replays it in the site's viewer (no server)",
    )
    show.add_argument(
        "--four-colour", action="store_true", help="with --html: the four-colour deck"
    )
    solver = commands.add_parser("solve", help="each legal card's double-dummy value")
    solver.add_argument("file", help="the record ('-': standard input)")
    solver.add_argument("--deal", type=int, required=True, help="the deal, from 1")
    solver.add_argument("--event", type=int, required=True, help="the event of the deal, from 1")
    commands.add_parser("solver", help="is the compiled double-dummy solver built here?")
    args = parser.parse_args(argv)
    try:
        if args.command == "solver":
            return _solver()
        if args.command == "play":
            return _play(args.game, args.seed, args.bots, args.out)
        record = read_record(args.file)
        if args.command == "solve":
            return _solve(record, args.deal, args.event)
        if args.command == "verify":
            result = verify_record(record)
            if not result.ok:
                _error_line(result.problem)
                return EXIT_MISMATCH
            outcome = {
                "ok": True,
                "deals": result.deals,
                "complete": result.complete,
                "scores": result.scores,
            }
            sys.stdout.write(json.dumps(outcome) + "\n")
            return EXIT_OK
        if args.html:
            page = show_record_html(record, four_colour=args.four_colour)
            Path(args.html).write_text(page, encoding="utf-8")
            sys.stdout.write(f"{args.html}: open it in a browser\n")
            return EXIT_OK
        sys.stdout.write(show_record(record))
        return EXIT_OK
    except (EngineError, OSError) as exc:
        _error_line(str(exc))
        return EXIT_BAD_INPUT


def _solve(record: dict[str, object], deal: int, event: int) -> int:
    state, chosen = state_before_event(record, deal, event)
    where = f"deal {deal}, event {event}"
    try:
        values = solve(state)
    except NotSolvableError as exc:
        _error_line(f"{where}: {exc}")
        return EXIT_BAD_INPUT
    played = chosen.get("action") if chosen is not None and "seat" in chosen else None
    answer = {
        "deal": deal,
        "event": event,
        "seat": state.acting_seat(),
        "to_play": state.current_seat,
        "contract": state.contract_name() if isinstance(state, TrickTakingState) else "",
        "values": {card_name(c): v for c, v in values.items()},
        "best": max(values.values()),
        "played": played,
        "compiled": compiled_available(),
    }
    sys.stdout.write(json.dumps(answer) + "\n")
    return EXIT_OK


def _solver() -> int:
    reason = compiled_unavailable_reason()
    if reason is None:
        sys.stdout.write("the compiled double-dummy solver (engine._dds) is built here\n")
        return EXIT_OK
    sys.stdout.write(reason + "\n")
    return EXIT_NOT_COMPILED


MAX_ERROR_CHARACTERS = 500


def _error_line(message: str) -> None:
    """Write ``message`` to stderr as exactly one line: characters that are not printable
    (a newline inside an action string) escaped, and cut at MAX_ERROR_CHARACTERS."""
    line = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in message)
    if len(line) > MAX_ERROR_CHARACTERS:
        line = line[: MAX_ERROR_CHARACTERS - 3] + "..."
    sys.stderr.write(line + "\n")


def _play(game_string: str, seed: int, bots: str, out: str | None) -> int:
    game = load_game(game_string)
    names = [name.strip() for name in bots.split(",")]
    if len(names) == 1:
        names *= game.num_seats
    if len(names) != game.num_seats:
        raise EngineError(f"--bots: {game} has {game.num_seats} seats, {len(names)} players given")
    players = [make_player(name, seed * 31 + seat) for seat, name in enumerate(names)]
    state = game.new_initial_state(seed=seed)
    times: dict[int, float] = {}
    while not state.is_terminal():
        seat = state.acting_seat()  # a dummy seat is played by its partner
        started = time.perf_counter()
        action = players[seat].choose(state.view_for(seat))
        times[len(state.log)] = (time.perf_counter() - started) * 1000
        state.apply_action(action, seat=seat)
    seats = [{"name": f"{name} {seat}", "player": name} for seat, name in enumerate(names)]
    record = record_from_state(state, seats=seats, times=times)
    text = dumps_record(record)
    if out is None or out == "-":
        sys.stdout.write(text)
    else:
        Path(out).write_text(text, encoding="utf-8")
        summary = {"game": str(game), "seed": seed, "scores": state.scores(), "out": out}
        sys.stdout.write(json.dumps(summary) + "\n")
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
