"""Two phones racing on one table (docs/api.md, *Club nights*): both enter the sheet from
the same version at the same moment, through production's web server; one wins, the other
is refused with 409 and told what the winner entered, and nothing is silently replaced.
Then the organiser confirms the tables (each request in the server's own transaction)."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from typing import Any

from rest_framework.authtoken.models import Token

import pytest

from league.models import TableSheet
from league.services.competitors import competitor_for_user
from tests.league.test_club_nights import _league, _start
from tests.web.club_night_pages import KINGEN_3_ENTRY

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

SEVENTH_TO_EAST = [*KINGEN_3_ENTRY[:5], {"seventh": 2, "last": 1}, *KINGEN_3_ENTRY[6:]]
"""Another phone's sheet of the same table: the 7th trick went to seat 2 (-5, 2, 3 becomes
-2, 2, 0)."""


def _post(url: str, body: dict[str, Any], *, token: str = "") -> tuple[int, dict[str, Any]]:
    headers = {"Content-Type": "application/json", "Accept-Language": "en"}
    if token:
        headers["Authorization"] = f"Token {token}"
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST", headers=headers
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refusal:
        return refusal.code, json.loads(refusal.read())


def _race(
    phones: list[tuple[str, int, list[dict[str, Any]]]],
) -> dict[int, tuple[int, dict[str, Any]]]:
    """Each phone enters its sheet from version 0, all let go at once; the answers by seat."""
    start = threading.Barrier(len(phones))
    answers: dict[int, tuple[int, dict[str, Any]]] = {}

    def enter(url: str, seat: int, entry: list[dict[str, Any]]) -> None:
        start.wait()
        answers[seat] = _post(url, {"seat": seat, "entry": entry, "version": 0})

    threads = [threading.Thread(target=enter, args=phone) for phone in phones]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_two_phones_racing_on_one_table_one_wins_the_other_is_told(live_server_url: str) -> None:
    league, organiser, users, _ = _league(
        game="kingen(players=3)", format="round_robin", rounds=1, players=9
    )
    cards = _start(organiser, league["id"], [competitor_for_user(user=u).pk for u in users])
    for card in cards["tables"]:
        first, second = (side["code"] for side in card["sides"])
        phones = [
            (f"{live_server_url}/api/club-tables/{first}/scores/", 0, KINGEN_3_ENTRY),
            (f"{live_server_url}/api/club-tables/{second}/scores/", 1, SEVENTH_TO_EAST),
        ]
        answers = _race(phones)

        assert sorted(status for status, _body in answers.values()) == [200, 409], answers
        winner = next(seat for seat, (status, _body) in answers.items() if status == 200)
        loser = 1 - winner
        won_entry = KINGEN_3_ENTRY if winner == 0 else SEVENTH_TO_EAST
        won_scores = [-5, 2, 3] if winner == 0 else [-2, 2, 0]
        refusal = answers[loser][1]
        assert refusal["entered"]["entry"] == won_entry
        assert refusal["entered"]["scores"] == won_scores
        assert refusal["entered"]["version"] == 1
        winner_name = next(s["name"] for s in card["seats"] if s["seat"] == winner)
        assert "Another phone entered this table first" in refusal["detail"]
        assert f"seat {winner} ({winner_name}) entered" in refusal["detail"]
        assert f"{winner_name} {won_scores[winner]:+d}" in refusal["detail"]
        sheet = TableSheet.objects.get(match_id=card["match"])
        assert sheet.entry == won_entry  # the loser replaced nothing
        assert sheet.version == 1
        assert sheet.entered_seat == winner

    # The organiser confirms what the winners entered (in the server's own transaction).
    token = Token.objects.create(user=organiser).key
    for card in cards["tables"]:
        url = f"{live_server_url}/api/matches/{card['match']}/confirm-scores/"
        status, body = _post(url, {}, token=token)
        assert status == 200, body
    assert set(
        TableSheet.objects.filter(match__tournament_id=league["id"]).values_list(
            "status", flat=True
        )
    ) == {"confirmed"}
