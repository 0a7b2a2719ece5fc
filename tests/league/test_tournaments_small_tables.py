"""Tournaments of a game played by three or five a table (Kingen for three or five players,
Priffe for three with its träkarl): a round robin planned a round at a time from the rounds
played, and the formats for tables of four refusing such a game with a 400."""

from __future__ import annotations

from itertools import combinations

import pytest

from league.models import MatchSeat, Tournament
from league.selectors.standings import standings_current, tournament_entrants
from league.services.matches import match_run
from league.services.tournaments import tournament_round_start
from tests.api_answers import client_for, ok, refused
from tests.league.builders import bot_tournament, builtin_competitors, user_create


def tables_of(tournament: Tournament) -> dict[int, list[list[int]]]:
    """Round number -> its tables (competitor ids in seat order)."""
    tables: dict[int, dict[int, list[int]]] = {}
    rows = (
        MatchSeat.objects.filter(match__tournament=tournament)
        .order_by("match__round__number", "match_id", "seat")
        .values_list("match__round__number", "match_id", "competitor_id")
    )
    for number, match_id, competitor in rows:
        tables.setdefault(number, {}).setdefault(match_id, []).append(competitor)
    return {number: list(by_match.values()) for number, by_match in tables.items()}


@pytest.mark.django_db
def test_a_round_robin_of_kingen_for_three_plans_each_round_from_the_rounds_played() -> None:
    """Six players at two tables of three. Round 2 cannot avoid a repeat at either table
    (each of its tables takes two players of one table of round 1) and has exactly one
    each; after three rounds no pair has met three times."""
    tournament, organiser = bot_tournament(game="kingen(players=3)", entrants=6, rounds=3)
    for _ in range(3):
        round_ = tournament_round_start(actor=organiser, tournament=tournament)
        for match in round_.matches.order_by("id"):
            assert match_run(match_id=match.pk, worker="test").outcome == "finished"
    played = tables_of(tournament)
    entrants = sorted(c for table in played[1] for c in table)
    assert len(entrants) == 6
    for number in (1, 2, 3):
        assert [len(table) for table in played[number]] == [3, 3]
        assert sorted(c for table in played[number] for c in table) == entrants
    met_in_1 = {frozenset(pair) for table in played[1] for pair in combinations(table, 2)}
    for table in played[2]:
        assert sum(frozenset(pair) in met_in_1 for pair in combinations(table, 2)) == 1
    meetings: dict[frozenset[int], int] = {}
    for number in (1, 2, 3):
        for table in played[number]:
            for pair in combinations(table, 2):
                meetings[frozenset(pair)] = meetings.get(frozenset(pair), 0) + 1
    assert max(meetings.values()) == 2


@pytest.mark.django_db
def test_priffe_for_three_seats_the_players_and_leaves_the_trakarl_seat_to_a_filler() -> None:
    """priffe(players=3) has four seats, seat 3 the träkarl's (played by its partner): every
    round the three entrants hold seats 0-2 (the schedules of tables of four gave an
    entrant the träkarl's seat in some rounds, while a bot played his)."""
    game = "priffe(players=3,rubbers_per_game=1)"
    tournament, organiser = bot_tournament(game=game, entrants=3, rounds=3)
    for _ in range(3):
        round_ = tournament_round_start(actor=organiser, tournament=tournament)
        for match in round_.matches.order_by("id"):
            assert match_run(match_id=match.pk, worker="test").outcome == "finished"
    entrants = tournament_entrants(tournament.pk)
    played = tables_of(tournament)
    assert sorted(played) == [1, 2, 3]
    for tables in played.values():
        (table,) = tables
        assert set(table[:3]) == entrants
        assert table[3] not in entrants
    firsts = {tables[0][0] for tables in played.values()}
    assert firsts == entrants  # each holds seat 0 once (the schedule; the draw picks the dealer)
    rows = standings_current(tournament=tournament).standings.rows
    assert {int(r.player): r.games for r in rows} == dict.fromkeys(entrants, 3)


@pytest.mark.django_db
@pytest.mark.parametrize("format", ["swiss", "rotating_partners"])
def test_formats_for_tables_of_four_refuse_a_game_of_three_or_five(format: str) -> None:
    owner = user_create("olga")
    api = client_for(owner)
    club = ok(api.post("/api/clubs/", {"name": "C"}, format="json"), 201)
    entrants = [c.pk for c in builtin_competitors(5)]
    body = {"name": "T", "club": club["id"], "entrants": entrants, "format": format}
    detail = refused(
        api.post("/api/tournaments/", {**body, "game": "kingen(players=5)"}, format="json"), 400
    )
    assert f"{format} seats tables of four" in detail
    assert "tables of 5" in detail
    assert "round_robin or duplicate" in detail
    detail = refused(
        api.post("/api/tournaments/", {**body, "game": "priffe(players=3)"}, format="json"), 400
    )
    assert "tables of 3 and the träkarl" in detail
    assert not Tournament.objects.exists()
    ok(api.post("/api/tournaments/", {**body, "game": "kingen"}, format="json"), 201)
    for other, game in (
        ("round_robin", "kingen(players=3)"),
        ("duplicate", "kingen(players=3,shuffle_policy=full_shuffle)"),
    ):
        created = ok(
            api.post("/api/tournaments/", {**body, "format": other, "game": game}, format="json"),
            201,
        )
        assert created["format"] == other


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("game", "option"),
    [
        ("kingen", "kingen(shuffle_policy=full_shuffle)"),
        ("dubbelkingen", "dubbelkingen(shuffle_policy=full_shuffle)"),
        ("kung_och_adel", "kung_och_adel(deals=1,allow_redeal_if_no_court=false)"),
    ],
)
def test_duplicate_refuses_a_game_whose_deals_depend_on_the_play(game: str, option: str) -> None:
    """Kingen's cut-only deals gather the tricks played, and in Kung och Adel the ranks won
    decide who holds which hand next (and a redeal draws a new pack): the tables of a
    duplicate round would not hold the same cards after the first deal. The 400 names the
    options that fix every deal by the seed, and that game is taken."""
    api = client_for(user_create("olga"))
    club = ok(api.post("/api/clubs/", {"name": "C"}, format="json"), 201)
    entrants = [c.pk for c in builtin_competitors(8)]
    body = {"name": "T", "club": club["id"], "entrants": entrants, "format": "duplicate"}
    detail = refused(api.post("/api/tournaments/", {**body, "game": game}, format="json"), 400)
    assert "the deals depend on the play" in detail
    assert option in detail
    assert not Tournament.objects.exists()
    created = ok(api.post("/api/tournaments/", {**body, "game": option}, format="json"), 201)
    assert created["format"] == "duplicate"
    for fixed in ("king", "priffe", "kung_och_adel(rules=riddare,deals=1)"):
        ok(api.post("/api/tournaments/", {**body, "game": fixed}, format="json"), 201)
