"""Pages that tell people where they stand before they act: an invitation link names its
club, a form a person may not use says so before it is filled in, a refused form (CSRF)
gets the site's own page; and the site's icon."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.test import Client

import pytest

from league.models import Membership
from league.services.clubs import club_create, invitation_create
from league.services.tournaments import tournament_create

pytestmark = pytest.mark.django_db


def person(name: str) -> tuple[User, Client]:
    user = User.objects.create_user(name, password="a long pass phrase 42")
    client = Client()
    client.force_login(user)
    return user, client


def test_an_invitation_link_names_its_club_before_anyone_joins() -> None:
    owner, _ = person("olga")
    club = club_create(user=owner, name="Tuesday Club")
    invitation = invitation_create(actor=owner, club=club)
    guest, client = person("gus")
    html = client.get(f"/join/{invitation.code}/").content.decode()
    assert "<h1>Join Tuesday Club</h1>" in html
    assert "olga" in html
    assert not Membership.objects.filter(user=guest).exists()  # a GET joins nobody
    response = client.post("/join/", {"code": invitation.code}, follow=True)
    assert Membership.objects.filter(user=guest, club=club).exists()
    assert "You joined Tuesday Club." in response.content.decode()
    # Used now: the link says so, and still names the club.
    again = client.get(f"/join/{invitation.code}/").content.decode()
    assert "used already" in again or "member of this club already" in again
    assert "Tuesday Club" in again


def test_a_link_for_someone_else_or_unknown_says_so() -> None:
    owner, _ = person("olga")
    club = club_create(user=owner, name="Tuesday Club")
    ann, _ = person("ann")
    personal = invitation_create(actor=owner, club=club, invitee=ann)
    _, client = person("gus")
    html = client.get(f"/join/{personal.code}/").content.decode()
    assert "for another person" in html
    assert "Join the club" in html  # the plain form, no button to join Tuesday Club
    assert "Join Tuesday Club</button>" not in html
    assert "No such invitation" in client.get("/join/nope/").content.decode()


def test_only_organisers_see_the_new_league_form() -> None:
    owner, owner_client = person("olga")
    club = club_create(user=owner, name="Tuesday Club")
    player, player_client = person("pat")
    Membership.objects.create(club=club, user=player, role="player")
    _, stranger_client = person("sam")
    assert 'name="game"' in owner_client.get(f"/clubs/{club.pk}/leagues/new/").content.decode()
    for client, words in ((player_client, "one of its players"), (stranger_client, "not a member")):
        response = client.get(f"/clubs/{club.pk}/leagues/new/")
        assert response.status_code == 403
        html = response.content.decode()
        assert "Only the owners and organisers of" in html
        assert words in html
        assert 'name="game"' not in html  # no form to fill in for nothing


def test_a_stranger_is_told_before_the_enter_form_that_only_members_enter() -> None:
    owner, _ = person("olga")
    club = club_create(user=owner, name="Tuesday Club")
    league = tournament_create(actor=owner, club=club, name="Spring", game="kingen")
    _, stranger = person("sam")
    html = stranger.get(f"/leagues/{league.pk}/").content.decode()
    assert "Only members of" in html
    assert 'name="competitor"' not in html
    member, member_client = person("pat")
    Membership.objects.create(club=club, user=member, role="player")
    html = member_client.get(f"/leagues/{league.pk}/").content.decode()
    assert "Only members of" not in html
    assert 'name="competitor"' in html


def test_a_form_refused_by_the_csrf_check_gets_the_sites_page() -> None:
    user = User.objects.create_user("ann", password="a long pass phrase 42")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post("/clubs/", {"name": "No token"})
    assert response.status_code == 403
    html = response.content.decode()
    assert "Your form was not accepted" in html
    assert "reload the page" in html
    assert 'class="site-header"' in html  # the site's own page, with its navigation
    assert "CSRF verification failed" not in html  # not Django's page


def test_the_favicon_is_served_by_the_site(client: Client) -> None:
    html = client.get("/").content.decode()
    assert 'rel="icon" href="/static/web/favicon.svg"' in html
    assert 'href="/static/web/favicon-32.png"' in html
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == "/static/web/favicon-32.png"
