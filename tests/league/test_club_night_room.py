"""A club night in a room of phones on one Wi-Fi (docs/api.md, *Rate limits*; docs/league.md,
*A club night*): twelve tables on the venue's one address enter and confirm without a 429
under the real limits, through the pages and the API; codes guessed from an address are
cut off for reads and writes alike; a code expires with its night, for reads as for writes.

Real PostgreSQL and Redis (the limits count in the Redis cache)."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings as django_settings
from django.test import Client
from django.utils import timezone

import pytest

from league.domain.club_night import ENTRY_CODE_ALPHABET
from league.models import (
    Match,
    MatchStatus,
    Round,
    ScoreCorrection,
    TableSheet,
    Tournament,
    TournamentStatus,
)
from league.services.competitors import competitor_for_user
from tests.api_answers import client_for, ok, refused
from tests.league.builders import user_create
from tests.league.test_club_nights import _league, _start
from tests.web.club_night_pages import KINGEN_3_ENTRY
from tests.web.test_club_night_pages import kingen_form

if TYPE_CHECKING:
    from pytest_django.fixtures import Settings

pytestmark = [pytest.mark.django_db, pytest.mark.postgres, pytest.mark.redis]

VENUE = "192.0.2.10"
"""The club's one public address: every phone of the night comes from it."""


