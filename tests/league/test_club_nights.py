"""Club nights through the API (docs/league.md, *A club night*): a Priffe night of twelve
with rotating partners, a Kingen night of nine at tables of three, a duplicate King night
with its hand records."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import User
from django.test import Client

import pytest

from engine import Chance, load_game
from league.models import (
    Club,
    Match,
    MatchStatus,
    Membership,
    Notification,
    OutboxTask,
    Role,
    Tournament,
)
from league.services.competitors import competitor_for_user
from league.services.ratings import ratings_update
from league.services.tournaments import tournament_enter
from tests.api_answers import client_for, ok, refused
from tests.league.builders import club_with_organiser, user_create

pytestmark = pytest.mark.django_db

A_WINS_BIG: list[dict[str, Any]] = [
    {"contract": "hearts", "declarer": 0, "tricks": [10, 3], "honours": [3, 1]},
    {"contract": "spel", "declarer": 1, "tricks": [8, 5], "honours": [2, 2]},
    {"contract": "diamonds", "declarer": 2, "tricks": [12, 1], "honours": [2, 2]},
]
"""Side A (seats 0 and 2): 40 trick points, first exit 10, honours 20; 20 trick and 20
penalty points; 60 trick points, second exit 20 (80 more after the first exit): 190 to 0,
so 19 each."""
A_WINS_BIG_SCORES = (19, -19, 19, -19)
B_WINS_BIG: list[dict[str, Any]] = [
    {"contract": "hearts", "declarer": 1, "tricks": [3, 10], "honours": [1, 3]},
    {"contract": "spel", "declarer": 0, "tricks": [5, 8], "honours": [2, 2]},
    {"contract": "diamonds", "declarer": 3, "tricks": [1, 12], "honours": [2, 2]},
]
B_WINS_BIG_SCORES = (-19, 19, -19, 19)
A_WINS: list[dict[str, Any]] = [
    {"contract": "hearts", "declarer": 0, "tricks": [10, 3], "honours": [2, 2]},
    {"contract": "hearts", "declarer": 2, "tricks": [13, 0], "honours": [2, 2]},
]
"""Side A: 40 trick points and first exit 10; 70 trick points (70 more), second exit 20:
140 to 0, so 14 each."""
A_WINS_SCORES = (14, -14, 14, -14)
SHEETS = [(A_WINS_BIG, A_WINS_BIG_SCORES), (B_WINS_BIG, B_WINS_BIG_SCORES), (A_WINS, A_WINS_SCORES)]


def _members(club: Club, names: list[str]) -> list[User]:
    users = [user_create(name) for name in names]
    Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.PLAYER) for u in users)
    return users


def _league(
    *, game: str, format: str, rounds: int, players: int, deals: int | None = None
) -> tuple[Any, User, list[User], Club]:
    club, organiser = club_with_organiser()
    users = _members(club, [f"player{i:02d}" for i in range(players)])
    body: dict[str, Any] = {
        "name": "Club night",
        "club": club.pk,
        "game": game,
        "format": format,
        "rounds": rounds,
        "at_club": True,
    }
    if deals is not None:
        body["deals"] = deals
    created = ok(client_for(organiser).post("/api/tournaments/", body, format="json"), 201)
    assert created["at_club"] is True
    tournament = Tournament.objects.get(pk=created["id"])
    for user in users:
        tournament_enter(
            actor=user, tournament=tournament, competitor=competitor_for_user(user=user)
        )
    return created, organiser, users, club


def _start(
    organiser: User, tournament_id: int, present: list[int], reserves: Sequence[int] = ()
) -> Any:
    client = client_for(organiser)
    ok(
        client.post(
            f"/api/tournaments/{tournament_id}/attendance/",
            {"present": present, "reserves": list(reserves)},
            format="json",
        )
    )
    number = ok(client.post(f"/api/tournaments/{tournament_id}/start-round/"), 201)["number"]
    return ok(client.get(f"/api/tournaments/{tournament_id}/rounds/{number}/cards/"))


def _side_codes(card: dict[str, Any]) -> tuple[str, str]:
    """The entry codes of a card's two sides (seats 0 and 2; 1 and 3)."""
    first, second = card["sides"]
    return first["code"], second["code"]


def _enter_and_confirm(card: dict[str, Any], entry: list[dict[str, Any]]) -> dict[str, Any]:
    """Seat 0 enters with its side's code; seat 1 confirms with the other side's."""
    anyone = client_for(None)
    code, other = _side_codes(card)
    view = ok(anyone.get(f"/api/club-tables/{code}/"))
    assert view["status"] == "open"
    assert view["version"] == 0
    assert view["totals_allowed"] == view["sheet"]["totals_allowed"]  # one answer a table
    ok(anyone.post(f"/api/club-tables/{code}/scores/", {"seat": 0, "entry": entry}, format="json"))
    return ok(anyone.post(f"/api/club-tables/{other}/confirm/", {"seat": 1}, format="json"))


