"""Bidirectional control characters (bots/direction_controls.py) in every name a person
chooses are refused with a message naming them, whichever way the name comes in (the
services, the API, the pages), and a chat line has them removed: ``"\\u202egnp.exe"``
would show as "exe.png"."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

import pytest

from accounts.sign_in import account_create
from bots.direction_controls import (
    DIRECTION_CONTROLS,
    direction_controls_in,
    direction_controls_removed,
)
from bots.services import BotServiceError, bot_create
from league.errors import InvalidInputError
from league.models import Club, Ladder, Tournament
from league.services.clubs import club_create
from league.services.ladders import ladder_open
from league.services.tournaments import tournament_create
from tests.api.test_table import table_open
from tests.api_answers import client_for, ok, refused
from tests.league.builders import club_with_organiser, user_create

pytestmark = pytest.mark.django_db

SPOOF = "\u202egnp.exe"  # shows as "exe.png"
EACH = sorted(DIRECTION_CONTROLS)


def test_the_controls_are_the_bidirectional_ones() -> None:
    codes = {ord(ch) for ch in DIRECTION_CONTROLS}
    assert codes == {*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C}
    assert direction_controls_in(SPOOF + "\u2066\u202e") == ["U+202E", "U+2066"]
    assert direction_controls_in("Ölands Kortklubb שלום") == []  # right-to-left letters are fine
    assert direction_controls_removed(SPOOF) == "gnp.exe"


@pytest.mark.parametrize("control", EACH)
def test_a_club_name_with_a_control_is_refused(control: str) -> None:
    with pytest.raises(InvalidInputError, match=f"U\\+{ord(control):04X}"):
        club_create(user=user_create("ann"), name=f"Club{control}name")
    assert not Club.objects.exists()


def test_a_league_name_with_a_control_is_refused() -> None:
    club, organiser = club_with_organiser()
    with pytest.raises(InvalidInputError, match="direction"):
        tournament_create(actor=organiser, club=club, name=SPOOF, game="kingen")
    assert not Tournament.objects.exists()


def test_a_ladder_name_with_a_control_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="U\\+202E"):
        ladder_open(game="kingen", name=SPOOF, anchors=())
    assert not Ladder.objects.exists()


def test_a_bot_name_with_a_control_is_refused() -> None:
    with pytest.raises(BotServiceError, match="U\\+202E"):
        bot_create(owner=user_create("ann"), name=SPOOF, families=["kingen"])


def test_a_username_with_a_control_is_refused_by_the_service_and_the_sign_up_page() -> None:
    with pytest.raises(InvalidInputError, match=r"username: .*U\+202E"):
        account_create(username=SPOOF, password="a long password 1")
    page = Client().post(
        "/accounts/signup/",
        {"username": SPOOF, "password1": "a long password 1", "password2": "a long password 1"},
    )
    assert page.status_code == 200  # the form again, with the message
    assert b"username" in page.content.lower()
    assert not get_user_model().objects.filter(username=SPOOF).exists()


def test_the_api_refuses_such_names_with_a_json_message() -> None:
    ann = user_create("ann")
    club_message = refused(client_for(ann).post("/api/clubs/", {"name": SPOOF}, format="json"), 400)
    assert "U+202E" in club_message
    bot = {"name": SPOOF, "families": ["kingen"]}
    bot_message = refused(client_for(ann).post("/api/bots/", bot, format="json"), 400)
    assert "U+202E" in bot_message
    club, organiser = club_with_organiser(name="Named")
    league = {"club": club.pk, "name": SPOOF, "game": "kingen"}
    assert "U+202E" in refused(
        client_for(organiser).post("/api/tournaments/", league, format="json"), 400
    )
    ok(client_for(ann).post("/api/clubs/", {"name": "Kortklubben"}, format="json"), 201)


def test_a_chat_line_has_them_removed() -> None:
    ann = user_create("ann")
    url = f"/api/matches/{table_open(ann)}/chat/"
    line = ok(client_for(ann).post(url, {"text": f"see {SPOOF}\u2066!\u2069"}, format="json"), 201)
    assert line["text"] == "see gnp.exe!"
    refused(client_for(ann).post(url, {"text": "\u202e\u200f"}, format="json"), 400)  # empty then
    assert ok(APIClient().get(url))["messages"][0]["text"] == "see gnp.exe!"
