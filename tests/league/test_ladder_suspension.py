"""A suspended ladder version plays no more (issue 36), with real PostgreSQL and the
sandbox: the matches it was queued in when it was suspended are withdrawn (``error``,
saying so) and never played, and a match of it that was already running when it was
suspended leaves the faults that suspended it as they were."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

import pytest

from league.models import (
    LadderEntrant,
    LadderEntrantStatus,
    Match,
    MatchSeat,
    MatchStatus,
    SeatLog,
)
from league.services.ladders import (
    LADDER_SUSPEND_AFTER,
    WITHDRAWN_ERROR,
    ladder_anchor_add,
    ladder_match_finished,
    ladder_matchmake,
    ladder_open,
)
from league.services.matches import match_run
from tests.bots.botcode import PLAYER
from tests.league.builders import active_uploaded_version, user_create

CRASHING_BOT = PLAYER + "\ndef hook(number, request):\n    raise RuntimeError('oops')\n\nplay()\n"

pytestmark = [pytest.mark.postgres, pytest.mark.sandbox, pytest.mark.django_db]


def test_a_suspended_versions_queued_matches_are_withdrawn_and_its_faults_kept() -> None:
    # room for two more matches of it than the crashes that suspend it
    ladder = ladder_open(
        game="kingen",
        anchors=("greedy", "random"),
        queued_limit=20,
        concurrent_limit=LADDER_SUSPEND_AFTER + 2,
    )
    ladder_anchor_add(ladder=ladder, name="greedy", bot_name="greedy-2")
    crasher = active_uploaded_version(user_create("carl"), "crasher", CRASHING_BOT)
    queued = ladder_matchmake(ladder_id=ladder.pk)
    its = [
        match_id
        for match_id in queued
        if MatchSeat.objects.filter(match_id=match_id, competitor=crasher).exists()
    ]
    assert len(its) == LADDER_SUSPEND_AFTER + 2, queued
    entrant = LadderEntrant.objects.get(ladder=ladder, competitor=crasher)
    for match_id in its[:LADDER_SUSPEND_AFTER]:
        match_run(match_id=match_id, worker="test")  # the worker task's body
    entrant.refresh_from_db()
    assert entrant.status == LadderEntrantStatus.SUSPENDED
    suspended_by = [fault["match"] for fault in entrant.suspension_faults]
    assert suspended_by == its[:LADDER_SUSPEND_AFTER]

    # the two left were withdrawn at the suspension, and a worker's claim plays neither
    later = its[LADDER_SUSPEND_AFTER:]
    for match_id in later:
        match = Match.objects.get(pk=match_id)
        assert (match.status, match.error) == (MatchStatus.ERROR, WITHDRAWN_ERROR)
        match_run(match_id=match_id, worker="test")
        match.refresh_from_db()
        assert match.status == MatchStatus.ERROR
        assert match.started_at is None
    # it played (and left its stderr) in the matches that suspended it, and no other
    assert (
        sorted(SeatLog.objects.filter(competitor=crasher).values_list("match_id", flat=True))
        == (its[:LADDER_SUSPEND_AFTER])
    )

    # a match a worker had claimed before the suspension ends with a crash afterwards:
    # what suspended the version stays (its count and its faults)
    running = Match.objects.get(pk=later[0])
    rows = list(MatchSeat.objects.filter(match=running).order_by("seat"))
    for row in rows:
        if row.competitor_id == crasher.pk:
            row.outcome = "crash"
            row.faults = [{"cause": "crash", "message": "the bot exited: exit status 1"}]
    count_before = entrant.consecutive_failures
    with transaction.atomic():
        ladder_match_finished(match=running, rows=rows, now=timezone.now())
    entrant.refresh_from_db()
    assert entrant.status == LadderEntrantStatus.SUSPENDED
    assert entrant.consecutive_failures == count_before
    assert [fault["match"] for fault in entrant.suspension_faults] == suspended_by
