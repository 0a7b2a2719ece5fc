"""The REST API through its stable interface (docs/api.md): clubs, competitors, tournaments,
rounds, matches, records, a person's seat, and bad input to every write endpoint.

Matches are played in process here (``match_run``, the body of the ``run_match`` task);
tests/league/test_worker_matches.py plays them through a real worker.
"""

from __future__ import annotations

import json
from typing import Any

from django.db.models import Model
from rest_framework.test import APIClient

import pytest

from engine import load_game
from engine.record import verify_record
from league.models import (
    Club,
    Competitor,
    Entry,
    Invitation,
    Match,
    MatchEvent,
    MatchStatus,
    Membership,
    Round,
    Tournament,
)
from league.services.competitors import competitor_builtin
from league.services.matches import match_run
from tests.api_answers import client_for, ok, refused
from tests.league.builders import builtin_competitors, user_create

PASSWORD = "a long password 1"


def play_queued() -> None:
    for match_id in Match.objects.filter(status=MatchStatus.QUEUED).values_list("id", flat=True):
        match_run(match_id=match_id, worker="test")


@pytest.mark.django_db
def test_token_auth_and_the_schema() -> None:
    user_create("ann", PASSWORD)
    anonymous = APIClient()
    token = ok(
        anonymous.post(
            "/api/auth/token/",
            f"username=ann&password={PASSWORD.replace(' ', '+')}",
            content_type="application/x-www-form-urlencoded",
        )
    )
    refused(
        anonymous.post("/api/auth/token/", {"username": "ann", "password": "no"}, format="json"),
        400,
    )
    refused(anonymous.post("/api/clubs/", {"name": "X"}, format="json"), 401)  # docs/api.md
    anonymous.credentials(HTTP_AUTHORIZATION=f"Token {token['token']}")
    assert ok(anonymous.post("/api/clubs/", {"name": "X"}, format="json"), 201)["name"] == "X"
    schema = anonymous.get("/api/schema/", {"format": "json"})
    assert schema.status_code == 200
    assert "/api/matches/{match_id}/seats/{seat}/actions/" in json.loads(schema.content)["paths"]
    assert anonymous.get("/api/docs/").status_code == 200


