"""Who may see and do what, through the API (docs/api.md, "Who may see and do what").

A bot's private data (its validation log, its faults' messages and stderr) is its owner's
and staff's: everyone else sees outcomes and fault kinds. Nobody is seated, made a member
or entered without agreeing: a person sits down, joins and enters themself (joining by
accepting an invitation), a bot is entered by its owner or with the owner's standing
consent, and built-in bots need none.
"""

from __future__ import annotations

import hashlib

from django.contrib.auth.models import User
from django.db.models import Model
from rest_framework.test import APIClient

import pytest

from bots.models import BotFault, BotVersion
from bots.services import bot_create
from league.models import (
    Club,
    Competitor,
    Entry,
    Invitation,
    Match,
    MatchSeat,
    MatchStatus,
    Membership,
    Round,
    Tournament,
    TournamentFormat,
)
from league.services.clubs import club_create
from league.services.competitors import competitor_builtin, competitor_for_bot_version
from league.services.tournaments import tournament_create
from tests.api_answers import client_for, ok, refused
from tests.league.builders import builtin_competitors, user_create

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

SECRET_MESSAGE = "request 3: not JSON: 'my secret plan: lead the queen of hearts'"
SECRET_LOG = 'Traceback (most recent call last):\n  File "main.py", line 9, in plan_secretly\n'
SECRET_REPORT_LOG = "stderr of the validation game: plan_secretly() at main.py:9"


def uploaded_version(owner: User, name: str = "Secretive") -> BotVersion:
    """An active uploaded version with a validation report holding the bot's output and a
    fault with its message and stderr (as bots.services.bot_version_validate stores them)."""
    bot = bot_create(owner=owner, name=name, families=["kingen"])
    code = f"# {name}\n".encode()
    version = BotVersion.objects.create(
        bot=bot,
        number=1,
        filename="main.py",
        code=code,
        sha256=hashlib.sha256(code).hexdigest(),
        size=len(code),
        status=BotVersion.Status.ACTIVE,
        report={
            "structure": "ok",
            "game": "kingen",
            "outcome": "ok",
            "scores": [1, 2, 3, 4],
            "faults": [{"cause": "protocol_error", "message": SECRET_MESSAGE, "decision": 3}],
            "log": SECRET_REPORT_LOG,
            "problem": f"the validation game said {SECRET_MESSAGE}",
        },
    )
    BotFault.objects.create(
        version=version, seat=0, cause="protocol_error", message=SECRET_MESSAGE, log=SECRET_LOG
    )
    return version


# ---------------------------------------------------------------- private logs


def test_a_bot_versions_log_report_and_fault_messages_are_its_owners_and_staffs() -> None:
    owner = user_create("bea")
    version = uploaded_version(owner)
    staff = user_create("stan")
    staff.is_staff = True
    staff.save()
    paths = [
        f"/api/bot-versions/{version.pk}/",
        f"/api/bots/{version.bot_id}/",
        f"/api/bots/{version.bot_id}/versions/",
    ]
    for reader in (None, user_create("eve")):
        for path in paths:
            body = client_for(reader).get(path).content.decode()
            assert "secret" not in body, (reader, path, body)
            assert "plan_secretly" not in body, (reader, path, body)
        detail = ok(client_for(reader).get(paths[0]))
        assert detail["report"] == {
            "structure": "ok",
            "game": "kingen",
            "outcome": "ok",
            "scores": [1, 2, 3, 4],
            "faults": [{"cause": "protocol_error", "decision": 3}],
        }
        assert [(f["cause"], f["message"]) for f in detail["faults"]] == [("protocol_error", None)]
    for reader in (owner, staff):
        detail = ok(client_for(reader).get(paths[0]))
        assert detail["report"]["log"] == SECRET_REPORT_LOG
        assert detail["faults"][0]["message"] == SECRET_MESSAGE
        versions = ok(client_for(reader).get(paths[2]))
        assert versions[0]["report"]["faults"][0]["message"] == SECRET_MESSAGE


