"""A GET never writes the stored standings: a missing or stale snapshot is read by summing
the stored results in memory, and rebuilt on a write path (the next result, the
``standings_rebuild`` task a failed update sends, ``migrate``'s post-migrate step)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.sql import emit_post_migrate_signal
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

import pytest

from league import task_names
from league.domain.standings_parts import STATE_VERSION, Accumulators
from league.models import (
    Competitor,
    MatchResult,
    OutboxTask,
    StandingsPart,
    StandingsSnapshot,
    Tournament,
)
from league.selectors.standings import standings_current
from league.services.standings import standings_rebuild, standings_rebuild_stale
from league.services.tournaments import tournament_create
from league.tasks import standings_rebuild as standings_rebuild_task
from tests.league.builders import bot_tournament
from tests.league.test_standings_service import recomputed_table, rounds_played, stored_parts


def writes_of(queries: CaptureQueriesContext) -> list[str]:
    found = []
    for query in queries.captured_queries:
        sql = query["sql"].lstrip().upper()
        if sql.startswith(("INSERT", "UPDATE", "DELETE", "COPY")) or "FOR UPDATE" in sql:
            found.append(query["sql"])
    return found


def made_stale(tournament: Tournament) -> dict[str, Any]:
    """The snapshot of another format (as after a new STATE_VERSION), its parts garbled."""
    StandingsSnapshot.objects.filter(tournament=tournament).update(version=STATE_VERSION + 1)
    StandingsPart.objects.filter(tournament=tournament).update(data="unreadable")
    return stored_parts(tournament)


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["kingen", "priffe(rubbers_per_game=2)"])
def test_a_get_of_stale_standings_writes_nothing_and_shows_the_right_table(game: str) -> None:
    tournament, organiser = bot_tournament(game=game, entrants=4, rounds=2)
    rounds_played(tournament, organiser, 2)
    expected = standings_current(tournament=tournament)
    stale = made_stale(tournament)

    api, web = APIClient(), Client()
    with CaptureQueriesContext(connection) as queries:
        standings = api.get(f"/api/tournaments/{tournament.pk}/standings/")
        ratings = api.get(f"/api/tournaments/{tournament.pk}/ratings/")
        page = web.get(f"/leagues/{tournament.pk}/")

    assert (standings.status_code, ratings.status_code, page.status_code) == (200, 200, 200)
    assert writes_of(queries) == []  # the old read rebuilt: a lock, a DELETE, a COPY, ...
    assert stored_parts(tournament) == stale
    assert StandingsSnapshot.objects.get(tournament=tournament).version != (STATE_VERSION)
    assert (
        standings.json()["results"]
        == MatchResult.objects.filter(match__tournament=tournament).count()
    )
    assert [r["competitor"] for r in standings.json()["rows"]] == [
        int(r.player) for r in expected.standings.rows
    ]
    assert standings_current(tournament=tournament).standings == expected.standings
    if expected.margin is not None:
        assert ratings.json()["margin"]["games"] == expected.margin.games


@pytest.mark.django_db
def test_a_priffe_result_without_rubbers_is_read_without_writing_it() -> None:
    tournament, organiser = bot_tournament(game="priffe(rubbers_per_game=2)", entrants=4)
    rounds_played(tournament, organiser, 1)
    result = MatchResult.objects.get(match__tournament=tournament)
    table = standings_current(tournament=tournament).standings
    legacy = {k: v for k, v in result.standings_input.items() if k != "rubbers"}
    MatchResult.objects.filter(pk=result.pk).update(standings_input=legacy)
    made_stale(tournament)

    with CaptureQueriesContext(connection) as queries:
        assert standings_current(tournament=tournament).standings == table

    assert writes_of(queries) == []
    result.refresh_from_db()
    assert "rubbers" not in result.standings_input


@pytest.mark.django_db
def test_the_rebuild_task_makes_stale_standings_current_again() -> None:
    tournament, organiser = bot_tournament(entrants=4, rounds=2)
    rounds_played(tournament, organiser, 2)
    made_stale(tournament)

    assert standings_rebuild_task(tournament.pk) == 2  # the task body, run in process

    snapshot = StandingsSnapshot.objects.get(tournament=tournament)
    assert (snapshot.version, snapshot.results) == (STATE_VERSION, 2)
    assert standings_current(tournament=tournament).standings == recomputed_table(tournament)
    parts = stored_parts(tournament)
    assert standings_rebuild(tournament_id=tournament.pk) == 2  # current: left alone
    assert stored_parts(tournament) == parts
    assert standings_rebuild(tournament_id=10**9) == 0


@pytest.mark.django_db
def test_a_failed_update_sends_the_rebuild_task_with_the_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tournament, organiser = bot_tournament(entrants=4, rounds=2)
    rounds_played(tournament, organiser, 1)
    OutboxTask.objects.all().delete()

    def broken(self: Accumulators, results: Any) -> None:
        raise RuntimeError("a bug in the sums")

    monkeypatch.setattr(Accumulators, "apply", broken)
    monkeypatch.setattr("league.services.task_outbox._send_pending", lambda: None)
    rounds_played(tournament, organiser, 1)

    waiting = list(OutboxTask.objects.filter(task=task_names.STANDINGS_REBUILD))
    assert [row.args for row in waiting] == [[tournament.pk]]
    assert StandingsSnapshot.objects.get(tournament=tournament).version == 0


def another_tournament(tournament: Tournament, organiser: User) -> Tournament:
    assert tournament.club is not None
    return tournament_create(
        actor=organiser,
        club=tournament.club,
        name="Another league",
        game=tournament.game,
        rounds=1,
        entrants=list(Competitor.objects.filter(entries__tournament=tournament)),
    )


@pytest.mark.django_db
def test_migrate_rebuilds_standings_of_another_format_or_missing() -> None:
    stale, organiser = bot_tournament(entrants=4, rounds=1)
    missing, empty = (another_tournament(stale, organiser) for _ in range(2))
    rounds_played(stale, organiser, 1)
    rounds_played(missing, organiser, 1)
    made_stale(stale)
    StandingsSnapshot.objects.filter(tournament=missing).delete()
    StandingsPart.objects.filter(tournament=missing).delete()

    emit_post_migrate_signal(verbosity=0, interactive=False, db="default")

    for tournament in (stale, missing):
        snapshot = StandingsSnapshot.objects.get(tournament=tournament)
        assert (snapshot.version, snapshot.results) == (STATE_VERSION, 1)
        assert standings_current(tournament=tournament).standings == recomputed_table(tournament)
    assert not StandingsSnapshot.objects.filter(tournament=empty).exists()
    assert standings_rebuild_stale() == []
