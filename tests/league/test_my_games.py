"""My games lists exactly the person's games, each in its list: their move (soonest
deadline first), waiting to start (a table they sit at or are invited to), in progress,
finished; nothing of another person's; and the next game awaiting their move."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone

import pytest

from engine import load_game
from league.models import Match, MatchStatus
from league.services.matches import PERSON_MAX_STRIKES, match_deadline_expire, match_run
from league.services.tables import table_open
from tests.api_answers import client_for, ok, refused

BOTS = ["builtin:greedy", "builtin:greedy", "builtin:random"]


def waiting_for(person: User, seed: int) -> Match:
    """A table where the bots play until the person (seat 0) is to act."""
    match = table_open(actor=person, game="kingen", seats=["me", *BOTS])
    Match.objects.filter(pk=match.pk).update(seed=seed)
    match_run(match_id=match.pk, worker="test")
    match.refresh_from_db()
    assert (match.status, match.waiting_seat) == (MatchStatus.RUNNING, 0)
    return match


@pytest.mark.django_db
def test_my_games_lists_exactly_the_persons_games() -> None:
    ann = User.objects.create_user("ann", "ann@example.org", "a long password 1")
    eve = User.objects.create_user("eve", "eve@example.org", "a long password 1")
    seeds = [s for s in range(100) if load_game("kingen").new_initial_state(seed=s).dealer][:4]
    soon, late = waiting_for(ann, seeds[0]), waiting_for(ann, seeds[1])
    Match.objects.filter(pk=soon.pk).update(deadline=timezone.now() + timedelta(minutes=1))
    queued = table_open(actor=ann, game="kingen", seats=["me", *BOTS])  # not yet run
    finished = waiting_for(ann, seeds[2])
    for _ in range(PERSON_MAX_STRIKES):  # Ann never moves: a bot takes over and finishes
        finished.refresh_from_db()
        if finished.status == MatchStatus.QUEUED:
            match_run(match_id=finished.pk, worker="test")
            finished.refresh_from_db()
        assert finished.deadline is not None
        assert match_deadline_expire(match_id=finished.pk, now=finished.deadline + timedelta(1))
    match_run(match_id=finished.pk, worker="test")
    finished.refresh_from_db()
    assert finished.status == MatchStatus.FINISHED
    invited = table_open(actor=eve, game="kingen", seats=["me", "invite:ann", *BOTS[:2]])
    eves_own = waiting_for(eve, seeds[3])

    games = ok(client_for(ann).get("/api/my-games/"))
    assert [g["match"] for g in games["your_move"]] == [soon.pk, late.pk]
    assert all(g["deadline"] for g in games["your_move"])
    assert games["your_move"][0]["url"] == f"/matches/{soon.pk}/seats/0/"
    assert games["your_move"][0]["others"] == ["greedy", "greedy", "random"]
    assert [(g["match"], g["invited"], g["invited_by"]) for g in games["waiting"]] == [
        (invited.pk, True, "eve")
    ]
    assert [g["match"] for g in games["in_progress"]] == [queued.pk]
    assert [(g["match"], g["outcome"]) for g in games["finished"]] == [(finished.pk, "forfeit")]
    assert games["finished"][0]["url"] == f"/matches/{finished.pk}/"
    assert games["finished"][0]["score"] is not None
    everything = {g["match"] for part in games.values() for g in part}
    assert eves_own.pk not in everything

    eve_games = ok(client_for(eve).get("/api/my-games/"))
    assert {g["match"] for g in eve_games["waiting"]} == {invited.pk}  # her waiting table
    assert soon.pk not in {g["match"] for part in eve_games.values() for g in part}

    nxt = ok(client_for(ann).get("/api/my-games/next/"))
    assert (nxt["match"], nxt["url"]) == (soon.pk, f"/matches/{soon.pk}/seats/0/")
    assert ok(client_for(ann).get("/api/my-games/next/", {"after": soon.pk}))["match"] == late.pk
    assert ok(client_for(eve).get("/api/my-games/next/"))["match"] == eves_own.pk
    assert ok(client_for(eve).get("/api/my-games/next/", {"after": eves_own.pk}))["match"] is None
    assert ok(client_for(ann).get("/api/notifications/counts/"))["your_move"] == 2
    refused(client_for().get("/api/my-games/"), 401)

    page = client_for(ann)
    page.force_login(ann)
    html = page.get("/games/").content.decode()
    assert f'data-match="{soon.pk}"' in html
    assert f'data-match="{eves_own.pk}"' not in html