def finished_match_with_faults(owner: User) -> tuple[Match, BotVersion]:
    """A finished match whose seat 1 is ``owner``'s bot with a fault in its record (the
    shape league.services.matches.match_finish stores)."""
    from league.models import MatchResult
    from web.samples import sample_record

    version = uploaded_version(owner)
    bot = competitor_for_bot_version(version=version)
    greedy = competitor_builtin(name="greedy")
    club = club_create(user=owner, name="Faults")
    tournament = tournament_create(
        actor=owner, club=club, name="L", game="kingen", entrants=[bot, greedy]
    )
    round_ = Round.objects.create(tournament=tournament, number=1)
    match = Match.objects.create(
        tournament=tournament, round=round_, game="kingen", seed=1, status=MatchStatus.QUEUED
    )
    seats = [greedy, bot, greedy, greedy]
    for seat, competitor in enumerate(seats):
        MatchSeat.objects.create(match=match, seat=seat, competitor=competitor)
    faults = [
        {"seat": 1, "cause": "protocol_error", "message": SECRET_MESSAGE, "decision": 3, "deal": 1},
        {"seat": 0, "cause": "timeout", "message": "greedy was slow", "decision": 1, "deal": 1},
    ]
    record = sample_record("kingen", 1)
    record["meta"] = {"match": match.pk, "faults": faults}
    MatchResult.objects.create(
        match=match,
        scores=record["scores"],
        outcomes=["timeout", "protocol_error", "ok", "ok"],
        faults=faults,
        standings_input={"seats": []},
        record=record,
    )
    Match.objects.filter(pk=match.pk).update(
        status=MatchStatus.FINISHED, attempts=1, finished_at=match.created_at
    )
    return match, version


def test_a_records_fault_messages_are_shown_to_the_seats_owner_and_staff_only() -> None:
    owner = user_create("bea")
    match, _ = finished_match_with_faults(owner)
    staff = user_create("stan")
    staff.is_staff = True
    staff.save()
    path = f"/api/matches/{match.pk}/record/"
    export = f"/api/tournaments/{match.tournament_id}/records.ndjson"

    def exported(client: APIClient) -> str:
        response = client.get(export)
        assert response.status_code == 200
        return b"".join(response.streaming_content).decode()  # type: ignore[attr-defined]

    for reader in (None, user_create("eve")):
        record = ok(client_for(reader).get(path))
        assert record["meta"]["faults"] == [
            {"seat": 1, "cause": "protocol_error", "decision": 3, "deal": 1},
            {"seat": 0, "cause": "timeout", "decision": 1, "deal": 1},
        ]
        assert "secret" not in exported(client_for(reader))
    own = ok(client_for(owner).get(path))["meta"]["faults"]
    assert own[0]["message"] == SECRET_MESSAGE  # her bot's seat
    assert "message" not in own[1]  # a built-in's seat: staff only
    assert SECRET_MESSAGE in exported(client_for(owner))
    everything = ok(client_for(staff).get(path))["meta"]["faults"]
    assert [f["message"] for f in everything] == [SECRET_MESSAGE, "greedy was slow"]


def test_a_matchs_worker_traceback_is_shown_to_staff_only() -> None:
    owner = user_create("bea")
    match, _ = finished_match_with_faults(owner)
    Match.objects.filter(pk=match.pk).update(
        status=MatchStatus.ERROR,
        finished_at=None,
        error="its worker was lost 3 times; last: Traceback (most recent call last):\n"
        '  File "league/services/matches.py", line 400, in _match_play\nValueError: boom\n',
    )
    staff = user_create("stan")
    staff.is_staff = True
    staff.save()
    for reader in (None, owner):
        shown = ok(client_for(reader).get(f"/api/matches/{match.pk}/"))["error"]
        assert shown == (
            "its worker was lost 3 times; last: a server error (its traceback is shown to "
            "staff only)"
        )
        listed = ok(client_for(reader).get("/api/matches/", {"status": "error"}))
        assert [m["error"] for m in listed] == [shown]
    assert "ValueError: boom" in ok(client_for(staff).get(f"/api/matches/{match.pk}/"))["error"]


def test_the_admin_is_for_staff_only() -> None:
    owner = user_create("bea")
    version = uploaded_version(owner)
    fault = BotFault.objects.get(version=version)
    path = f"/admin/bots/botfault/{fault.pk}/change/"
    from django.test import Client

    for user in (None, owner):
        client = Client()
        if user is not None:
            client.force_login(user)
        response = client.get(path)
        assert response.status_code == 302
        assert "/admin/login/" in response["Location"]
    staff = User.objects.create_superuser("root", password="a long password 1")
    client = Client()
    client.force_login(staff)
    assert "my secret plan" in client.get(path).content.decode()
    # Staff see memberships and entries but add none: those are the person's own acts.
    club = club_create(user=owner, name="C")
    tournament = tournament_create(actor=owner, club=club, name="T", game="kingen")
    for page in (
        f"/admin/league/club/{club.pk}/change/",
        f"/admin/league/tournament/{tournament.pk}/change/",
    ):
        formsets = client.get(page).context["inline_admin_formsets"]
        assert [f.has_add_permission for f in formsets] == [False], page
    assert client.get("/admin/league/invitation/add/").status_code == 403


