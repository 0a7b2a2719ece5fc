"""The league's admin pages (web/admin.py): found by Django's autodiscovery in the web app,
at the league models' addresses, and a match's cards and seed kept from staff until it ends.

Who may open the admin at all is tests/league/test_permissions.py's.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models.functions import Now
from django.test import Client

import pytest

from league.models import Match, MatchEvent, MatchStatus
from league.services.tournaments import tournament_round_start
from tests.league.builders import bot_tournament

pytestmark = pytest.mark.django_db

HAND = "AS KS QS JS"
"""A dealt hand's text in the stored chance event (what the admin must not show early)."""


def staff_client() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="a long password 1"))
    return client


def a_dealt_match() -> Match:
    tournament, organiser = bot_tournament()
    tournament_round_start(actor=organiser, tournament=tournament)
    match = Match.objects.filter(tournament=tournament).order_by("id").first()
    assert match is not None
    MatchEvent.objects.create(match=match, index=0, chance={"chance": "deal", "hands": [HAND]})
    MatchEvent.objects.create(match=match, index=1, seat=0, action="play AS", ms=12)
    return match


def test_the_league_models_are_in_the_admin_at_their_addresses() -> None:
    client = staff_client()
    index = client.get("/admin/").content.decode()
    for page in (
        "/admin/league/club/",
        "/admin/league/match/",
        "/admin/league/rating/",
        "/admin/league/tablesheet/",
        "/admin/league/scorecorrection/",
        "/admin/league/roundattendance/",
    ):
        assert page in index
        assert client.get(page).status_code == 200, page


def test_a_match_page_hides_the_cards_and_the_seed_until_the_match_is_over() -> None:
    match = a_dealt_match()
    client = staff_client()
    page = f"/admin/league/match/{match.pk}/change/"
    running = client.get(page)
    assert running.status_code == 200
    text = running.content.decode()
    assert "0: deal (hidden until the end)" in text
    assert "1: seat 0 play AS (12.0 ms)" in text
    assert HAND not in text
    assert 'name="seed"' not in text
    Match.objects.filter(pk=match.pk).update(
        status=MatchStatus.FINISHED, attempts=1, started_at=Now(), finished_at=Now()
    )
    finished = client.get(page).content.decode()
    assert HAND in finished
    assert "hidden until the end" not in finished
    assert 'name="seed"' in finished
