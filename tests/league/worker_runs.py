"""What the tests of matches run by real worker processes share: waiting for a state with
the processes' logs at hand, a match's status, and the check that a match ended with
exactly one verified result (test_worker_matches.py, test_outages.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from engine.record import verify_record
from league.models import Match, MatchEvent, MatchResult
from league.services.tournaments import tournament_round_start
from tests.league.builders import bot_tournament


def wait_until(
    what: str, predicate: Callable[[], Any], *logs: Callable[[], str], seconds: float
) -> Any:
    """``predicate()`` once it is true; fails the test after ``seconds`` with the ends of
    ``logs`` (e.g. a worker's ``log``)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    text = "\n".join(log()[-4000:] for log in logs)
    pytest.fail(f"not within {seconds:g} s: {what}\n{text}")


def match_status(match_id: int) -> str:
    return str(Match.objects.values_list("status", flat=True).get(pk=match_id))


def assert_one_verified_result(match_id: int) -> MatchResult:
    """One stored result, whose record replays to its scores, and events without a gap."""
    assert MatchResult.objects.filter(match_id=match_id).count() == 1
    result = MatchResult.objects.get(match_id=match_id)
    verification = verify_record(result.record)
    assert verification.ok, verification.problem
    assert verification.scores == result.scores
    indexes = list(
        MatchEvent.objects.filter(match_id=match_id)
        .order_by("index")
        .values_list("index", flat=True)
    )
    assert indexes == list(range(len(indexes)))
    return result


def long_match(*, time_bank_seconds: float | None = None) -> Match:
    """A match that takes a worker several seconds: Kung och Adel, 300 deals, greedy."""
    tournament, organiser = bot_tournament(game="kung_och_adel(deals=300)", bot="greedy")
    if time_bank_seconds is not None:
        tournament.time_bank_seconds = time_bank_seconds
        tournament.save(update_fields=["time_bank_seconds"])
    return tournament_round_start(actor=organiser, tournament=tournament).matches.get()
