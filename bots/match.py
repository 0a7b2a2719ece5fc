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

The play loop itself is ``seats_play``, the only one: ``match_play`` (the command line
``python -m bots match``, the bots' validation game) calls it with no hooks, and the
league's match runner (league.services.matches) with hooks that store each event as it is
played and stop where a person is to act, to resume later from the stored events.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bots.bundle import BotBundle, bot_bundle_from_path
from bots.protocol import TimeControl
from bots.runner.runtimes import runtime_unavailable_reason
from bots.runner.sandbox import (
    Limits,
    SandboxUnavailableError,
    sandbox_require,
    sandbox_users_released_together,
)
from bots.runner.seat import Transcript, UploadedSeat
from bots.runner.warm import warm_pool_refill
from bots.runtimes import RUNTIMES
from bots.seats import (
    BuiltinSeat,
    GuardedSeat,
    Hello,
    Seat,
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
    """``builtin:NAME``, the path of a bot file (.py, .zip, .js, .jar, an executable) whose
    runtime is recognised, or ``RUNTIME:PATH`` (``python-numpy:bot.py``) to choose it;
    ValueError (one line) if none of these."""
    if text.startswith(BUILTIN_PREFIX):
        name = text[len(BUILTIN_PREFIX) :]
        builtin_player(name, 0)  # ValueError naming the known ones
        return BotSpec.builtin(name)
    runtime, colon, path = text.partition(":")
    if colon and runtime in RUNTIMES:
        return BotSpec.uploaded(bot_bundle_from_path(path, runtime))
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
    """The seat whose player decides now: the game says (a dummy seat such as Priffe's
    träkarl is played by its partner)."""
    return state.acting_seat()


# ---------------------------------------------------------------- the play loop


class PlayHooks(Protocol):
    """What a runner of matches adds to the play loop (``seats_play``): the league stores
    the events as they are played, and stops where a person is to act."""

    def actions_applied(self, state: State[Any], times: dict[int, float]) -> None:
        """An action was applied to ``state`` (with the chance events it drew, if any):
        the new entries of ``state.log`` may be stored now."""

    def person_to_act(self, state: State[Any], seat: int) -> int | None:
        """``seat`` has no bot (a person's): their action, or None to stop the loop there
        (the league stores what was played and waits for the person's move)."""


@dataclass
class SeatsPlayed:
    """Where ``seats_play`` stopped: the match's end, or a person's turn."""

    state: State[Any]
    times: dict[int, float]
    """Milliseconds each seat took to decide, by index of ``state.log``."""
    reports: list[SeatReport | None]
    """Each seat's report once its bot was closed; None for a person's seat."""
    waiting_seat: int | None
    """The person's seat to act when the loop stopped for them; None at the match's end."""
    decisions: int
    """Actions chosen in this run."""
    engine_seconds: float
    """Choosing and applying the actions: the bots and the rules."""


def seats_play(
    state: State[Any],
    seats: Sequence[Seat | None],
    *,
    time_control: TimeControl,
    times: dict[int, float] | None = None,
    hooks: PlayHooks | None = None,
) -> SeatsPlayed:
    """Play ``state`` on to its end, or to a person's turn that ``hooks`` stops at: the one
    play loop of ``python -m bots match``, the bots' validation game and the league.

    Starts every seat's bot (all at once, each by its own deadline), asks the seat to act
    for each decision, tells the bots the scores at the end and always closes them. A
    ``None`` seat is a person's, asked through ``hooks.person_to_act`` (with no hooks the
    loop stops there). ``state`` may be a match resumed from its stored events; ``times``
    holds the milliseconds of the actions played so far and receives the new ones.
    """
    times = {} if times is None else times
    clock = time.perf_counter
    decisions = 0
    engine_seconds = 0.0
    waiting_seat: int | None = None
    try:
        for index, seat in enumerate(seats):
            if seat is not None:
                seat.start(Hello(state.game, index, time_control))
        seats_wait_ready(seats)
        # the next match's bots start while this one plays (a worker's warm pool, if on)
        warm_pool_refill()
        while not state.is_terminal():
            index = deciding_seat(state)
            seat = seats[index]
            began = clock()
            if seat is None:
                person_action = hooks.person_to_act(state, index) if hooks is not None else None
                if person_action is None:
                    waiting_seat = index
                    break
                action = person_action
            else:
                action = seat.choose(state.view_for(index))
            chosen = clock()
            log_index = len(state.log)
            state.apply_action(action)
            times[log_index] = (chosen - began) * 1000
            engine_seconds += clock() - began
            decisions += 1
            if hooks is not None:
                hooks.actions_applied(state, times)
        if waiting_seat is None:
            scores = state.scores()
            for seat in seats:
                if seat is not None:
                    seat.finish(scores)
    finally:
        with sandbox_users_released_together():
            for seat in seats:
                if seat is not None:
                    seat.close()
    return SeatsPlayed(
        state=state,
        times=times,
        reports=[seat.report() if seat is not None else None for seat in seats],
        waiting_seat=waiting_seat,
        decisions=decisions,
        engine_seconds=engine_seconds,
    )


# ---------------------------------------------------------------- a local match


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
    for spec in bots:
        missing = runtime_unavailable_reason(spec.bundle.runtime) if spec.bundle else None
        if spec.bundle is not None and missing is not None:
            raise SandboxUnavailableError(f"{spec.bundle.runtime} bots cannot run here: {missing}")
    if seed is None:
        seed = random.SystemRandom().getrandbits(31)
    control = time_control or TimeControl()
    seats: list[GuardedSeat] = []
    began = time.perf_counter()
    try:
        for index, spec in enumerate(bots):
            seats.append(_spec_seat(spec, seed, index, sandbox, limits, transcripts))
    except BaseException:
        with sandbox_users_released_together():
            for seat in seats:
                seat.close()
        raise
    played = seats_play(game.new_initial_state(seed=seed), seats, time_control=control)
    state = played.state
    reports = [report for report in played.reports if report is not None]
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
    record = record_from_state(state, seats=record_seats, times=played.times, meta=record_meta)
    return PlayedMatch(
        game=str(game),
        seed=seed,
        scores=state.scores(),
        seats=reports,
        record=record,
        seconds=time.perf_counter() - began,
        decisions=played.decisions,
    )


def _spec_seat(
    spec: BotSpec,
    seed: int,
    index: int,
    sandbox: bool,
    limits: Limits | None,
    transcripts: dict[int, Transcript] | None,
) -> GuardedSeat:
    """What plays seat ``index`` of a local match."""
    if spec.builtin_name is not None:
        return BuiltinSeat(spec.builtin_name, seat_seed(seed, index))
    assert spec.bundle is not None
    transcript: Transcript | None = None
    if transcripts is not None:
        transcript = transcripts.setdefault(index, [])
    return UploadedSeat(
        spec.bundle,
        seed=seat_seed(seed, index),
        sandboxed=sandbox,
        limits=limits,
        transcript=transcript,
        label=spec.label,
    )
