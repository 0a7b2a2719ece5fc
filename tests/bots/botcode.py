"""Test bots as source code, and a helper that plays one against built-in bots.

``PLAYER`` is a minimal bot that speaks the protocol by hand; a test bot is that code with
something done before it plays or inside its ``hook`` (called on each request; it may
return the line to answer instead of the first legal action). Test bots report what
they saw on stderr (``report``), which the runner keeps in the seat's log.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from bots.bundle import BotBundle
from bots.match import BotSpec, PlayedMatch, match_play
from bots.protocol import TimeControl
from bots.runner.spawner import SpawnerPool, spawner_pool_close, spawner_pool_enable
from bots.seats import Outcome
from engine.record import verify_record

PLAYER = """
import json, os, sys

def report(tag, text=""):
    sys.stderr.write(f"{tag} {text}\\n")
    sys.stderr.flush()

def hook(number, request):
    return None

def play():
    number = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            out = json.dumps({"type": "ready"})
        elif message["type"] == "request":
            number += 1
            out = hook(number, message)
            if out is None:
                out = json.dumps({"id": message["id"], "action": message["legal"][0]})
        elif message["type"] == "end":
            report("END", json.dumps(message["scores"]))
            return
        else:
            continue
        sys.stdout.write(out + "\\n")
        sys.stdout.flush()
"""


@contextlib.contextmanager
def spawners_on() -> Iterator[SpawnerPool]:
    """Within: each Python bot forked by its version's spawner (bots.runner.spawner), from
    the pool given; after: spawners off, whatever ``KING_LEAGUE_SPAWNERS`` says."""
    pool = spawner_pool_enable(size=8)
    assert pool is not None
    try:
        yield pool
    finally:
        spawner_pool_close()
        spawner_pool_enable(size=0)


FAST = TimeControl(move_ms=300, bank_ms=1000, startup_ms=5000)
"""Short deadlines so that timeouts cost little test time."""


def bot_bundle(body: str, *, name: str = "bot.py", play: bool = True) -> BotBundle:
    code = PLAYER + body + ("\nplay()\n" if play else "")
    return BotBundle(name, "py", code.encode())


def match_against_builtins(
    body: str,
    *,
    game: str = "kingen",
    sandbox: bool = True,
    seed: int = 1,
    time_control: TimeControl = FAST,
    others: tuple[str, ...] = ("greedy", "random", "greedy"),
    extra: list[BotSpec] | None = None,
    **kwargs: Any,
) -> PlayedMatch:
    """Seat 0: the test bot; then ``extra`` uploaded bots; the rest built-in."""
    specs = [BotSpec.uploaded(bot_bundle(body))]
    specs += extra or []
    specs += [BotSpec.builtin(name) for name in others[: 4 - len(specs)]]
    return match_play(game, specs, seed=seed, sandbox=sandbox, time_control=time_control, **kwargs)


def assert_others_intact(result: PlayedMatch, *, attacker: int = 0) -> None:
    """The other seats played the whole match unharmed, and the record verifies."""
    for seat, report in enumerate(result.seats):
        if seat != attacker:
            assert report.outcome is Outcome.OK, (seat, report.faults)
            assert report.replaced_at is None
    verification = verify_record(result.record)
    assert verification.ok, verification.problem
    assert verification.complete
    assert verification.scores == result.scores


def log_lines(result: PlayedMatch, tag: str, seat: int = 0) -> list[str]:
    """The lines the test bot reported under ``tag`` (without the tag)."""
    prefix = tag + " "
    return [
        line[len(prefix) :]
        for line in result.seats[seat].log.splitlines()
        if line.startswith(prefix)
    ]