def test_a_priffe_night_of_twelve_with_rotating_partners() -> None:
    league, organiser, users, club = _league(
        game="priffe", format="rotating_partners", rounds=3, players=12, deals=1
    )
    tid = league["id"]
    ids = {u.username: competitor_for_user(user=u).pk for u in users}
    everyone = sorted(ids.values())
    expected: dict[int, int] = defaultdict(int)
    anyone = client_for(None)

    # Round 1: all twelve present; three tables of four.
    cards = _start(organiser, tid, everyone)
    assert [t["table"] for t in cards["tables"]] == [1, 2, 3]
    assert sorted(row["name"] for row in cards["seating"]) == sorted(ids)
    for card in cards["tables"]:
        assert [s["compass"] for s in card["seats"]] == ["North", "East", "South", "West"]
        assert card["first_dealer"]["seat"] == 0
        assert card["entry_url"].endswith(f"/club/table/{card['code']}/")
        assert len(card["code"]) == 6
        assert any("side A seats 0 and 2" in note for note in card["sheet"]["notes"])
    assert not OutboxTask.objects.filter(task__startswith="league.tasks.run_match").exists()
    notice = Notification.objects.filter(user=users[0]).get()
    assert "at the club, with real cards" in notice.text
    assert notice.url == f"/matches/{notice.match_id}/"
    assert set(Match.objects.filter(tournament_id=tid).values_list("status", flat=True)) == {
        MatchStatus.WAITING
    }

    # A wrong entry is refused, naming what does not add up.
    first = cards["tables"][0]
    side_a, side_b = _side_codes(first)
    wrong = [dict(d) for d in A_WINS_BIG]
    wrong[1] = {**wrong[1], "tricks": [8, 4]}
    message = refused(
        anyone.post(
            f"/api/club-tables/{side_a}/scores/", {"seat": 2, "entry": wrong}, format="json"
        ),
        400,
    )
    assert message == "entry: deal 2 (rubber 1): the tricks add up to 12; a deal has 13"
    assert (
        refused(
            anyone.post(
                f"/api/club-tables/{side_a}/scores/", {"seat": 7, "entry": wrong}, format="json"
            ),
            400,
        )
        == "seat: there is no seat 7 at this table: its seats are 0, 1, 2, 3"
    )
    assert (
        refused(
            anyone.post(
                f"/api/club-tables/{side_a}/scores/", {"seat": 1, "entry": wrong}, format="json"
            ),
            400,
        )
        == "seat: seat 1 is on the other side of the table: this code is for seats 0, 2"
    )
    # The side that entered does not confirm; a player of the other side does.
    ok(
        anyone.post(
            f"/api/club-tables/{side_a}/scores/", {"seat": 2, "entry": A_WINS_BIG}, format="json"
        )
    )
    assert "other side" in refused(
        anyone.post(f"/api/club-tables/{side_a}/confirm/", {"seat": 0}, format="json"), 409
    )
    result = ok(anyone.post(f"/api/club-tables/{side_b}/confirm/", {"seat": 3}, format="json"))
    assert tuple(result["scores"]) == A_WINS_BIG_SCORES
    for code in (side_a, side_b):
        assert "no longer valid" in refused(anyone.get(f"/api/club-tables/{code}/"), 410)
    for seat in first["seats"]:
        expected[ids[seat["name"]]] += A_WINS_BIG_SCORES[seat["seat"]]
    for card, (entry, scores) in zip(cards["tables"][1:], SHEETS[1:], strict=True):
        _enter_and_confirm(card, entry)
        for seat in card["seats"]:
            expected[ids[seat["name"]]] += scores[seat["seat"]]

    # Round 2: player03 is absent; a reserve (a member, no entrant) fills the short table.
    reserve = _members(club, ["reserve"])[0]
    reserve_id = competitor_for_user(user=reserve).pk
    absent = ids["player03"]
    cards = _start(organiser, tid, [c for c in everyone if c != absent], [reserve_id])
    seated = [s["name"] for card in cards["tables"] for s in card["seats"]]
    assert "player03" not in seated
    assert "reserve" in seated
    marked = [s["name"] for card in cards["tables"] for s in card["seats"] if s["reserve"]]
    assert marked == ["reserve"]
    reserve_card = next(c for c in cards["tables"] if "reserve" in [s["name"] for s in c["seats"]])
    at_reserve_table = ok(anyone.get(f"/api/club-tables/{reserve_card['code']}/"))
    assert [s["name"] for s in at_reserve_table["seats"] if s["reserve"]] == ["reserve"]
    assert len(seated) == 12
    for card, (entry, scores) in zip(cards["tables"], SHEETS, strict=True):
        _enter_and_confirm(card, entry)
        for seat in card["seats"]:
            if seat["name"] != "reserve":
                expected[ids[seat["name"]]] += scores[seat["seat"]]

    # Round 3: everyone again (the absent player joins from the next round).
    cards = _start(organiser, tid, everyone)
    assert "player03" in [s["name"] for card in cards["tables"] for s in card["seats"]]
    round3 = list(zip(cards["tables"], [SHEETS[2], SHEETS[0], SHEETS[1]], strict=True))
    for card, (entry, scores) in round3:
        _enter_and_confirm(card, entry)
        for seat in card["seats"]:
            expected[ids[seat["name"]]] += scores[seat["seat"]]

    # The organiser corrects the first table of round 1 (side B won it, in fact): audited.
    organiser_client = client_for(organiser)
    match_id = first["match"]
    assert "organise" in refused(
        client_for(users[0]).post(
            f"/api/matches/{match_id}/corrections/", {"entry": B_WINS_BIG}, format="json"
        ),
        403,
    )
    correction = ok(
        organiser_client.post(
            f"/api/matches/{match_id}/corrections/",
            {"entry": B_WINS_BIG, "reason": "sides swapped on the sheet"},
            format="json",
        ),
        201,
    )
    assert correction["corrected_by"] == organiser.username
    assert correction["before"]["scores"] == list(A_WINS_BIG_SCORES)
    assert correction["after"]["scores"] == list(B_WINS_BIG_SCORES)
    trail = ok(anyone.get(f"/api/matches/{match_id}/corrections/"))
    assert [c["reason"] for c in trail] == ["sides swapped on the sheet"]
    assert trail[0]["before"]["entry"] == A_WINS_BIG
    assert trail[0]["after"]["entry"] == B_WINS_BIG
    for seat in first["seats"]:
        expected[ids[seat["name"]]] += (
            B_WINS_BIG_SCORES[seat["seat"]] - A_WINS_BIG_SCORES[seat["seat"]]
        )

    standings = ok(anyone.get(f"/api/tournaments/{tid}/standings/"))
    totals = {row["competitor"]: row["total"] for row in standings["rows"]}
    assert reserve_id not in totals
    ratings_update()  # the ratings queue's worker: every confirmed table is rated
    rated = ok(anyone.get(f"/api/tournaments/{tid}/ratings/"))
    assert {row["competitor"] for row in rated["ratings"]} == set(everyone)
    assert rated["pending"] == 0
    assert totals == {c: expected[c] for c in everyone}
    assert standings["mode"] == "partnership"
    assert standings["partner_pairs"]
    games = {row["competitor"]: row["games"] for row in standings["rows"]}
    assert games[absent] == 2
    record = ok(anyone.get(f"/api/matches/{match_id}/record/"))
    assert record["kind"] == "table"
    assert record["scores"] == list(B_WINS_BIG_SCORES)


