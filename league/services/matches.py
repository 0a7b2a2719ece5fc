"""Match execution: claim, replay, play, store every event, finish once.

Why this module is long: claiming a match, storing its events under the lease, a person's
turn, finishing it once and the sweep are the steps of one match's life in the database,
each guarding the invariants (attempts, lease, status) that the others rely on.

The database is the truth (docs/league.md):

1. ``match_run`` (the ``run_match`` task) claims a queued match with one conditional
   UPDATE (queued -> running, ``attempts + 1``, a lease); a duplicate task finds nothing
   to claim and returns.
2. It rebuilds the engine state from the game string and the seed and replays the
   stored events: they are authoritative, so a re-run after a lost worker continues the
   same game (chance events are checked against the seed's).
3. It plays on with the one play loop, bots.match.seats_play (a built-in bot in process,
   an uploaded bot in its sandbox), whose hooks (``StoredPlay``) store the events in small
   batches (``FLUSH_SECONDS``) inside transactions that renew the lease only while
   ``attempts`` still equals its claim: a worker that lost its lease stops at its next
   write.
4. When a person is to act, the hooks store what was played and release the match
   (running, no lease, a ``deadline``), and the loop stops; the person's move
   (``match_person_act``) or the fallback at the deadline (``matches_sweep``) applies it
   and queues the continuation.
5. ``match_finish`` writes the result, the seats' outcomes and the standings input, as
   league.services.match_results.match_result_assemble makes them, in one transaction
   under a row lock; a second completion finds the match finished and does nothing (and
   the one-to-one result could not be stored twice anyway).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, cast

from django.conf import settings
from django.db import IntegrityError, InterfaceError, OperationalError, connection, transaction
from django.db.models import F, Prefetch
from django.utils import timezone
from django.utils.translation import gettext as _

import psycopg

from bots.builtin import BUILTIN_PLAYERS
from bots.match import deciding_seat, seats_play
from bots.models import BotFault, BotVersion
from bots.protocol import TimeControl as BotTimeControl
from bots.runner.sandbox import sandbox_unavailable_reason
from bots.runner.seat import UploadedSeat
from bots.seats import (
    BuiltinSeat,
    Fault,
    GuardedSeat,
    Hello,
    Outcome,
    ReplacementPlayer,
    SeatReport,
    seat_seed,
)
from bots.services import bot_version_bundle
from engine.chance import Chance
from engine.errors import IllegalActionError
from engine.game import PlayerView, State
from league.domain.ladder_results import MACHINE_FAULT
from league.domain.presence import deal_started
from league.domain.public_events import PublicEvents
from league.errors import InvalidInputError, NotFoundError
from league.live_updates import (
    match_finished,
    match_updated,
    person_updated,
    tournament_progressed,
)
from league.models import PERSON_MAX_STRIKES as PERSON_MAX_STRIKES
from league.models import (
    Match,
    MatchEvent,
    MatchResult,
    MatchSeat,
    MatchStatus,
    NotificationKind,
    Round,
    TimeControl,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)
from league.selectors.matches import User, match_seat_get_for_owner
from league.selectors.replays import (
    MatchLogError,
    Replay,
    match_replay,
    match_state_keep,
    match_state_read,
)
from league.services.analysis import analyses_sweep, analysis_queue
from league.services.ladders import ladder_match_finished, seat_logs_store
from league.services.match_lanes import match_run_enqueue
from league.services.match_notices import (
    deadline_near,
    deadline_near_notify,
    moved_for_you_notify,
    your_move_notify,
)
from league.services.match_results import match_result_assemble, seat_outcome_and_faults
from league.services.notifications import match_notices_done
from league.services.presence import absent_seats_return, seat_replaced_now
from league.services.ratings import ratings_enqueue
from league.services.standings import standings_apply_result
from league.services.task_outbox import task_enqueue
from league.task_names import RATINGS_UPDATE
from league.words.engine_refusals import refusal_in_language

logger = logging.getLogger(__name__)

MAX_LEASE_EXPIRIES = 3
"""A match whose lease ran out this many times (its worker died each time) is an error."""
FLUSH_SECONDS = 0.25
"""Events are written at least this often while a match plays (and at every hand-over)."""
CORRESPONDENCE_BOT_MOVE_SECONDS = 30.0
"""A bot's time per move in a correspondence game (the people's hours are not the bots')."""
RELEASE_RETRY_SECONDS = (0.5, 1.0, 2.0)
"""Waits between tries to release a failed run's claim while the database is away (the
last one repeats, for at most the lease, match_lease_seconds(), in all)."""


class LeaseLostError(Exception):
    """This worker no longer holds the match (its lease ran out and another claimed it)."""


EventRow = tuple[int, int, int | None, str, dict[str, Any] | None, float | None]
"""(match, index, seat, action, chance, ms): one ``MatchEvent`` row (the database sets
``created_at``)."""
EVENT_COLUMNS = ("match_id", "index", "seat", "action", "chance", "ms")


