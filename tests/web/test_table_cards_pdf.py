"""The table cards' PDF (web/table_cards.py): for every family, the longest sheets
included, each table card fits one page of A4 and of Letter, the seating list follows;
nothing is cut off, and the QR codes of the printed page scan."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
import segno
from PIL import Image

from engine import load_game
from league.domain.club_night import seating_list, table_card
from tests.web.qr_codes import pdf_page_images, pdf_text, qr_decoded, qr_tools_require
from web.table_cards import cards_pdf, qr_png, qr_svg

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


LONG_NAME = "Annika Lindqvist-Holmberg af Ekeby-Sjöström"


def test_the_pdf_cuts_nothing_off_and_its_qr_codes_scan(tmp_path: Path) -> None:
    """Every contract and name whole (once cut: "7 & Laatste (not the 7th or the la..."),
    the reserve marked, and each side's QR code read by a decoder from the printed page."""
    qr_tools_require()
    urls = [
        "https://club.example/club/table/ACD34F/",
        "https://club.example/club/table/HJK79M/",
    ]
    card = table_card(
        game_string="kingen",
        round_number=1,
        table=1,
        names=[LONG_NAME, "Bo", "Cai", "Dag"],
        codes=["ACD34F", "HJK79M"],
        entry_urls=urls,
        reserve_seats=[3],
    )
    pdf = tmp_path / "cards.pdf"
    pdf.write_bytes(
        cards_pdf(
            {"league": "Thursday", "round": 1, "tables": [card], "seating": seating_list([card])}
        )
    )
    text = pdf_text(pdf)
    assert "..." not in text
    assert "…" not in text
    assert "7 & Laatste (not the 7th or the last" in text
    assert "trick)" in text
    assert f"seat 0: {LONG_NAME}" in text
    assert "seat 3: Dag (reserve: the score does not count)" in text
    first_page = pdf_page_images(pdf)[0]
    assert sorted(qr_decoded(first_page)) == urls


def test_the_qr_codes_have_a_quiet_zone_of_four_modules_and_scale_whole() -> None:
    """The page's SVG has a viewBox and no fixed size (once forced to 32 mm without one,
    its right and bottom edges were cut); page and PDF keep 4 white modules round it."""
    url = "https://club.example/club/table/ACD34F/"
    modules = int(segno.make(url, error="m").symbol_size(scale=1, border=0)[0])
    svg = qr_svg(url)
    size = (modules + 2 * 4) * 4  # scale 4
    assert f'viewBox="0 0 {size} {size}"' in svg
    assert "width=" not in svg
    assert "height=" not in svg
    image = Image.open(io.BytesIO(qr_png(url))).convert("L")
    scale = int(image.width) // (modules + 2 * 4)
    assert image.width == (modules + 2 * 4) * scale
    quiet = 4 * scale
    pixels = image.load()
    assert pixels is not None
    for edge in range(image.width):
        for depth in range(quiet):
            for x, y in ((edge, depth), (depth, edge), (edge, image.width - 1 - depth)):
                assert pixels[x, y] == 255, (x, y)
    assert pixels[quiet, quiet] == 0  # the finder pattern starts after the quiet zone
