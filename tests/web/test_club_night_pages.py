"""The pages of a club night (docs/web.md, *Club nights*): the round's table cards and
seating list, their PDF on A4 and Letter, the phone's score entry from a table's code,
the projector's standings and a club match's page with its corrections."""

from __future__ import annotations

import re
import zoneinfo
from typing import Any

from django.test import Client

import pytest

from league.models import Match, ScoreCorrection, TableSheet
from league.services.club_nights import table_scores_correct
from league.services.competitors import competitor_for_user
from tests.league.test_club_nights import _league, _start

pytestmark = pytest.mark.django_db

KINGEN_3: list[tuple[str, list[str]]] = [
    ("taken", ["6", "6", "5"]),
    ("taken", ["5", "4", "4"]),
    ("taken", ["3", "3", "2"]),
    ("taken", ["2", "1", "1"]),
    ("taken", ["1", "0", "0"]),
    ("", []),
    ("taken", ["6", "6", "5"]),
    ("taken", ["6", "6", "5"]),
    ("taken", ["6", "6", "5"]),
]
"""A Kingen sheet for three (deal 6, 7 & Last, is written with selects): -5, 2, 3."""


def kingen_form(seat: int, *, hearts: list[str] | None = None) -> dict[str, str]:
    form = {"seat": str(seat), "action": "entry", "d6-seventh": "0", "d6-last": "1"}
    for deal, (key, values) in enumerate(KINGEN_3, start=1):
        if deal == 2 and hearts is not None:
            values = hearts
        for index, value in enumerate(values):
            form[f"d{deal}-{key}-{index}"] = value
    return form


def _night() -> tuple[dict[str, Any], Any, Any]:
    league, organiser, users, _ = _league(
        game="kingen(players=3)", format="round_robin", rounds=1, players=6
    )
    cards = _start(organiser, league["id"], [competitor_for_user(user=u).pk for u in users])
    return league, organiser, cards


def _pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page\b", pdf))


def test_the_table_cards_print_and_download_on_a4_and_letter() -> None:
    league, organiser, cards = _night()
    client = Client()
    client.force_login(organiser)
    page = client.get(f"/leagues/{league['id']}/rounds/1/cards/")
    assert page.status_code == 200
    html = page.content.decode()
    for card in cards["tables"]:
        assert card["code"] in html
    assert html.count('data-role="table-card"') == 2
    assert html.count("<svg") >= 2
    assert 'data-role="seating-list"' in html
    assert "web/club.css" in html  # its print styles: tests/web/test_browser_club_night.py
    for paper in ("a4", "letter"):
        pdf = client.get(f"/leagues/{league['id']}/rounds/1/cards.pdf?paper={paper}")
        assert pdf.status_code == 200
        assert pdf["Content-Type"] == "application/pdf"
        body = pdf.content
        assert body.startswith(b"%PDF-")
        assert body.rstrip().endswith(b"%%EOF")
        assert _pages(body) == 3  # two table cards, one page each, and the seating list
    assert client.get(f"/leagues/{league['id']}/rounds/1/cards.pdf?paper=a3").status_code == 400
    stranger = Client()
    assert stranger.get(f"/leagues/{league['id']}/rounds/1/cards/").status_code == 403
    assert client.get(f"/leagues/{league['id']}/rounds/9/cards/").status_code == 404


