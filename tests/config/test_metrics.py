"""/metrics: the operators' Prometheus metrics, hidden from everyone else (config/metrics.py)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.test import Client, override_settings

import pytest

from league.services.matches import match_run
from league.services.tournaments import tournament_round_start
from tests.league.builders import bot_tournament, user_create

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@override_settings(METRICS_TOKEN="s3cret-token")
def test_metrics_answer_staff_and_the_token_and_nobody_else() -> None:
    tournament, organiser = bot_tournament(game="kingen", bot="greedy")
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    match_run(match_id=match.pk, worker="test")
    Client().get("/ratings/")  # a request for the request metrics

    for client, headers in (
        (Client(), {}),
        (signed_in(user_create("someone")), {}),
        (Client(), {"Authorization": "Bearer wrong"}),
        (Client(), {"Authorization": "s3cret-token"}),
    ):
        assert client.get("/metrics", headers=headers).status_code == 404

    staff = User.objects.create_user("operator", password="a long password 1", is_staff=True)
    for client, headers in (
        (signed_in(staff), {}),
        (Client(), {"Authorization": "Bearer s3cret-token"}),
    ):
        response = client.get("/metrics", headers=headers)
        assert response.status_code == 200
        text = response.content.decode()
        assert "kingleague_matches_finished_total 1.0" in text
        assert 'kingleague_matches{status="finished"} 1.0' in text
        assert "kingleague_match_duration_seconds_count 1.0" in text
        assert "kingleague_move_duration_milliseconds_count" in text
        assert 'kingleague_queue_depth{priority="9",queue="matches"}' in text
        assert "django_http_requests_total_by_view_transport_method_total" in text


def test_a_finished_records_etag_answers_304_and_an_unfinished_one_has_none() -> None:
    tournament, organiser = bot_tournament(game="kingen", bot="greedy")
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    url = f"/api/matches/{match.pk}/record/"
    assert "ETag" not in Client().get(url)  # queued: it changes as it plays
    match_run(match_id=match.pk, worker="test")

    first = Client().get(url)
    assert first.status_code == 200
    assert first["Cache-Control"] == "public, max-age=3600"
    again = Client().get(url, headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304
    assert again.content == b""

    mine = signed_in(organiser).get(url)
    assert mine["Cache-Control"] == "private, max-age=3600"
    assert mine["ETag"] != first["ETag"]  # what a viewer may read differs by viewer
    stale = signed_in(organiser).get(url, headers={"If-None-Match": first["ETag"]})
    assert stale.status_code == 200
    assert stale.json() == mine.json()


@pytest.mark.sandbox
@override_settings(METRICS_TOKEN="s3cret-token")
def test_an_uploaded_seats_sandbox_start_is_kept_and_counted_in_the_histogram() -> None:
    from django.utils import timezone

    from bots.models import BotVersion
    from bots.services import bot_create, bot_version_store
    from league.models import SeatLog
    from league.services.clubs import club_create
    from league.services.competitors import competitor_builtin, competitor_for_bot_version
    from league.services.tournaments import tournament_create
    from tests.bots.botcode import PLAYER

    owner = user_create("ursula")
    bot = bot_create(owner=owner, name="plain", families=["kingen"])
    version = bot_version_store(
        owner=owner, bot=bot, filename="plain.py", data=(PLAYER + "\nplay()\n").encode()
    )
    version.status = BotVersion.Status.ACTIVE
    version.validated_at = timezone.now()
    version.save(update_fields=["status", "validated_at"])
    mine = competitor_for_bot_version(version=version)
    organiser = owner  # the bot's owner enters it in a league of their own club
    tournament = tournament_create(
        actor=organiser,
        club=club_create(user=organiser, name="Club"),
        name="With an upload",
        game="kingen",
        entrants=[mine, *(competitor_builtin(name="random", bot_name=f"r{i}") for i in range(3))],
    )
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    assert match_run(match_id=match.pk, worker="test").outcome == "finished"

    log = SeatLog.objects.get(match=match, competitor=mine)
    assert log.startup_ms is not None
    assert log.startup_ms > 0
    text = Client().get("/metrics", headers={"Authorization": "Bearer s3cret-token"}).content
    assert b"kingleague_sandbox_start_milliseconds_count 1.0" in text
    assert f"kingleague_sandbox_start_milliseconds_sum {log.startup_ms}".encode() in text
