"""league.selectors.replays.match_state_read: the pages' reads of a running match share one replay
of each position, and a position stored later is replayed afresh."""

from __future__ import annotations

import pytest
from pytest_django import DjangoAssertNumQueries

from league.models import Match, MatchEvent
from league.selectors import replays
from league.selectors.replays import MatchLogError, match_replay, match_state_keep, match_state_read
from league.services.matches import match_person_act
from tests.api.test_table import bots_play, table_open
from tests.league.builders import user_create

pytestmark = pytest.mark.django_db


def test_a_position_is_replayed_once_for_its_readers_and_the_next_one_afresh(
    django_assert_num_queries: DjangoAssertNumQueries,
) -> None:
    ann = user_create("ann")
    match_id = table_open(ann)
    bots_play(match_id)
    match = Match.objects.get(pk=match_id)
    first = match_state_read(match)
    with django_assert_num_queries(0):
        again = match_state_read(match)
    assert again is first
    assert first.log == match_replay(match).state.log

    seat = match.waiting_seat
    assert seat is not None
    action = first.view_for(seat).to_json()["legal"][0]
    match_person_act(match=match, seat=seat, action=action)
    moved = Match.objects.get(pk=match_id)
    after = match_state_read(moved)
    assert after is not first
    assert len(after.log) == moved.events_stored > len(first.log)
    assert after.log == match_replay(moved).state.log
    assert len(first.log) == match.events_stored  # the state kept was not changed by the move


def test_a_process_that_kept_an_earlier_position_reads_only_the_events_stored_since(
    django_assert_num_queries: DjangoAssertNumQueries,
) -> None:
    """The moves at a table go to several web processes: one that kept the match a few
    events ago applies only the events stored since (the deal's cards among them, checked
    against the seed) to a copy, and the copy is what a replay from the start gives."""
    ann = user_create("ann")
    match_id = table_open(ann)
    bots_play(match_id)
    before = Match.objects.get(pk=match_id)
    kept = match_state_read(before)
    kept_log = list(kept.log)
    later = before
    while later.deals_done == before.deals_done:  # into the next deal: its cards are events
        seat = later.waiting_seat
        assert seat is not None
        action = match_replay(later).state.view_for(seat).to_json()["legal"][0]
        match_person_act(match=later, seat=seat, action=action)  # "another process"
        bots_play(match_id)
        later = Match.objects.get(pk=match_id)
    assert later.events_stored > before.events_stored > 0
    # This process as one that served the table up to ``before`` only: the moves since
    # were made through the others.
    replays._states.clear()
    match_state_keep(before, kept)

    with django_assert_num_queries(1) as read:
        caught_up = match_state_read(later)
    (events_read,) = read.captured_queries
    assert f'"index" >= {before.events_stored}' in events_read["sql"]
    assert caught_up is not kept
    assert kept.log == kept_log  # the earlier state was copied, not changed
    assert caught_up.log == match_replay(later).state.log
    assert caught_up.view_for(0).to_json() == match_replay(later).state.view_for(0).to_json()


def test_events_that_do_not_follow_the_kept_position_are_replayed_from_the_start() -> None:
    """A kept position the stored events do not continue (rows changed by hand) is not
    trusted: the read replays from the seed, which says what is wrong."""
    ann = user_create("ann")
    match_id = table_open(ann)
    bots_play(match_id)
    match = Match.objects.get(pk=match_id)
    match_state_read(match)
    seat = match.waiting_seat
    assert seat is not None
    action = match_replay(match).state.view_for(seat).to_json()["legal"][0]
    match_person_act(match=match, seat=seat, action=action)
    moved = Match.objects.get(pk=match_id)
    MatchEvent.objects.filter(match_id=match_id, index=moved.events_stored - 1).update(
        action="not a move"
    )
    with pytest.raises(MatchLogError, match="event"):
        match_state_read(moved)
