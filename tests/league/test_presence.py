"""Who is at a live table and a bot for the person who left (league.services.presence;
docs/web.md, *Presence*): a seat's sockets count while open and fresh, a closed one says
since when its person is gone; after the set time a majority of the other people seats the
strikes' bot at once (the table waiting for that person plays on), only people seated at
the table vote and never about their own seat; the person who comes back takes the seat
again at the start of the next deal, not before, and not while they stay away."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

import pytest

from league.errors import ConflictError, NotAllowedError
from league.models import Match, MatchSeat, MatchStatus, SeatConnection, SeatInvitation
from league.selectors.replays import match_state_read
from league.services.matches import match_person_act, match_run
from league.services.presence import (
    absence_vote,
    presence_beat,
    presence_close,
    presence_open,
    table_presence,
)
from league.services.tables import seat_invitation_accept, table_open
from tests.league.builders import user_create

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def two_people_and_two_bots() -> tuple[Match, User, User]:
    ann, bob = user_create("ann"), user_create("bob")
    match = table_open(
        actor=ann,
        game="kingen",
        seats=["me", "invite:bob", "builtin:greedy", "builtin:greedy"],
        move_seconds=120,
    )
    code = SeatInvitation.objects.get(match=match, seat=1).code
    seat_invitation_accept(user=bob, code=code)
    Match.objects.filter(pk=match.pk).update(seed=11, started_at=timezone.now())
    return Match.objects.select_related("tournament").get(pk=match.pk), ann, bob


def presence_of(match: Match, seat: int, now: datetime | None = None) -> dict[str, Any]:
    snapshot = table_presence(match=Match.objects.get(pk=match.pk), now=now)
    return next(s for s in snapshot["seats"] if s["seat"] == seat)


def play_until(match: Match, done: Any, *, mover: User) -> Match:
    """Run the bots and play ``mover``'s first legal action, until ``done(match)``."""
    for _ in range(2000):
        match.refresh_from_db()
        if done(match):
            return match
        assert match.status != MatchStatus.FINISHED, "the game ended first"
        if match.status == MatchStatus.QUEUED:
            match_run(match_id=match.pk, worker="test")
            continue
        seat = match.waiting_seat
        assert seat is not None
        row = MatchSeat.objects.select_related("competitor").get(match=match, seat=seat)
        assert row.competitor.user_id == mover.pk, f"waiting for seat {seat}"
        legal = match_state_read(match).view_for(seat).legal
        action = match_state_read(match).game.action_to_string(legal[0])
        match_person_act(match=match, seat=seat, action=action)
    raise AssertionError("not reached in 2000 steps")


def deal_of(match: Match) -> int:
    return int(match_state_read(Match.objects.get(pk=match.pk)).deal_number)


def test_a_seat_is_connected_while_a_socket_is_open_and_fresh() -> None:
    match, _ann, bob = two_people_and_two_bots()
    now = timezone.now()
    assert presence_of(match, 1, now)["connected"] is False  # never came
    assert presence_open(match_id=match.pk, user_id=bob.pk, channel="tab-1", now=now)
    assert presence_open(match_id=match.pk, user_id=bob.pk, channel="tab-2", now=now)
    assert not presence_open(
        match_id=match.pk, user_id=user_create("eve").pk, channel="tab-3", now=now
    )  # a watcher is nobody's presence
    assert presence_of(match, 1, now)["connected"] is True
    presence_close(channel="tab-1", now=now)
    assert presence_of(match, 1, now)["connected"] is True  # another tab is open
    presence_close(channel="tab-2", now=now + timedelta(seconds=5))
    gone = presence_of(match, 1, now + timedelta(seconds=65))
    assert (gone["connected"], gone["away_seconds"]) == (False, 60)
    # A web process that died closes nothing: its socket stops counting once its
    # heartbeat is stale.
    presence_open(match_id=match.pk, user_id=bob.pk, channel="tab-4", now=now)
    presence_beat(channel="tab-4", now=now + timedelta(seconds=20))
    assert presence_of(match, 1, now + timedelta(seconds=45))["connected"] is True
    assert presence_of(match, 1, now + timedelta(seconds=51))["connected"] is False
    assert SeatConnection.objects.filter(match=match).count() == 3
    snapshot = table_presence(match=match)
    assert [s["seat"] for s in snapshot["seats"]] == [0, 1]  # people only: no bot's seat
    assert "hand" not in str(snapshot)
    assert "cards" not in str(snapshot)


def test_the_others_seat_a_bot_for_a_person_gone_who_takes_the_seat_back_at_the_next_deal(
    settings: Any,
) -> None:
    settings.TABLE_ABSENCE_VOTE_SECONDS = 60
    match, ann, bob = two_people_and_two_bots()
    presence_open(match_id=match.pk, user_id=ann.pk, channel="ann-tab")
    match = play_until(match, lambda m: m.waiting_seat == 1, mover=ann)  # bob's turn
    assert presence_of(match, 1)["vote_open"] is False  # not gone long enough
    with pytest.raises(ConflictError):
        absence_vote(user=ann, match_id=match.pk, seat=1)
    later = timezone.now() + timedelta(seconds=61)
    presence_beat(channel="ann-tab", now=later)
    assert presence_of(match, 1, later)["vote_open"] is True
    with pytest.raises(NotAllowedError):
        absence_vote(user=user_create("eve"), match_id=match.pk, seat=1, now=later)
    with pytest.raises(NotAllowedError):
        absence_vote(user=ann, match_id=match.pk, seat=0, now=later)  # her own seat

    after = absence_vote(user=ann, match_id=match.pk, seat=1, now=later)  # 1 of 1 other
    bob_seat = MatchSeat.objects.get(match=match, seat=1)
    assert bob_seat.replaced
    assert bob_seat.strikes == 0
    assert [f["cause"] for f in bob_seat.faults] == ["absent"]
    assert next(s for s in after["seats"] if s["seat"] == 1)["bot_for_absent"] is True
    match.refresh_from_db()
    assert (match.status, match.waiting_seat) == (MatchStatus.QUEUED, None)  # plays on
    voted_in = deal_of(match)

    # Still away at the next deal: the bot plays on.
    play_until(match, lambda m: deal_of(m) > voted_in, mover=ann)
    assert MatchSeat.objects.get(match=match, seat=1).replaced
    # Back: the seat is theirs again when the following deal starts, not before.
    presence_open(match_id=match.pk, user_id=bob.pk, channel="bob-tab")
    back_in = deal_of(match)
    match = play_until(match, lambda m: m.waiting_seat == 1, mover=ann)
    assert deal_of(match) == back_in + 1
    assert not MatchSeat.objects.get(match=match, seat=1).replaced
    assert presence_of(match, 1)["bot_for_absent"] is False
