"""The database refuses the impossible states (docs/league.md, "The rows")."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

import pytest

from bots.models import BotVersion
from league.models import (
    Competitor,
    Match,
    MatchEvent,
    MatchResult,
    MatchSeat,
    MatchStatus,
    Tournament,
)
from league.services.matches import match_run
from league.services.tournaments import tournament_round_start
from tests.league.builders import bot_tournament, user_create


def refused(write: Callable[[], Any]) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        write()


@pytest.mark.django_db
def test_impossible_states_are_unstorable() -> None:
    tournament, organiser = bot_tournament(bot="greedy")
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    version = BotVersion.objects.first()
    assert version is not None
    person = user_create("ann")

    # a competitor is a person or a bot version, never both, never neither
    refused(lambda: Competitor.objects.create(user=person, bot_version=version, name="x"))
    refused(lambda: Competitor.objects.create(name="nobody"))
    # a seat is filled once; a table once per round
    seated = match.seats.get(seat=0).competitor
    refused(lambda: MatchSeat.objects.create(match=match, seat=0, competitor=seated))
    refused(
        lambda: Match.objects.create(
            tournament=tournament, round=match.round, table=1, game="kingen", seed=1
        )
    )
    # a lease only while running; a running match was claimed; finished has its time
    refused(lambda: Match.objects.filter(pk=match.pk).update(lease_until=timezone.now()))
    refused(lambda: Match.objects.filter(pk=match.pk).update(status=MatchStatus.RUNNING))
    refused(
        lambda: Match.objects.filter(pk=match.pk).update(status=MatchStatus.FINISHED, attempts=1)
    )
    refused(lambda: Match.objects.filter(pk=match.pk).update(status="lost"))
    refused(
        lambda: Match.objects.filter(pk=match.pk).update(
            deadline=timezone.now() + timedelta(minutes=1)
        )
    )
    # tournaments: a club unless a table, positive rounds and time control, known format
    refused(lambda: Tournament.objects.create(name="t", game="kingen", format="round_robin"))
    refused(lambda: Tournament.objects.filter(pk=tournament.pk).update(rounds=0))
    refused(lambda: Tournament.objects.filter(pk=tournament.pk).update(move_seconds=0))
    refused(lambda: Tournament.objects.filter(pk=tournament.pk).update(format="knockout"))

    match_run(match_id=match.pk, worker="test")
    # an event index once; an action xor a chance event; one result per match
    refused(lambda: MatchEvent.objects.create(match=match, index=0, chance={"chance": "deal"}))
    refused(
        lambda: MatchEvent.objects.create(
            match=match, index=10_000, seat=0, action="play QS", chance={}
        )
    )
    refused(lambda: MatchEvent.objects.create(match=match, index=10_001))
    result = MatchResult.objects.get(match=match)
    refused(
        lambda: MatchResult.objects.create(
            match=match,
            scores=result.scores,
            outcomes=result.outcomes,
            standings_input={},
            record={},
        )
    )
    assert MatchResult.objects.filter(match=match).count() == 1