def _event_rows(
    match_id: int, state: State[Any], start: int, times: dict[int, float]
) -> list[EventRow]:
    """The rows of ``state.log[start:]``."""
    game = state.game
    rows: list[EventRow] = []
    for index in range(start, len(state.log)):
        entry = state.log[index]
        if isinstance(entry, Chance):
            rows.append((match_id, index, None, "", entry.to_json(), None))
        else:
            action = game.action_to_string(entry & 1023)
            rows.append((match_id, index, entry >> 10, action, None, times.get(index)))
    return rows


def _copy_text(value: str) -> str:
    return (
        value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    )


def events_insert(rows: Sequence[EventRow]) -> float:
    """Insert event rows in the current transaction and return the seconds it took: one
    COPY on PostgreSQL, written as text in one piece (several times cheaper than an ORM
    bulk insert; bench/league.py measures it), a bulk insert elsewhere. A row that exists
    already (another worker wrote that index) raises IntegrityError, as the unique
    constraint promises."""
    began = time.perf_counter()
    if not rows:
        return 0.0
    if connection.vendor != "postgresql":
        MatchEvent.objects.bulk_create(
            MatchEvent(**dict(zip(EVENT_COLUMNS, row, strict=True))) for row in rows
        )
        return time.perf_counter() - began
    lines = []
    for match_id, index, seat, action, chance, ms in rows:
        if chance is None:
            ms_text = "\\N" if ms is None else f"{ms:.3f}"
            lines.append(f"{match_id}\t{index}\t{seat}\t{_copy_text(action)}\t\\N\t{ms_text}\n")
        else:
            chance_text = _copy_text(json.dumps(chance, separators=(",", ":")))
            lines.append(f"{match_id}\t{index}\t\\N\t\t{chance_text}\t\\N\n")
    columns = ", ".join(f'"{c}"' for c in EVENT_COLUMNS)
    with connection.cursor() as cursor:
        try:
            with cursor.cursor.copy(f'COPY "league_matchevent" ({columns}) FROM STDIN') as copy:
                copy.write("".join(lines))
        except psycopg.errors.UniqueViolation as exc:
            raise IntegrityError(str(exc)) from exc
    return time.perf_counter() - began


# ---------------------------------------------------------------- claim and lease


def worker_name(node: str | None = None) -> str:
    """Who plays a match, as ``Match.worker`` and ``Match.played_by`` keep it: the Celery
    node's name (``--hostname``, e.g. ``celery@host2``; the machine's name outside a
    worker) and the process."""
    return f"{node or socket.gethostname()}:{os.getpid()}"


def match_lease_seconds() -> float:
    """A worker's lease on a match, renewed at every write (settings.MATCH_LEASE_SECONDS);
    the match's move time and time bank are added to it (_lease_seconds)."""
    return float(settings.MATCH_LEASE_SECONDS)


def match_resend_seconds() -> float:
    """A match queued this long gets its task sent again (settings.MATCH_RESEND_SECONDS)."""
    return float(settings.MATCH_RESEND_SECONDS)


def bot_move_seconds(tournament: Tournament) -> float:
    """A bot's time per move: the tournament's in a live game; in a correspondence game,
    whose move time is the people's hours or days, CORRESPONDENCE_BOT_MOVE_SECONDS."""
    if tournament.time_control == TimeControl.LIVE:
        return tournament.move_seconds
    return min(tournament.move_seconds, CORRESPONDENCE_BOT_MOVE_SECONDS)


def person_deadline(*, tournament: Tournament, round_: Round, now: datetime) -> datetime:
    """When a person who is to act from ``now`` must have moved: the move time later, but
    never later than the round's play-by date (docs/league.md, *Time controls*)."""
    deadline = now + timedelta(seconds=tournament.move_seconds)
    if round_.play_by is not None and round_.play_by < deadline:
        return round_.play_by
    return deadline


def _lease_seconds(match: Match) -> float:
    tournament = match.tournament
    return match_lease_seconds() + bot_move_seconds(tournament) + tournament.time_bank_seconds


def match_claim(*, match_id: int, worker: str, now: datetime | None = None) -> int | None:
    """Claim a queued match: queued -> running with a lease. Returns the claim's number
    (``attempts``), or None when there is nothing to claim (a duplicate task, a match
    already finished, or its tournament paused)."""
    now = now or timezone.now()
    match = Match.objects.select_related("tournament").filter(pk=match_id).first()
    if match is None or match.status != MatchStatus.QUEUED:
        return None
    if match.tournament.status == TournamentStatus.PAUSED:
        return None  # resume sends its task again
    with transaction.atomic():
        # Conditions on the match row only: PostgreSQL re-checks them after waiting for a
        # concurrent claim's lock, so exactly one of two racing claims updates the row
        # (a condition through a join would be a subquery, checked on the old snapshot).
        claimed = Match.objects.filter(pk=match_id, status=MatchStatus.QUEUED).update(
            status=MatchStatus.RUNNING,
            attempts=F("attempts") + 1,
            lease_until=now + timedelta(seconds=_lease_seconds(match)),
            worker=worker,
            started_at=match.started_at or now,
            deadline=None,
            waiting_seat=None,
        )
        if claimed != 1:
            return None
        # The UPDATE holds the row lock until commit: nobody changed attempts since.
        return Match.objects.values_list("attempts", flat=True).get(pk=match_id)


