"""Match execution in process, against the real database: claim, play, store, finish once."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.utils import timezone

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from engine.record import dumps_record, verify_record
from league.models import Match, MatchEvent, MatchResult, MatchStatus
from league.selectors.replays import match_replay
from league.services.matches import (
    match_claim,
    match_finish,
    match_run,
    matches_sweep,
)
from league.services.tournaments import tournament_round_start
from tests.league.builders import bot_tournament


def round_started(**kwargs: object) -> Match:
    tournament, organiser = bot_tournament(**kwargs)  # type: ignore[arg-type]
    round_ = tournament_round_start(actor=organiser, tournament=tournament)
    return round_.matches.get()


@pytest.mark.django_db
def test_a_match_plays_to_one_result_whose_record_verifies() -> None:
    match = round_started()

    stats = match_run(match_id=match.pk, worker="test")

    assert stats.outcome == "finished"
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED
    assert match.attempts == 1
    result = MatchResult.objects.get(match=match)
    verification = verify_record(result.record)
    assert verification.ok, verification.problem
    assert verification.complete
    assert verification.scores == result.scores
    assert MatchEvent.objects.filter(match=match).count() == match.events_stored
    assert result.standings_input["seats"][0]["score"] == result.scores[0]


@pytest.mark.django_db
def test_a_second_run_and_a_second_completion_are_no_ops() -> None:
    match = round_started()
    match_run(match_id=match.pk, worker="first")
    events = MatchEvent.objects.filter(match=match).count()

    assert match_run(match_id=match.pk, worker="second").outcome == "not claimed"
    state = match_replay(match).state
    again = match_finish(
        match_id=match.pk, attempt=None, state=state, times={}, stored=events, reports=[]
    )

    assert again is False
    assert MatchResult.objects.filter(match=match).count() == 1
    assert MatchEvent.objects.filter(match=match).count() == events


@pytest.mark.django_db
def test_an_expired_lease_is_requeued_and_the_rerun_continues_the_stored_events() -> None:
    match = round_started()
    # A worker claimed the match, stored part of it, and died.
    attempt = match_claim(match_id=match.pk, worker="lost")
    assert attempt == 1
    from league.services.matches import EventWriter, PlayStats

    replay = match_replay(match)
    state = replay.state
    for _ in range(30):
        state.apply_action(state.legal_actions()[-1])
    writer = EventWriter(match, attempt, state, replay.times, replay.stored, PlayStats())
    writer.flush()
    stored = list(MatchEvent.objects.filter(match=match).values_list("index", "action"))

    report = matches_sweep(now=timezone.now() + timedelta(hours=1))

    assert report.requeued == [match.pk]
    match.refresh_from_db()
    assert (match.status, match.lease_expiries) == (MatchStatus.QUEUED, 1)
    assert match_run(match_id=match.pk, worker="second").outcome == "finished"
    match.refresh_from_db()
    assert (match.status, match.attempts) == (MatchStatus.FINISHED, 2)
    after = list(
        MatchEvent.objects.filter(match=match, index__lt=len(stored)).values_list("index", "action")
    )
    assert after == stored
    assert verify_record(MatchResult.objects.get(match=match).record).ok


@pytest.mark.django_db
@pytest.mark.parametrize(
    "game",
    [
        "kingen(players=3)",
        "dubbelkingen",
        "king(quick_game=true)",
        "kung_och_adel(deals=3)",
        "priffe(players=3,rubbers_per_game=1)",
    ],
)
def test_python_m_engine_verify_accepts_the_record_of_every_family(
    game: str, tmp_path: Path
) -> None:
    tournament, organiser = bot_tournament(game=game, bot="greedy", entrants=2)
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    assert match_run(match_id=match.pk, worker="test").outcome == "finished"
    path = tmp_path / "record.json"
    path.write_text(dumps_record(MatchResult.objects.get(match=match).record))

    verified = subprocess.run(
        [sys.executable, "-m", "engine", "verify", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )

    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout)["ok"] is True


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_finished_match_tells_its_watchers_and_its_tournament_in_one_hop() -> None:
    """The finishing transaction's two messages (the match's last events, the tournament's
    progress) reach the Channels layer once it commits (league.live_updates.groups_send)."""
    tournament, organiser = bot_tournament(game="kingen", bot="random")
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    layer = get_channel_layer()
    assert layer is not None

    async def listen() -> str:
        channel: str = await layer.new_channel()
        await layer.group_add(f"match-{match.pk}", channel)
        await layer.group_add(f"tournament-{tournament.pk}", channel)
        return channel

    async def receive(channel: str) -> dict[str, Any]:
        message: dict[str, Any] = await asyncio.wait_for(layer.receive(channel), timeout=30)
        return message

    channel = async_to_sync(listen)()
    assert match_run(match_id=match.pk, worker="test").outcome == "finished"
    match.refresh_from_db()
    last = match.events_stored - 1
    updates: list[int] = []
    progress: dict[str, Any] | None = None
    while progress is None or last not in updates:
        message = async_to_sync(receive)(channel)
        if message["event"] == "progress":
            progress = message
        else:
            updates.append(message["event_index"])
    assert progress == {
        "type": "league.update",
        "event": "progress",
        "tournament": tournament.pk,
        "finished": 1,
        "total": 1,
    }
