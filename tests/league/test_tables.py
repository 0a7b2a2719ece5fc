"""Tables of people and bots (league.services.tables, api.tables; docs/api.md, "Playing at a
table"): open and reserved seats wait for their people, nobody is seated without accepting,
the match waits (no worker claims it) until every seat is taken and is then queued through
the outbox, the host's changes, a race for the last seat, and the bad input refused."""

from __future__ import annotations

import threading
import time
from typing import Any

from django.contrib.auth.models import User
from django.db import close_old_connections, connection, transaction

import pytest

from bots.models import Bot, BotVersion
from league.errors import ConflictError, LeagueError
from league.models import (
    Entry,
    Match,
    MatchSeat,
    MatchStatus,
    Notification,
    NotificationKind,
    OutboxTask,
    SeatInvitation,
    Tournament,
    TournamentStatus,
)
from league.services.competitors import competitor_for_bot_version
from league.services.matches import match_claim
from league.services.tables import table_join, table_open
from league.task_names import RUN_INTERACTIVE_MATCH
from tests.api_answers import client_for, ok, refused
from tests.league.builders import user_create

pytestmark = [pytest.mark.postgres]


def run_match_tasks(match_id: int) -> int:
    """The match's play queued (a people's table: in the interactive lane)."""
    return sum(
        1
        for task in OutboxTask.objects.filter(task=RUN_INTERACTIVE_MATCH)
        if task.args == [match_id]
    )


def seated_people(match_id: int) -> dict[int, str]:
    return {
        s.seat: s.competitor.name
        for s in MatchSeat.objects.filter(match_id=match_id).select_related("competitor")
        if s.competitor.user_id is not None
    }


def code_of(table: dict[str, Any], seat: int) -> str:
    code = next(s["code"] for s in table["table_seats"] if s["seat"] == seat)
    assert code
    return str(code)


def uploaded_version(owner: User, name: str) -> BotVersion:
    bot = Bot.objects.create(name=name, owner=owner, kind=Bot.Kind.UPLOADED)
    return BotVersion.objects.create(
        bot=bot,
        number=1,
        kind=BotVersion.Kind.UPLOADED,
        sha256="a" * 64,
        size=10,
        filename="main.py",
        status=BotVersion.Status.ACTIVE,
    )


