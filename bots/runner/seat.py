"""An uploaded bot at a seat: its process (sandboxed or not), the protocol, the clock.

Time is measured here, on the runner's side: a request's clock starts before the request
is written and stops when the whole answer line has been read. An answer may take
``move_ms``; what it takes beyond that comes out of the bank, and an answer later than
``move_ms`` plus what is left of the bank is a timeout (the bank is then empty). A late
answer is read and dropped before the bot's next request is written: the runner waits
for it at most ``move_ms`` (not counted against the next request; a bot still silent
then has timed out on that request too). An answer carrying an older ``id`` is skipped.
Before any timeout verdict the runner reads what the bot's pipe already holds.

Every line of the bot goes through bots.protocol's one reader (``read_ready``,
``read_answer``), which returns a message or a ProtocolFault and never raises: no bytes a
bot sends can end the match, they are that seat's ``protocol_error``.
"""

from __future__ import annotations

import contextlib
import math
import time

from bots.bundle import BotBundle
from bots.protocol import (
    Answer,
    ProtocolFault,
    TimeControl,
    encode,
    end_message,
    hello_message,
    read_answer,
    read_ready,
    request_message,
)
from bots.runner.process import (
    BotExitedError,
    BotLineTooLongError,
    BotProcess,
    BotTimeoutError,
)
from bots.runner.sandbox import BotFiles, Limits, SandboxUser
from bots.runner.spawner import spawner_pool
from bots.runner.warm import bot_start, warm_pool
from bots.runtimes import runtime_get
from bots.seats import GuardedSeat, Hello, Outcome
from engine.game import PlayerView

STOP_GRACE_SECONDS = 0.5
"""How long a bot may take to exit after ``end`` before it is killed."""

Transcript = list[tuple[str, bytes]]
"""Lines in order, each tagged ``runner`` (sent to the bot) or ``bot`` (its answer)."""


