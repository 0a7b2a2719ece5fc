"""Play one whole match: built-in and uploaded bots at the seats of one game.

    played = match_play("kingen", [bot_spec_parse("mybot.py"), BotSpec.builtin("greedy"),
                                   BotSpec.builtin("greedy"), BotSpec.builtin("random")],
                        seed=7)
    played.scores, played.seats[0].outcome, played.record

Every uploaded bot runs in one persistent process for the whole match, in the sandbox
unless ``sandbox=False`` (an author's local trial). The uploaded bots start in parallel
and are awaited all at once, each by its own deadline; the match begins when each is ready
or has failed to start. Whatever a bot does,
the match reaches its end: bots.seats describes the fault policy. The result carries the
engine's game record with each action's time in ms, the seats' outcomes and faults, and
every fallback action in ``meta.faults``, so a replay shows what was played for a bot.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bots.bundle import BotBundle, bot_bundle_from_path
from bots.protocol import TimeControl
from bots.runner.sandbox import Limits, sandbox_require, sandbox_users_released_together
from bots.runner.seat import Transcript, UploadedSeat
from bots.seats import (
    BuiltinSeat,
    GuardedSeat,
    Hello,
    SeatReport,
    builtin_player,
    seat_seed,
    seats_wait_ready,
)
from engine.game import Game, State
from engine.record import record_from_state
from engine.variants import load_game

BUILTIN_PREFIX = "builtin:"


@dataclass(frozen=True)
class BotSpec:
    """What plays a seat: a built-in bot by name, or an uploaded bot's code."""

    builtin_name: str | None = None
    bundle: BotBundle | None = None
    label: str | None = None

    @classmethod
    def builtin(cls, name: str) -> BotSpec:
        return cls(builtin_name=name)

    @classmethod
    def uploaded(cls, bundle: BotBundle, label: str | None = None) -> BotSpec:
        return cls(bundle=bundle, label=label)

    @property
    def name(self) -> str:
        if self.builtin_name is not None:
            return BUILTIN_PREFIX + self.builtin_name
        assert self.bundle is not None
        return self.label or self.bundle.label


def bot_spec_parse(text: str) -> BotSpec:
    """``builtin:NAME`` or the path of a .py or .zip bot; ValueError (one line) if neither."""
    if text.startswith(BUILTIN_PREFIX):
        name = text[len(BUILTIN_PREFIX) :]
        builtin_player(name, 0)  # ValueError naming the known ones
        return BotSpec.builtin(name)
    return BotSpec.uploaded(bot_bundle_from_path(text))


@dataclass
class PlayedMatch:
    """What ``match_play`` returns: a whole match played here, its record and each seat's
    report (the league stores its matches as ``league.models.MatchResult``)."""

    game: str
    seed: int
    scores: list[int]
    seats: list[SeatReport]
    record: dict[str, Any]
    seconds: float
    decisions: int

    def to_json(self) -> dict[str, Any]:
        """The summary the command line prints: each seat's score and outcome."""
        return {
            "game": self.game,
            "seed": self.seed,
            "seats": [
                {"seat": seat, "score": score, **report.to_json()}
                for seat, (score, report) in enumerate(zip(self.scores, self.seats, strict=True))
            ],
        }


def deciding_seat(state: State[Any]) -> int:
    """The seat whose player decides now (Priffe's träkarl is played by its partner)."""
    acting = getattr(state, "acting_seat", None)
    return int(acting()) if acting is not None else state.current_seat


def match_play(
    game: Game[Any] | str,
    bots: Sequence[BotSpec],
    *,
    seed: int | None = None,
    sandbox: bool = True,
    time_control: TimeControl | None = None,
    limits: Limits | None = None,
    meta: dict[str, Any] | None = None,
    transcripts: dict[int, Transcript] | None = None,
) -> PlayedMatch:
    """Play a whole match and return its result.

    Raises InvalidGameError for a bad game string, ValueError for a wrong number of bots
    or an unknown built-in, and SandboxUnavailableError (saying what to install) when an
    uploaded bot should run in a sandbox that this machine lacks; nothing is started then.
    ``transcripts``, if given, collects the protocol lines of the uploaded bots by seat.
    """
    if isinstance(game, str):
        game = load_game(game)
    if len(bots) != game.num_seats:
        raise ValueError(f"{game} has {game.num_seats} seats; {len(bots)} bots given")
    if sandbox and any(spec.bundle is not None for spec in bots):
        sandbox_require()
    if seed is None:
        seed = random.SystemRandom().getrandbits(31)
    control = time_control or TimeControl()
    seats: list[GuardedSeat] = []
    began = time.perf_counter()
    try:
        for index, spec in enumerate(bots):
            if spec.builtin_name is not None:
                seats.append(BuiltinSeat(spec.builtin_name, seat_seed(seed, index)))
            else:
                assert spec.bundle is not None
                transcript: Transcript | None = None
                if transcripts is not None:
                    transcript = transcripts.setdefault(index, [])
                seats.append(
                    UploadedSeat(
                        spec.bundle,
                        seed=seat_seed(seed, index),
                        sandboxed=sandbox,
                        limits=limits,
                        transcript=transcript,
                        label=spec.label,
                    )
                )
        for index, seat in enumerate(seats):
            seat.start(Hello(game, index, control))
        seats_wait_ready(seats)
        state = game.new_initial_state(seed=seed)
        times: dict[int, float] = {}
        clock = time.perf_counter
        decisions = 0
        while not state.is_terminal():
            index = deciding_seat(state)
            view = state.view_for(index)
            started = clock()
            action = seats[index].choose(view)
            times[len(state.log)] = (clock() - started) * 1000
            state.apply_action(action)
            decisions += 1
        scores = state.scores()
        for seat in seats:
            seat.finish(scores)
    finally:
        with sandbox_users_released_together():
            for seat in seats:
                seat.close()
    reports = [seat.report() for seat in seats]
    for report, spec in zip(reports, bots, strict=True):
        report.label = spec.name
    record_seats = [
        {
            "name": spec.name,
            "player": spec.name if spec.builtin_name is not None else "uploaded",
            "outcome": report.outcome.value,
            **({"replaced_at": report.replaced_at} if report.replaced_at is not None else {}),
        }
        for spec, report in zip(bots, reports, strict=True)
    ]
    faults = [
        {"seat": index, **fault.to_json()}
        for index, report in enumerate(reports)
        for fault in report.faults
    ]
    record_meta = {**(meta or {}), "time_control": control.to_json()}
    if faults:
        record_meta["faults"] = faults
    record = record_from_state(state, seats=record_seats, times=times, meta=record_meta)
    return PlayedMatch(
        game=str(game),
        seed=seed,
        scores=scores,
        seats=reports,
        record=record,
        seconds=time.perf_counter() - began,
        decisions=decisions,
    )