def test_a_table_enters_its_scores_from_its_code_without_an_account() -> None:
    league, organiser, cards = _night()
    code, other = (side["code"] for side in cards["tables"][0]["sides"])
    phone = Client()
    typed = phone.get("/club/table/", {"code": f" {code.lower()} "})
    assert typed.status_code == 302
    assert typed["Location"] == f"/club/table/{code}/"
    assert 'data-role="code-form"' in phone.get("/club/table/").content.decode()
    page = phone.get(f"/club/table/{code}/")
    assert page.status_code == 200
    assert "Deal 1: Slagen (no tricks)" in page.content.decode()
    wrong = phone.post(f"/club/table/{code}/", kingen_form(0, hearts=["5", "4", "3"]))
    assert wrong.status_code == 400
    assert "deal 2 (hearts): the hearts taken add up to 12; a deal has 13" in wrong.content.decode()
    entered = phone.post(f"/club/table/{code}/", kingen_form(0))
    assert entered.status_code == 302
    shown = phone.get(f"/club/table/{code}/").content.decode()
    assert 'data-role="entered-scores">-5, 2, 3<' in shown
    assert 'data-role="other-side-confirms"' in shown  # no confirm form for this side
    same = phone.post(f"/club/table/{code}/", {"seat": "2", "action": "confirm", "version": "1"})
    assert same.status_code == 409
    assert "the other side&#x27;s code" in same.content.decode()
    # The phone that entered, with the other side's code too, still does not confirm.
    same_phone = phone.post(
        f"/club/table/{other}/", {"seat": "1", "action": "confirm", "version": "1"}
    )
    assert "this phone entered the scores" in same_phone.content.decode()
    other_phone = Client()
    assert 'data-role="confirm"' in other_phone.get(f"/club/table/{other}/").content.decode()
    done = other_phone.post(
        f"/club/table/{other}/", {"seat": "1", "action": "confirm", "version": "1"}
    )
    assert 'data-role="confirmed"' in done.content.decode()
    for either in (code, other):
        gone = phone.get(f"/club/table/{either}/")
        assert gone.status_code == 410
        assert "no longer valid" in gone.content.decode()

    match = Match.objects.get(table_sheet__code=code)
    sheet = TableSheet.objects.get(match=match).entry
    assert sheet is not None
    table_scores_correct(
        actor=organiser,
        match=match,
        entry=[*sheet[:5], {"seventh": 2, "last": 1}, *sheet[6:]],
        reason="the 10th trick was South's",
    )
    match_page = phone.get(f"/matches/{match.pk}/").content.decode()
    assert "Entered at the table" in match_page
    assert "the 10th trick was South&#x27;s" in match_page
    assert "-5, 2, 3 → -2, 2, 0" in match_page
    corrected = ScoreCorrection.objects.get(match=match).corrected_at
    phone.cookies["time_zone"] = "Asia/Tokyo"  # a visitor's browser zone (no settings)
    in_tokyo = phone.get(f"/matches/{match.pk}/").content.decode()
    tokyo_time = corrected.astimezone(zoneinfo.ZoneInfo("Asia/Tokyo")).strftime("%H:%M JST")
    assert tokyo_time in in_tokyo  # the correction's time in the reader's zone, not UTC
    projector = phone.get(f"/leagues/{league['id']}/projector/")
    assert projector.status_code == 200
    assert 'class="projector"' in projector.content.decode()