class UploadedSeat(GuardedSeat):
    """A bot's own code in its own process, for one match."""

    kind = "uploaded"

    def __init__(
        self,
        bundle: BotBundle,
        *,
        seed: int | None,
        sandboxed: bool = True,
        limits: Limits | None = None,
        transcript: Transcript | None = None,
        label: str | None = None,
    ) -> None:
        super().__init__(label or bundle.label, seed)
        self.bundle = bundle
        self.sandboxed = sandboxed
        self.limits = limits or Limits.for_runtime(bundle.runtime)
        self.transcript = transcript
        self.process: BotProcess | None = None
        self.files: BotFiles | None = None
        self.user: SandboxUser | None = None
        self.bank_ms = 0
        self.startup_ms: float | None = None
        """How long the bot took from its start to ``ready``."""
        self._request_id = 0
        self._owed = 0
        self._ready_deadline = 0.0
        self._start_called = 0.0
        self._ready = False
        self._hello: Hello | None = None

    # --- start ----------------------------------------------------------------------

    def start(self, hello: Hello) -> None:
        """Start the process and send ``hello``; SandboxUnavailableError if the sandbox is
        missing (nothing is started then); any other failure is the bot's init_failure."""
        self._hello = hello
        control = hello.time_control
        self.bank_ms = control.bank_ms
        self._start_called = time.perf_counter()
        spawners = spawner_pool() if self.sandboxed else None
        process: BotProcess | None
        process = spawners.child_start(self.bundle, self.limits) if spawners is not None else None
        if process is None:
            pool = warm_pool() if self.sandboxed else None
            started = pool.take(self.bundle, self.limits) if pool is not None else None
            if started is None:
                try:
                    started = bot_start(self.bundle, self.limits, sandboxed=self.sandboxed)
                except OSError as exc:
                    self.crash(None, Outcome.INIT_FAILURE, f"the bot could not be started: {exc}")
                    return
            self.user = started.user
            self.files = started.files
            process = started.process
        self.process = process
        # a warm bot (started before its match) has its allowance from its hello on
        clock_from = max(process.started_at, self._start_called)
        self._ready_deadline = clock_from + self.startup_allowance_ms / 1000
        message = hello_message(
            seat=hello.seat, seats=hello.game.num_seats, game=str(hello.game), time_control=control
        )
        self._send(encode(message), self._ready_deadline, Outcome.INIT_FAILURE)

    def ready_pending(self) -> bool:
        return self.process is not None and not self.replaced and not self._ready

    def ready_deadline(self) -> float:
        return self._ready_deadline

    def ready_fds(self) -> list[int]:
        return self.process.watched_fds() if self.process is not None else []

    def ready_step(self) -> None:
        process = self.process
        if process is None or not self.ready_pending():
            return
        expired = time.perf_counter() >= self._ready_deadline
        try:
            process.pump()  # what the pipe holds now, before any verdict
            line = process.take_line()
        except BotExitedError as exc:
            self.crash(None, Outcome.INIT_FAILURE, f"{exc} before it was ready")
            return
        except BotLineTooLongError as exc:
            self.crash(None, Outcome.INIT_FAILURE, f"answer to hello: {exc}")
            return
        if line is None:
            if expired:
                startup_ms = self.startup_allowance_ms
                self.crash(None, Outcome.INIT_FAILURE, f"no ready line within {startup_ms} ms")
            return
        self._log("bot", line)
        ready = read_ready(line)
        if isinstance(ready, ProtocolFault):
            self.crash(None, Outcome.INIT_FAILURE, f"answer to hello: {ready.problem}")
            return
        self._ready = True
        # what the match waited for this bot: from its start, or from the seat's start
        # for a bot started ahead in the warm pool (bots.runner.warm)
        clock_from = max(process.started_at, self._start_called)
        self.startup_ms = (time.perf_counter() - clock_from) * 1000
        self._report.startup_ms = self.startup_ms

    @property
    def startup_allowance_ms(self) -> int:
        """The time control's start-up allowance plus the runtime's own (a virtual
        machine's start: bots.runtimes.RuntimeProfile.startup_extra_ms)."""
        return (
            self.time_control.startup_ms + runtime_get(self.bundle.runtime).profile.startup_extra_ms
        )

    @property
    def time_control(self) -> TimeControl:
        assert self._hello is not None
        return self._hello.time_control

    # --- decisions ------------------------------------------------------------------

    def _decide(self, view: PlayerView) -> int:
        process = self.process
        if process is None:  # pragma: no cover - a failed start hands the seat over
            result = self.crash(view, Outcome.CRASH, "the bot is not running")
            assert result is not None
            return result
        control = self.time_control
        self._request_id += 1
        request_id = self._request_id
        line = b""
        answer: Answer | ProtocolFault = ProtocolFault("no answer")
        try:
            if self._owed:
                # a late answer to an earlier request: wait for it (at most one move's
                # time, not counted against this request) and drop it
                stale_deadline = time.perf_counter() + control.move_ms / 1000
                while self._owed:
                    self._log("bot", process.receive(stale_deadline))
                    self._owed -= 1
            started = time.perf_counter()
            deadline = started + (control.move_ms + self.bank_ms) / 1000
            view_json = view.to_json()
            message = request_message(
                request_id=request_id,
                view=view_json,
                legal=view_json["legal"],
                move_ms=control.move_ms,
                bank_ms=self.bank_ms,
            )
            request = encode(message)
            self._log("runner", request)
            process.send(request, deadline)
            self._owed += 1
            while True:
                line = process.receive(deadline)
                self._log("bot", line)
                self._owed -= 1
                answer = read_answer(line)
                if isinstance(answer, ProtocolFault):
                    break
                if answer.request_id is None or answer.request_id == request_id:
                    break
                if answer.request_id > request_id:
                    answer = ProtocolFault(f'"id" {answer.request_id} was never asked')
                    break
                self._owed += 1  # a late answer to an older request: skip it
        except BotTimeoutError:
            self.bank_ms = 0
            return self.strike(
                view,
                Outcome.TIMEOUT,
                f"request {request_id}: no answer within {control.move_ms} ms and the time bank",
            )
        except BotExitedError as exc:
            result = self.crash(view, Outcome.CRASH, f"request {request_id}: {exc}")
            assert result is not None
            return result
        except BotLineTooLongError as exc:
            result = self.crash(view, Outcome.PROTOCOL_ERROR, f"request {request_id}: {exc}")
            assert result is not None
            return result
        self._charge(started)  # the answer came: charge its time
        if isinstance(answer, ProtocolFault):
            shown = line[:200].decode("utf-8", errors="replace")
            return self.strike(
                view, Outcome.PROTOCOL_ERROR, f"request {request_id}: {answer.problem}: {shown!r}"
            )
        if answer.fallback is not None:
            self._report.fallback_note(answer.fallback)
        try:
            action = view.game.parse_action(answer.action)
        except Exception as exc:  # whatever the engine makes of the bot's string
            return self.strike(
                view, Outcome.ILLEGAL_ACTION, f"request {request_id}: {answer.action!r}: {exc}"
            )
        if action not in view.legal:
            return self.strike(
                view,
                Outcome.ILLEGAL_ACTION,
                f"request {request_id}: {answer.action!r} is not a legal action now",
            )
        return action

    def _charge(self, started: float) -> None:
        """Take the time beyond the move's allowance out of the bank."""
        over = (time.perf_counter() - started) * 1000 - self.time_control.move_ms
        if over > 0:
            self.bank_ms = max(0, self.bank_ms - math.ceil(over))

    def _send(self, line: bytes, deadline: float, cause: Outcome) -> bool:
        process = self.process
        if process is None:
            return False
        self._log("runner", line)
        try:
            process.send(line, deadline)
        except BotTimeoutError:
            self.crash(None, cause, "the bot does not read its input")
            return False
        except BotExitedError as exc:
            self.crash(None, cause, str(exc))
            return False
        return True

    def _log(self, who: str, line: bytes) -> None:
        if self.transcript is not None:
            self.transcript.append((who, line.rstrip(b"\n")))

    # --- end ------------------------------------------------------------------------

    def finish(self, scores: list[int]) -> None:
        """Tell the bot the match is over, and close its input."""
        process = self.process
        if process is None or self.replaced:
            return
        line = encode(end_message(scores=scores, outcome=self._report.outcome.value))
        self._log("runner", line)
        with contextlib.suppress(BotTimeoutError, BotExitedError):
            process.send(line, time.perf_counter() + 0.1)
        process.close_input()

    def _stop(self, grace: float = 0.0) -> None:
        process = self.process
        if process is not None:
            process.stop(grace)
            self._report.keep_log(process.stderr.text())
            self._memory_fault_report(process.memory_fault)
            self.process = None
        if self.user is not None:
            self._memory_fault_report(self.user.memory_fault())
            self.user.release()
            self.user = None
        if self.files is not None:
            self.files.cleanup()
            self.files = None

    def close(self) -> None:
        self._stop(STOP_GRACE_SECONDS)

    def _memory_fault_report(self, message: str | None) -> None:
        """A process of the seat killed for its memory, which no fault has said yet (the
        bot played on: only a child of it was killed), is the seat's crash."""
        if message is None:
            return
        if any("memory limit exceeded" in fault.message for fault in self._report.faults):
            return
        self._fault(Outcome.CRASH, message)