# ---------------------------------------------------------------- seats


class LeagueBuiltinSeat(BuiltinSeat):
    """A built-in bot version: ``bots.builtin`` player by name, with its options."""

    def __init__(self, name: str, seed: int | None, options: dict[str, Any]) -> None:
        super().__init__(name, seed)
        if options:
            factory = cast(Any, BUILTIN_PLAYERS[name])
            self.player = factory(seed, **options)


class ReplacementSeat(BuiltinSeat):
    """Plays for a person who forfeited (missed too many deadlines)."""

    def __init__(self, seed: int | None) -> None:
        super().__init__("greedy", seed)
        self.player = ReplacementPlayer(seed)


class UnavailableSeat(GuardedSeat):
    """An uploaded bot on a machine without the sandbox: it fails to start and the
    replacement bot plays its seat (the fault policy of bots.seats)."""

    kind = "uploaded"

    def __init__(self, label: str, seed: int | None, reason: str) -> None:
        super().__init__(label, seed)
        self.reason = reason

    def start(self, hello: Hello) -> None:
        self.crash(None, Outcome.INIT_FAILURE, f"{MACHINE_FAULT}: {self.reason}")

    def wait_ready(self) -> None:
        return None

    def finish(self, scores: list[int]) -> None:
        return None

    def close(self) -> None:
        return None


def _seat_player(match: Match, row: MatchSeat) -> GuardedSeat | None:
    """What plays a seat in the worker; None for a person (who moves through the API)."""
    seed = seat_seed(match.seed, row.seat)
    version: BotVersion | None = row.competitor.bot_version
    if version is None:
        return ReplacementSeat(seed) if row.replaced else None
    if version.is_builtin:
        return LeagueBuiltinSeat(version.builtin_name, seed, version.builtin_options())
    reason = sandbox_unavailable_reason()
    if reason is not None:
        return UnavailableSeat(version.label, seed, reason)
    return UploadedSeat(bot_version_bundle(version), seed=seed, label=version.label)


def _time_control(match: Match) -> BotTimeControl:
    tournament = match.tournament
    return BotTimeControl(
        move_ms=max(1, round(bot_move_seconds(tournament) * 1000)),
        bank_ms=max(0, round(tournament.time_bank_seconds * 1000)),
    )


# ---------------------------------------------------------------- writing events


@dataclass
class PlayStats:
    """What a worker's run of a match cost (bench/league.py reads it)."""

    outcome: str = ""
    events: int = 0
    engine_seconds: float = 0.0
    """Choosing and applying actions: the bots and the rules."""
    store_seconds: float = 0.0
    """Writing events: the batches (with their lease renewals) and the last events."""
    finish_seconds: float = 0.0
    """The finishing transaction as a whole (result, record, outcomes, notifications)."""
    flushes: int = 0


@dataclass
class EventWriter:
    """Stores a running match's new events in batches, renewing the lease each time."""

    match: Match
    attempt: int
    state: State[Any]
    times: dict[int, float]
    stored: int
    stats: PlayStats
    last_flush: float = field(default_factory=time.perf_counter)
    public: PublicEvents = field(init=False)
    """The stored events as the match's watchers are told them (league.live_updates)."""

    def __post_init__(self) -> None:
        self.public = PublicEvents(self.state)

    def flush_due(self) -> bool:
        return time.perf_counter() - self.last_flush >= FLUSH_SECONDS

    def flush(self) -> None:
        began = time.perf_counter()
        state = self.state
        rows = _event_rows(self.match.pk, state, self.stored, self.times)
        now = timezone.now()
        try:
            with transaction.atomic():
                renewed = Match.objects.filter(
                    pk=self.match.pk, attempts=self.attempt, status=MatchStatus.RUNNING
                ).update(
                    lease_until=now + timedelta(seconds=_lease_seconds(self.match)),
                    events_stored=len(state.log),
                    deals_done=len(state.deal_scores),
                )
                if renewed != 1:
                    raise LeaseLostError(f"match {self.match.pk}: claim {self.attempt} is over")
                if rows:
                    events_insert(rows)
                    match_updated(self.match.pk, len(state.log) - 1, self.public.since(state))
        except IntegrityError as exc:
            raise LeaseLostError(f"match {self.match.pk}: another worker wrote first") from exc
        self.stored = len(state.log)
        self.last_flush = time.perf_counter()
        self.stats.flushes += 1
        self.stats.events += len(rows)
        self.stats.store_seconds += self.last_flush - began


# ---------------------------------------------------------------- playing


