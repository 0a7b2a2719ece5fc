"""League, club and bot pages through Django's test client, on the league's services.

No match is played here (tests/web/test_browser_league.py plays them through a worker):
these check what each page shows and who may do what.
"""

from __future__ import annotations

import hashlib
import html
import re
from typing import Any

from django.contrib.auth.models import User
from django.test import Client

import pytest

from bots.models import Bot, BotFault, BotVersion
from bots.services import bot_create
from league.models import Entry, Membership
from league.services.clubs import club_create, invitation_create
from league.services.tournaments import tournament_create

pytestmark = pytest.mark.django_db

PASSWORD = "a long pass phrase 42"


def person(name: str) -> tuple[User, Client]:
    user = User.objects.create_user(name, password=PASSWORD)
    client = Client()
    client.force_login(user)
    return user, client


MESSAGE = re.compile(r'<li class="message[^"]*">(.*?)</li>', re.DOTALL)


def messages_of(response: Any) -> list[str]:
    """The messages the page shows (a league page's come with the person's own parts, on
    the shared answer: api.read_cache.personal_page)."""
    return [html.unescape(text) for text in MESSAGE.findall(response.content.decode())]


def test_a_club_its_invitation_and_joining_with_the_code() -> None:
    _, owner_client = person("olga")
    response = owner_client.post("/clubs/", {"name": "Tuesday Club", "description": ""})
    club_url = response["Location"]
    page = owner_client.get(club_url).content.decode()
    assert "Create a league" in page
    assert "Invite someone" in page
    response = owner_client.post(f"{club_url}invite/", {"role": "player"}, follow=True)
    (text,) = messages_of(response)
    code = text.split("code ", 1)[1].split(" ", 1)[0]

    guest, guest_client = person("gus")
    assert "Create a league" not in guest_client.get(club_url).content.decode()
    response = guest_client.post("/join/", {"code": f"http://x/join/{code}/"}, follow=True)
    assert "You joined Tuesday Club." in messages_of(response)
    assert Membership.objects.filter(user=guest, club__name="Tuesday Club").exists()
    # An invitation works once, and says so.
    again = guest_client.post("/join/", {"code": code})
    assert "This invitation has been used already." in again.content.decode()


def test_an_unknown_invitation_code_is_refused_with_a_message() -> None:
    _, client = person("ann")
    response = client.post("/join/", {"code": "nope"})
    assert response.status_code == 200
    assert "No such invitation." in response.content.decode()


def test_an_organiser_creates_a_league_and_enters_built_in_bots() -> None:
    _, client = person("olga")
    club_url = client.post("/clubs/", {"name": "C"})["Location"]
    club_id = int(club_url.rstrip("/").rsplit("/", 1)[1])
    response = client.post(
        f"/clubs/{club_id}/leagues/new/",
        {"name": "L", "game": "kingen", "format": "round_robin", "rounds": 2, "move_seconds": 30},
    )
    assert response.status_code == 302
    league_url = response["Location"]
    response = client.post(f"{league_url}enter/", {"bot": "greedy", "count": 3}, follow=True)
    assert "Entered: greedy 1, greedy 2, greedy 3." in messages_of(response)
    response = client.post(f"{league_url}enter/", {"bot": "greedy", "count": 1}, follow=True)
    assert "Entered: greedy 4." in messages_of(response)
    page = client.get(league_url).content.decode()
    assert page.count("(bot)") == 4
    assert "Start the next round" in page


def test_a_league_with_a_bad_game_length_says_why() -> None:
    _, client = person("olga")
    club_url = client.post("/clubs/", {"name": "C"})["Location"]
    response = client.post(
        f"{club_url}leagues/new/",
        {
            "name": "L",
            "game": "kingen",
            "format": "round_robin",
            "rounds": 1,
            "deals": 5,
            "move_seconds": 30,
        },
    )
    assert response.status_code == 200
    assert "kingen has no length option" in response.content.decode()


def test_only_organisers_change_a_league_and_the_refusal_is_a_message() -> None:
    organiser, _ = person("olga")
    club = club_create(user=organiser, name="C")
    league = tournament_create(actor=organiser, club=club, name="L", game="kingen")
    _, stranger = person("sam")
    page = stranger.get(f"/leagues/{league.pk}/").content.decode()
    assert "Start the next round" not in page
    response = stranger.post(f"/leagues/{league.pk}/start-round/", follow=True)
    assert messages_of(response) == ["Only the organisers of 'C' may do this."]
    response = stranger.post(f"/leagues/{league.pk}/no-such-action/")
    assert response.status_code == 404


def test_starting_a_round_without_entrants_is_refused_with_the_reason() -> None:
    organiser, client = person("olga")
    club = club_create(user=organiser, name="C")
    league = tournament_create(actor=organiser, club=club, name="L", game="kingen")
    response = client.post(f"/leagues/{league.pk}/start-round/", follow=True)
    assert messages_of(response) == ["A round needs at least 2 entrants; there are 0."]
    assert not Entry.objects.filter(tournament=league).exists()


def test_the_pause_resume_and_finish_buttons_follow_the_status() -> None:
    organiser, client = person("olga")
    club = club_create(user=organiser, name="C")
    league = tournament_create(actor=organiser, club=club, name="L", game="kingen")
    client.post(f"/leagues/{league.pk}/pause/")
    page = client.get(f"/leagues/{league.pk}/").content.decode()
    assert "Resume" in page
    assert "Start the next round" not in page
    client.post(f"/leagues/{league.pk}/finish/")
    page = client.get(f"/leagues/{league.pk}/").content.decode()
    assert "Finish the league" not in page
    assert "finished" in page


