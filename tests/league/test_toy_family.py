"""A family the project has never heard of, registered from a test (tests/engine/toy_family.py),
goes through the whole league: scheduled in a tournament with rounds, played by the built-in
bots and by a person through the table API, stored, ranked and rated, and shown by the pages
under its display name. Nothing outside its own module names it: the league asks the game."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from django.test import Client
from rest_framework.test import APIClient

import pytest

from engine import load_game
from engine.record import replay_record
from league.errors import InvalidInputError
from league.models import Match, MatchResult, MatchStatus
from league.selectors.standings import tournament_standings
from league.services.matches import match_run
from league.services.ratings import ratings_update
from league.services.tournaments import tournament_create
from tests.api_answers import ok
from tests.engine.toy_family import FAMILY, register_toy_family, unregister_toy_family
from tests.league.builders import builtin_competitors, club_with_organiser, user_create
from tests.league.test_standings_service import rounds_played


@pytest.fixture(autouse=True)
def toy_family() -> Iterator[None]:
    register_toy_family()
    yield
    unregister_toy_family()


def test_the_toy_family_describes_itself() -> None:
    game = load_game("toy_tricks(deals=3)")
    assert game.display_name == "Toy Tricks, 3 deals"
    assert game.length_option == "deals"
    assert (game.dummy_seat, game.player_seats, game.partnership_play) == (-1, (0, 1, 2, 3), False)
    assert game.action_label(game.parse_action("trump NT")) == "choose trumps"
    assert game.action_label(game.parse_action("play AS")) == "play a card"


@pytest.mark.django_db
def test_a_tournament_of_the_toy_family_is_scheduled_played_stored_ranked_and_shown() -> None:
    club, organiser = club_with_organiser()
    entrants = builtin_competitors(3, "random") + builtin_competitors(3, "greedy")
    tournament = tournament_create(
        actor=organiser,
        club=club,
        name="Toy league",
        game=FAMILY,
        rounds=2,
        deals=3,  # the game's length option
        entrants=entrants,
    )
    assert tournament.game == "toy_tricks(deals=3)"
    rounds_played(tournament, organiser, 2)

    results = list(MatchResult.objects.filter(match__tournament=tournament).order_by("id"))
    assert len(results) == 4  # six entrants: two tables a round, filled by greedy bots
    entrant_ids = {e.pk for e in entrants}
    totals: dict[int, int] = dict.fromkeys(entrant_ids, 0)
    for result in results:
        state = replay_record(result.record)  # stored: the record replays to its scores
        assert state.is_terminal()
        assert len(state.deal_scores) == 3
        for seat in result.standings_input["seats"]:
            assert state.scores()[int(seat["seat"])] == int(seat["score"])
            if int(seat["competitor"]) in entrant_ids:
                totals[int(seat["competitor"])] += int(seat["score"])
    assert sum(totals.values()) > 0

    standings = tournament_standings(tournament=tournament)
    assert (standings["mode"], standings["unit"]) == ("individual", "game")
    ranked = {row["competitor"]: row for row in standings["rows"]}
    assert set(ranked) == entrant_ids
    assert {c: int(row["total"]) for c, row in ranked.items()} == totals
    # Competition ranking (1, 2, 2, 4): a rank is one more than the rows listed before it,
    # except that a row tied with the row above shares its rank.
    ranks = [row["rank"] for row in standings["rows"] if row["rank"]]
    assert ranks[0] == 1
    for position, (above, rank) in enumerate(pairwise(ranks), start=2):
        assert rank in (above, position), ranks

    ratings_update()
    rated = APIClient().get(f"/api/tournaments/{tournament.pk}/ratings/")
    assert rated.status_code == 200
    assert {row["competitor"] for row in rated.json()["ratings"]} >= entrant_ids

    client = Client()
    league = client.get(f"/leagues/{tournament.pk}/")
    assert league.status_code == 200
    assert "Toy Tricks, 3 deals" in league.content.decode()
    match = results[0].match_id
    replay = client.get(f"/matches/{match}/")
    assert replay.status_code == 200
    assert "Toy Tricks, 3 deals" in replay.content.decode()
    assert client.get(f"/matches/{match}/timeline.json").status_code == 200
    assert client.get(f"/ratings/?family={FAMILY}").status_code == 200


@pytest.mark.django_db
def test_a_match_length_is_set_and_checked_through_the_games_length_option() -> None:
    club, organiser = club_with_organiser()
    with pytest.raises(InvalidInputError, match="deals: option deals: 0 is below the minimum 1"):
        tournament_create(
            actor=organiser,
            club=club,
            name="Too short",
            game=FAMILY,
            deals=0,
            entrants=builtin_competitors(4),
        )


@pytest.mark.django_db
def test_a_person_plays_the_toy_family_at_a_table_through_the_api() -> None:
    ann = user_create("ann")
    api = APIClient()
    api.force_authenticate(ann)
    created = ok(
        api.post(
            "/api/tables/",
            {"game": "toy_tricks(deals=2)", "seats": ["me", *["builtin:greedy"] * 3]},
            format="json",
        ),
        201,
    )
    match_id = created["id"]
    moves = 0
    for _ in range(100):
        match_run(match_id=match_id, worker="test")  # the bots play until Ann is to act
        match = Match.objects.get(pk=match_id)
        if match.status == MatchStatus.FINISHED:
            break
        assert (match.status, match.waiting_seat) == (MatchStatus.RUNNING, 0)
        view = ok(api.get(f"/api/matches/{match_id}/seats/0/view/"))
        assert view["your_turn"] is True
        legal = view["view"]["legal"]
        action = {"action": legal[-1]}
        ok(api.post(f"/api/matches/{match_id}/seats/0/actions/", action, format="json"))
        moves += 1
    match = Match.objects.get(pk=match_id)
    assert match.status == MatchStatus.FINISHED
    assert moves == 2 * 3  # her three cards in each deal (seats 1 and 2 name trumps)
    state = replay_record(MatchResult.objects.get(match_id=match_id).record)
    assert len(state.deal_scores) == 2
    assert sum(state.scores()) == 6  # a point a trick
    page = Client().get(f"/matches/{match_id}/")
    assert page.status_code == 200
    assert "Toy Tricks, 2 deals" in page.content.decode()