def match_run(*, match_id: int, worker: str | None = None) -> PlayStats:
    """The body of the ``run_match`` task: claim, replay, play the bot seats, store."""
    worker = worker or worker_name()
    attempt = match_claim(match_id=match_id, worker=worker)
    if attempt is None:
        return PlayStats(outcome="not claimed")
    try:
        return _match_play(match_id=match_id, attempt=attempt)
    except LeaseLostError as exc:
        logger.warning("%s", exc)
        return PlayStats(outcome="lease lost")
    except Exception:
        # A bug or a lost database: end the claim now (once the database answers again),
        # so that the match is re-queued at once rather than when its lease runs out.
        logger.exception("match %s failed in claim %s", match_id, attempt)
        match_claim_release(
            match_id=match_id, attempt=attempt, error=traceback.format_exc(limit=5)[-4000:]
        )
        return PlayStats(outcome="failed")


def match_claim_release(
    *, match_id: int, attempt: int, error: str, patience: float | None = None
) -> str | None:
    """End claim ``attempt`` of a run that failed and re-queue the match (an error after
    MAX_LEASE_EXPIRIES, as when a worker is lost). While the database cannot be reached,
    try again with backoff for at most ``patience`` seconds (after that the lease runs out
    and a sweep re-queues the match). The match's status afterwards, or None when the
    claim was over already or the database never came back."""
    give_up_at = time.monotonic() + (match_lease_seconds() if patience is None else patience)
    waits = iter(RELEASE_RETRY_SECONDS)
    wait = 0.0
    while True:
        try:
            now = timezone.now()
            released = Match.objects.filter(
                pk=match_id, attempts=attempt, status=MatchStatus.RUNNING
            ).update(lease_until=now - timedelta(milliseconds=1), error=error)
            if released != 1:
                return None
            return match_lease_expire(match_id=match_id, now=now)
        except (OperationalError, InterfaceError) as exc:
            connection.close()  # a new connection for the next try
            wait = next(waits, wait)
            if time.monotonic() + wait > give_up_at:
                logger.warning("match %s: claim %s not released: %s", match_id, attempt, exc)
                return None
            logger.info("match %s: the database is away; releasing in %g s", match_id, wait)
            time.sleep(wait)


def _match_play(*, match_id: int, attempt: int) -> PlayStats:
    match = Match.objects.select_related("tournament", "round").get(pk=match_id)
    rows = list(match.seats.select_related("competitor__bot_version__bot").order_by("seat"))
    replay = match_replay(match)
    stats = PlayStats()
    writer = EventWriter(match, attempt, replay.state, replay.times, replay.stored, stats)
    players = [_seat_player(match, row) for row in rows]
    played = seats_play(
        replay.state,
        players,
        time_control=_time_control(match),
        times=replay.times,
        hooks=StoredPlay(
            match=match,
            attempt=attempt,
            rows=rows,
            players=players,
            writer=writer,
            deal=replay.state.deal_number,
        ),
    )
    stats.engine_seconds += played.engine_seconds
    if played.waiting_seat is not None:
        stats.outcome = "waiting for a person"
        return stats
    state = played.state
    began = time.perf_counter()
    finished = match_finish(
        match_id=match_id,
        attempt=attempt,
        state=state,
        times=played.times,
        stored=writer.stored,
        reports=played.reports,
        stats=stats,
        events=writer.public.since(state),
    )
    stats.finish_seconds += time.perf_counter() - began
    stats.events += len(state.log) - writer.stored
    stats.outcome = "finished" if finished else "finished already"
    return stats


@dataclass
class StoredPlay:
    """The league's part of the play loop (bots.match.seats_play's hooks): the events are
    stored in batches while the lease is renewed, and a person's turn ends the run."""

    match: Match
    attempt: int
    rows: Sequence[MatchSeat]
    players: Sequence[GuardedSeat | None]
    writer: EventWriter

    deal: int
    """The deal under way (a new one is when a person replaced by a bot comes back)."""

    def actions_applied(self, state: State[Any], times: dict[int, float]) -> None:
        if self.writer.flush_due():
            self.writer.flush()
        if state.deal_number != self.deal:
            self.deal = state.deal_number
            self._absent_return()

    def _absent_return(self) -> None:
        """A deal starts: a person the others replaced by a bot, and who is back at the
        table, takes their seat again (league.services.presence)."""
        for seat in absent_seats_return(match_id=self.match.pk):
            player = self.players[seat]
            if isinstance(player, ReplacementSeat):
                player.close()
                cast(list[GuardedSeat | None], self.players)[seat] = None

    def person_to_act(self, state: State[Any], seat: int) -> int | None:
        """Store what was played, keep the bots' faults, release the match to the person
        (their move or the fallback at the deadline continues it): stop here. If the
        others have just seated a bot for them (they are gone), the bot plays on."""
        self.writer.flush()
        _seat_reports_store(self.match, self.rows, self.players)
        row = next(r for r in self.rows if r.seat == seat)
        assert row.competitor.user_id is not None  # a person's seat: no player in the loop
        try:
            _match_wait_for_person(
                match=self.match,
                attempt=self.attempt,
                seat=seat,
                user_id=row.competitor.user_id,
                decision=len(state.log),
            )
        except _BotSeatedError:
            player = ReplacementSeat(seat_seed(self.match.seed, seat))
            player.start(Hello(state.game, seat, _time_control(self.match)))
            cast(list[GuardedSeat | None], self.players)[seat] = player
            return player.choose(state.view_for(seat))
        return None


