"""The standings and ratings endpoints: shapes (docs/api.md), Priffe's partner pairs and
margin rating, the leaderboard by game family, a competitor's history, and the errors."""

from __future__ import annotations

from rest_framework.test import APIClient

import pytest

from league.models import TournamentFormat
from league.services.ratings import ratings_update
from tests.league.builders import bot_tournament
from tests.league.test_standings_service import rounds_played


@pytest.mark.django_db
def test_standings_of_a_kingen_league_with_confidence_markers_and_head_to_head() -> None:
    tournament, organiser = bot_tournament(entrants=4, rounds=2)
    rounds_played(tournament, organiser, 2)

    body = APIClient().get(f"/api/tournaments/{tournament.pk}/standings/").json()

    assert (body["mode"], body["unit"], body["rank_by"]) == ("individual", "game", "average")
    assert (body["finished"], body["total"], body["results"]) == (2, 2, 2)
    assert [r["rank"] is not None for r in body["rows"]] == [True] * 4
    for row in body["rows"][:-1]:
        assert set(row["next_gap"]) == {"difference", "low", "high", "p_value", "significant"}
    assert body["rows"][-1]["next_gap"] is None
    assert [p["round"] for p in body["rows"][0]["per_round"]] == [1, 2]
    assert body["partner_pairs"] == []
    assert len(body["head_to_head"]) == 6
    assert all(h["games"] == 2 and h["as_opponents"] == 2 for h in body["head_to_head"])


@pytest.mark.django_db
def test_a_priffe_league_has_partner_pairs_and_a_margin_rating() -> None:
    tournament, organiser = bot_tournament(game="priffe(rubbers_per_game=3)", entrants=4)
    tournament.format = TournamentFormat.ROTATING_PARTNERS
    tournament.save()
    rounds_played(tournament, organiser, 1)
    client = APIClient()

    standings = client.get(f"/api/tournaments/{tournament.pk}/standings/").json()
    waiting = client.get(f"/api/tournaments/{tournament.pk}/ratings/").json()
    ratings_update()
    ratings = client.get(f"/api/tournaments/{tournament.pk}/ratings/").json()

    assert (standings["mode"], standings["unit"]) == ("partnership", "rubber")
    assert len(standings["partner_pairs"]) == 6
    assert {len(p["names"]) for p in standings["partner_pairs"]} == {2}
    assert (waiting["pending"], waiting["ratings"]) == (1, [])
    assert ratings["pending"] == 0
    assert ratings["family"] == "priffe"
    assert [r["rank"] for r in ratings["ratings"]] == [1, 2, 3, 4]
    conservative = [r["conservative"] for r in ratings["ratings"]]
    assert conservative == sorted(conservative, reverse=True)
    assert len(ratings["history"]) == 4
    assert ratings["margin"]["games"] == 3
    assert len(ratings["margin"]["rows"]) == 4
    row = ratings["margin"]["rows"][0]
    assert row["low"] <= row["value"] <= row["high"]


@pytest.mark.django_db
def test_the_leaderboard_and_a_competitors_history() -> None:
    tournament, organiser = bot_tournament(entrants=4, rounds=2)
    rounds_played(tournament, organiser, 2)
    ratings_update()
    client = APIClient()

    board = client.get("/api/ratings/?game=kingen").json()
    same = client.get("/api/ratings/?game=kingen(rules=iwwa)").json()
    none = client.get("/api/ratings/?game=priffe").json()
    competitor = board[0]["competitor"]
    history = client.get(f"/api/competitors/{competitor}/ratings/").json()
    local = client.get(f"/api/competitors/{competitor}/ratings/?tournament={tournament.pk}")

    assert [r["rank"] for r in board] == [1, 2, 3, 4]
    assert board == same  # a family's leaderboard, whatever the options
    assert none == []
    assert history["competitor"] == competitor
    assert {(r["family"], r["tournament"]) for r in history["ratings"]} == {
        ("kingen", None),
        ("kingen", tournament.pk),
    }
    assert [h["round"] for h in history["history"]] == [1, 2]
    assert history["history"][1]["mu_before"] == history["history"][0]["mu"]
    assert history["history"][-1]["conservative"] == board[0]["conservative"]
    assert [h["tournament"] for h in local.json()["history"]] == [tournament.pk] * 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/api/ratings/", 400, "game: give a game family"),
        ("/api/ratings/?game=whist", 400, "unknown game 'whist'"),
        ("/api/ratings/?game=kingen&min_games=-1", 400, "min_games"),
        ("/api/competitors/999999/ratings/", 404, "no competitor 999999"),
        ("/api/competitors/1/ratings/?game=bridge", 400, "unknown game"),
        ("/api/tournaments/999999/ratings/", 404, "no tournament 999999"),
        ("/api/tournaments/999999/standings/", 404, "no tournament 999999"),
    ],
)
def test_errors_name_the_problem(path: str, status: int, words: str) -> None:
    answer = APIClient().get(path)
    assert answer.status_code == status
    assert words in answer.json()["detail"]
