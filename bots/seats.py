"""Who plays a seat in a match: the common Seat interface, outcomes, faults, built-ins.

Every seat, a built-in bot in process or an uploaded bot in its sandbox
(bots.runner.seat.UploadedSeat), is driven the same way by bots.match:

    seat.start(hello)       # begin starting (uploaded bots start in parallel)
    seats_wait_ready(seats) # all at once, each until ready or its start-up allowance ends
    seat.choose(view)       # once per decision: always returns a legal action
    seat.finish(scores)     # the match is over
    seat.close()            # stop for good, free everything
    seat.report()           # outcome, strikes, faults, the author's log

The fault policy (docs/bot-protocol.md, "When a bot fails") lives in ``GuardedSeat``: a
timeout, an illegal action or a malformed answer plays the fallback action (the first
legal one) and counts a strike; a crash, a failed start or ``MAX_STRIKES`` strikes hand
the seat to the built-in greedy bot for the rest of the match. The other seats never
notice. A built-in bot that raises is treated like a crashed one.

Text a bot controls (its action strings, its stderr) reaches the faults' messages and the
seat's log only through bots.untrusted_text.storable_text, applied here where a ``Fault``
is made and a log kept: what a report holds can be stored in any database.
"""

from __future__ import annotations

import math
import random
import select
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from bots.builtin import BUILTIN_PLAYERS
from bots.protocol import TimeControl
from bots.untrusted_text import storable_text
from engine.errors import EngineError, IllegalActionError
from engine.game import Game, PlayerView
from engine.players import GREEDY_POLICIES, GreedyPlayer, Player, RandomPlayer

MAX_STRIKES = 3
FAULT_LOG_BYTES = 64 * 1024
FAULT_MESSAGE_CHARS = 1000
"""The longest fault message kept (the start of a longer one)."""
SEAT_LOG_CHARS = 128 * 1024
"""The most of a seat's log kept (its end): the capped stderr, escapes included."""
FALLBACK_REASONS_KEPT = 3
"""How many of the helper module's reasons for playing a fallback a report keeps."""


class Outcome(StrEnum):
    """How a seat fared in a match; the first fault decides it. The league stores it on
    each of a match's seats (league.models.MatchSeat.outcome), a person's seat included."""

    OK = "ok"
    TIMEOUT = "timeout"
    CRASH = "crash"
    ILLEGAL_ACTION = "illegal_action"
    PROTOCOL_ERROR = "protocol_error"
    INIT_FAILURE = "init_failure"
    FORFEIT = "forfeit"
    """A person who missed too many deadlines (a built-in bot played on); never a bot's."""

    @property
    def label(self) -> str:
        """For people: ``Illegal Action``."""
        return self.value.replace("_", " ").title()


@dataclass(frozen=True)
class Hello:
    """What a seat is told before the match starts."""

    game: Game[Any]
    seat: int
    time_control: TimeControl


@dataclass(frozen=True)
class Fault:
    """One thing a bot did wrong."""

    cause: Outcome
    message: str
    decision: int
    """The seat's decision number (1 for its first request), 0 at start-up."""
    deal: int
    fallback: str | None = None
    """The action played for the bot instead, if any."""

    def __post_init__(self) -> None:
        # the message quotes the bot (its action string, its fault): make it storable
        object.__setattr__(self, "message", storable_text(self.message, limit=FAULT_MESSAGE_CHARS))
        if self.fallback is not None:
            object.__setattr__(
                self, "fallback", storable_text(self.fallback, limit=FAULT_MESSAGE_CHARS)
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "cause": self.cause.value,
            "message": self.message,
            "decision": self.decision,
            "deal": self.deal,
            "fallback": self.fallback,
        }