@pytest.mark.django_db
def test_a_tournament_from_creation_to_final_standings_through_the_api() -> None:
    organiser = user_create("olga")
    member = user_create("max")
    api = client_for(organiser)
    club = ok(api.post("/api/clubs/", {"name": "Kingen Club"}, format="json"), 201)
    members = ok(api.get(f"/api/clubs/{club['id']}/members/"))
    assert [(m["username"], m["role"]) for m in members] == [("olga", "owner")]
    code = ok(api.post(f"/api/clubs/{club['id']}/invitations/", {}, format="json"), 201)["code"]
    ok(client_for(member).post(f"/api/invitations/{code}/accept/"))
    refused(client_for(member).post(f"/api/invitations/{code}/accept/"), 409)
    assert ok(api.get(f"/api/clubs/{club['id']}/"))["member_count"] == 2

    bots = [competitor_builtin(name="random", bot_name=f"random-{i}") for i in range(5)]
    me = ok(client_for(member).post("/api/competitors/", {"user": member.pk}, format="json"), 201)
    assert me["kind"] == "person"
    tournament = ok(
        api.post(
            "/api/tournaments/",
            {
                "name": "Spring",
                "club": club["id"],
                "game": "kingen(rules=iwwa)",
                "rounds": 2,
                "entrants": [b.pk for b in bots[:4]],
            },
            format="json",
        ),
        201,
    )
    assert tournament["game"] == "kingen(rules=iwwa)"
    assert tournament["status"] == "open"
    detail = ok(
        api.post(
            f"/api/tournaments/{tournament['id']}/entries/",
            {"competitor": bots[4].pk},
            format="json",
        ),
        201,
    )
    assert detail["entrant_count"] == 5
    # A member may not run the tournament.
    refused(client_for(member).post(f"/api/tournaments/{tournament['id']}/start-round/"), 403)

    for number in (1, 2):
        round_ = ok(api.post(f"/api/tournaments/{tournament['id']}/start-round/"), 201)
        assert round_["number"] == number
        assert round_["match_count"] == 2  # 5 entrants + 3 filler seats: two tables
        refused(api.post(f"/api/tournaments/{tournament['id']}/start-round/"), 409)
        play_queued()
    refused(api.post(f"/api/tournaments/{tournament['id']}/start-round/"), 409)

    rounds = ok(api.get("/api/rounds/", {"tournament": tournament["id"]}))
    assert [(r["number"], r["finished_count"]) for r in rounds] == [(1, 2), (2, 2)]
    matches = ok(api.get("/api/matches/", {"tournament": tournament["id"], "round": 2}))
    assert len(matches) == 2
    assert all(m["status"] == "finished" and m["scores"] is not None for m in matches)
    assert len(ok(api.get("/api/matches/", {"competitor": bots[0].pk}))) == 2
    assert ok(api.get("/api/matches/", {"status": "queued"})) == []
    one = ok(api.get(f"/api/matches/{matches[0]['id']}/"))
    assert one["progress"]["deals_done"] == 10
    assert [s["seat"] for s in one["seats"]] == [0, 1, 2, 3]
    record = ok(api.get(f"/api/matches/{one['id']}/record/"))
    assert verify_record(record).ok
    assert record["seed"] == one["seed"]

    standings = ok(api.get(f"/api/tournaments/{tournament['id']}/standings/"))
    assert (standings["finished"], standings["total"]) == (4, 4)
    assert {r["competitor"] for r in standings["rows"]} == {b.pk for b in bots}
    assert sum(r["games"] for r in standings["rows"]) == 10  # 5 entrants... and fillers
    assert standings["rows"][0]["rank"] == 1

    export = api.get(f"/api/tournaments/{tournament['id']}/records.ndjson")
    assert export.status_code == 200
    assert export["Content-Type"] == "application/x-ndjson"
    lines = b"".join(export.streaming_content).decode().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 4
    assert all(verify_record(line).ok for line in lines)

    ok(api.post(f"/api/tournaments/{tournament['id']}/pause/"))
    assert ok(api.post(f"/api/tournaments/{tournament['id']}/resume/"))["status"] == "running"
    assert ok(api.post(f"/api/tournaments/{tournament['id']}/finish/"))["status"] == "finished"
    refused(api.post(f"/api/tournaments/{tournament['id']}/finish/"), 409)


def hidden_cards(record: dict[str, Any]) -> list[Any]:
    """Every seat's cards of every deal event in a record."""
    events = record["prelude"] + [e for deal in record["deals"] for e in deal["actions"]]
    return [e["cards"] for e in events if e.get("chance") == "deal"]