# ---------------------------------------------------------------- tables


def counts() -> dict[str, int]:
    models: list[type[Model]] = [Membership, Invitation, Tournament, Entry, Round, Match]
    return {model.__name__: model._default_manager.count() for model in models}


def test_a_table_seats_nobody_but_yourself_your_bots_and_built_in_bots() -> None:
    ann = user_create("ann")
    bob = user_create("bob")
    bob_person = ok(client_for(bob).post("/api/competitors/", {"user": bob.pk}, format="json"), 201)
    bob_bot = competitor_for_bot_version(version=uploaded_version(bob, "Bob's bot"))
    ann_bot = competitor_for_bot_version(version=uploaded_version(ann, "Ann's bot"))
    before = counts()
    detail = refused(
        client_for(ann).post(
            "/api/tables/",
            {
                "game": "kingen",
                "seats": ["me", bob_person["id"], "builtin:greedy", "builtin:random"],
            },
            format="json",
        ),
        403,
    )
    assert "seating another person needs their acceptance" in detail
    assert "invite them to the seat" in detail
    detail = refused(
        client_for(ann).post(
            "/api/tables/",
            {"game": "kingen", "seats": ["me", bob_bot.pk, "builtin:greedy", "builtin:random"]},
            format="json",
        ),
        403,
    )
    assert "bob's bot" in detail
    assert "only its owner" in detail
    assert counts() == before
    # Herself (by id as well as 'me'), her own bot and built-in bots.
    ann_person = ok(client_for(ann).post("/api/competitors/", {"user": ann.pk}, format="json"), 201)
    table = ok(
        client_for(ann).post(
            "/api/tables/",
            {
                "game": "kingen",
                "seats": [ann_person["id"], ann_bot.pk, "builtin:greedy", "builtin:random"],
            },
            format="json",
        ),
        201,
    )
    assert [s["competitor"] for s in table["seats"]][:2] == [ann_person["id"], ann_bot.pk]


# ---------------------------------------------------------------- clubs


def test_adding_a_member_sends_a_personal_invitation_only_they_can_accept() -> None:
    owner = user_create("olga")
    mia = user_create("mia")
    eve = user_create("eve")
    api = client_for(owner)
    club = ok(api.post("/api/clubs/", {"name": "Tuesday"}, format="json"), 201)
    members = f"/api/clubs/{club['id']}/members/"
    invitation = ok(api.post(members, {"username": "mia"}, format="json"), 202)
    assert (invitation["invitee"], invitation["invitee_username"]) == (mia.pk, "mia")
    assert (invitation["club_name"], invitation["role"]) == ("Tuesday", "player")
    assert not Membership.objects.filter(user=mia).exists()  # not a member until she accepts
    refused(api.post(members, {"user": mia.pk}, format="json"), 409)  # invited already
    assert [(m["username"], m["role"]) for m in ok(api.get(members))] == [("olga", "owner")]

    assert ok(client_for(eve).get("/api/invitations/")) == []
    mine = ok(client_for(mia).get("/api/invitations/"))
    assert [i["code"] for i in mine] == [invitation["code"]]
    refused(APIClient().get("/api/invitations/"), 401)  # not logged in
    code = invitation["code"]
    for someone in (eve, owner):  # nobody else accepts or declines it for her
        refused(client_for(someone).post(f"/api/invitations/{code}/accept/"), 403)
        refused(client_for(someone).post(f"/api/invitations/{code}/decline/"), 403)
    assert not Membership.objects.filter(club_id=club["id"], user__in=[mia, eve]).exists()
    joined = ok(client_for(mia).post(f"/api/invitations/{code}/accept/"))
    assert (joined["username"], joined["role"]) == ("mia", "player")
    assert ok(client_for(mia).get("/api/invitations/")) == []
    # A member's role is changed where members were added before; an organiser may not
    # change an owner's (or another organiser's) role.
    assert (
        ok(api.post(members, {"user": mia.pk, "role": "organiser"}, format="json"))["role"]
        == "organiser"
    )
    refused(client_for(mia).post(members, {"user": owner.pk, "role": "player"}, format="json"), 403)
    assert Membership.objects.get(club_id=club["id"], user=owner).role == "owner"

    # Declined: it cannot be used afterwards, and a new one may be sent.
    second = ok(
        api.post(f"/api/clubs/{club['id']}/invitations/", {"user": eve.pk}, format="json"), 201
    )
    assert second["invitee"] == eve.pk
    ok(client_for(eve).post(f"/api/invitations/{second['code']}/decline/"))
    refused(client_for(eve).post(f"/api/invitations/{second['code']}/accept/"), 409)
    assert not Membership.objects.filter(club_id=club["id"], user=eve).exists()
    ok(api.post(members, {"user": eve.pk}, format="json"), 202)
    # A code invitation (no invitee) is not declined: it is simply not used.
    plain = ok(api.post(f"/api/clubs/{club['id']}/invitations/", {}, format="json"), 201)
    assert plain["invitee"] is None
    refused(client_for(eve).post(f"/api/invitations/{plain['code']}/decline/"), 409)