@dataclass
class SeatReport:
    """A seat's result besides its score."""

    label: str
    kind: str
    """``builtin`` or ``uploaded``."""
    outcome: Outcome = Outcome.OK
    strikes: int = 0
    decisions: int = 0
    replaced_at: int | None = None
    """The decision from which the built-in replacement played, if it did."""
    faults: list[Fault] = field(default_factory=list)
    log: str = ""
    """The bot's stderr, capped (uploaded bots), or the traceback of a built-in's error;
    set through ``keep_log``."""
    think_ms: float = 0.0
    fallbacks: int = 0
    """Answers the bot marked as played by its helper module (bots/sdk/kingbot.py)
    because its own code failed at that decision (the answer's ``fallback`` key)."""
    fallback_reasons: list[str] = field(default_factory=list)
    """The helper module's first reasons (``FALLBACK_REASONS_KEPT``), storable."""
    startup_ms: float | None = None
    """How long the match waited for an uploaded bot's ``ready`` (None: it never came, or
    a built-in bot)."""

    def keep_log(self, text: str) -> None:
        """Keep ``text`` (a bot's stderr, a traceback) as the log, storable and capped."""
        self.log = storable_text(text, limit=SEAT_LOG_CHARS, keep="end")

    def fallback_note(self, reason: str) -> None:
        """Count an answer played by the bot's helper module for its code, and why."""
        self.fallbacks += 1
        if len(self.fallback_reasons) < FALLBACK_REASONS_KEPT:
            self.fallback_reasons.append(storable_text(reason, limit=FAULT_MESSAGE_CHARS))

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.label,
            "kind": self.kind,
            "outcome": self.outcome.value,
            "strikes": self.strikes,
            "decisions": self.decisions,
            "replaced_at": self.replaced_at,
            "faults": [f.to_json() for f in self.faults],
            "fallbacks": self.fallbacks,
        }


class Seat(Protocol):
    label: str

    def start(self, hello: Hello) -> None: ...

    def wait_ready(self) -> None: ...

    def choose(self, view: PlayerView) -> int: ...

    def finish(self, scores: list[int]) -> None: ...

    def close(self) -> None: ...

    def report(self) -> SeatReport: ...


# ---------------------------------------------------------------- built-in players


def builtin_names() -> list[str]:
    return sorted(_builtin_factories())


def _builtin_factories() -> dict[str, Any]:
    """The built-in bots by name (bots.builtin.BUILTIN_PLAYERS), so that a bot added
    there (the ``strong`` search bot) plugs in without this module knowing it."""
    return dict(BUILTIN_PLAYERS)


def builtin_player(name: str, seed: int | None) -> Player:
    """A built-in bot by name; ValueError naming the known ones otherwise."""
    factories = _builtin_factories()
    factory = factories.get(name)
    if factory is None:
        known = ", ".join(f"builtin:{n}" for n in sorted(factories))
        raise ValueError(f"unknown built-in bot {name!r} (known: {known})")
    player: Player = factory(seed)
    return player


class ReplacementPlayer:
    """What plays a seat after its bot failed: greedy, or random for a family that has
    no greedy policy."""

    name = "greedy"

    def __init__(self, seed: int | None) -> None:
        self.greedy = GreedyPlayer(seed)
        self.random = RandomPlayer(seed)

    def choose(self, view: PlayerView) -> int:
        if view.game.family in GREEDY_POLICIES:
            return self.greedy.choose(view)
        return self.random.choose(view)


# ---------------------------------------------------------------- the fault policy