class _BotSeatedError(Exception):
    """The seat's person was replaced by a bot while the worker played: no hand-over."""


def _seat_reports_store(
    match: Match, rows: Sequence[MatchSeat], players: Sequence[GuardedSeat | None]
) -> None:
    """Keep the bots' faults so far on their seats (a person's hand-over ends the run)."""
    for row, player in zip(rows, players, strict=True):
        if player is None or row.competitor.bot_version is None:
            continue
        report = player.report()
        if report.faults:
            outcome, faults = seat_outcome_and_faults(row, report)
            MatchSeat.objects.filter(pk=row.pk).update(outcome=outcome, faults=faults)


def _match_wait_for_person(
    *, match: Match, attempt: int, seat: int, user_id: int, decision: int
) -> None:
    """Hand the match to the person at ``seat`` (to make move ``decision``) and tell them,
    in one transaction: nobody waits on a person who was not told."""
    now = timezone.now()
    deadline = person_deadline(tournament=match.tournament, round_=match.round, now=now)
    with transaction.atomic():
        updated = Match.objects.filter(
            pk=match.pk, attempts=attempt, status=MatchStatus.RUNNING
        ).update(lease_until=None, worker="", waiting_seat=seat, deadline=deadline)
        if updated != 1:
            raise LeaseLostError(f"match {match.pk}: claim {attempt} is over")
        # The UPDATE holds the match's row lock, which a vote to seat a bot holds too.
        if seat_replaced_now(match_id=match.pk, seat=seat):
            raise _BotSeatedError  # rolls the hand-over back
        your_move_notify(
            match=match,
            user_id=user_id,
            seat=seat,
            decision=decision,
            deadline=deadline,
            now=now,
        )
        person_updated(user_id)


# ---------------------------------------------------------------- finishing


def match_finish(
    *,
    match_id: int,
    attempt: int | None,
    state: State[Any],
    times: dict[int, float],
    stored: int,
    reports: Sequence[SeatReport | None],
    stats: PlayStats | None = None,
    events: list[dict[str, Any]] | None = None,
) -> bool:
    """Write the result, the seats' outcomes and the standings input in one transaction.

    Returns False (and writes nothing) when the match is finished already: a second
    completion is a no-op. ``attempt`` None means the caller holds the row lock already
    (a person's last move). ``events``: the last events as the watchers are told them."""
    with transaction.atomic():
        match = (
            Match.objects.select_for_update().select_related("tournament", "round").get(pk=match_id)
        )
        if (
            match.status == MatchStatus.FINISHED
            or MatchResult.objects.filter(match_id=match_id).exists()
        ):
            return False
        if attempt is not None and (
            match.attempts != attempt or match.status != MatchStatus.RUNNING
        ):
            raise LeaseLostError(f"match {match_id}: claim {attempt} is over")
        seconds = _result_write(
            match=match, state=state, times=times, stored=stored, reports=reports, events=events
        )
    if stats is not None:
        stats.store_seconds += seconds
    return True


def _result_write(
    *,
    match: Match,
    state: State[Any],
    times: dict[int, float],
    stored: int,
    reports: Sequence[SeatReport | None],
    events: list[dict[str, Any]] | None = None,
) -> float:
    """Store a finished match: its last events, what ``match_result_assemble`` makes of
    it, the match's end; then hand the result to the standings, the ratings and the
    notifications (``events``: the last events as the match's watchers are told them,
    league.domain.public_events). Returns the seconds spent writing the last events."""
    now = timezone.now()
    began = time.perf_counter()
    events_insert(_event_rows(match.pk, state, stored, times))
    events_seconds = time.perf_counter() - began
    rows = list(match.seats.select_related("competitor__bot_version__bot").order_by("seat"))
    assembled = match_result_assemble(
        match=match, rows=rows, state=state, times=times, reports=reports, finished=now
    )
    by_pk = {row.pk: row for row in rows}
    for change in assembled.seat_changes:
        MatchSeat.objects.filter(pk=change.row_id).update(
            outcome=change.outcome, faults=change.faults
        )
        by_pk[change.row_id].outcome = change.outcome  # for the ladder, below
        by_pk[change.row_id].faults = change.faults
    seat_logs_store(match=match, rows=rows, reports=reports)
    result = MatchResult.objects.create(
        match=match,
        scores=assembled.scores,
        outcomes=assembled.outcomes,
        faults=assembled.faults,
        standings_input=assembled.standings_input,
        record=assembled.record,
        created_at=now,
    )
    standings_apply_result(match_result=result)  # in this transaction
    ratings_enqueue([result.pk])  # waiting to be rated: committed with the result
    task_enqueue(RATINGS_UPDATE)  # the serial `ratings` queue
    if assembled.bot_faults:
        BotFault.objects.bulk_create(assembled.bot_faults)
    if match.tournament.format == TournamentFormat.LADDER:
        ladder_match_finished(match=match, rows=rows, now=now)
    match.status = MatchStatus.FINISHED
    match.finished_at = now
    match.lease_until = None
    match.deadline = None
    match.waiting_seat = None
    match.played_by = match.worker  # kept for operators: which machine and process played it
    match.worker = ""
    match.events_stored = len(state.log)
    match.deals_done = len(state.deal_scores)
    match.save(
        update_fields=[
            "status",
            "finished_at",
            "lease_until",
            "deadline",
            "waiting_seat",
            "played_by",
            "worker",
            "events_stored",
            "deals_done",
        ]
    )
    if any(row.competitor.user_id is not None for row in rows):
        analysis_queue(match=match)  # a game with people: analysed on the `analysis` queue
    match_finished(
        match_id=match.pk,
        tournament_id=match.tournament_id,
        event_index=len(state.log) - 1,
        events=events,
    )
    return events_seconds