@pytest.mark.django_db
def test_a_table_of_people_and_a_bot_waits_for_its_people_then_starts() -> None:
    ann, bob, cid, dan, eve = (user_create(n) for n in ("ann", "bob", "cid", "dan", "eve"))
    host = client_for(ann)
    table = ok(
        host.post(
            "/api/tables/",
            {
                "game": "kingen(players=5)",
                "seats": ["me", "open", "invite:bob", "invite:cid", "builtin:greedy"],
                "time_control": "correspondence",
                "move_seconds": 2 * 86400,
            },
            format="json",
        ),
        201,
    )
    match_id = table["id"]
    assert (table["status"], table["game_name"], table["time_control"]) == (
        "waiting",
        "Kingen, 5 players",
        "correspondence",
    )
    assert table["move_seconds"] == 2 * 86400
    assert [s["state"] for s in table["table_seats"]] == [
        "taken",
        "open",
        "reserved",
        "reserved",
        "taken",
    ]
    assert table["open_seats"] == [1]
    # Nobody is seated without accepting: Ann and the bot only.
    assert [s["seat"] for s in table["seats"]] == [0, 4]
    assert seated_people(match_id) == {0: "ann"}
    assert match_claim(match_id=match_id, worker="test") is None
    assert run_match_tasks(match_id) == 0
    # The invited are told, with the link to their invitation.
    for person, seat in ((bob, 2), (cid, 3)):
        notice = Notification.objects.get(user=person)
        assert notice.kind == NotificationKind.INVITED
        assert notice.url == f"/tables/invitations/{code_of(table, seat)}/"
        assert "ann invites you" in notice.text
        assert "Kingen, 5 players" in notice.text
    # A stranger cannot take a seat kept for Bob.
    detail = refused(
        client_for(eve).post(f"/api/table-invitations/{code_of(table, 2)}/accept/"), 403
    )
    assert "kept for bob" in detail
    assert seated_people(match_id) == {0: "ann"}
    # Bob accepts, Cid declines, Dan takes the open seat through its link.
    after_bob = ok(client_for(bob).post(f"/api/table-invitations/{code_of(table, 2)}/accept/"))
    assert after_bob["your_seat"] == 2
    assert after_bob["status"] == "waiting"
    declined = ok(client_for(cid).post(f"/api/table-invitations/{code_of(table, 3)}/decline/"))
    assert declined["state"] == "declined"
    ok(client_for(dan).post(f"/api/table-invitations/{code_of(table, 1)}/accept/"))
    assert seated_people(match_id) == {0: "ann", 1: "dan", 2: "bob"}
    seen = ok(host.get(f"/api/tables/{match_id}/"))
    assert seen["table_seats"][3]["state"] == "empty"
    assert seen["table_seats"][3]["declined_by"] == "cid"  # the host sees who declined
    assert Match.objects.get(pk=match_id).status == MatchStatus.WAITING
    assert match_claim(match_id=match_id, worker="test") is None
    assert run_match_tasks(match_id) == 0
    # The host gives the declined seat to a bot: every seat is taken, the match is queued.
    started = ok(
        host.post(f"/api/tables/{match_id}/seats/3/bot/", {"bot": "builtin:random"}, format="json")
    )
    assert started["status"] == "queued"
    assert run_match_tasks(match_id) == 1
    assert Tournament.objects.get(pk=started["tournament"]).status == TournamentStatus.RUNNING
    entrants = set(
        Entry.objects.filter(tournament_id=started["tournament"]).values_list(
            "competitor__name", flat=True
        )
    )
    assert {"ann", "bob", "dan"} <= entrants
    assert match_claim(match_id=match_id, worker="test") == 1
    # The started table takes no more answers.
    assert "started" in refused(client_for(eve).post(f"/api/tables/{match_id}/join/"), 409)


@pytest.mark.django_db
def test_invitation_codes_are_shown_to_the_host_and_each_to_its_invitee_only() -> None:
    ann, bob, eve = user_create("ann"), user_create("bob"), user_create("eve")
    table = ok(
        client_for(ann).post(
            "/api/tables/",
            {"game": "kingen", "seats": ["me", "open", "invite:bob", "builtin:greedy"]},
            format="json",
        ),
        201,
    )
    codes = {s["seat"]: s["code"] for s in table["table_seats"]}
    assert codes[1]
    assert codes[2]
    assert codes[0] is None
    path = f"/api/tables/{table['id']}/"
    assert [s["code"] for s in ok(client_for(eve).get(path))["table_seats"]] == [None] * 4
    assert [s["code"] for s in ok(client_for().get(path))["table_seats"]] == [None] * 4
    bobs = ok(client_for(bob).get(path))
    assert [s["code"] for s in bobs["table_seats"]] == [None, None, codes[2], None]
    assert bobs["your_invitation"] == codes[2]
    mine = ok(client_for(bob).get("/api/table-invitations/"))
    assert [(i["code"], i["seat"], i["host_username"]) for i in mine] == [(codes[2], 2, "ann")]
    assert ok(client_for(eve).get("/api/table-invitations/")) == []


