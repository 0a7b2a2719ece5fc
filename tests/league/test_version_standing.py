"""Why a bot isn't playing (issue 35), built through the real services: a bot stored before
families were required says "not in any ladder: no family" (with its one-click fix on its
owner's pages), and a version that crashed in three ladder matches in a row, played in the
sandbox, says "suspended: 3 crashes"; on its bot's page, in the API and on its ladder page.
Creating a bot of no family on the page is refused naming what to add."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.test import Client

import pytest

from bots.models import Bot, BotFamily, BotVersion
from bots.services import bot_version_store
from league.models import LadderEntrant, LadderEntrantStatus, MatchSeat
from league.services.ladders import (
    LADDER_SUSPEND_AFTER,
    ladder_anchor_add,
    ladder_matchmake,
    ladder_open,
    ladder_roster_sync,
)
from league.services.matches import match_run
from tests.api_answers import client_for, ok
from tests.bots.botcode import PLAYER
from tests.league.builders import active_uploaded_version, user_create

CRASHING_BOT = PLAYER + "\ndef hook(number, request):\n    raise RuntimeError('oops')\n\nplay()\n"


def _browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _bot_of_no_family(owner: User) -> Bot:
    """A bot as one created before families were required is after the migration (bots
    0005): no family, and an active version."""
    bot = Bot.objects.create(owner=owner, name="Lost", kind=Bot.Kind.UPLOADED)
    version = bot_version_store(owner=owner, bot=bot, filename="lost.py", data=b"print(1)\n")
    version.status = BotVersion.Status.ACTIVE
    version.save(update_fields=["status"])
    return bot


@pytest.mark.django_db
def test_a_bot_of_no_family_says_why_and_its_owner_fixes_it_in_one_click() -> None:
    ladder_open(game="kingen")
    ann = user_create("ann")
    bot = _bot_of_no_family(ann)
    version = bot.versions.get()
    ladder_matchmake(ladder_id=ladder_open(game="priffe").pk)
    said = "not in any ladder: no family"
    states = ok(client_for(ann).get(f"/api/bot-versions/{version.pk}/"))["ladders"]
    assert [(s["state"], s["reason"]) for s in states] == [("not_in_ladder", "no_family")]
    assert said in states[0]["text"]
    assert said in ok(client_for().get(f"/api/bots/{bot.pk}/"))["versions"][0]["ladders"][0]["text"]
    browser = _browser(ann)
    assert said in browser.get(f"/bots/{bot.pk}/").content.decode()
    for page in ("/bots/", "/"):  # listed to its owner with the fix, on both pages
        html = browser.get(page).content.decode()
        assert f'action="/bots/{bot.pk}/families/"' in html
    assert f"/bots/{bot.pk}/families/" not in _browser(user_create("eve")).get("/").content.decode()

    answer = browser.post(f"/bots/{bot.pk}/families/", {"families": "kingen", "back": "home"})
    assert (answer.status_code, answer["Location"]) == (302, "/")
    assert bot.family_names == ["kingen"]
    assert f"/bots/{bot.pk}/families/" not in browser.get("/").content.decode()
    ladder_matchmake(ladder_id=ladder_open(game="kingen(rules=iwwa)").pk)
    states = ok(client_for(ann).get(f"/api/bot-versions/{version.pk}/"))["ladders"]
    assert {s["state"] for s in states} <= {"joining", "placement"}
    assert "placement" in {s["state"] for s in states}  # the ladder matchmade since


@pytest.mark.django_db
def test_creating_a_bot_of_no_family_on_the_page_is_refused_naming_what_to_add() -> None:
    ann = user_create("ann")
    browser = _browser(ann)
    page = browser.post("/bots/", {"name": "Rando"})
    assert page.status_code == 200
    assert "add the game families the bot plays" in page.content.decode()
    assert not Bot.objects.exists()
    created = browser.post("/bots/", {"name": "Rando", "families": ["kingen", "king"]})
    assert created.status_code == 302
    bot = Bot.objects.get()
    assert bot.family_names == ["king", "kingen"]
    browser.post(f"/bots/{bot.pk}/families/", {"families": ["priffe"]})
    assert bot.family_names == ["priffe"]
    refused = browser.post(f"/bots/{bot.pk}/families/", {})
    assert refused.status_code == 302
    assert bot.family_names == ["priffe"]
    eve = _browser(user_create("eve"))
    eve.post(f"/bots/{bot.pk}/families/", {"families": ["kingen"]})
    assert set(BotFamily.objects.values_list("family", flat=True)) == {"priffe"}


@pytest.mark.postgres
@pytest.mark.sandbox
@pytest.mark.django_db
def test_a_version_suspended_after_three_crashes_says_so() -> None:
    ladder = ladder_open(game="kingen", anchors=("greedy", "random"), queued_limit=20)
    ladder_anchor_add(ladder=ladder, name="greedy", bot_name="greedy-2")
    carl = user_create("carl")
    crasher = active_uploaded_version(carl, "crasher", CRASHING_BOT)
    entrant = None
    for _ in range(2 * LADDER_SUSPEND_AFTER):  # each pass seats it in its limit's matches
        for match_id in ladder_matchmake(ladder_id=ladder.pk):
            if MatchSeat.objects.filter(match_id=match_id, competitor=crasher).exists():
                match_run(match_id=match_id, worker="test")  # the worker task's body
        entrant = LadderEntrant.objects.get(ladder=ladder, competitor=crasher)
        if entrant.status == LadderEntrantStatus.SUSPENDED:
            break
    assert entrant is not None
    assert entrant.status == LadderEntrantStatus.SUSPENDED
    version = crasher.bot_version
    assert version is not None
    said = f"suspended: {LADDER_SUSPEND_AFTER} crashes"
    states = ok(client_for(carl).get(f"/api/bot-versions/{version.pk}/"))["ladders"]
    assert [(s["ladder"], s["state"]) for s in states] == [(ladder.slug, "suspended")]
    assert said in states[0]["text"]
    assert states[0]["failures"] == {"crash": LADDER_SUSPEND_AFTER}
    assert [f["match"] for f in states[0]["faults"]] == [
        f["match"] for f in entrant.suspension_faults
    ]
    assert all(set(f) == {"match", "seat", "outcome"} for f in states[0]["faults"])
    bot_page = _browser(carl).get(f"/bots/{version.bot_id}/").content.decode()
    assert said in bot_page
    fault = entrant.suspension_faults[0]
    assert f"/matches/{fault['match']}/logs/{fault['seat']}/" in bot_page  # one click away
    others = Client().get(f"/bots/{version.bot_id}/").content.decode()
    assert said in others
    assert "/logs/" not in others
    ladder_page = Client().get(f"/ladders/{ladder.slug}/versions/{crasher.pk}/")
    assert said in ladder_page.content.decode()


@pytest.mark.django_db
def test_a_family_taken_off_a_bot_stops_its_matches_there_and_says_so() -> None:
    ladder = ladder_open(game="kingen", anchors=("greedy", "random"), queued_limit=20)
    ladder_anchor_add(ladder=ladder, name="greedy", bot_name="greedy-2")
    dora = user_create("dora")
    mine = active_uploaded_version(dora, "dotty", CRASHING_BOT)  # never played here
    other = active_uploaded_version(user_create("fred"), "freddy", CRASHING_BOT)
    ladder_roster_sync(ladder)  # both join the ladder (the matchmaker's first step)
    version = mine.bot_version
    assert version is not None
    api = client_for(dora)
    ok(api.patch(f"/api/bots/{version.bot_id}/", {"families": ["priffe"]}, format="json"))
    queued = ladder_matchmake(ladder_id=ladder.pk)
    assert MatchSeat.objects.filter(match_id__in=queued, competitor=other).exists()
    assert not MatchSeat.objects.filter(match_id__in=queued, competitor=mine).exists()
    states = ok(api.get(f"/api/bot-versions/{version.pk}/"))["ladders"]
    assert [(s["ladder"], s["state"]) for s in states] == [(ladder.slug, "family_left")]
    assert "no longer plays" in states[0]["text"]