def _real_limits(settings: Settings) -> None:
    """The limits of production (config/settings.py), not the tests' unreachable ones."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": dict(django_settings.RATE_LIMITS_DEFAULT),
    }


def _night(tables: int, *, rounds: int = 1) -> tuple[dict[str, Any], Any, dict[str, Any]]:
    league, organiser, users, _ = _league(
        game="kingen(players=3)", format="round_robin", rounds=rounds, players=3 * tables
    )
    cards = _start(organiser, league["id"], [competitor_for_user(user=u).pk for u in users])
    assert len(cards["tables"]) == tables
    return league, organiser, cards


def _page_table(card: dict[str, Any]) -> list[int]:
    """A table on the pages, two phones with their sides' codes and the slips people
    make: a confirmation before anything is entered, no seat chosen, a mistyped deal,
    a confirmation of what the phone had not seen yet. Six writes; the status codes."""
    first, second = (side["code"] for side in card["sides"])
    north, east = Client(REMOTE_ADDR=VENUE), Client(REMOTE_ADDR=VENUE)
    statuses = [north.get(f"/club/table/{first}/").status_code]
    statuses.append(east.get(f"/club/table/{second}/").status_code)
    early = {"seat": "1", "action": "confirm", "version": "0"}
    statuses.append(east.post(f"/club/table/{second}/", early).status_code)  # nothing yet
    statuses.append(north.post(f"/club/table/{first}/", {"action": "entry"}).status_code)
    mistyped = kingen_form(0, hearts=["5", "4", "3"])
    statuses.append(north.post(f"/club/table/{first}/", mistyped).status_code)
    statuses.append(north.post(f"/club/table/{first}/", kingen_form(0)).status_code)
    statuses.append(east.post(f"/club/table/{second}/", early).status_code)  # saw version 0
    statuses.append(east.get(f"/club/table/{second}/").status_code)
    confirm = {**early, "version": "1"}
    statuses.append(east.post(f"/club/table/{second}/", confirm).status_code)
    return statuses


def _api_table(card: dict[str, Any]) -> list[int]:
    """The same table through the API (clients without cookies: counted per code)."""
    first, second = (side["code"] for side in card["sides"])
    phone = client_for(None)
    phone.defaults["REMOTE_ADDR"] = VENUE
    url = "/api/club-tables/{}/{}/"
    statuses = [phone.get(f"/api/club-tables/{first}/").status_code]
    early = {"seat": 1, "version": 0}
    statuses.append(phone.post(url.format(second, "confirm"), early, format="json").status_code)
    statuses.append(
        phone.post(url.format(first, "scores"), {"seat": 7, "entry": []}, format="json").status_code
    )
    wrong = [{"taken": [6, 6, 6]}, *KINGEN_3_ENTRY[1:]]
    statuses.append(
        phone.post(
            url.format(first, "scores"), {"seat": 0, "entry": wrong}, format="json"
        ).status_code
    )
    right = {"seat": 0, "entry": KINGEN_3_ENTRY}
    statuses.append(phone.post(url.format(first, "scores"), right, format="json").status_code)
    statuses.append(phone.post(url.format(second, "confirm"), early, format="json").status_code)
    confirm = {"seat": 1, "version": 1}
    statuses.append(phone.post(url.format(second, "confirm"), confirm, format="json").status_code)
    return statuses


@pytest.mark.slow
def test_twelve_tables_on_one_address_enter_and_confirm_without_a_429(settings: Settings) -> None:
    """72 writes from one address (six a table): the old limit of 60 an hour per address
    refused the last tables; per table code and per phone, none is refused."""
    _real_limits(settings)
    league, _organiser, cards = _night(12)
    assert django_settings.RATE_LIMITS_DEFAULT["table_joins"] == "60/hour"
    pages = [_page_table(card) for card in cards["tables"][:6]]
    api = [_api_table(card) for card in cards["tables"][6:]]
    for statuses in pages:
        assert statuses == [200, 200, 409, 400, 400, 302, 409, 200, 200], statuses
    for statuses in api:
        assert statuses == [200, 409, 400, 400, 200, 409, 200], statuses
    writes = sum(len(s) - 3 for s in pages) + sum(len(s) - 1 for s in api)
    assert writes == 72
    assert set(
        TableSheet.objects.filter(match__tournament_id=league["id"]).values_list(
            "status", flat=True
        )
    ) == {"confirmed"}
    standings = ok(client_for(None).get(f"/api/tournaments/{league['id']}/standings/"))
    assert sorted(row["total"] for row in standings["rows"]) == sorted([-5, 2, 3] * 12)


def test_a_table_code_is_limited_per_code_not_per_address(settings: Settings) -> None:
    """The bound on one code's writes holds whoever sends them, and another table of the
    same address is not touched by it."""
    _real_limits(settings)
    settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["table_code_writes"] = "3/hour"
    _, _, cards = _night(2)
    first = cards["tables"][0]["sides"][0]["code"]
    other = cards["tables"][1]["sides"][0]["code"]
    body = {"seat": 0, "entry": [{"taken": [1, 1, 1]}]}
    phones = [client_for(None) for _ in range(4)]
    statuses = [
        phone.post(f"/api/club-tables/{first}/scores/", body, format="json").status_code
        for phone in phones
    ]
    assert statuses == [400, 400, 400, 429]
    message = refused(phones[0].post(f"/api/club-tables/{first}/scores/", body, format="json"), 429)
    assert (
        "Too many score entries and confirmations for this table: at most 3 in an hour" in message
    )
    assert (
        phones[0].post(f"/api/club-tables/{other}/scores/", body, format="json").status_code == 400
    )


def test_guessing_codes_is_cut_off_per_address_for_reads_and_writes(settings: Settings) -> None:
    """20 wrong codes an hour from an address (today 600 guesses in 38 s were answered);
    then reads and writes of any code are refused from it, except a phone's own code;
    another address is not touched."""
    _real_limits(settings)
    _, _, cards = _night(1)
    real = cards["tables"][0]["sides"][0]["code"]
    at_its_table = Client(REMOTE_ADDR=VENUE)
    assert at_its_table.get(f"/club/table/{real}/").status_code == 200
    guesser = client_for(None)
    guesser.defaults["REMOTE_ADDR"] = VENUE
    draw = random.Random(33)
    guesses = ["".join(draw.choices(ENTRY_CODE_ALPHABET, k=6)) for _ in range(600)]
    statuses = []
    for guess in guesses:
        if guess in (side["code"] for side in cards["tables"][0]["sides"]):
            continue
        statuses.append(guesser.get(f"/api/club-tables/{guess}/").status_code)
    assert statuses[:20] == [404] * 20
    assert set(statuses[20:]) == {429}
    refusal = guesser.get(f"/api/club-tables/{real}/")
    assert refusal.status_code == 429  # a right guess now says nothing either
    assert "wrong table codes from your address: at most 20 in an hour" in refusal.json()["detail"]
    assert int(refusal["Retry-After"]) <= 3600
    write = guesser.post(f"/api/club-tables/{real}/scores/", {"seat": 0}, format="json")
    assert write.status_code == 429
    page = Client(REMOTE_ADDR=VENUE).get(f"/club/table/{guesses[1]}/")
    assert page.status_code == 429
    # The phone that opened its code before goes on; another address is not refused.
    assert at_its_table.get(f"/club/table/{real}/").status_code == 200
    elsewhere = client_for(None)
    elsewhere.defaults["REMOTE_ADDR"] = "198.51.100.7"
    assert elsewhere.get(f"/api/club-tables/{real}/").status_code == 200


def _refused_everywhere(code: str, says: str) -> None:
    """Reads and writes of ``code``, API and page, all refused with 410 saying ``says``."""
    phone = client_for(None)
    assert says in refused(phone.get(f"/api/club-tables/{code}/"), 410)
    body = {"seat": 0, "entry": KINGEN_3_ENTRY}
    assert says in refused(phone.post(f"/api/club-tables/{code}/scores/", body, format="json"), 410)
    confirm = {"seat": 1}
    assert says in refused(
        phone.post(f"/api/club-tables/{code}/confirm/", confirm, format="json"), 410
    )
    page = Client().get(f"/club/table/{code}/")
    assert page.status_code == 410
    assert says in page.content.decode()
    posted = Client().post(f"/club/table/{code}/", kingen_form(0))
    assert posted.status_code == 410


def test_codes_expire_when_the_night_is_closed_or_over(settings: Settings) -> None:
    league, organiser, cards = _night(3, rounds=2)
    tid = league["id"]
    closed_by_organiser, expired, still_open = cards["tables"]
    codes = [[side["code"] for side in card["sides"]] for card in cards["tables"]]
    for pair in codes:
        for code in pair:
            assert ok(client_for(None).get(f"/api/club-tables/{code}/"))["status"] == "open"

    # At the latest CLUB_TABLE_CODE_HOURS after the round started.
    assert settings.CLUB_TABLE_CODE_HOURS == 12
    Round.objects.filter(tournament_id=tid, number=1).update(
        created_at=timezone.now() - timedelta(hours=12, minutes=1)
    )
    for code in codes[1]:
        _refused_everywhere(code, "this code expired 12 hours after its round started")
    Round.objects.filter(tournament_id=tid, number=1).update(created_at=timezone.now())
    assert ok(client_for(None).get(f"/api/club-tables/{codes[1][0]}/"))["status"] == "open"

    # The organiser closes the night (only the organiser).
    assert "organise" in refused(
        client_for(user_create("stranger")).post(f"/api/tournaments/{tid}/rounds/1/close/"), 403
    )
    ok(
        client_for(None).post(
            f"/api/club-tables/{codes[0][0]}/scores/",
            {"seat": 0, "entry": KINGEN_3_ENTRY},
            format="json",
        )
    )
    page = Client()
    page.force_login(organiser)
    assert 'data-role="close-night"' in page.get(f"/leagues/{tid}/rounds/1/").content.decode()
    closed = page.post(f"/leagues/{tid}/rounds/1/close/", follow=True)
    assert "The club night is closed: the codes of 3 tables no longer open them." in (
        closed.content.decode()
    )
    for pair in codes:
        for code in pair:
            _refused_everywhere(code, "the organiser has closed this club night")
    # What a table entered before the close is the organiser's to confirm.
    match_id = closed_by_organiser["match"]
    result = ok(client_for(organiser).post(f"/api/matches/{match_id}/confirm-scores/"))
    assert result["scores"] == [-5, 2, 3]
    assert expired["match"] != still_open["match"]

    # A finished league's codes open nothing either.
    TableSheet.objects.filter(match__tournament_id=tid).update(closed_at=None)
    Tournament.objects.filter(pk=tid).update(status=TournamentStatus.FINISHED)
    _refused_everywhere(codes[2][1], "this league is over")
    assert (
        TableSheet.objects.get(code=codes[2][0]).match.status == MatchStatus.WAITING
    )  # refused, not changed


def test_after_the_close_the_organiser_finishes_a_table_that_never_entered_on_the_web() -> None:
    league, organiser, cards = _night(2)
    tid = league["id"]
    match_id = cards["tables"][0]["match"]
    page = Client()
    page.force_login(organiser)
    before = page.get(f"/matches/{match_id}/").content.decode()
    assert 'data-role="correction-form"' not in before  # the table's to enter while open
    page.post(f"/leagues/{tid}/rounds/1/close/")

    shown = page.get(f"/matches/{match_id}/").content.decode()
    assert "Finish this table's scores" in shown
    assert 'data-role="correction-form"' in shown  # the phones' grid
    assert 'name="d1-taken-0"' in shown
    sheet = {**kingen_form(0), "reason": "paper sheet handed in"}
    del sheet["seat"], sheet["action"]
    wrong = {**sheet, "d2-taken-0": "9"}
    refused_page = page.post(f"/matches/{match_id}/correct/", wrong, follow=True)
    assert "the hearts taken add up to" in refused_page.content.decode()
    assert TableSheet.objects.get(match_id=match_id).status == "open"

    page.post(f"/matches/{match_id}/correct/", sheet)
    finished = TableSheet.objects.get(match_id=match_id)
    assert finished.status == "confirmed"
    assert finished.confirmed_by_id == organiser.pk
    assert Match.objects.get(pk=match_id).status == MatchStatus.FINISHED
    [audit] = ScoreCorrection.objects.filter(match_id=match_id)
    assert audit.before["entry"] is None
    assert audit.after["scores"] == [-5, 2, 3]
    assert audit.reason == "paper sheet handed in"
    after = page.get(f"/matches/{match_id}/").content.decode()
    assert "paper sheet handed in" in after
    assert "Finish this table's scores" not in after
    # A stranger finishes nothing.
    other = cards["tables"][1]["match"]
    stranger = Client()
    stranger.force_login(user_create("stranger"))
    stranger.post(f"/matches/{other}/correct/", sheet)
    assert TableSheet.objects.get(match_id=other).status == "open"
