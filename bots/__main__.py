"""The bots' command line: try a bot exactly as the league runs it.

    python -m bots match GAME BOT BOT BOT BOT [--seed N] [--sandbox | --no-sandbox]
                         [--record FILE] [--move-ms MS] [--bank-ms MS] [--startup-ms MS]
    python -m bots sandbox [--setup]
    python -m bots runtimes

BOT is the path of a bot file (a .py, .zip, .js or .jar file, or a Linux executable) whose
runtime is recognised from its files, ``RUNTIME:PATH`` to choose the runtime
(``python-numpy:bot.zip``), or ``builtin:NAME`` (random, greedy, strong). The
match prints each seat's score and outcome as JSON on stdout, the uploaded bots' stderr
on stderr, and writes the game record to --record (``--out`` is its older name): the
league's record format (engine/record.py), the JSON the site serves for a finished match,
which ``python -m engine show FILE --html OUT.html`` turns into a page replaying it in the
site's viewer, and which a person may upload as a private replay. ``sandbox`` says whether
uploaded bots can run in the sandbox here, how a seat's memory is bounded, and whether the
machine's sandbox users suffice for a worker of one process per CPU, and with --setup (as
root) creates its users; ``runtimes``
lists the runtimes and what to install for those missing here (exit 3 if any is).

Exit codes: 0 done; 2 bad input (a game string, a bot, a count of bots, an option);
3 the sandbox is missing (the message says what to install). Errors are one line on
stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from bots.bundle import BotBundleError
from bots.match import BotSpec, bot_spec_parse, match_play
from bots.protocol import TimeControl
from bots.runner.cgroups import cgroup_status, cgroup_unavailable_reason
from bots.runner.runtimes import runtimes_status
from bots.runner.sandbox import (
    SandboxUnavailableError,
    running_as_root,
    sandbox_unavailable_reason,
    sandbox_users_setup,
)
from bots.runner.warm import DEFAULT_SIZE as WARM_DEFAULT_SIZE
from bots.runner.warm import SandboxUsersDemand
from bots.runtimes import RUNTIMES
from engine.errors import EngineError
from engine.record import dumps_record
from engine.variants import load_game

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_NO_SANDBOX = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"usage error: {message}\n")
        raise SystemExit(EXIT_BAD_INPUT)


def _parser() -> _Parser:
    parser = _Parser(prog="python -m bots", description="King League bots")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    match = commands.add_parser("match", help="play one match, as the league plays it")
    match.add_argument("game", help="game string, e.g. 'kingen' or 'kingen(rules=iwwa)'")
    match.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help="a bot file (.py, .zip, .js, .jar, an executable), RUNTIME:PATH, or builtin:NAME",
    )
    match.add_argument("--seed", type=int, help="the deals' seed (default: a random one)")
    group = match.add_mutually_exclusive_group()
    group.add_argument(
        "--sandbox",
        dest="sandbox",
        action="store_true",
        default=True,
        help="run uploaded bots in the sandbox (the default, as the league does)",
    )
    group.add_argument(
        "--no-sandbox",
        dest="sandbox",
        action="store_false",
        help="run uploaded bots as plain processes (your own code only)",
    )
    match.add_argument(
        "--record",
        "--out",
        dest="record",
        metavar="FILE",
        help="write the game record (JSON) to this file: python -m engine show FILE --html",
    )
    defaults = TimeControl()
    match.add_argument("--move-ms", type=int, default=defaults.move_ms)
    match.add_argument("--bank-ms", type=int, default=defaults.bank_ms)
    match.add_argument("--startup-ms", type=int, default=defaults.startup_ms)
    sandbox = commands.add_parser("sandbox", help="can uploaded bots run here?")
    sandbox.add_argument("--setup", action="store_true", help="create the sandbox users (root)")
    commands.add_parser("runtimes", help="which bot runtimes run here, and what to install")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "sandbox":
            return _sandbox(args.setup)
        if args.command == "runtimes":
            return _runtimes()
        return _match(args)
    except SandboxUnavailableError as exc:
        sys.stderr.write(f"{exc}\n")
        return EXIT_NO_SANDBOX
    except (EngineError, BotBundleError, ValueError, OSError) as exc:
        sys.stderr.write(f"{exc}\n")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return EXIT_FAILED


def _match(args: argparse.Namespace) -> int:
    game = load_game(args.game)
    if len(args.bots) != game.num_seats:
        raise ValueError(f"{game} has {game.num_seats} seats: give {game.num_seats} bots")
    specs: list[BotSpec] = [bot_spec_parse(text) for text in args.bots]
    control = TimeControl(args.move_ms, args.bank_ms, args.startup_ms)
    out = Path(args.record) if args.record else None
    if out is not None and not out.parent.is_dir():
        raise ValueError(f"--record: the folder {out.parent} does not exist")
    result = match_play(game, specs, seed=args.seed, sandbox=args.sandbox, time_control=control)
    for seat, report in enumerate(result.seats):
        if report.log.strip():
            sys.stderr.write(f"--- seat {seat} ({report.label}): its stderr ---\n{report.log}")
            if not report.log.endswith("\n"):
                sys.stderr.write("\n")
    summary = result.to_json()
    if out is not None:
        out.write_text(dumps_record(result.record), encoding="utf-8")
        summary["record"] = str(out)
    sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    return EXIT_OK


def _sandbox(setup: bool) -> int:
    if setup:
        if not running_as_root():
            sys.stderr.write("--setup creates system users: run it as root\n")
            return EXIT_BAD_INPUT
        for name in sandbox_users_setup():
            sys.stdout.write(f"sandbox user {name}: present\n")
    reason = sandbox_unavailable_reason()
    if reason is not None:
        sys.stderr.write(f"uploaded bots cannot run here: {reason}\n")
        return EXIT_NO_SANDBOX
    sys.stdout.write("the bot sandbox works here\n")
    sys.stdout.write(cgroup_status() + "\n")
    # celery's default: one worker process per CPU
    demand = SandboxUsersDemand(os.cpu_count() or 1, _warm_sandboxes(), _spawners())
    sys.stdout.write(demand.message() + "\n")
    return EXIT_OK


def _warm_sandboxes() -> int:
    """WORKER_WARM_SANDBOXES as the worker reads it (config.settings), its default if unset
    or not a count."""
    text = os.environ.get("WORKER_WARM_SANDBOXES", "").strip()
    return int(text) if text.isdigit() else WARM_DEFAULT_SIZE


def _spawners() -> int:
    """WORKER_BOT_SPAWNERS as the worker reads it (config.settings): 0 (off) if unset or not
    a count."""
    text = os.environ.get("WORKER_BOT_SPAWNERS", "").strip()
    return int(text) if text.isdigit() else 0


def _runtimes() -> int:
    missing = 0
    # without a control group per seat, a seat's memory is bounded by its rlimits alone
    unbounded = cgroup_unavailable_reason() is not None
    for name, reason in runtimes_status():
        runtime = RUNTIMES[name]
        if reason is None:
            bound = runtime.profile.memory_without_cgroups_text()
            whole = f"; no control groups here: its processes may hold {bound}" if unbounded else ""
            sys.stdout.write(f"{name}: ready ({runtime.entry}: {runtime.summary}){whole}\n")
        else:
            missing += 1
            sys.stdout.write(f"{name}: missing: {reason}\n")
    return EXIT_NO_SANDBOX if missing else EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
