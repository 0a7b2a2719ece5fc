"""league.selectors.replays.match_state_read: the pages' reads of a running match share one replay
of each position, and a position stored later is replayed afresh."""

from __future__ import annotations

import pytest
from pytest_django import DjangoAssertNumQueries

from league.models import Match
from league.selectors.replays import match_replay, match_state_read
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