@pytest.mark.django_db
def test_the_host_reopens_a_declined_seat_and_a_person_takes_one_seat_only() -> None:
    ann, bob, cid = user_create("ann"), user_create("bob"), user_create("cid")
    host = client_for(ann)
    table = ok(
        host.post(
            "/api/tables/",
            {"game": "kingen", "seats": ["me", "invite:bob", "open", "builtin:greedy"]},
            format="json",
        ),
        201,
    )
    match_id = table["id"]
    ok(client_for(bob).post(f"/api/table-invitations/{code_of(table, 1)}/decline/"))
    # A declined invitation cannot be accepted afterwards.
    assert "declined" in refused(
        client_for(bob).post(f"/api/table-invitations/{code_of(table, 1)}/accept/"), 409
    )
    # Only the host changes the seats.
    assert "only the host" in refused(
        client_for(bob).post(f"/api/tables/{match_id}/seats/1/invite/", {}, format="json"), 403
    )
    reopened = ok(host.post(f"/api/tables/{match_id}/seats/1/invite/", {}, format="json"))
    assert reopened["open_seats"] == [1, 2]
    ok(client_for(bob).post(f"/api/tables/{match_id}/join/", {"seat": 1}, format="json"))
    # Bob has a seat: he cannot take the other open one too.
    assert "one seat" in refused(client_for(bob).post(f"/api/tables/{match_id}/join/"), 409)
    # The host cannot seat Bob's seat again with a bot: it is taken.
    assert "taken" in refused(
        host.post(f"/api/tables/{match_id}/seats/1/bot/", {"bot": "builtin:greedy"}, format="json"),
        409,
    )
    ok(client_for(cid).post(f"/api/tables/{match_id}/join/"))
    assert Match.objects.get(pk=match_id).status == MatchStatus.QUEUED
    assert seated_people(match_id) == {0: "ann", 1: "bob", 2: "cid"}


@pytest.mark.django_db
def test_the_host_cancels_a_waiting_table() -> None:
    ann, bob = user_create("ann"), user_create("bob")
    host = client_for(ann)
    table = ok(
        host.post(
            "/api/tables/",
            {"game": "kingen", "seats": ["me", "invite:bob", "open", "builtin:greedy"]},
            format="json",
        ),
        201,
    )
    match_id = table["id"]
    assert "only the host" in refused(client_for(bob).post(f"/api/tables/{match_id}/cancel/"), 403)
    cancelled = ok(host.post(f"/api/tables/{match_id}/cancel/"))
    assert (cancelled["status"], cancelled["cancelled"]) == ("error", True)
    assert not SeatInvitation.objects.filter(match_id=match_id, cancelled_at=None).exists()
    assert "cancelled" in refused(
        client_for(bob).post(f"/api/table-invitations/{code_of(table, 1)}/accept/"), 409
    )
    assert "cancelled" in refused(host.post(f"/api/tables/{match_id}/cancel/"), 409)
    assert run_match_tasks(match_id) == 0
    assert seated_people(match_id) == {0: "ann"}


@pytest.mark.django_db
def test_a_table_of_yourself_and_bots_starts_at_once() -> None:
    ann = user_create("ann")
    table = ok(
        client_for(ann).post(
            "/api/tables/",
            {
                "game": "kingen",
                "seats": ["me", "builtin:greedy", "builtin:greedy", "builtin:random"],
            },
            format="json",
        ),
        201,
    )
    assert (table["status"], table["time_control"], table["move_seconds"]) == (
        "queued",
        "live",
        120.0,
    )
    assert run_match_tasks(table["id"]) == 1
    assert not SeatInvitation.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"seats": ["me", "invite:nobody", "open", "open"]}, 400, "no person named 'nobody'"),
        ({"seats": ["me", "open", "open", "open", "open"]}, 400, "has 4 seats; 5 given"),
        ({"seats": ["me", "invite:bob", "invite:bob", "open"]}, 400, "bob is given two seats"),
        ({"seats": ["me", "invite:ann", "open", "open"]}, 400, "you do not invite yourself"),
        ({"seats": ["me", "me", "open", "open"]}, 400, "'me' may take one seat only"),
        (
            {
                "seats": ["me", "open", "open", "open"],
                "time_control": "correspondence",
                "move_seconds": 1800,
            },
            400,
            "move_seconds: a correspondence game takes from an hour to",
        ),
        (
            {"seats": ["me", "open", "open", "open"], "move_seconds": 7200},
            400,
            "move_seconds: a live game takes up to 3600 seconds per move",
        ),
        (
            {"seats": ["me", "open", "open", "open"], "time_control": "blitz"},
            400,
            "time_control",
        ),
        ({"seats": ["me", "open", "open", "open"], "club": 999999}, 400, "club: no club"),
        (
            {"game": "priffe(players=3)", "seats": ["me", "open", "open", "open"]},
            400,
            "seat 3 is the träkarl's",
        ),
        ({"seats": ["me", "invite:", "open", "open"]}, 400, "seats.1"),
    ],
)
def test_bad_input_is_refused_naming_it(body: dict[str, Any], status: int, words: str) -> None:
    ann = user_create("ann")
    user_create("bob")
    before = (Match.objects.count(), SeatInvitation.objects.count(), Notification.objects.count())
    detail = refused(
        client_for(ann).post("/api/tables/", {"game": "kingen"} | body, format="json"), status
    )
    assert words in detail
    after = (Match.objects.count(), SeatInvitation.objects.count(), Notification.objects.count())
    assert after == before