def test_a_bot_page_shows_versions_their_sha256_and_faults_with_the_log() -> None:
    owner, client = person("bea")
    bot = bot_create(owner=owner, name="Crashy", families=["kingen"])
    code = b"raise SystemExit(3)\n"
    version = BotVersion.objects.create(
        bot=bot,
        number=1,
        filename="crashy.py",
        code=code,
        sha256=hashlib.sha256(code).hexdigest(),
        size=len(code),
        status=BotVersion.Status.REJECTED,
        report={
            "structure": "ok",
            "game": "kingen",
            "outcome": "crash",
            "problem": "the validation game ended with crash",
        },
    )
    BotFault.objects.create(
        version=version,
        seat=0,
        cause="crash",
        message="exited with status 3",
        log="Traceback (most recent call last):\n  SystemExit: 3\n",
    )
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert version.sha256 in page
    assert "rejected" in page
    assert "the validation game ended with crash" in page
    assert "<strong>crash</strong>" in page
    assert "exited with status 3" in page
    assert "SystemExit: 3" in page
    assert "Upload a new version" in page
    # The versions fragment polls only while a validation is pending.
    fragment = client.get(f"/bots/{bot.pk}/versions/").content.decode()
    assert "hx-trigger" not in fragment


def test_an_upload_that_is_not_a_bot_is_refused_with_the_reason() -> None:
    owner, client = person("bea")
    bot = Bot.objects.create(owner=owner, name="B")
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("notes.txt", b"hello")
    response = client.post(f"/bots/{bot.pk}/upload/", {"file": upload}, follow=True)
    (text,) = messages_of(response)
    assert text.startswith("Upload refused: ")
    assert not BotVersion.objects.filter(bot=bot).exists()


def test_someone_elses_bot_has_no_upload_form() -> None:
    owner, _ = person("bea")
    bot = Bot.objects.create(owner=owner, name="B")
    _, other = person("carl")
    assert "Upload a new version" not in other.get(f"/bots/{bot.pk}/").content.decode()


def test_a_seat_of_someone_else_is_not_shown() -> None:
    from league.services.tables import table_open

    owner, _ = person("ann")
    match = table_open(
        actor=owner,
        game="kingen",
        seats=["me", "builtin:greedy", "builtin:greedy", "builtin:greedy"],
    )
    _, other = person("bob")
    response = other.get(f"/matches/{match.pk}/seats/0/")
    assert response.status_code == 403
    assert "belongs to another player" in response.content.decode()
    assert other.get(f"/matches/{match.pk}/seats/9/").status_code == 404
    # Anyone may watch the match itself, with public information only.
    page = other.get(f"/matches/{match.pk}/").content.decode()
    assert f"/api/matches/{match.pk}/record/" in page
    assert "Take your seat" not in page


def test_missing_things_are_404_pages() -> None:
    client = Client()
    for path in ("/clubs/999/", "/leagues/999/", "/matches/999/", "/bots/999/"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert b"Not found" in response.content
    assert client.get("/matches/999/timeline.json").json() == {"detail": "no match 999"}


def test_invitation_create_is_the_leagues() -> None:
    owner, _ = person("olga")
    club = club_create(user=owner, name="C")
    assert invitation_create(actor=owner, club=club).code


def test_a_member_enters_themself_and_an_organiser_cannot_enter_them() -> None:
    organiser, organiser_client = person("olga")
    club = club_create(user=organiser, name="C")
    league = tournament_create(actor=organiser, club=club, name="L", game="kingen")
    member, member_client = person("mia")
    Membership.objects.create(club=club, user=member, role="player")
    page = organiser_client.get(f"/leagues/{league.pk}/").content.decode()
    assert "user:" not in page  # nobody enters another person (tests/web/test_consent_pages.py)
    response = member_client.post(f"/leagues/{league.pk}/enter/", {"competitor": "me"}, follow=True)
    assert messages_of(response) == ["Entered: mia."]
    response = member_client.post(f"/leagues/{league.pk}/enter/", {"competitor": "me"}, follow=True)
    assert messages_of(response) == ["Choose a competitor from the list."]  # entered already
    assert Entry.objects.filter(tournament=league, competitor__user=member).count() == 1


def test_a_priffe_league_page_shows_partner_pairs_ratings_and_the_leaderboard() -> None:
    from league.models import TournamentFormat
    from league.services.ratings import ratings_update
    from tests.league.builders import bot_tournament
    from tests.league.test_standings_service import rounds_played

    tournament, organiser = bot_tournament(game="priffe(rubbers_per_game=3)", entrants=4)
    tournament.format = TournamentFormat.ROTATING_PARTNERS
    tournament.save()
    rounds_played(tournament, organiser, 1)
    client = Client()
    page = client.get(f"/leagues/{tournament.pk}/").content.decode()
    assert "Partner pairs" in page
    assert page.count(" &amp; ") >= 6  # six pairs of partners, named
    assert "Head to head" in page
    assert "1 result waiting for the ratings queue." in page
    ratings_update()
    page = client.get(f"/leagues/{tournament.pk}/live/").content.decode()
    assert 'id="ratings"' in page
    assert "waiting for the ratings queue" not in page
    assert "Margin rating of partnership play" in page
    assert "<polyline" in page  # each entrant's line from its start
    board = client.get("/ratings/?family=priffe").content.decode()
    assert board.count("random-") == 4
    assert "No Kingen match" in client.get("/ratings/?family=kingen").content.decode()
