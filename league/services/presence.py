"""Who is at a live table, and a bot for the person who left (docs/web.md, *Presence*).

Each table page of a seated person holds a WebSocket (web.consumers.MatchConsumer); each
socket is a ``SeatConnection`` row, written when it opens, refreshed by the page's
heartbeat and closed when it closes. A seat counts as connected while one of its rows is
open and fresh (league.domain.presence), so a web process that dies without closing its
sockets stops counting within CONNECTION_TTL_SECONDS, and every process sees the same
answer: the rows are in the database.

In a live game, once a person has been gone for ``absence_vote_after`` seconds, the other
people seated may vote; a majority of them seats the bot that plays a forfeited seat
(``MatchSeat.replaced``, the strikes' machinery of league.services.matches) at once,
recording an ``absent`` fault on the seat. The person who comes back takes the seat again
at the start of the next deal (``absent_seats_return``, called by the play loop and by a
person's move whenever a deal starts). Nothing here reads a card.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from league.domain.presence import (
    ABSENCE_VOTE_SECONDS,
    CONNECTION_TTL_SECONDS,
    Connection,
    SeatFacts,
    absence_vote_after,
    absent_fault,
    presence_entries,
)
from league.domain.presence import bot_for_absent as domain_bot_for_absent
from league.errors import ConflictError, NotAllowedError, NotFoundError
from league.live_updates import group_send, person_updated
from league.models import (
    PERSON_MAX_STRIKES,
    AbsenceVote,
    Match,
    MatchSeat,
    MatchStatus,
    SeatConnection,
    TimeControl,
)
from league.services.task_outbox import task_enqueue
from league.task_names import RUN_MATCH

CLOSED_KEPT = timedelta(days=2)
"""Closed connections older than this are deleted when their seat's person connects."""


def vote_after_seconds(match: Match) -> float:
    """How long a person of ``match`` is gone before the others may vote."""
    setting = float(getattr(settings, "TABLE_ABSENCE_VOTE_SECONDS", ABSENCE_VOTE_SECONDS))
    return absence_vote_after(setting_seconds=setting, move_seconds=match.tournament.move_seconds)


def bot_for_absent(row: MatchSeat) -> bool:
    """A bot plays the seat because the others voted (not because of missed deadlines)."""
    return domain_bot_for_absent(
        replaced=row.replaced,
        strikes=row.strikes,
        strikes_allowed=PERSON_MAX_STRIKES,
        faults=row.faults,
    )


def _person_seats(match_id: int, user_id: int) -> list[int]:
    query = MatchSeat.objects.filter(match_id=match_id, competitor__user_id=user_id)
    return list(query.values_list("seat", flat=True))


def presence_open(
    *, match_id: int, user_id: int, channel: str, now: datetime | None = None
) -> bool:
    """A table page of ``user_id`` opened its socket: one connection per seat of theirs at
    the match (their votes against them void: they are back). False (nothing written) for
    someone who has no seat there, a watcher."""
    now = now or timezone.now()
    seats = _person_seats(match_id, user_id)
    mine = SeatConnection.objects.filter(match_id=match_id, seat__in=seats)
    mine.filter(closed=True, seen_at__lt=now - CLOSED_KEPT).delete()
    for seat in seats:
        SeatConnection.objects.update_or_create(
            channel=f"{channel}#{seat}",
            defaults={"match_id": match_id, "seat": seat, "seen_at": now, "closed": False},
        )
    AbsenceVote.objects.filter(match_id=match_id, seat__in=seats).delete()
    return bool(seats)


def presence_beat(*, channel: str, now: datetime | None = None) -> None:
    """The page is still there (its heartbeat)."""
    mine = SeatConnection.objects.filter(channel__startswith=f"{channel}#", closed=False)
    mine.update(seen_at=now or timezone.now())


def presence_close(*, channel: str, now: datetime | None = None) -> None:
    """The page's socket closed: the moment is kept (since when the person is gone)."""
    mine = SeatConnection.objects.filter(channel__startswith=f"{channel}#")
    mine.update(closed=True, seen_at=now or timezone.now())


def table_presence(*, match: Match, now: datetime | None = None) -> dict[str, Any]:
    """Who is at the table, as everyone may see it (league.domain.presence's
    ``presence_entries``), read from the connections and the votes."""
    connections: dict[int, list[Connection]] = {}
    rows = SeatConnection.objects.filter(match_id=match.pk)
    for seat, seen_at, closed in rows.values_list("seat", "seen_at", "closed"):
        connections.setdefault(seat, []).append(Connection(seen_at=seen_at, closed=closed))
    votes = Counter(AbsenceVote.objects.filter(match_id=match.pk).values_list("seat", flat=True))
    people = MatchSeat.objects.filter(match_id=match.pk, competitor__user__isnull=False)
    after = vote_after_seconds(match)
    seats = presence_entries(
        seats=[
            SeatFacts(r.seat, r.competitor.name, r.replaced, r.strikes, r.faults)
            for r in people.select_related("competitor").order_by("seat")
        ],
        connections=connections,
        votes=votes,
        started_at=match.started_at or match.created_at,
        now=now or timezone.now(),
        live=match.tournament.time_control == TimeControl.LIVE,
        playing=match.status in (MatchStatus.QUEUED, MatchStatus.RUNNING),
        after=after,
        strikes_allowed=PERSON_MAX_STRIKES,
    )
    return {"type": "presence", "match": match.pk, "vote_after_seconds": after, "seats": seats}


