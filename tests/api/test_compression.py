"""gzip (config/compression.py): a finished record and the API's JSON are sent compressed
to a client that asks, computed or from the read cache, under Django's synchronous and
asynchronous handlers; never to one that does not ask; never an HTML page (BREACH) nor the
API token's answer."""

from __future__ import annotations

import gzip
import json
from typing import Any

from django.test import AsyncClient, Client

import pytest
from asgiref.sync import async_to_sync

from api.read_cache import HIT_HEADER
from league.models import Tournament
from league.services.clubs import club_create
from league.services.matches import match_run
from league.services.tournaments import tournament_round_start
from tests.league.builders import bot_tournament, user_create

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

GZIP = {"Accept-Encoding": "gzip, deflate, br"}


def finished_record_url() -> str:
    tournament, organiser = bot_tournament(game="kingen", bot="greedy", entrants=4)
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.first()
    assert match is not None
    match_run(match_id=match.pk, worker="test")
    return f"/api/matches/{match.pk}/record/"


def body_of(response: Any) -> Any:
    content = response.content
    if response.get("Content-Encoding") == "gzip":
        content = gzip.decompress(content)
    return json.loads(content)


def test_a_record_is_gzipped_when_asked_and_only_then() -> None:
    url = finished_record_url()
    plain = Client().get(url)  # a miss, not asked
    asked = Client().get(url, headers=GZIP)  # a hit, asked
    assert (plain[HIT_HEADER], asked[HIT_HEADER]) == ("miss", "hit")
    assert "Content-Encoding" not in plain
    assert asked["Content-Encoding"] == "gzip"
    assert body_of(asked) == body_of(plain)
    assert len(asked.content) * 3 < len(plain.content)
    for answer in (plain, asked):
        assert "Accept-Encoding" in answer["Vary"]
        assert "Authorization" in answer["Vary"]
    # The weakened ETag of the gzipped answer still matches: 304.
    unchanged = Client().get(url, headers=GZIP | {"If-None-Match": asked["ETag"]})
    assert unchanged.status_code == 304
    assert unchanged["Cache-Control"] == asked["Cache-Control"]


def test_a_computed_record_and_an_api_list_are_gzipped_too() -> None:
    url = finished_record_url()
    user = user_create("ann")
    client = Client()
    client.force_login(user)  # never from the read cache
    mine = client.get(url, headers=GZIP)
    assert HIT_HEADER not in mine
    assert mine["Content-Encoding"] == "gzip"
    # A list long enough that gzip always wins: Django's GZipMiddleware pads what it
    # compresses with up to 100 random bytes (against BREACH) and sends a short answer as
    # it is when the padded one would not be smaller.
    club = club_create(user=user, name="Lists")
    Tournament.objects.bulk_create(
        Tournament(club=club, name=f"League {number}", game="kingen", rounds=1)
        for number in range(20)
    )
    listed = Client().get("/api/tournaments/", headers=GZIP)
    assert listed["Content-Encoding"] == "gzip"
    assert body_of(listed)


def test_under_asgi_a_record_is_gzipped() -> None:
    url = finished_record_url()
    client = AsyncClient()
    miss = async_to_sync(client.get)(url, headers=GZIP)
    hit = async_to_sync(client.get)(url, headers=GZIP)
    assert (miss["Content-Encoding"], hit["Content-Encoding"]) == ("gzip", "gzip")
    assert body_of(miss) == body_of(hit)


def test_pages_and_the_api_token_are_never_compressed() -> None:
    url = finished_record_url()
    match_id = url.split("/")[3]
    for path in ("/", "/leagues/", f"/matches/{match_id}/", "/accounts/login/"):
        page = Client().get(path, headers=GZIP)
        assert page["Content-Type"].startswith("text/html"), path
        assert "Content-Encoding" not in page, path
    user_create("ann")
    token = Client().post(
        "/api/auth/token/",
        {"username": "ann", "password": "a long password 1"},
        content_type="application/json",
        headers=GZIP,
    )
    assert token.status_code == 200, token.content
    assert "Content-Encoding" not in token
    assert token.json()["token"]