class GuardedSeat:
    """The fault policy shared by every kind of seat (see the module's docstring)."""

    kind = "builtin"

    def __init__(self, label: str, seed: int | None) -> None:
        self.label = label
        self.seed = seed
        self._report = SeatReport(label=label, kind=self.kind)
        self._replacement: Player | None = None
        self._deal = 0

    # --- what a kind of seat implements -------------------------------------------

    def start(self, hello: Hello) -> None:
        raise NotImplementedError

    def wait_ready(self) -> None:
        """Wait for this seat alone; a match waits for all at once (``seats_wait_ready``)."""
        seats_wait_ready([self])

    def finish(self, scores: list[int]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def _decide(self, view: PlayerView) -> int:
        raise NotImplementedError

    def _stop(self) -> None:
        """Stop the bot itself (its process), keeping its log."""

    # --- waiting for seats to be ready, all at once (``seats_wait_ready``) -------------

    def ready_pending(self) -> bool:
        """Whether the seat is still starting (its bot has neither answered ``hello``
        nor failed to)."""
        return False

    def ready_deadline(self) -> float:
        """When the start-up allowance ends (a ``time.perf_counter()`` value)."""
        return math.inf

    def ready_fds(self) -> list[int]:
        """Descriptors that become readable when the starting bot has something to say."""
        return []

    def ready_step(self) -> None:
        """Take what the starting bot has written, without waiting: ready, a fault, or
        (past its deadline, only after reading what was there) an init failure."""

    # --- the policy -----------------------------------------------------------------

    @property
    def replaced(self) -> bool:
        return self._replacement is not None

    def choose(self, view: PlayerView) -> int:
        report = self._report
        report.decisions += 1
        self._deal = view.deal_number
        if self._replacement is not None:
            return self._replacement.choose(view)
        return self._decide(view)

    def _fault(self, cause: Outcome, message: str, fallback: str | None = None) -> None:
        report = self._report
        decision = report.decisions
        report.faults.append(Fault(cause, message, decision, self._deal, fallback))
        if report.outcome is Outcome.OK:
            report.outcome = cause

    def strike(self, view: PlayerView, cause: Outcome, message: str) -> int:
        """Play the fallback action for a timeout, an illegal or a malformed answer, and
        count a strike; the last strike hands the seat over."""
        fallback = view.legal[0]
        self._fault(cause, message, view.game.action_to_string(fallback))
        self._report.strikes += 1
        if self._report.strikes >= MAX_STRIKES:
            self.replace(f"{MAX_STRIKES} strikes", next_decision=True)
        return fallback

    def replace(self, why: str, *, next_decision: bool = False) -> None:
        """Hand the seat to the replacement bot and stop the bot."""
        if self._replacement is not None:
            return
        seed = None if self.seed is None else self.seed + 7919
        self._replacement = ReplacementPlayer(seed)
        self._report.replaced_at = self._report.decisions + (1 if next_decision else 0)
        self._stop()

    def crash(self, view: PlayerView | None, cause: Outcome, message: str) -> int | None:
        """The bot is gone: record it, hand the seat over; the replacement answers now."""
        self._fault(cause, message, None)
        self.replace(message, next_decision=view is None)
        if view is None:
            return None
        assert self._replacement is not None
        return self._replacement.choose(view)

    def report(self) -> SeatReport:
        return self._report


class BuiltinSeat(GuardedSeat):
    """A built-in bot, in process."""

    kind = "builtin"

    def __init__(self, name: str, seed: int | None) -> None:
        super().__init__(f"builtin:{name}", seed)
        self.name = name
        self.player = builtin_player(name, seed)

    def start(self, hello: Hello) -> None:
        self.hello = hello

    def wait_ready(self) -> None:
        return None

    def _decide(self, view: PlayerView) -> int:
        try:
            action = self.player.choose(view)
        except Exception as exc:  # a bug in a built-in must not end the match
            self._report.keep_log(traceback.format_exc()[-FAULT_LOG_BYTES:])
            result = self.crash(view, Outcome.CRASH, f"{type(exc).__name__}: {exc}")
            assert result is not None
            return result
        if action not in view.legal:
            try:
                text = view.game.action_to_string(action)
            except (ValueError, EngineError, IllegalActionError):
                text = repr(action)
            return self.strike(view, Outcome.ILLEGAL_ACTION, f"{text} is not a legal action")
        return action

    def finish(self, scores: list[int]) -> None:
        return None

    def close(self) -> None:
        return None


def seats_wait_ready(seats: Sequence[Seat | None]) -> None:
    """Wait until every seat is ready or has failed to start: all at once, each by its own
    deadline, so that a silent bot costs the other seats nothing (their ``ready`` is read
    as it comes, and their stderr is drained meanwhile). ``None`` stands for a seat that
    needs no start (a person's)."""
    waiting = [seat for seat in seats if isinstance(seat, GuardedSeat) and seat.ready_pending()]
    others = [seat for seat in seats if seat is not None and not isinstance(seat, GuardedSeat)]
    for seat in others:  # a Seat of another kind waits on its own
        seat.wait_ready()
    while waiting:
        poller = select.poll()
        for seat in waiting:
            for fd in seat.ready_fds():
                poller.register(fd, select.POLLIN)
        remaining = min(seat.ready_deadline() for seat in waiting) - time.perf_counter()
        if remaining > 0:
            poller.poll(math.ceil(remaining * 1000))
        for seat in waiting:
            seat.ready_step()
        waiting = [seat for seat in waiting if seat.ready_pending()]


def seat_seed(seed: int | None, seat: int) -> int | None:
    """The seed of a seat's built-in bot in a match of ``seed`` (None: not reproducible)."""
    return None if seed is None else random.Random(seed * 1009 + seat).getrandbits(32)