def test_the_organiser_says_who_is_present_confirms_and_corrects_on_the_pages() -> None:
    league, organiser, users, _ = _league(
        game="kingen(players=3)", format="round_robin", rounds=2, players=6
    )
    tid = league["id"]
    client = Client()
    client.force_login(organiser)
    page = client.get(f"/leagues/{tid}/").content.decode()
    assert 'data-role="attendance"' in page
    ids = [competitor_for_user(user=u).pk for u in users]
    said = client.post(f"/leagues/{tid}/attendance/", {"present": [str(c) for c in ids[:3]]})
    assert said.status_code == 302
    assert client.post(f"/leagues/{tid}/start-round/").status_code == 302
    matches = list(Match.objects.filter(tournament_id=tid))
    assert len(matches) == 1  # three present: one table of three
    seated = set(matches[0].seats.values_list("competitor_id", flat=True))
    assert seated == set(ids[:3])
    code = TableSheet.objects.get(match=matches[0]).second_side_code
    assert Client().post(f"/club/table/{code}/", kingen_form(1)).status_code == 302
    round_page = client.get(f"/leagues/{tid}/rounds/1/").content.decode()
    assert 'data-role="organiser-confirm"' in round_page
    client.post(f"/matches/{matches[0].pk}/confirm-scores/")
    assert TableSheet.objects.get(match=matches[0]).status == "confirmed"
    match_page = client.get(f"/matches/{matches[0].pk}/").content.decode()
    assert 'data-role="correct"' in match_page
    # The phones' score grid, filled with the sheet as confirmed (no JSON box).
    assert 'data-role="correction-form"' in match_page
    assert "<textarea" not in match_page
    assert 'name="d1-taken-0" min="0" step="1" value="6"' in match_page
    assert "Deal 6: 7 &amp; Laatste" in match_page or "Deal 6: 7 &amp; Last" in match_page
    corrected = {**kingen_form(1), "reason": "deal 1 misread"}
    del corrected["seat"], corrected["action"]
    corrected.update({"d1-taken-0": "5", "d1-taken-2": "6"})
    client.post(f"/matches/{matches[0].pk}/correct/", corrected)
    corrected_entry = TableSheet.objects.get(match=matches[0]).entry
    assert corrected_entry is not None
    assert corrected_entry[0] == {"taken": [5, 6, 6]}
    shown = client.get(f"/matches/{matches[0].pk}/").content.decode()
    assert "deal 1 misread" in shown
    assert 'name="d1-taken-0" min="0" step="1" value="5"' in shown
    wrong = {**corrected, "d2-taken-0": "9"}
    refused = client.post(f"/matches/{matches[0].pk}/correct/", wrong, follow=True)
    assert "deal 2 (hearts): the hearts taken add up to" in refused.content.decode()
    typo = {**corrected, "d2-taken-0": "x"}
    refused = client.post(f"/matches/{matches[0].pk}/correct/", typo, follow=True)
    assert "is not a whole number" in refused.content.decode()


def test_a_priffe_table_enters_its_rubber_on_the_phone_form() -> None:
    league, organiser, users, _ = _league(
        game="priffe", format="round_robin", rounds=1, players=4, deals=1
    )
    cards = _start(organiser, league["id"], [competitor_for_user(user=u).pk for u in users])
    code = cards["tables"][0]["code"]
    phone = Client()
    form = {"seat": "0", "action": "entry"}
    # Deal 1: a misère by seat 3, lost. Deal 2: side A (seats 0 and 2) bid hearts, take 10,
    # hold three honours. Deal 3: side A take all 13 in diamonds, honours 2-2 (second exit).
    form.update({"d1-contract": "misere", "d1-declarer": "3"})
    form.update({"d2-contract": "hearts", "d2-declarer": "0", "d2-tricks-0": "10"})
    form.update({"d2-tricks-1": "3", "d2-honours-0": "3", "d2-honours-1": "1"})
    form.update({"d3-contract": "diamonds", "d3-declarer": "2", "d3-tricks-0": "13"})
    form.update({"d3-tricks-1": "0", "d3-honours-0": "2", "d3-honours-1": "2"})
    assert phone.post(f"/club/table/{code}/", form).status_code == 302
    # Misère lost: seat 3 -15, the others +5. A: 40 + 10 + 20 + 70 + 20 = 160, so 16 each.
    shown = phone.get(f"/club/table/{code}/").content.decode()
    assert 'data-role="entered-scores">21, -11, 21, -31<' in shown
    form["d1-made"] = "1"
    stale = phone.post(f"/club/table/{code}/", form)  # made from version 0: another's since
    assert stale.status_code == 409
    assert "entered this table first" in stale.content.decode()
    form["version"] = "1"
    assert phone.post(f"/club/table/{code}/", form).status_code == 302
    shown = phone.get(f"/club/table/{code}/").content.decode()
    assert 'data-role="entered-scores">11, -21, 11, -1<' in shown