@pytest.mark.django_db
def test_a_persons_seat_belongs_to_that_person_and_a_running_match_hides_every_hand() -> None:
    ann = user_create("ann")
    eve = user_create("eve")
    created = ok(
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
    match_id = created["id"]
    assert created["seed"] is None
    # A seed whose first dealer is not Ann: her first card is then not the last of its trick,
    # so after it the bots are to play (with seat 0 dealing she could win the trick and lead).
    seed = next(s for s in range(100) if load_game("kingen").new_initial_state(seed=s).dealer)
    Match.objects.filter(pk=match_id).update(seed=seed)
    match_run(match_id=match_id, worker="test")  # the bots play until Ann is to act
    match = Match.objects.get(pk=match_id)
    assert (match.status, match.waiting_seat) == (MatchStatus.RUNNING, 0)

    for client, not_hers in ((client_for(eve), 403), (APIClient(), 401)):
        refused(client.get(f"/api/matches/{match_id}/seats/0/view/"), 403)
        action = {"action": "pass"}
        refused(client.post(f"/api/matches/{match_id}/seats/0/actions/", action), not_hers)
    refused(client_for(ann).get(f"/api/matches/{match_id}/seats/1/view/"), 403)  # a bot's seat

    # Nobody sees a hidden card of a running match: not the record, not the spectator view.
    for client, own in ((client_for(eve), None), (APIClient(), None), (client_for(ann), 0)):
        record = ok(client.get(f"/api/matches/{match_id}/record/"))
        assert record["redacted"] is True
        assert "seed" not in record
        for cards in hidden_cards(record):
            assert [seat for seat, held in enumerate(cards) if held is not None] == (
                [] if own is None else [0]
            )
        assert ok(client.get(f"/api/matches/{match_id}/"))["seed"] is None
    spectator = ok(client_for(eve).get(f"/api/matches/{match_id}/spectate/"))["view"]
    assert spectator["hand"] == []
    assert spectator["legal"] == []

    seat_view = ok(client_for(ann).get(f"/api/matches/{match_id}/seats/0/view/"))
    assert seat_view["your_turn"] is True
    assert seat_view["deadline"] is not None
    assert len(seat_view["view"]["hand"]) == 13
    events = MatchEvent.objects.filter(match_id=match_id).count()
    detail = refused(
        client_for(ann).post(
            f"/api/matches/{match_id}/seats/0/actions/", {"action": "play ZZ"}, format="json"
        ),
        400,
    )
    assert "ZZ" in detail or "card" in detail
    legal = seat_view["view"]["legal"]
    wrong = next((f"play {c}" for c in seat_view["view"]["hand"] if f"play {c}" not in legal), None)
    if wrong is not None:
        refused(
            client_for(ann).post(
                f"/api/matches/{match_id}/seats/0/actions/", {"action": wrong}, format="json"
            ),
            400,
        )
    assert MatchEvent.objects.filter(match_id=match_id).count() == events

    after = ok(
        client_for(ann).post(
            f"/api/matches/{match_id}/seats/0/actions/", {"action": legal[0]}, format="json"
        )
    )
    assert after["your_turn"] is False
    assert MatchEvent.objects.filter(match_id=match_id).count() > events
    refused(
        client_for(ann).post(
            f"/api/matches/{match_id}/seats/0/actions/", {"action": legal[0]}, format="json"
        ),
        400,
    )
    match.refresh_from_db()
    assert match.status == MatchStatus.QUEUED  # the continuation for the bots is queued


def counts() -> dict[str, int]:
    models: list[type[Model]] = [
        Club,
        Membership,
        Invitation,
        Competitor,
        Tournament,
        Entry,
        Round,
        Match,
        MatchEvent,
    ]
    return {model.__name__: model._default_manager.count() for model in models}


@pytest.mark.django_db
def test_bad_input_to_every_write_endpoint_is_a_4xx_with_a_message_and_changes_nothing() -> None:
    owner = user_create("olga")
    stranger = user_create("sam")
    api = client_for(owner)
    club = ok(api.post("/api/clubs/", {"name": "C"}, format="json"), 201)
    entrants = [c.pk for c in builtin_competitors(4)]
    tournament = ok(
        api.post(
            "/api/tournaments/",
            {"name": "T", "club": club["id"], "game": "kingen", "entrants": entrants},
            format="json",
        ),
        201,
    )
    t = tournament["id"]
    before = counts()
    cases: list[tuple[APIClient, str, Any, int]] = [
        (api, "/api/auth/token/", {}, 400),
        (api, "/api/clubs/", {}, 400),
        (api, "/api/clubs/", {"name": ["x"]}, 400),
        (api, "/api/clubs/", {"name": "c"}, 409),
        (api, f"/api/clubs/{club['id']}/members/", {"user": "x"}, 400),
        (api, f"/api/clubs/{club['id']}/members/", {"username": "nobody"}, 400),
        (api, f"/api/clubs/{club['id']}/members/", {"user": stranger.pk, "role": "king"}, 400),
        (client_for(stranger), f"/api/clubs/{club['id']}/members/", {"user": stranger.pk}, 403),
        (api, "/api/clubs/999999/members/", {"user": stranger.pk}, 404),
        (api, f"/api/clubs/{club['id']}/invitations/", {"role": 7}, 400),
        (client_for(stranger), f"/api/clubs/{club['id']}/invitations/", {}, 403),
        (api, "/api/invitations/nope/accept/", {}, 404),
        (api, "/api/competitors/", {}, 400),
        (api, "/api/competitors/", {"user": stranger.pk}, 403),
        (api, "/api/competitors/", {"bot_version": "x"}, 400),
        (api, "/api/competitors/", {"bot_version": 999999}, 400),
        (api, "/api/bots/", {}, 400),
        (api, "/api/bots/", {"name": "b", "families": ["whist"]}, 400),
        (api, "/api/tournaments/", {}, 400),
        (api, "/api/tournaments/", {"name": "T", "club": club["id"], "game": "whist"}, 400),
        (api, "/api/tournaments/", {"name": "T", "club": club["id"], "game": "kingen(x=1)"}, 400),
        (
            api,
            "/api/tournaments/",
            {"name": "T", "club": club["id"], "game": "kingen", "deals": 3},
            400,
        ),
        (
            api,
            "/api/tournaments/",
            {"name": "T", "club": club["id"], "game": "priffe", "deals": 0},
            400,
        ),
        (api, "/api/tournaments/", {"name": "T", "club": "one", "game": "kingen"}, 400),
        (api, "/api/tournaments/", {"name": "T", "club": 999999, "game": "kingen"}, 400),
        (
            api,
            "/api/tournaments/",
            {"name": "T", "club": club["id"], "game": "kingen", "rounds": -1},
            400,
        ),
        (
            api,
            "/api/tournaments/",
            {"name": "T", "club": club["id"], "game": "kingen", "entrants": [999999]},
            400,
        ),
        (
            client_for(stranger),
            "/api/tournaments/",
            {"name": "T", "club": club["id"], "game": "kingen"},
            403,
        ),
        (api, f"/api/tournaments/{t}/entries/", {}, 400),
        (api, f"/api/tournaments/{t}/entries/", {"competitor": entrants[0]}, 409),
        (api, f"/api/tournaments/{t}/entries/", {"competitor": 999999}, 400),
        (client_for(stranger), f"/api/tournaments/{t}/entries/", {"competitor": entrants[0]}, 403),
        (client_for(stranger), f"/api/tournaments/{t}/start-round/", {}, 403),
        (client_for(stranger), f"/api/tournaments/{t}/pause/", {}, 403),
        (api, f"/api/tournaments/{t}/resume/", {}, 409),
        (client_for(stranger), f"/api/tournaments/{t}/finish/", {}, 403),
        (api, "/api/tournaments/999999/start-round/", {}, 404),
        (api, "/api/tables/", {}, 400),
        (api, "/api/tables/", {"game": "whist", "seats": ["me"]}, 400),
        (api, "/api/tables/", {"game": "kingen", "seats": ["me", "me", "me", "me"]}, 400),
        (api, "/api/tables/", {"game": "kingen", "seats": ["me", "builtin:nobody", 1, 2]}, 400),
        (api, "/api/tables/", {"game": "kingen", "seats": ["me"]}, 400),
        (api, "/api/tables/", {"game": "kingen", "seats": "me"}, 400),
        (api, "/api/matches/999999/seats/0/actions/", {"action": "pass"}, 404),
    ]
    for client, path, data, status in cases:
        response = client.post(path, data, format="json")
        assert response.status_code == status, (path, data, response.content)
        assert response.json()["detail"], (path, data)
    malformed = api.post("/api/clubs/", "{not json", content_type="application/json")
    refused(malformed, 400)
    assert counts() == before
    refused(api.get("/api/matches/", {"status": "lost"}), 400)
    refused(api.get("/api/matches/", {"tournament": "x"}), 400)
    refused(api.get("/api/matches/999999/record/"), 404)
