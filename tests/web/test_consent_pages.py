"""Nobody is made a member or entered without agreeing, on the pages: an organiser invites
a person by name and only that person accepts (or declines) it; an organiser enters a
member's bot only when its owner allows organisers of their clubs to enter it."""

from __future__ import annotations

import hashlib

from django.contrib.auth.models import User
from django.test import Client

import pytest

from bots.models import Bot, BotVersion
from bots.services import bot_create
from league.models import Entry, Invitation, Membership
from league.services.clubs import club_create
from league.services.tournaments import tournament_create
from tests.web.test_league_pages import messages_of

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

PASSWORD = "a long pass phrase 42"


def person(name: str) -> tuple[User, Client]:
    user = User.objects.create_user(name, password=PASSWORD)
    client = Client()
    client.force_login(user)
    return user, client


def test_a_personal_invitation_is_accepted_or_declined_by_its_invitee_only() -> None:
    owner, owner_client = person("olga")
    club = club_create(user=owner, name="Tuesday Club")
    mia, mia_client = person("mia")
    _, eve_client = person("eve")
    response = owner_client.post(
        f"/clubs/{club.pk}/invite/", {"role": "player", "username": "mia"}, follow=True
    )
    (text,) = messages_of(response)
    assert text.startswith("mia is invited (role: Player): they become a member when they accept")
    assert not Membership.objects.filter(user=mia).exists()
    response = owner_client.post(
        f"/clubs/{club.pk}/invite/", {"role": "player", "username": "nobody"}, follow=True
    )
    assert messages_of(response) == ["There is no person named 'nobody'."]
    code = Invitation.objects.get(invitee=mia).code

    assert "Tuesday Club" not in eve_client.get("/invitations/").content.decode()
    for client in (eve_client, owner_client):  # nobody answers it for her
        for answer in ("accept", "decline"):
            response = client.post(f"/invitations/{code}/{answer}/", follow=True)
            assert messages_of(response) == [
                "This invitation is for another person; only they may answer it."
            ]
    assert Membership.objects.filter(club=club).count() == 1
    assert "1 invitation for you" in mia_client.get("/clubs/").content.decode()
    page = mia_client.get("/invitations/").content.decode()
    assert "Tuesday Club" in page
    assert f"/invitations/{code}/accept/" in page
    response = mia_client.post(f"/invitations/{code}/accept/", follow=True)
    assert messages_of(response) == ["You joined Tuesday Club."]
    assert Membership.objects.get(club=club, user=mia).role == "player"

    eve = User.objects.get(username="eve")
    owner_client.post(f"/clubs/{club.pk}/invite/", {"role": "player", "username": "eve"})
    second = Invitation.objects.get(invitee=eve).code
    response = eve_client.post(f"/invitations/{second}/decline/", follow=True)
    assert messages_of(response) == ["Invitation declined."]
    response = eve_client.post(f"/invitations/{second}/accept/", follow=True)
    assert messages_of(response) == ["This invitation has been declined."]
    assert not Membership.objects.filter(club=club, user=eve).exists()


def active_version(owner: User, name: str) -> BotVersion:
    bot = bot_create(owner=owner, name=name, families=["kingen"])
    code = f"# {name}\n".encode()
    return BotVersion.objects.create(
        bot=bot,
        number=1,
        filename="main.py",
        code=code,
        sha256=hashlib.sha256(code).hexdigest(),
        size=len(code),
        status=BotVersion.Status.ACTIVE,
    )


def test_an_organiser_enters_a_members_bot_only_with_the_owners_standing_consent() -> None:
    organiser, organiser_client = person("olga")
    club = club_create(user=organiser, name="C")
    league = tournament_create(actor=organiser, club=club, name="L", game="kingen")
    mia, mia_client = person("mia")
    Membership.objects.create(club=club, user=mia)
    version = active_version(mia, "Mias bot")
    choice = f'value="version:{version.pk}"'
    assert choice not in organiser_client.get(f"/leagues/{league.pk}/").content.decode()
    response = organiser_client.post(
        f"/leagues/{league.pk}/enter/", {"competitor": f"version:{version.pk}"}, follow=True
    )
    assert messages_of(response) == ["Choose a competitor from the list."]
    assert not Entry.objects.filter(tournament=league).exists()

    _, eve_client = person("eve")
    response = eve_client.post(
        f"/bots/{version.bot_id}/consent/", {"club_organisers_may_enter": "on"}, follow=True
    )
    assert messages_of(response) == ["Only the bot's owner decides who may enter it."]
    bot_page = mia_client.get(f"/bots/{version.bot_id}/").content.decode()
    assert "Organisers of my clubs may enter this bot" in bot_page
    response = mia_client.post(
        f"/bots/{version.bot_id}/consent/", {"club_organisers_may_enter": "on"}, follow=True
    )
    assert messages_of(response) == [
        "Organisers of your clubs may now enter this bot in their leagues."
    ]
    assert choice in organiser_client.get(f"/leagues/{league.pk}/").content.decode()
    response = organiser_client.post(
        f"/leagues/{league.pk}/enter/", {"competitor": f"version:{version.pk}"}, follow=True
    )
    assert messages_of(response) == ["Entered: Mias bot."]
    # Withdrawn consent: no more entries by organisers (the entry made stays).
    mia_client.post(f"/bots/{version.bot_id}/consent/", {})
    assert not Bot.objects.get(pk=version.bot_id).club_organisers_may_enter
    assert "version:" not in organiser_client.get(f"/leagues/{league.pk}/").content.decode()