# ---------------------------------------------------------------- people


def _move_answered(*, match: Match, mover: int | None, now: datetime) -> None:
    """The mover's notices of the move they made are answered (their counts change)."""
    if mover is None:
        return
    match_notices_done(
        user_id=mover,
        match_id=match.pk,
        kinds=(NotificationKind.YOUR_MOVE, NotificationKind.DEADLINE_NEAR),
        now=now,
    )
    person_updated(mover)


def _person_moved(
    *,
    match: Match,
    replay: Replay,
    rows: Sequence[MatchSeat],
    now: datetime,
    public: PublicEvents,
    mover: int | None = None,
) -> None:
    """After a person's action (or its fallback) was applied to ``replay.state``, with the
    row locked: store it and decide what comes next. ``public`` follows the state as it
    was before the action (the watchers are told the new events); ``mover``: the account
    that moved, whose notices of this move are answered."""
    state = replay.state
    events = public.since(state)
    if state.is_terminal():
        _move_answered(match=match, mover=mover, now=now)
        _result_write(
            match=match,
            state=state,
            times=replay.times,
            stored=replay.stored,
            reports=[None] * len(rows),
            events=events,
        )
        return
    events_insert(_event_rows(match.pk, state, replay.stored, replay.times))
    # The match's watchers first: the commit's hooks run in the order they were added, and
    # the pages at the table wait for this one; people's counts and notices can follow.
    match_updated(match.pk, len(state.log) - 1, events)
    _move_answered(match=match, mover=mover, now=now)  # before the next: it may be theirs
    match.events_stored = len(state.log)
    match.deals_done = len(state.deal_scores)
    if deal_started(deal_starts=state.deal_starts, stored=replay.stored):
        back = absent_seats_return(match_id=match.pk)
        for returned in rows:
            returned.replaced = False if returned.seat in back else returned.replaced
    seat = deciding_seat(state)
    row = next(r for r in rows if r.seat == seat)
    if row.competitor.user_id is not None and not row.replaced:
        match.waiting_seat = seat
        match.deadline = person_deadline(tournament=match.tournament, round_=match.round, now=now)
        your_move_notify(
            match=match,
            user_id=row.competitor.user_id,
            seat=seat,
            decision=len(state.log),
            deadline=match.deadline,
            now=now,
        )
        person_updated(row.competitor.user_id)
    else:
        match.status = MatchStatus.QUEUED
        match.waiting_seat = None
        match.deadline = None
        match.queued_at = now
        match_run_enqueue(match.pk)  # a person sits here: the interactive lane
    match.save(
        update_fields=[
            "events_stored",
            "deals_done",
            "waiting_seat",
            "deadline",
            "status",
            "queued_at",
        ]
    )


def match_person_act(
    *, match: Match, seat: int, action: str, now: datetime | None = None
) -> PlayerView:
    """Apply a person's action at ``seat`` (the caller checked that the seat is theirs).

    InvalidInputError naming the rule for an illegal action or one out of turn; nothing
    is stored then. Returns the seat's new view."""
    return _person_act(match_id=match.pk, seat=seat, action=action, user=None, now=now).view


def match_person_move(
    *, match_id: int, seat: int, user: User, action: str, now: datetime | None = None
) -> Match:
    """The person ``user`` plays ``action`` at their ``seat`` (the API's move): the match
    is read once, locked, with its seats (NotFoundError: no such match or seat;
    NotAllowedError: the seat is not ``user``'s), the action applied as
    ``match_person_act`` does. Returns the match as it stands after the move, its seats
    read with it (``match.seats.all()``): what the mover's answer shows."""
    return _person_act(match_id=match_id, seat=seat, action=action, user=user, now=now).match


@dataclass(frozen=True)
class _PersonAct:
    match: Match
    """As it stands after the move, with its seats prefetched."""
    view: PlayerView