def test_a_kingen_night_of_nine_at_tables_of_three() -> None:
    league, organiser, users, _ = _league(
        game="kingen(players=3)", format="round_robin", rounds=1, players=9
    )
    tid = league["id"]
    cards = _start(organiser, tid, [competitor_for_user(user=u).pk for u in users])
    assert len(cards["tables"]) == 3
    card = cards["tables"][0]
    assert [s["compass"] for s in card["seats"]] == ["North", "East", "West"]
    titles = [line["title"] for line in card["order"]]
    assert titles[0] == "Slagen (no tricks)"
    assert titles[-1] == "Troef (trumps)"
    assert len(titles) == 9
    entry: list[dict[str, Any]] = [
        {"taken": [6, 6, 5]},
        {"taken": [5, 4, 4]},
        {"taken": [3, 3, 2]},
        {"taken": [2, 1, 1]},
        {"taken": [1, 0, 0]},
        {"seventh": 0, "last": 1},
        {"taken": [6, 6, 5]},
        {"taken": [6, 6, 5]},
        {"taken": [6, 6, 5]},
    ]
    # By hand (3 players: queens cost 1, the king of hearts 4, the 10th trick 3, the last 2):
    # -6-5-3-2-4-3 +18 = -5; -6-4-3-1-0-2 +18 = 2; -5-4-2-1-0-0 +15 = 3.
    for table in cards["tables"]:
        assert _enter_and_confirm(table, entry)["scores"] == [-5, 2, 3]
    standings = ok(client_for(None).get(f"/api/tournaments/{tid}/standings/"))
    assert sorted(row["total"] for row in standings["rows"]) == sorted([-5, 2, 3] * 3)