# ---------------------------------------------------------------- entries


def test_an_organiser_enters_no_person_and_no_members_bot_without_consent() -> None:
    organiser = user_create("olga")
    mia = user_create("mia")
    club = club_create(user=organiser, name="C")
    Membership.objects.create(club=club, user=mia)  # as invitation_accept makes it
    api = client_for(organiser)
    tournament = ok(
        api.post(
            "/api/tournaments/",
            {"name": "T", "club": club.pk, "game": "kingen", "entrants": []},
            format="json",
        ),
        201,
    )
    entries = f"/api/tournaments/{tournament['id']}/entries/"
    mia_person = ok(client_for(mia).post("/api/competitors/", {"user": mia.pk}, format="json"), 201)
    mia_version = uploaded_version(mia, "Mia's bot")
    refused(api.post("/api/competitors/", {"bot_version": mia_version.pk}, format="json"), 403)
    mia_bot = ok(
        client_for(mia).post("/api/competitors/", {"bot_version": mia_version.pk}, format="json"),
        201,
    )
    before = counts()
    detail = refused(api.post(entries, {"competitor": mia_person["id"]}, format="json"), 403)
    assert "mia enters themselves" in detail
    detail = refused(api.post(entries, {"competitor": mia_bot["id"]}, format="json"), 403)
    assert "only its owner enters it" in detail
    detail = refused(
        api.post(
            "/api/tournaments/",
            {"name": "U", "club": club.pk, "game": "kingen", "entrants": [mia_person["id"]]},
            format="json",
        ),
        403,
    )
    assert "mia enters themselves" in detail
    assert counts() == before

    # Mia enters herself; and once she lets organisers of her clubs enter her bot, they may.
    ok(client_for(mia).post(entries, {"competitor": mia_person["id"]}, format="json"), 201)
    bot_path = f"/api/bots/{mia_version.bot_id}/"
    refused(api.patch(bot_path, {"club_organisers_may_enter": True}, format="json"), 403)
    assert (
        ok(client_for(mia).patch(bot_path, {"club_organisers_may_enter": True}, format="json"))[
            "club_organisers_may_enter"
        ]
        is True
    )
    detail = ok(api.post(entries, {"competitor": mia_bot["id"]}, format="json"), 201)
    assert {e["name"] for e in detail["entrants"]} == {"mia", "Mia's bot"}

    # The consent is for the clubs she belongs to: another club's organiser may not.
    rex = user_create("rex")
    other = club_create(user=rex, name="Other")
    elsewhere = tournament_create(actor=rex, club=other, name="X", game="kingen")
    refused(
        client_for(rex).post(
            f"/api/tournaments/{elsewhere.pk}/entries/",
            {"competitor": mia_bot["id"]},
            format="json",
        ),
        403,
    )
    # A member (not an organiser) enters no one but herself and her own bots.
    eve = user_create("eve")
    Membership.objects.create(club=club, user=eve)
    bots = builtin_competitors(1)
    refused(client_for(eve).post(entries, {"competitor": bots[0].pk}, format="json"), 403)


def test_built_in_bots_need_no_consent() -> None:
    """The demo loader's path: an organiser enters built-in bots (owned by nobody)."""
    organiser = user_create("olga")
    club = club_create(user=organiser, name="C")
    bots = builtin_competitors(4)
    tournament = tournament_create(
        actor=organiser, club=club, name="T", game="kingen", entrants=bots[:3]
    )
    ok(
        client_for(organiser).post(
            f"/api/tournaments/{tournament.pk}/entries/", {"competitor": bots[3].pk}, format="json"
        ),
        201,
    )
    assert tournament.entries.count() == 4
    assert Competitor.objects.filter(bot_version__bot__owner__isnull=True).count() == 4
    assert Club.objects.count() == 1
    assert Tournament.objects.filter(format=TournamentFormat.TABLE).count() == 0