def _person_act(
    *, match_id: int, seat: int, action: str, user: User | None, now: datetime | None
) -> _PersonAct:
    """A person's action at ``seat``; ``user``: check that the seat is theirs (None: the
    caller did)."""
    now = now or timezone.now()
    seats = MatchSeat.objects.select_related("competitor__bot_version__bot").order_by("seat")
    with transaction.atomic():
        locked = (
            Match.objects.select_for_update(of=("self", "tournament"))
            .select_related("tournament", "round")
            .prefetch_related(Prefetch("seats", queryset=seats))
            .filter(pk=match_id)
            .first()
        )
        if locked is None:
            raise NotFoundError(_("no match %(match_id)s") % {"match_id": match_id})
        if user is not None:
            match_seat_get_for_owner(match=locked, seat=seat, user=user)
        if locked.status == MatchStatus.FINISHED:
            raise InvalidInputError(_("the match is over"))
        if locked.status == MatchStatus.ERROR:
            raise InvalidInputError(_("the match was stopped by an error"))
        # A copy of the position the pages have just read (kept per process), not a replay
        # of every stored event: the move's time is the only one this write needs.
        replay = Replay(
            state=match_state_read(locked).clone(), times={}, stored=locked.events_stored
        )
        state = replay.state
        if state.is_terminal():
            raise InvalidInputError(_("the match is over"))
        to_act = deciding_seat(state)
        if locked.waiting_seat != seat or to_act != seat:
            raise InvalidInputError(
                _("not your turn: seat %(to_act)s is to act") % {"to_act": to_act}
            )
        public = PublicEvents(state)
        try:
            code = state.parse_action(action)
            index = len(state.log)
            state.apply_action(code, seat=seat)
        except IllegalActionError as exc:
            raise InvalidInputError(refusal_in_language(exc)) from None
        over = state.is_terminal()
        if over:  # the record is written now and needs every move's time
            replay = match_replay(locked)
            state = replay.state
            state.apply_action(code, seat=seat)
        if locked.deadline is not None:
            budget_ms = locked.tournament.move_seconds * 1000
            left_ms = (locked.deadline - now).total_seconds() * 1000
            replay.times[index] = min(budget_ms, max(0.0, budget_ms - left_ms))
        rows = list(locked.seats.all())
        mover = next(r for r in rows if r.seat == seat).competitor.user_id
        _person_moved(match=locked, replay=replay, rows=rows, now=now, public=public, mover=mover)
        if not over:
            # The position every page reads next, kept once it is committed: no replay
            # for the mover's answer nor for the others' reads of it in this process.
            kept = state
            transaction.on_commit(lambda: match_state_keep(locked, kept))
    return _PersonAct(match=locked, view=state.view_for(seat))


def match_deadline_expire(*, match_id: int, now: datetime) -> bool:
    """Play the fallback (the first legal action) for a person whose deadline passed and
    count a strike; at PERSON_MAX_STRIKES the seat is forfeited to a built-in bot."""
    with transaction.atomic():
        match = (
            Match.objects.select_for_update(skip_locked=True, of=("self", "tournament"))
            .select_related("tournament", "round")
            .filter(pk=match_id, status=MatchStatus.RUNNING, deadline__lt=now)
            .first()
        )
        if match is None or match.waiting_seat is None or match.deadline is None:
            return False
        missed = match.deadline
        replay = match_replay(match)
        state = replay.state
        seat = match.waiting_seat
        if state.is_terminal() or deciding_seat(state) != seat:
            raise MatchLogError(f"match {match_id}: waiting for seat {seat}, who is not to act")
        rows = list(match.seats.select_related("competitor__bot_version").order_by("seat"))
        row = next(r for r in rows if r.seat == seat)
        fallback = state.view_for(seat).legal[0]
        index = len(state.log)
        public = PublicEvents(state)
        state.apply_action(fallback, seat=seat)
        replay.times[index] = match.tournament.move_seconds * 1000
        row.strikes += 1
        fault = Fault(
            Outcome.TIMEOUT,
            f"no move within {match.tournament.move_seconds:g} s",
            decision=index,
            deal=state.deal_number,
            fallback=state.game.action_to_string(fallback),
        )
        row.faults = [*row.faults, fault.to_json()]
        row.outcome = Outcome.TIMEOUT if row.outcome == Outcome.OK else row.outcome
        if row.strikes >= PERSON_MAX_STRIKES:
            row.replaced = True
            row.outcome = Outcome.FORFEIT
        row.save(update_fields=["strikes", "faults", "outcome", "replaced"])
        if row.competitor.user_id is not None:
            moved_for_you_notify(
                match=match,
                user_id=row.competitor.user_id,
                seat=seat,
                index=index,
                action=fallback,
                deadline=missed,
                strikes=row.strikes,
                max_strikes=PERSON_MAX_STRIKES,
                forfeit=row.replaced,
            )
        _person_moved(match=match, replay=replay, rows=rows, now=now, public=public)
    return True


# ---------------------------------------------------------------- the sweep (beat)


