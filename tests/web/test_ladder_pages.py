"""The ladder's pages: the leaderboard, a version's page and its owner's buttons, the
challenge form (docs/web.md, *Pages*). The ladder's play itself: test_ladder_worker.py."""

from __future__ import annotations

import io

from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

import pytest

from bots.models import BotVersion
from bots.services import bot_create
from league.models import Competitor, LadderEntrant, Match
from league.services.competitors import competitor_for_bot_version
from league.services.ladders import ladder_anchor_add, ladder_matchmake, ladder_open
from tests.league.builders import user_create

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def active_version(owner: User, name: str) -> Competitor:
    bot = bot_create(name=name, owner=owner, families=["kingen"])
    version = BotVersion.objects.create(
        bot=bot,
        number=1,
        kind=BotVersion.Kind.UPLOADED,
        sha256="a" * 64,
        size=10,
        filename="main.py",
        status=BotVersion.Status.ACTIVE,
    )
    return competitor_for_bot_version(version=version)


def test_the_leaderboard_a_versions_page_and_its_owners_choices() -> None:
    ladder = ladder_open(game="kingen")
    ladder_anchor_add(ladder=ladder, name="greedy", bot_name="greedy-2")
    ann = user_create("ann")
    mine = active_version(ann, "annbot")
    queued = ladder_matchmake(ladder_id=ladder.pk)
    assert queued  # placement: its first tables at once
    assert all(Match.objects.filter(pk=pk, seats__competitor=mine).exists() for pk in queued)

    board = Client().get("/ladders/kingen/")
    assert board.status_code == 200
    assert b"annbot" in board.content
    assert b"Challenge" not in board.content  # signed out: no form
    assert b"annbot" in signed_in(ann).get("/ladders/kingen/").content
    assert Client().get("/ladders/").status_code == 200
    assert Client().get("/ladders/nope/").status_code == 404

    page = f"/ladders/kingen/versions/{mine.pk}/"
    assert b"Take it off the ladder" not in Client().get(page).content
    assert b"Take it off the ladder" in signed_in(ann).get(page).content
    other = signed_in(user_create("bob"))
    assert other.post(page + "update/", {"what": "opt_out"}).status_code == 403
    assert signed_in(ann).post(page + "update/", {"what": "opt_out"}).status_code == 302
    assert LadderEntrant.objects.get(ladder=ladder, competitor=mine).opted_out
    rows = {row["competitor"]: row for row in Client().get("/api/ladders/kingen/").json()["rows"]}
    assert rows[mine.pk]["opted_out"] is True
    Match.objects.filter(pk__in=queued).update(status="error")  # room in the queue again
    assert ladder_matchmake(ladder_id=ladder.pk) == []  # but it is off the ladder


def test_staff_switch_a_ladder_and_its_limits_in_the_admin_but_open_none_there() -> None:
    ladder = ladder_open(game="kingen")
    staff = User.objects.create_user("operator", password="a long password 1", is_staff=True)
    staff.is_superuser = True
    staff.save()
    admin = signed_in(staff)
    listing = admin.get("/admin/league/ladder/")
    assert listing.status_code == 200
    assert ladder.slug.encode() in listing.content
    assert admin.get("/admin/league/ladder/add/").status_code == 403
    assert admin.get("/admin/league/ladderentrant/").status_code == 200


def test_a_ladder_is_no_league_and_its_tournament_page_leads_to_the_ladder() -> None:
    ladder = ladder_open(game="kingen")
    assert ladder.name == "Kingen ladder"
    assert b"Kingen ladder" not in Client().get("/leagues/").content
    response = Client().get(f"/leagues/{ladder.tournament_id}/")
    assert response.status_code == 302
    assert response["Location"] == "/ladders/kingen/"


def test_opening_a_ladder_whose_deals_depend_on_the_play_names_the_paired_variant() -> None:
    out = io.StringIO()
    call_command("ladder_open", "kingen", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "ladder kingen: kingen, /ladders/kingen/"
    assert "A ladder of kingen(shuffle_policy=full_shuffle) plays each table twice" in lines[1]
    out = io.StringIO()
    call_command("ladder_open", "kingen(shuffle_policy=full_shuffle)", stdout=out)
    assert out.getvalue().splitlines() == [
        "ladder kingen-shuffle_policyfull_shuffle: kingen(shuffle_policy=full_shuffle),"
        " /ladders/kingen-shuffle_policyfull_shuffle/"
    ]