@pytest.mark.django_db
def test_a_bot_is_seated_only_with_its_owners_consent() -> None:
    ann, bob = user_create("ann"), user_create("bob")
    bobs_bot = competitor_for_bot_version(version=uploaded_version(bob, "Bob's bot"))
    anns_bot = competitor_for_bot_version(version=uploaded_version(ann, "Ann's bot"))
    host = client_for(ann)
    body = {"game": "kingen", "seats": ["me", bobs_bot.pk, "open", "open"]}
    detail = refused(host.post("/api/tables/", body, format="json"), 403)
    assert "bob's bot" in detail
    assert "only its owner" in detail
    table = ok(
        host.post(
            "/api/tables/",
            {"game": "kingen", "seats": ["me", "open", "open", "open"]},
            format="json",
        ),
        201,
    )
    path = f"/api/tables/{table['id']}/seats/1/bot/"
    assert "only its owner" in refused(host.post(path, {"bot": bobs_bot.pk}, format="json"), 403)
    assert "give a bot" in refused(host.post(path, {"bot": "me"}, format="json"), 400)
    seated = ok(host.post(path, {"bot": anns_bot.pk}, format="json"))
    assert seated["table_seats"][1]["name"] == anns_bot.name


@pytest.mark.django_db(transaction=True)
def test_two_people_racing_for_the_last_open_seat_get_one_seat_between_them() -> None:
    """Both requests arrive while the table's row is locked (by this test, as by a third
    request in flight); when it is released they are served one after the other: one
    takes the seat, the other is told it is taken (a 409, not a failed insert)."""
    ann, bob, cid = user_create("ann"), user_create("bob"), user_create("cid")
    match = table_open(
        actor=ann, game="kingen", seats=["me", "open", "builtin:greedy", "builtin:greedy"]
    )
    outcomes: dict[str, str] = {}

    def take(user: User) -> None:
        try:
            table_join(user=user, match_id=match.pk)
            outcomes[user.username] = "seated"
        except LeagueError as exc:
            outcomes[user.username] = f"{type(exc).__name__}: {exc.detail}"
        finally:
            close_old_connections()
            connection.close()

    with transaction.atomic():
        Match.objects.select_for_update().get(pk=match.pk)
        threads = [threading.Thread(target=take, args=(user,)) for user in (bob, cid)]
        for thread in threads:
            thread.start()
        waiting = 0
        for _ in range(600):  # until both wait for the lock (a bound, not a measurement)
            with connection.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
                waiting = cursor.fetchone()[0]
            if waiting >= 2:
                break
            time.sleep(0.05)
        assert waiting >= 2, "both requests should be waiting for the table's lock"
    for thread in threads:
        thread.join()
    assert list(outcomes.values()).count("seated") == 1, outcomes
    loser = next(v for v in outcomes.values() if v != "seated")
    assert loser == f"{ConflictError.__name__}: the table has started: every seat is taken"
    assert len(seated_people(match.pk)) == 2
    assert Match.objects.get(pk=match.pk).status == MatchStatus.QUEUED