@dataclass
class SweepReport:
    requeued: list[int] = field(default_factory=list)
    errored: list[int] = field(default_factory=list)
    fallbacks: list[int] = field(default_factory=list)
    resent: list[int] = field(default_factory=list)
    deadlines_near: list[int] = field(default_factory=list)
    analyses_resent: list[int] = field(default_factory=list)
    analyses_failed: list[int] = field(default_factory=list)


def match_lease_expire(*, match_id: int, now: datetime) -> str | None:
    """Re-queue a running match whose lease ran out, or mark it an error after
    MAX_LEASE_EXPIRIES; None if its lease is in fact alive."""
    with transaction.atomic():
        match = (
            Match.objects.select_for_update(skip_locked=True)
            .filter(pk=match_id, status=MatchStatus.RUNNING, lease_until__lt=now)
            .first()
        )
        if match is None:
            return None
        match.lease_expiries += 1
        match.lease_until = None
        match.worker = ""
        if match.lease_expiries >= MAX_LEASE_EXPIRIES:
            match.status = MatchStatus.ERROR
            match.error = (
                f"its worker was lost {match.lease_expiries} times; last: "
                f"{match.error or 'no message'}"
            )[:4000]
        else:
            match.status = MatchStatus.QUEUED
            match.queued_at = now
            match_run_enqueue(match.pk)  # its lane, as when it was first queued
        match.save(
            update_fields=[
                "lease_expiries",
                "lease_until",
                "worker",
                "status",
                "error",
                "queued_at",
            ]
        )
        if match.status == MatchStatus.ERROR:
            match_updated(match.pk, match.events_stored - 1)
            tournament_progressed(match.tournament_id)
        return str(match.status)


def matches_sweep(*, now: datetime | None = None) -> SweepReport:
    """What beat and every worker's sweeper run every few seconds: expired leases, passed
    deadlines, lost tasks, lost analyses. Safe to run in several processes at once: each
    match is changed under its row lock and only if it is still in the state that was
    looked for."""
    now = now or timezone.now()
    report = SweepReport()
    for match_id in Match.objects.filter(
        status=MatchStatus.RUNNING, lease_until__lt=now
    ).values_list("id", flat=True):
        outcome = match_lease_expire(match_id=match_id, now=now)
        if outcome == MatchStatus.QUEUED:
            report.requeued.append(match_id)
        elif outcome == MatchStatus.ERROR:
            report.errored.append(match_id)
    for match_id in Match.objects.filter(status=MatchStatus.RUNNING, deadline__lt=now).values_list(
        "id", flat=True
    ):
        try:
            if match_deadline_expire(match_id=match_id, now=now):
                report.fallbacks.append(match_id)
        except MatchLogError:
            logger.exception("match %s: cannot apply the fallback", match_id)
    report.deadlines_near = deadlines_near_notify(now=now)
    queued_before = now - timedelta(seconds=match_resend_seconds())
    stale = Match.objects.filter(status=MatchStatus.QUEUED, queued_at__lt=queued_before).exclude(
        tournament__status=TournamentStatus.PAUSED
    )
    for match_id in stale.values_list("id", flat=True):
        with transaction.atomic():
            resent = Match.objects.filter(
                pk=match_id, status=MatchStatus.QUEUED, queued_at__lt=queued_before
            ).update(queued_at=now)
            if resent == 1:  # not resent by another sweep meanwhile
                match_run_enqueue(match_id)
                report.resent.append(match_id)
    analyses = analyses_sweep(now=now)  # lost analyses: their tasks sent again
    report.analyses_resent, report.analyses_failed = analyses.resent, analyses.failed
    return report


def deadlines_near_notify(*, now: datetime) -> list[int]:
    """Tell each person whose deadline is near (a fifth of the move time left,
    league.services.match_notices.DEADLINE_NEAR_FRACTION) once per move; the matches whose
    person was told now. Run by the sweep; the notices' keys make concurrent sweeps
    harmless."""
    waiting = Match.objects.filter(
        status=MatchStatus.RUNNING, deadline__gt=now, waiting_seat__isnull=False
    ).values_list("id", "deadline", "tournament__move_seconds")
    near = [
        match_id
        for match_id, deadline, move_seconds in waiting
        if deadline is not None
        and deadline_near(deadline=deadline, move_seconds=move_seconds, now=now)
    ]
    told: list[int] = []
    for match_id in near:
        with transaction.atomic():
            match = (
                Match.objects.select_related("tournament", "round")
                .filter(pk=match_id, status=MatchStatus.RUNNING, deadline__gt=now)
                .first()
            )
            if match is None or match.waiting_seat is None or match.deadline is None:
                continue
            row = (
                MatchSeat.objects.filter(match_id=match_id, seat=match.waiting_seat)
                .select_related("competitor")
                .first()
            )
            if row is None or row.competitor.user_id is None:
                continue
            if deadline_near_notify(
                match=match,
                user_id=row.competitor.user_id,
                seat=match.waiting_seat,
                decision=match.events_stored,
                deadline=match.deadline,
            ):
                told.append(match_id)
    return told
