"""Presence at a table from plain facts (league.domain.presence): connected while a socket
is open and fresh, gone since it was last seen; the vote's wait, never longer than two
move times; a majority of the others; a bot seated by vote and not by strikes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from league.domain.presence import (
    CONNECTION_TTL_SECONDS,
    Connection,
    SeatPresence,
    absence_vote_after,
    absence_vote_open,
    bot_for_absent,
    seat_presence,
    votes_needed,
)

START = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return START + timedelta(seconds=seconds)


def test_a_seat_is_connected_while_one_socket_is_open_and_fresh() -> None:
    open_fresh = Connection(seen_at=at(100), closed=False)
    closed = Connection(seen_at=at(90), closed=True)
    assert seat_presence(connections=[closed, open_fresh], started_at=START, now=at(110)) == (
        SeatPresence(connected=True, away_seconds=0.0)
    )
    stale = at(100 + CONNECTION_TTL_SECONDS + 1)
    assert seat_presence(connections=[closed, open_fresh], started_at=START, now=stale) == (
        SeatPresence(connected=False, away_seconds=CONNECTION_TTL_SECONDS + 1)
    )
    assert seat_presence(connections=[closed], started_at=START, now=at(100)).away_seconds == 10
    assert seat_presence(connections=[], started_at=START, now=at(75)).away_seconds == 75


@pytest.mark.parametrize(
    ("setting", "move_seconds", "after"),
    [(60, 120, 60), (60, 20, 40), (0, 120, 0), (600, 86400, 600)],
)
def test_the_vote_opens_before_the_third_deadline_whatever_the_setting(
    setting: float, move_seconds: float, after: float
) -> None:
    assert absence_vote_after(setting_seconds=setting, move_seconds=move_seconds) == after
    assert after < 3 * move_seconds


def test_a_majority_of_the_others_seats_the_bot() -> None:
    assert [votes_needed(others) for others in (1, 2, 3, 4)] == [1, 2, 2, 3]


def test_the_vote_is_open_for_a_persons_seat_gone_long_enough_in_a_live_game_only() -> None:
    gone = SeatPresence(connected=False, away_seconds=61)
    facts = {"live": True, "playing": True, "person": True, "replaced": False}
    assert absence_vote_open(**facts, presence=gone, after=60)
    assert not absence_vote_open(**facts, presence=SeatPresence(False, 59), after=60)
    assert not absence_vote_open(**facts, presence=SeatPresence(True, 0), after=0)
    for fact in facts:
        changed = facts | {fact: not facts[fact]}
        assert not absence_vote_open(**changed, presence=gone, after=60), fact


def test_a_bot_seated_by_vote_is_not_one_seated_by_strikes() -> None:
    absent = [{"cause": "absent", "deal": 2}]
    assert bot_for_absent(replaced=True, strikes=1, strikes_allowed=3, faults=absent)
    assert not bot_for_absent(replaced=True, strikes=3, strikes_allowed=3, faults=absent)
    assert not bot_for_absent(replaced=False, strikes=0, strikes_allowed=3, faults=absent)
    timeout = [{"cause": "timeout", "fallback": "play 2C"}]
    assert not bot_for_absent(replaced=True, strikes=1, strikes_allowed=3, faults=timeout)
