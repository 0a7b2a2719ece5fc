"""A display name (issue 33, the settings): set by the settings page and by ``/api/account/``,
checked like every chosen name (no bidirectional or other control characters, at most 40
characters, stripped; refused in the person's language), and shown to others wherever a
person's name is shown (league.selectors.person_names.person_name): the table's view
payload, standings, the profile as "Display (username)", notices; blank shows the username
again. Real PostgreSQL and Redis, through the pages and the API."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth.models import User
from django.test import Client

import pytest

from league.models import Match, Notification
from league.services.clubs import club_create, invitation_create
from tests.api_answers import client_for, ok
from tests.league.builders import user_create

if TYPE_CHECKING:
    from pytest_django.fixtures import Settings

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db]

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE


def table_open(user: User) -> int:
    """A Kingen table of ``user`` with three built-in bots (it starts at once)."""
    created = ok(
        client_for(user).post(
            "/api/tables/",
            {"game": "kingen", "seats": ["me", *["builtin:greedy"] * 3]},
            format="json",
        ),
        201,
    )
    return int(created["id"])


def seat_names(user: User, match_id: int) -> list[str]:
    view = ok(client_for(user).get(f"/api/matches/{match_id}/seats/0/view/"))
    return [seat["name"] for seat in view["seats"]]


def standings_names(match_id: int) -> list[str]:
    tournament_id = Match.objects.get(pk=match_id).tournament_id
    standings = ok(client_for(None).get(f"/api/tournaments/{tournament_id}/standings/"))
    return [row["name"] for row in standings["rows"]]


def settings_post(client: Client, name: str) -> tuple[int, str]:
    response = client.post("/settings/account/", {"action": "display_name", "display_name": name})
    return response.status_code, response.content.decode()


def test_a_name_set_on_the_page_shows_at_the_table_in_standings_and_on_the_profile(
    settings: Settings,
) -> None:
    # The public reads' cache moves on when the transaction commits, which a test's never
    # does (tests/api/test_read_cache.py covers that): read what the views answer now.
    settings.READ_CACHE = False
    ann = user_create("ann")
    match_id = table_open(ann)  # she played before she chose a name: her seat follows it
    assert seat_names(ann, match_id)[0] == "ann"

    browser = Client()
    browser.force_login(ann)
    assert settings_post(browser, "  Ann Peeters  ")[0] == 302
    page = browser.get("/settings/account/").content.decode()
    assert 'value="Ann Peeters"' in page  # stripped
    assert "Others see you as <strong>Ann Peeters</strong>" in page

    assert seat_names(ann, match_id)[0] == "Ann Peeters"
    assert "Ann Peeters" in standings_names(match_id)
    profile = Client().get("/people/ann/").content.decode()
    assert "<h1>Ann Peeters (ann)</h1>" in profile
    assert ok(client_for(None).get("/api/people/ann/"))["name"] == "Ann Peeters"

    # Blank: the username again, everywhere.
    assert settings_post(browser, "   ")[0] == 302
    assert seat_names(ann, match_id)[0] == "ann"
    assert "ann" in standings_names(match_id)
    assert "<h1>ann</h1>" in Client().get("/people/ann/").content.decode()


def test_a_name_set_by_the_api_shows_in_a_notice_a_new_table_and_the_chat() -> None:
    olga, bo = user_create("olga"), user_create("bo")
    api = client_for(olga)
    assert ok(api.get("/api/account/")) == {
        "username": "olga",
        "display_name": "",
        "name": "olga",
        "profile_visibility": "everyone",
    }
    answer = ok(api.patch("/api/account/", {"display_name": " Olga V. "}, format="json"))
    assert (answer["display_name"], answer["name"], answer["username"]) == (
        "Olga V.",
        "Olga V.",
        "olga",
    )
    club = club_create(user=olga, name="Club")
    invitation_create(actor=olga, club=club, invitee=bo)
    [notice] = Notification.objects.filter(user=bo)
    assert notice.text == "Olga V. invites you to join the club Club."

    match_id = table_open(olga)  # a competitor made after the name is chosen has it too
    assert seat_names(olga, match_id)[0] == "Olga V."
    url = f"/api/matches/{match_id}/chat/"
    assert ok(api.post(url, {"text": "hello"}, format="json"), 201)["author"] == "Olga V."
    assert [line["author"] for line in ok(client_for(None).get(url))["messages"]] == ["Olga V."]
    # the username stays in links and answers that identify her
    assert ok(client_for(None).get("/api/people/olga/"))["username"] == "olga"


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "may not contain characters that change the direction of the text"),
        ("nl", "mag geen tekens bevatten die de richting van de tekst veranderen"),
        ("sv", "får inte innehålla tecken som ändrar textens riktning"),
    ],
)
def test_a_bidi_name_is_refused_in_the_persons_language(language: str, words: str) -> None:
    cy = user_create("cy")
    api = client_for(cy)
    response = api.patch(
        "/api/account/",
        {"display_name": f"Cy{RLO}evil"},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 400, response.content
    assert words in str(response.json()["errors"]["display_name"])

    browser = Client(HTTP_ACCEPT_LANGUAGE=language)
    browser.force_login(cy)
    status, page = settings_post(browser, f"Cy{RLO}evil")
    assert status == 400
    assert words in page
    assert ok(api.get("/api/account/"))["name"] == "cy"  # nothing was stored


@pytest.mark.parametrize(
    ("name", "language", "words"),
    [
        ("x" * 41, "en", "at most 40 characters"),
        ("x" * 41, "nl", "hoogstens 40 tekens"),
        ("Cy\u0007bell", "en", "control characters"),
        ("Cy\nbell", "sv", "styrtecken eller radbrytningar"),
    ],
)
def test_a_long_name_or_a_control_character_is_refused(
    name: str, language: str, words: str
) -> None:
    cy = user_create("cy")
    response = client_for(cy).patch(
        "/api/account/", {"display_name": name}, format="json", HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 400, response.content
    assert words in str(response.json()["errors"]["display_name"])
    browser = Client(HTTP_ACCEPT_LANGUAGE=language)
    browser.force_login(cy)
    status, page = settings_post(browser, name)
    assert (status, words in page) == (400, True)


def test_an_unknown_field_is_refused_and_the_username_cannot_change() -> None:
    cy = user_create("cy")
    response = client_for(cy).patch("/api/account/", {"username": "root"}, format="json")
    assert response.status_code == 400, response.content
    assert ok(client_for(cy).get("/api/account/"))["username"] == "cy"
    assert client_for(None).get("/api/account/").status_code in (401, 403)


def test_nobody_takes_another_persons_username_as_their_name() -> None:
    user_create("olle")
    cy = user_create("cy")
    response = client_for(cy).patch(
        "/api/account/", {"display_name": "OLLE"}, format="json", HTTP_ACCEPT_LANGUAGE="sv"
    )
    assert response.status_code == 400, response.content
    assert "någon annans användarnamn" in str(response.json()["errors"]["display_name"])
    # Their own username, in any case, is theirs to show.
    assert ok(client_for(cy).patch("/api/account/", {"display_name": "CY"}, format="json"))
