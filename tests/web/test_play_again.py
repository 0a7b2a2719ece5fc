"""Play again: a rematch seats the same people and bots one seat on, each person invited
(nobody seated without accepting) and the table starting when all accepted; *New table with
these players* fills the form with them; *Play now* as a visitor signs up and sits down at
once. Real PostgreSQL, through the pages."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

import pytest

from league.models import Match, MatchSeat, MatchStatus, SeatInvitation
from league.services.tables import seat_invitation_accept, table_open

PASSWORD = "a long password 1"


def signed_in(user: User) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def seated(match: Match) -> dict[int, str]:
    rows = MatchSeat.objects.filter(match=match).select_related("competitor")
    return {row.seat: row.competitor.name for row in rows}


@pytest.mark.django_db
def test_a_rematch_seats_the_same_players_rotated_and_starts_when_all_accepted() -> None:
    ann = User.objects.create_user("ann", password=PASSWORD)
    bob = User.objects.create_user("bob", password=PASSWORD)
    eve = User.objects.create_user("eve", password=PASSWORD)
    first = table_open(
        actor=ann, game="kingen", seats=["me", "invite:bob", "builtin:greedy", "builtin:random"]
    )
    (invitation,) = SeatInvitation.objects.filter(match=first)
    seat_invitation_accept(user=bob, code=invitation.code)
    before = seated(first)
    assert (before[0], before[1]) == ("ann", "bob")

    # Not before the end, and not for someone who did not play.
    refused = signed_in(bob).post(f"/matches/{first.pk}/rematch/", follow=True)
    assert "a rematch waits for the game to finish" in refused.content.decode()
    Match.objects.filter(pk=first.pk).update(
        status=MatchStatus.FINISHED, finished_at=timezone.now(), attempts=1
    )
    page = signed_in(bob).get(f"/matches/{first.pk}/").content.decode()
    assert 'data-role="play-again"' in page
    assert (
        'data-role="play-again"' not in signed_in(eve).get(f"/matches/{first.pk}/").content.decode()
    )
    outsider = signed_in(eve).post(f"/matches/{first.pk}/rematch/", follow=True)
    assert "only a player of the table may ask for a rematch" in outsider.content.decode()
    assert Match.objects.count() == 1

    response = signed_in(bob).post(f"/matches/{first.pk}/rematch/")
    assert response.status_code == 302
    rematch = Match.objects.exclude(pk=first.pk).get()
    assert response["Location"] == f"/tables/{rematch.pk}/"
    assert (rematch.game, rematch.status) == (first.game, MatchStatus.WAITING)
    # Bob asked, so he sits; the bots sit; Ann is only invited, to her rotated seat.
    assert seated(rematch) == {2: "bob", 3: before[2], 0: before[3]}
    (asked,) = SeatInvitation.objects.filter(match=rematch)
    assert (asked.seat, asked.invitee_id) == (1, ann.pk)
    seat_invitation_accept(user=ann, code=asked.code)
    rematch.refresh_from_db()
    assert seated(rematch) == {(seat + 1) % 4: name for seat, name in before.items()}
    assert rematch.status != MatchStatus.WAITING  # all accepted: the table started

    # New table with these players: the form as they sat, for a player of the table.
    form = signed_in(ann).get(f"/play/?with={first.pk}").content.decode()
    assert 'name="seat_1_username"' in form
    assert 'value="bob"' in form
    assert 'value="bob"' not in signed_in(eve).get(f"/play/?with={first.pk}").content.decode()
    assert signed_in(ann).get("/play/?with=nope").status_code == 200


@pytest.mark.django_db
def test_play_now_as_a_visitor_signs_up_and_sits_down_at_once() -> None:
    visitor = Client(HTTP_ACCEPT_LANGUAGE="en")
    response = visitor.post(
        "/accounts/signup/?next=/play-now/",
        {"username": "newcomer", "password1": PASSWORD, "password2": PASSWORD, "email": ""},
    )
    assert response.status_code == 302
    match = Match.objects.get()
    assert response["Location"] == f"/matches/{match.pk}/seats/0/"
    assert seated(match)[0] == "newcomer"


@pytest.mark.django_db
def test_new_table_with_these_players_keeps_the_game_its_options_and_time_control() -> None:
    ann = User.objects.create_user("ann", password=PASSWORD)
    first = table_open(
        actor=ann,
        game="kung_och_adel(deals=4)",
        seats=["me", "builtin:greedy", "builtin:random", "builtin:greedy"],
        time_control="correspondence",
        move_seconds=2 * 86400,
    )
    second = table_open(
        actor=ann,
        game="kingen(rules=iwwa,heart_lead_ban=false)",
        seats=["me", "builtin:greedy", "builtin:random", "builtin:greedy"],
        move_seconds=45,
        time_bank_seconds=30,
    )
    client = signed_in(ann)

    form = client.get(f"/play/?with={first.pk}").context["form"]
    assert {name: form[name].value() for name in ("game", "length", "time_control")} == {
        "game": "kung_och_adel",
        "length": "4",
        "time_control": "correspondence",
    }
    assert (form["correspondence_amount"].value(), form["correspondence_unit"].value()) == (
        2,
        "days",
    )

    form = client.get(f"/play/?with={second.pk}").context["form"]
    assert form["game"].value() == "kingen(rules=iwwa)"  # the example game it is one of
    assert form["option_kingen_heart_lead_ban"].value() == "false"  # and its own option
    assert (form["move_seconds"].value(), form["time_bank_seconds"].value()) == (45, 30)
    # Sent back unchanged, the form opens the same game.
    data = {name: form[name].value() for name in form.fields if form[name].value() is not None}
    opened = client.post("/play/", data | {"form": "table"})
    assert opened.status_code == 302, opened.content.decode()[:2000]
    third = Match.objects.order_by("-pk").first()
    assert third is not None
    assert third.game == second.game
    assert (third.tournament.move_seconds, third.tournament.time_bank_seconds) == (45.0, 30.0)
