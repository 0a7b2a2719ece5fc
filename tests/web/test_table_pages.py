"""The pages of tables and the lobby (web.views.tables): the new-table form in plain words,
the one-step game with bots, a table's waiting page with its invitation links, the page an
invitation link opens, joining from the lobby, and the lobby's lists per club."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from django.test import Client

import pytest

from league.errors import InvalidInputError
from league.models import Match, MatchSeat, MatchStatus, Membership, Role, SeatInvitation
from league.selectors.tables import lobby
from league.services.clubs import club_create
from league.services.tables import table_open

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

PASSWORD = "a long pass phrase 42"


def person(name: str) -> tuple[User, Client]:
    user = User.objects.create_user(name, password=PASSWORD)
    client = Client()
    client.force_login(user)
    return user, client


def visible_text(html: str) -> str:
    """The page's text without its tags, scripts and attribute values."""
    html = re.sub(r"<script.*?</script>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


def table_form(**fields: Any) -> dict[str, Any]:
    """The new-table form as a person fills it: Kingen, you and three bots, live."""
    data: dict[str, Any] = {
        "form": "table",
        "game": "kingen",
        "time_control": "live",
        "move_seconds": "60",
        "time_bank_seconds": "30",
        "correspondence_amount": "1",
        "correspondence_unit": "days",
        "club": "",
    }
    for row in range(5):
        data |= {f"seat_{row}": "bot", f"seat_{row}_bot": "builtin:greedy"}
    data["seat_0"] = "me"
    return data | fields


def test_the_new_table_form_names_games_and_options_in_plain_words() -> None:
    _, client = person("ann")
    response = client.get("/play/")
    assert response.status_code == 200
    text = visible_text(response.content.decode())
    assert "Kingen (IWWA rules)" in text
    assert "Priffe, 3 players" in text
    assert "Number of players: 3, 4 or 5." in text  # an option by its description
    assert "full shuffle" in text  # a choice's value in words
    assert "kingen(" not in text
    assert "priffe(" not in text
    assert "Play now" in text
    assert "Open the table" in text
    assert "Correspondence" in text


def test_the_quick_path_still_seats_you_with_bots_in_one_step() -> None:
    ann, client = person("ann")
    response = client.post(
        "/play/", {"form": "quick", "quick-game": "kingen", "quick-opponents": "greedy"}
    )
    match = Match.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.pk}/seats/0/"
    assert match.status == MatchStatus.QUEUED
    assert MatchSeat.objects.get(match=match, seat=0).competitor.user_id == ann.pk


def test_a_table_with_open_and_kept_seats_waits_and_its_host_sees_the_links() -> None:
    _, client = person("ann")
    bob, bob_client = person("bob")
    _, cid_client = person("cid")
    response = client.post(
        "/play/",
        table_form(
            game="kingen(rules=iwwa)",
            seat_1="open",
            seat_2="invite",
            seat_2_username="bob",
            option_kingen_heart_lead_ban="false",
            time_control="correspondence",
            correspondence_amount="2",
            correspondence_unit="days",
        ),
    )
    match = Match.objects.get()
    assert response.status_code == 302, response.content.decode()[:2000]
    assert response["Location"] == f"/tables/{match.pk}/"
    assert match.status == MatchStatus.WAITING
    assert match.game == "kingen(heart_lead_ban=false,rules=iwwa)"
    assert (match.tournament.time_control, match.tournament.move_seconds) == (
        "correspondence",
        2 * 86400.0,
    )
    page = client.get(f"/tables/{match.pk}/").content.decode()
    codes = {i.seat: i.code for i in SeatInvitation.objects.filter(match=match)}
    assert f"/tables/invitations/{codes[1]}/" in page
    assert f"/tables/invitations/{codes[2]}/" in page
    assert "Copy" in page
    assert "Kept for" in page
    assert "Cancel the table" in page
    # Nobody but the host sees the links.
    other = cid_client.get(f"/tables/{match.pk}/").content.decode()
    assert codes[1] not in other
    assert codes[2] not in other
    # Bob opens his link and accepts; Cid cannot take Bob's seat.
    invitation = bob_client.get(f"/tables/invitations/{codes[2]}/").content.decode()
    assert "Accept" in invitation
    assert "Decline" in invitation
    refused = cid_client.post(f"/tables/invitations/{codes[2]}/accept/")
    assert refused.status_code == 403
    assert "kept for bob" in refused.content.decode()
    accepted = bob_client.post(f"/tables/invitations/{codes[2]}/accept/")
    assert accepted["Location"] == f"/tables/{match.pk}/"
    assert MatchSeat.objects.get(match=match, seat=2).competitor.user_id == bob.pk
    # Cid joins from the lobby: the last seat; the table starts and he goes to his seat.
    lobby = cid_client.get("/lobby/").content.decode()
    assert f'action="/tables/{match.pk}/join/"' in lobby
    joined = cid_client.post(f"/tables/{match.pk}/join/")
    assert joined["Location"] == f"/matches/{match.pk}/seats/1/"
    match.refresh_from_db()
    assert match.status == MatchStatus.QUEUED
    # Under way, the table's page sends each seated person to their seat (a page that was
    # reloading as the last seat went lands there); a visitor without a seat may watch.
    assert client.get(f"/tables/{match.pk}/")["Location"] == f"/matches/{match.pk}/seats/0/"
    assert bob_client.get(f"/tables/{match.pk}/")["Location"] == f"/matches/{match.pk}/seats/2/"
    _, dee_client = person("dee")
    watching = dee_client.get(f"/tables/{match.pk}/")
    assert watching.status_code == 200
    assert "The game has started." in watching.content.decode()


