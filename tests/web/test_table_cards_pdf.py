"""The table cards' PDF (web/table_cards.py): for every family, the longest sheets
included, each table card fits one page of A4 and of Letter, the seating list follows."""

from __future__ import annotations

import re

import pytest

from engine import load_game
from league.domain.club_night import seating_list, table_card
from web.table_cards import cards_pdf

GAMES = [
    "kingen",
    "kingen(players=5)",
    "dubbelkingen",
    "king",
    "kung_och_adel(deals=24)",
    "priffe",
    "priffe(players=3)",
]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_each_card_is_one_page(game: str, paper: str) -> None:
    seats = load_game(game).num_seats
    names = ["Annika Lindqvist-Holmberg", "Борис", "Cai Öst", "Dag", "Eva"][:seats]
    cards = [
        table_card(
            game_string=game,
            round_number=1,
            table=table,
            names=names,
            codes=["ACD34F", "HJK79M"],
            entry_urls=[
                "https://club.example/club/table/ACD34F/",
                "https://club.example/club/table/HJK79M/",
            ],
        )
        for table in (1, 2)
    ]
    pdf = cards_pdf(
        {"league": "Thursday", "round": 1, "tables": cards, "seating": seating_list(cards)},
        paper=paper,
    )
    assert pdf.startswith(b"%PDF-")
    assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == 3