def test_a_duplicate_king_night_prints_the_engines_deals() -> None:
    league, organiser, users, _ = _league(game="king", format="duplicate", rounds=1, players=8)
    tid = league["id"]
    cards = _start(organiser, tid, [competitor_for_user(user=u).pk for u in users])
    seeds = set(Match.objects.filter(tournament_id=tid).values_list("seed", flat=True))
    assert len(seeds) == 1
    seed = seeds.pop()
    state = load_game(league["game"]).new_initial_state(seed=seed)
    dealt: list[list[list[str]]] = []
    while not state.is_terminal():
        if len(dealt) < len(state.deal_starts):
            event = state.log[state.deal_starts[len(dealt)]]
            assert isinstance(event, Chance)
            dealt.append(event.to_json()["cards"])
        state.apply_action(state.legal_actions()[-1])
    records = cards["hand_records"]
    assert [r["cards"] for r in records] == dealt
    assert len(records) == 10
    assert set(records[0]["hands"][0]) == {"S", "H", "D", "C"}
    page = Client()
    page.force_login(organiser)
    printed = page.get(f"/leagues/{tid}/rounds/1/cards/").content.decode()
    assert 'data-role="hand-records"' in printed
    north = records[9]["hands"][0]
    assert f"♠ {north['S']}</td><td>♥ {north['H']}</td><td>♦ {north['D']}" in printed
    pdf = page.get(f"/leagues/{tid}/rounds/1/cards.pdf?paper=letter").content
    assert pdf.startswith(b"%PDF-")


def test_without_reserves_a_short_table_sits_out_and_the_next_round_keeps_who_was_said() -> None:
    league, organiser, users, _ = _league(game="kingen", format="round_robin", rounds=2, players=7)
    tid = league["id"]
    ids = [competitor_for_user(user=u).pk for u in users]
    cards = _start(organiser, tid, ids[:6])
    assert len(cards["tables"]) == 1
    byes = [row for row in cards["seating"] if row["table"] is None]
    assert len(byes) == 2
    assert {row["compass"] for row in byes} == {"sits out (bye)"}
    seated = {s["name"] for s in cards["tables"][0]["seats"]}
    assert "player06" not in seated
    attendance = ok(client_for(None).get(f"/api/tournaments/{tid}/attendance/"))
    assert attendance["round"] == 1
    assert len(attendance["byes"]) == 2
    assert "not confirmed" in refused(
        client_for(organiser).post(f"/api/tournaments/{tid}/start-round/"), 409
    )
    sheet = [{"taken": [4, 3, 3, 3]}] * 1
    message = refused(
        client_for(None).post(
            f"/api/club-tables/{cards['tables'][0]['code']}/scores/",
            {"seat": 0, "entry": sheet},
            format="json",
        ),
        400,
    )
    assert message == "entry: 1 deal entered; a game of Kingen has 10"


def test_game_totals_where_the_organiser_allows_them() -> None:
    club, organiser = club_with_organiser()
    client = client_for(organiser)
    body: dict[str, Any] = {"name": "Totals", "club": club.pk, "game": "priffe", "at_club": True}
    message = refused(
        client.post("/api/tournaments/", {**body, "totals_allowed": True}, format="json"), 400
    )
    assert "game totals alone are not enough" in message
    users = _members(club, ["ann", "bo", "cai", "dag"])
    created = ok(
        client.post(
            "/api/tournaments/",
            {**body, "game": "kingen", "totals_allowed": True},
            format="json",
        ),
        201,
    )
    tournament = Tournament.objects.get(pk=created["id"])
    for user in users:
        tournament_enter(
            actor=user, tournament=tournament, competitor=competitor_for_user(user=user)
        )
    cards = _start(organiser, created["id"], [competitor_for_user(user=u).pk for u in users])
    code = cards["tables"][0]["code"]
    anyone = client_for(None)
    view = ok(anyone.get(f"/api/club-tables/{code}/"))
    assert view["totals_allowed"] is True
    assert view["sheet"]["totals_allowed"] is True
    message = refused(
        anyone.post(
            f"/api/club-tables/{code}/scores/", {"seat": 0, "totals": [3, -3, 1, 0]}, format="json"
        ),
        400,
    )
    assert message == "totals: the totals add up to 1; the game's totals always add up to 0"
    ok(
        anyone.post(
            f"/api/club-tables/{code}/scores/", {"seat": 0, "totals": [3, -3, 1, -1]}, format="json"
        )
    )
    other = _side_codes(cards["tables"][0])[1]
    assert ok(anyone.post(f"/api/club-tables/{other}/confirm/", {"seat": 1}, format="json"))[
        "scores"
    ] == [3, -3, 1, -1]
    record = ok(anyone.get(f"/api/matches/{cards['tables'][0]['match']}/record/"))
    assert record["totals_only"] is True
