"""Invitations arrive: a club's personal invitation and a seat kept at a table become the
invitee's notices (mailed by their choice, like every notice) and wait on their home page,
each with the way to answer it, in their language."""

from __future__ import annotations

import pytest

from league.display_settings import language_set
from league.models import Club, Notification, NotificationKind, SeatInvitation
from league.services.clubs import club_create, invitation_create
from tests.web.test_table_pages import person, table_form, visible_text

pytestmark = pytest.mark.django_db


def test_a_club_invitation_and_a_kept_seat_reach_the_invitees_notices_and_home_page() -> None:
    ann, ann_client = person("ann")
    bob, bob_client = person("bob")
    club = club_create(user=ann, name="Kingen i Lund")
    assert "Invitations waiting" not in visible_text(bob_client.get("/").content.decode())

    invitation_create(actor=ann, club=club, invitee=bob)
    notice = Notification.objects.get(user=bob)
    assert notice.kind == NotificationKind.INVITED
    assert notice.text == "ann invites you to join the club Kingen i Lund."
    assert notice.url == "/invitations/"

    response = ann_client.post(
        "/play/", table_form(seat_1="invite", seat_1_username="bob", seat_2="open")
    )
    assert response.status_code == 302
    seat = SeatInvitation.objects.get(invitee=bob)
    table_notice = Notification.objects.filter(user=bob).exclude(pk=notice.pk).get()
    assert table_notice.text == "ann invites you to a table of Kingen."

    home = bob_client.get("/").content.decode()
    text = visible_text(home)
    assert "Invitations waiting for your answer" in text
    assert "ann invites you to join the club Kingen i Lund." in text
    assert "ann invites you to a table of Kingen." in text
    assert 'href="/invitations/"' in home
    assert f'href="/tables/invitations/{seat.code}/"' in home
    # Nobody else is shown them.
    assert "Invitations waiting" not in visible_text(ann_client.get("/").content.decode())
    assert Club.objects.count() == 1


def test_an_invitation_is_written_in_the_invitees_language() -> None:
    ann, _ = person("ann")
    sven, _ = person("sven")
    language_set(user=sven, language="sv")
    club = club_create(user=ann, name="Lunds kortklubb")
    invitation_create(actor=ann, club=club, invitee=sven)
    notice = Notification.objects.get(user=sven)
    assert notice.text == "ann bjuder in dig att gå med i klubben Lunds kortklubb."
