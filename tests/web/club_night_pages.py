"""A small club night to render its pages in every language (tests/web/test_translations.py
and tests/web/test_accessibility.py): a Kingen league for three at two tables, one table's
scores confirmed and corrected, the other's entered and waiting for a second player, and
a Priffe league at one table (its sheet has sides, rubbers and the dummy)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from league.models import Club, Match, Tournament
from league.services.club_nights import table_scores_correct, table_scores_enter
from league.services.competitors import competitor_for_user
from league.services.tournaments import tournament_enter
from tests.api_answers import client_for, ok
from tests.league.test_club_nights import _enter_and_confirm, _league, _start

KINGEN_3_ENTRY: list[dict[str, Any]] = [
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
"""A Kingen sheet for three (tests/web/test_club_night_pages.py's): -5, 2, 3."""


def club_night_pages() -> tuple[User, list[str]]:
    """The organiser of two club leagues and the club-night pages they see: the league,
    its round, the table cards, the projector, the code page, a table's entry page (one
    entered, one open) and a confirmed, corrected match."""
    league, organiser, users, club = _league(
        game="kingen(players=3)", format="round_robin", rounds=2, players=6
    )
    cards = _start(organiser, league["id"], [competitor_for_user(user=u).pk for u in users])
    confirmed_card, entered_card = cards["tables"]
    confirmed, entered = confirmed_card["code"], entered_card["code"]
    _enter_and_confirm(confirmed_card, KINGEN_3_ENTRY)
    match = Match.objects.get(table_sheet__code=confirmed)
    table_scores_correct(
        actor=organiser,
        match=match,
        entry=[*KINGEN_3_ENTRY[:5], {"seventh": 2, "last": 1}, *KINGEN_3_ENTRY[6:]],
        reason="de 10de slag",
    )
    table_scores_enter(code=entered, seat=0, entry=KINGEN_3_ENTRY)
    Club.objects.filter(pk=club.pk).update(name="Kaartclub De Zot")  # no message's words
    priffe = ok(
        client_for(organiser).post(
            "/api/tournaments/",
            {
                "name": "Priffe i klubben",
                "club": club.pk,
                "game": "priffe",
                "format": "rotating_partners",
                "rounds": 1,
                "deals": 1,
                "at_club": True,
            },
            format="json",
        ),
        201,
    )
    tournament = Tournament.objects.get(pk=priffe["id"])
    for user in users[:4]:
        tournament_enter(
            actor=user, tournament=tournament, competitor=competitor_for_user(user=user)
        )
    priffe_cards = _start(
        organiser, priffe["id"], [competitor_for_user(user=u).pk for u in users[:4]]
    )
    priffe_code = priffe_cards["tables"][0]["code"]
    return organiser, [
        f"/leagues/{league['id']}/",
        f"/leagues/{league['id']}/rounds/1/",
        f"/leagues/{league['id']}/rounds/1/cards/",
        f"/leagues/{league['id']}/projector/",
        "/club/table/",
        f"/club/table/{entered}/",
        f"/club/table/{priffe_code}/",
        f"/matches/{match.pk}/",
    ]