def test_a_bad_table_is_refused_on_the_form_naming_the_problem() -> None:
    _, client = person("ann")
    response = client.post("/play/", table_form(seat_1="invite", seat_1_username="nobody"))
    assert response.status_code == 400
    assert "no person named &#x27;nobody&#x27; to invite" in response.content.decode()
    response = client.post(
        "/play/", table_form(time_control="correspondence", correspondence_amount="40")
    )
    assert "a correspondence game takes from an hour to" in response.content.decode()
    assert not Match.objects.exists()


def test_a_clubs_tables_are_for_its_members() -> None:
    olga, olga_client = person("olga")
    _, eve_client = person("eve")
    club = club_create(user=olga, name="Tuesday Club")
    match = table_open(
        actor=olga,
        game="kingen",
        seats=["me", "open", "builtin:greedy", "builtin:greedy"],
        club=club,
    )
    assert eve_client.get(f"/lobby/?club={club.pk}").status_code == 403
    assert f"/tables/{match.pk}/" not in eve_client.get("/lobby/").content.decode()
    assert f"/tables/{match.pk}/" in olga_client.get(f"/lobby/?club={club.pk}").content.decode()
    assert f"/tables/{match.pk}/" in olga_client.get("/lobby/").content.decode()
    refused = eve_client.post(f"/tables/{match.pk}/join/")
    assert refused.status_code == 403
    assert "for members of" in refused.content.decode()


def test_the_lobby_lists_games_to_watch() -> None:
    ann, client = person("ann")
    match = table_open(actor=ann, game="priffe", seats=["me", *["builtin:greedy"] * 3])
    page = client.get("/lobby/")
    assert page.status_code == 200
    text = visible_text(page.content.decode())
    assert "Being played now" in text
    assert "Priffe" in text
    assert f'href="/matches/{match.pk}/"' in page.content.decode()
    assert Client().get("/lobby/").status_code == 200  # open to everyone


def test_a_table_with_a_seat_kept_for_you_is_listed_once_in_your_lobby() -> None:
    """Issue 32: it was listed three times (kept for you, your tables, open tables)."""
    ann, ann_client = person("ann")
    bob, bob_client = person("bob")
    match = table_open(
        actor=ann, game="kingen", seats=["me", "open", "invite:bob", "builtin:greedy"]
    )
    code = SeatInvitation.objects.get(match=match, invitee=bob).code
    html = bob_client.get("/lobby/").content.decode()
    assert html.count(f'href="/tables/invitations/{code}/"') == 1
    assert f'href="/tables/{match.pk}/"' not in html  # neither among yours nor the open ones
    listed = lobby(user=bob)
    assert [t["id"] for t in listed["your_tables"]] == [match.pk]  # the API's list
    assert listed["open_tables"] == []
    # The host: her table once, among hers, not also among the open ones.
    html = ann_client.get("/lobby/").content.decode()
    assert html.count(f'href="/tables/{match.pk}/"') == 2  # its name and its "See" button
    assert lobby(user=ann)["open_tables"] == []
    # Anyone else: an open table.
    cleo, _ = person("cleo")
    assert [t["id"] for t in lobby(user=cleo)["open_tables"]] == [match.pk]


def test_a_clubs_table_takes_only_members_invited_or_not() -> None:
    olga, _ = person("olga")
    eve, eve_client = person("eve")
    club = club_create(user=olga, name="Tuesday Club")
    with pytest.raises(InvalidInputError) as refused:
        table_open(
            actor=olga,
            game="kingen",
            seats=["me", "invite:eve", "builtin:greedy", "builtin:greedy"],
            club=club,
        )
    assert "eve is not a member of Tuesday Club: a club's table takes only members" in str(
        refused.value
    )
    Membership.objects.create(club=club, user=eve, role=Role.PLAYER)
    match = table_open(
        actor=olga,
        game="kingen",
        seats=["me", "invite:eve", "builtin:greedy", "builtin:greedy"],
        club=club,
    )
    Membership.objects.filter(club=club, user=eve).delete()  # she left the club since
    code = SeatInvitation.objects.get(match=match, invitee=eve).code
    answer = eve_client.post(f"/tables/invitations/{code}/accept/")
    assert answer.status_code == 403
    assert "for members of" in answer.content.decode()
    assert not MatchSeat.objects.filter(match=match, competitor__user=eve).exists()