def presence_announce(match_id: int) -> None:
    """Send the match's watchers who is at the table, once the transaction commits."""

    def send() -> None:
        match = Match.objects.select_related("tournament").filter(pk=match_id).first()
        if match is not None:
            group_send(
                f"match-{match_id}",
                {"type": "league.update", "message": table_presence(match=match)},
            )

    transaction.on_commit(send)


# ---------------------------------------------------------------- the vote


@transaction.atomic
def absence_vote(
    *,
    user: AbstractBaseUser | AnonymousUser,
    match_id: int,
    seat: int,
    now: datetime | None = None,
) -> dict[str, Any]:
    """``user``, seated at the table, votes to seat a bot for the person at ``seat``, who
    is gone (``table_presence``'s ``vote_open``). With a majority of the other people the
    bot is seated at once. Returns the table's presence after the vote."""
    now = now or timezone.now()
    if not user.is_authenticated:
        raise NotAllowedError(_("log in as a player of this table to vote"))
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("tournament")
        .filter(pk=match_id)
        .first()
    )
    if match is None:
        raise NotFoundError(_("no match %(match_id)s") % {"match_id": match_id})
    rows = {r.seat: r for r in match.seats.select_related("competitor")}
    mine = [s for s, r in rows.items() if r.competitor.user_id == user.pk]
    if not mine:
        raise NotAllowedError(_("only the people seated at this table vote"))
    row = rows.get(seat)
    if row is None or row.competitor.user_id is None:
        raise NotFoundError(_("seat %(seat)s has no person to vote about") % {"seat": seat})
    if seat in mine:
        raise NotAllowedError(_("you do not vote about your own seat"))
    snapshot = table_presence(match=match, now=now)
    entry = next(s for s in snapshot["seats"] if s["seat"] == seat)
    if not entry["vote_open"]:
        raise ConflictError(
            _("%(name)s is at the table, or not gone long enough for a vote")
            % {"name": row.competitor.name}
        )
    AbsenceVote.objects.get_or_create(
        match=match, seat=seat, voter_id=user.pk, defaults={"created_at": now}
    )
    votes = AbsenceVote.objects.filter(match=match, seat=seat).count()
    if votes >= entry["votes_needed"]:
        _bot_seat_for_absent(match=match, row=row, votes=votes, now=now)
    presence_announce(match.pk)
    return table_presence(match=match, now=now)


def _bot_seat_for_absent(*, match: Match, row: MatchSeat, votes: int, now: datetime) -> None:
    """The bot of a forfeited seat plays ``row`` from now on (the match row is locked):
    the fault says why and when; if the table waits for that seat, the workers play on.
    The person is told when they open the table again (its presence says so)."""
    row.replaced = True
    decision, deal = match.events_stored, match.deals_done + 1
    row.faults = [*row.faults, absent_fault(votes=votes, decision=decision, deal=deal)]
    row.save(update_fields=["replaced", "faults"])
    AbsenceVote.objects.filter(match=match, seat=row.seat).delete()
    if match.status == MatchStatus.RUNNING and match.waiting_seat == row.seat:
        match.status = MatchStatus.QUEUED
        match.waiting_seat = None
        match.deadline = None
        match.queued_at = now
        match.save(update_fields=["status", "waiting_seat", "deadline", "queued_at"])
        task_enqueue(RUN_MATCH, match.pk)
        if row.competitor.user_id is not None:  # no longer their move: their counts
            person_updated(row.competitor.user_id)


def absent_seats_return(*, match_id: int) -> list[int]:
    """At the start of a deal: the seats whose bot the others seated and whose person is
    at the table again go back to that person (``replaced`` off); the seats returned."""
    now = timezone.now()
    query = MatchSeat.objects.filter(match_id=match_id, replaced=True)
    rows = [row for row in query if bot_for_absent(row)]
    if not rows:
        return []
    fresh = now - timedelta(seconds=CONNECTION_TTL_SECONDS)
    live = SeatConnection.objects.filter(match_id=match_id, closed=False, seen_at__gte=fresh)
    back = [row.seat for row in rows if live.filter(seat=row.seat).exists()]
    if back:
        MatchSeat.objects.filter(match_id=match_id, seat__in=back).update(replaced=False)
        presence_announce(match_id)
    return back


def seat_replaced_now(*, match_id: int, seat: int) -> bool:
    """Whether a bot plays ``seat`` now (read afresh: the others may just have voted)."""
    return MatchSeat.objects.filter(match_id=match_id, seat=seat, replaced=True).exists()
