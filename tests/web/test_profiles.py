"""A person's profile (/people/{username}/ and GET /api/people/{username}/): games,
ratings with history, partners and opponents, bots; and what it must not show."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

import pytest

from bots.models import BotVersion
from bots.services import bot_create
from engine.record import replay_record
from league.domain.scored_results import UNITS_KEY
from league.models import (
    Club,
    Competitor,
    Match,
    MatchResult,
    MatchSeat,
    MatchStatus,
    RatedMatch,
    Rating,
    RatingChange,
    Round,
    Tournament,
    TournamentFormat,
)
from league.selectors.profiles import GAMES_PER_PAGE
from web.samples import sample_record

pytestmark = pytest.mark.django_db

NAMES = ("ann", "bob", "cat", "dan")


def _people() -> dict[str, Competitor]:
    return {
        name: Competitor.objects.create(user=User.objects.create_user(name), name=name)
        for name in NAMES
    }


def _tournament(game: str, *, casual: bool = False) -> Tournament:
    club = None if casual else Club.objects.get_or_create(name="Tuesday club")[0]
    return Tournament.objects.create(
        name=f"{game} league",
        game=game,
        club=club,
        format=TournamentFormat.TABLE if casual else TournamentFormat.ROUND_ROBIN,
    )


def _finished(
    tournament: Tournament, seats: list[Competitor], record: dict[str, Any], number: int
) -> Match:
    """A finished match of ``record`` with its result, as the league stores one."""
    round_, _ = Round.objects.get_or_create(tournament=tournament, number=number)
    match = Match.objects.create(
        tournament=tournament,
        round=round_,
        game=record["game"],
        seed=number,
        status=MatchStatus.FINISHED,
        attempts=1,
        started_at=timezone.now(),
        finished_at=timezone.now(),
    )
    for seat, competitor in enumerate(seats):
        MatchSeat.objects.create(match=match, seat=seat, competitor=competitor)
    state = replay_record(record)
    extra: dict[str, Any] = {}
    if state.game.partnership_play:
        extra[UNITS_KEY] = state.game.partnership_units(state)
    MatchResult.objects.create(
        match=match,
        scores=record["scores"],
        outcomes=["ok"] * len(seats),
        record=record,
        standings_input={"game": record["game"], **extra},
    )
    return match


@pytest.fixture
def played() -> dict[str, Any]:
    people = _people()
    ann, bob, cat, dan = (people[n] for n in NAMES)
    priffe = _tournament("priffe(rubbers_per_game=2)")
    partnership = [
        _finished(priffe, [ann, bob, cat, dan], sample_record("priffe(rubbers_per_game=2)", s), s)
        for s in (1, 2)
    ]
    kingen = _tournament("kingen", casual=True)
    individual = _finished(kingen, [ann, bob, cat, dan], sample_record("kingen", 3), 1)
    # A rating on the Kingen leaderboard, with its history of two rated games.
    rating = Rating.objects.create(
        competitor=ann, family="kingen", mu=27.5, sigma=2.1, conservative=27.5 - 6.3, games=2
    )
    for index, match in enumerate([individual, partnership[0]]):
        rated = RatedMatch.objects.create(
            result=match.result, family="kingen", tournament=match.tournament
        )
        RatingChange.objects.create(
            rated=rated,
            match=match,
            competitor=ann,
            family="kingen",
            tournament=None,
            mu_before=25.0 + index,
            sigma_before=8.0 - index,
            mu=26.0 + index,
            sigma=7.0 - index,
            conservative=5.0 + index,
        )
    code = b"print('hi')\n"
    bot = bot_create(
        owner=ann.user,  # type: ignore[arg-type]
        name="Annbot",
        families=["kingen"],
    )
    BotVersion.objects.create(
        bot=bot,
        number=1,
        filename="annbot.py",
        code=code,
        sha256=hashlib.sha256(code).hexdigest(),
        size=len(code),
        report={"log": "private traceback line of Annbot"},
    )
    return {
        "people": people,
        "partnership": partnership,
        "individual": individual,
        "rating": rating,
        "bot": bot,
    }


def test_the_profile_shows_games_ratings_tablemates_and_bots(
    client: Client, played: dict[str, Any]
) -> None:
    response = client.get("/people/ann/")
    assert response.status_code == 200
    html = response.content.decode()
    for match in [*played["partnership"], played["individual"]]:
        assert f'href="/matches/{match.pk}/"' in html  # each game links to its replay
    assert "casual table" in html
    assert 'href="/leagues/' in html
    assert "27.5 ± 6.3" in html  # one number and its uncertainty
    assert "<svg" in html  # the rating's history
    assert 'id="person-partners"' in html  # Priffe: partners and opponents, per rubber
    assert 'id="person-tablemates"' in html  # Kingen: tablemates
    assert f'href="/bots/{played["bot"].pk}/"' in html
    for name in ("bob", "cat", "dan"):
        assert f'href="/people/{name}/"' in html  # names lead to profiles


def test_partners_and_opponents_follow_the_rubbers_seating(played: dict[str, Any]) -> None:
    from league.selectors.profiles import person_tablemates

    ann = played["people"]["ann"]
    mates = person_tablemates(competitor=ann)
    units = [
        unit for match in played["partnership"] for unit in match.result.standings_input[UNITS_KEY]
    ]
    expected_partner: dict[int, int] = {}
    expected_points: dict[int, int] = {}
    seat_of = {c.pk: seat for seat, c in enumerate(played["people"].values())}
    for unit in units:
        seating = unit["seating"]
        partner = seating[(seating.index(0) + 2) % 4]
        expected_partner[partner] = expected_partner.get(partner, 0) + 1
        expected_points[partner] = expected_points.get(partner, 0) + unit["points"][0]
    by_seat = {seat_of[m.competitor]: m for m in mates.partnership}
    assert sum(m.partner_units for m in mates.partnership) == len(units)
    assert sum(m.opponent_units for m in mates.partnership) == 2 * len(units)
    for seat, count in expected_partner.items():
        assert by_seat[seat].partner_units == count
        assert by_seat[seat].partner_points == expected_points[seat]
    assert mates.unit == "rubber"
    # The Kingen game: every other player a tablemate, with both averages.
    record = played["individual"].result
    for mate in mates.individual:
        seat = seat_of[mate.competitor]
        assert mate.tablemate_games == 1
        assert mate.tablemate_average == record.scores[0]
        assert mate.their_tablemate_average == record.scores[seat]


def test_the_profile_shows_nothing_private(client: Client, played: dict[str, Any]) -> None:
    html = client.get("/people/ann/").content.decode()
    api = client.get("/api/people/ann/").content.decode()
    for text in (html, api):
        assert "private traceback" not in text  # a bot's logs stay its owner's
        assert "annbot.py" not in text
        assert '"hand"' not in text
        assert "@" not in text.replace("&#x27;", "")  # no email address
    body = json.loads(api)
    assert set(body) == {
        "username",
        "name",  # the display name they chose for others (or the username)
        "joined",
        "competitor",
        "ratings",
        "games",
        "unit",
        "partners",
        "tablemates",
        "bots",
        "private",  # whether the person keeps their games, partners and bots to themselves
    }
    assert body["private"] is False  # the default: everyone may see them
    # No record, deal or card of any game: only its links and scores.
    for game in body["games"]["results"]:
        assert not {"record", "deals", "cards", "view"} & set(game)


def test_the_api_gives_the_same_profile(client: Client, played: dict[str, Any]) -> None:
    body = client.get("/api/people/ann/").json()
    assert body["username"] == "ann"
    (rating,) = body["ratings"]
    assert rating["rating"] == "27.5 ± 6.3"
    assert [p["conservative"] for p in rating["history"]] == [1.0, 5.0, 6.0]
    assert body["games"]["total"] == 3
    assert {g["match"] for g in body["games"]["results"]} == {
        m.pk for m in [*played["partnership"], played["individual"]]
    }
    assert body["bots"] == [
        {"bot": played["bot"].pk, "name": "Annbot", "families": ["kingen"], "versions": 1}
    ]
    assert {p["username"] for p in body["partners"]} == {"bob", "cat", "dan"}


def test_an_unknown_person_is_a_404(client: Client) -> None:
    assert client.get("/people/nobody/").status_code == 404
    response = client.get("/api/people/nobody/")
    assert response.status_code == 404
    assert "nobody" in response.json()["detail"]
    assert client.get("/api/people/ann/?page=0").status_code in (400, 404)


def test_games_are_paginated(client: Client) -> None:
    people = _people()
    seats = [people[n] for n in NAMES]
    tournament = _tournament("kingen", casual=True)
    record = sample_record("kingen", 5)
    for number in range(1, GAMES_PER_PAGE + 3):
        _finished(tournament, seats, record, number)
    first = client.get("/people/bob/").content.decode()
    assert "Page 1 of 2" in first
    assert 'href="?page=2"' in first
    second = client.get("/people/bob/?page=2").content.decode()
    assert second.count('href="/matches/') == 2
    assert client.get("/people/bob/?page=99").status_code == 200  # the last page
    assert client.get("/api/people/bob/?page=2").json()["games"]["page"] == 2


def test_a_person_without_games_has_an_empty_profile(client: Client) -> None:
    User.objects.create_user("eve")
    html = client.get("/people/eve/").content.decode()
    assert "No game yet." in html
    assert "No rated game yet." in html


def test_names_on_the_round_match_club_and_bots_pages_lead_to_profiles(
    client: Client, played: dict[str, Any]
) -> None:
    match = played["partnership"][0]
    round_page = client.get(f"/leagues/{match.tournament_id}/rounds/1/").content.decode()
    match_page = client.get(f"/matches/{match.pk}/").content.decode()
    for html in (round_page, match_page):
        for name in NAMES:
            assert f'href="/people/{name}/"' in html
    bots_page = client.get("/bots/").content.decode()
    assert 'href="/people/ann/"' in bots_page


def test_ratings_are_one_number_and_its_uncertainty_everywhere(
    client: Client, played: dict[str, Any]
) -> None:
    bob = played["people"]["bob"]
    league = _tournament("priffe")  # a league of its own: its ratings, no results yet
    Rating.objects.create(
        competitor=bob,
        family="priffe",
        tournament=league,
        mu=30.0,
        sigma=2.0,
        conservative=24.0,
        games=2,
    )
    leaderboard = client.get("/ratings/?family=kingen").content.decode()
    league_page = client.get(f"/leagues/{league.pk}/").content.decode()
    assert "27.5 ± 6.3" in leaderboard
    assert 'href="/people/ann/"' in leaderboard
    assert "30.0 ± 6.0" in league_page
    assert 'href="/people/bob/"' in league_page
    for html in (leaderboard, league_page):
        assert 'data-role="rating-explained"' in html  # what the number means
        assert ">mu<" not in html
        assert ">sigma<" not in html
        assert "mu - 3 sigma" not in html
