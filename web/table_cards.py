"""The printed side of a club night: QR codes (segno) and the table cards' PDF (fpdf2).

The round's page prints as it is (print styles in web/static/web/club.css fit A4 and
Letter); the PDF holds the same: a table card per page (seats with names and compass
positions, the first dealer, the order of the deals or contracts, an empty score grid,
the entry code and its QR code), the seating list, and a duplicate round's hand records.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from django.utils.translation import gettext

import segno
from fpdf import FPDF

PAPER_SIZES = {"a4": "A4", "letter": "Letter"}
"""The paper sizes of the PDF download (``?paper=``)."""
BLANK_ROWS = 16
"""Rows of the grid of a game whose length the play decides (Priffe's rubbers)."""
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
"""Debian's fonts-dejavu-core (Chromium's dependency here): a font for every name. Without
it the PDF's core fonts write Latin-1 only (anything else as ``?``)."""


def qr_svg(url: str) -> str:
    """An inline SVG of a QR code for ``url`` (no XML declaration: it goes into a page)."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=4, border=2, xmldecl=False)
    return buffer.getvalue().decode("utf-8")


def qr_png(url: str) -> bytes:
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="png", scale=6, border=2)
    return buffer.getvalue()


def grid_rows(card: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows of a card's empty score grid: its sheet's lines, and blank rows more for a
    game that goes on until the rules end it."""
    seats = card["seats"]
    rows = [
        {
            "deal": line["deal"],
            "title": line["title"],
            "dealer": seats[line["dealer"]]["compass"] if line["dealer"] >= 0 else "",
        }
        for line in card["order"]
    ]
    if card["sheet"]["open_ended"]:
        rows += [
            {"deal": number, "title": "", "dealer": ""}
            for number in range(len(rows) + 1, BLANK_ROWS + 1)
        ]
    return rows


class _Fonts:
    """The PDF's fonts: DejaVu where installed (any script, the suit symbols), else the
    core fonts, whose text is Latin-1."""

    def __init__(self, pdf: FPDF) -> None:
        self.unicode = (
            (DEJAVU / "DejaVuSans.ttf").is_file()
            and (DEJAVU / "DejaVuSans-Bold.ttf").is_file()
            and (DEJAVU / "DejaVuSansMono.ttf").is_file()
        )
        if self.unicode:
            pdf.add_font("DejaVu", "", str(DEJAVU / "DejaVuSans.ttf"))
            pdf.add_font("DejaVu", "B", str(DEJAVU / "DejaVuSans-Bold.ttf"))
            pdf.add_font("DejaVuMono", "", str(DEJAVU / "DejaVuSansMono.ttf"))
        self.sans = "DejaVu" if self.unicode else "Helvetica"
        self.mono = "DejaVuMono" if self.unicode else "Courier"

    def text(self, value: Any) -> str:
        text = str(value)
        return text if self.unicode else text.encode("latin-1", "replace").decode("latin-1")


def cards_pdf(round_cards: Mapping[str, Any], *, paper: str = "a4") -> bytes:
    """The round's table cards, its seating list and (duplicate) its hand records as a PDF
    on ``paper`` (``a4`` or ``letter``)."""
    pdf = FPDF(format=PAPER_SIZES.get(paper, "A4"))
    fonts = _Fonts(pdf)
    pdf.set_auto_page_break(auto=True, margin=12)
    pdf.set_margins(12, 12, 12)
    for card in round_cards["tables"]:
        _card_page(pdf, fonts, round_cards, card)
    _seating_page(pdf, fonts, round_cards)
    for record in round_cards.get("hand_records", []):
        _hand_record(pdf, fonts, round_cards, record)
    return bytes(pdf.output())


def _card_page(
    pdf: FPDF, fonts: _Fonts, round_cards: Mapping[str, Any], card: Mapping[str, Any]
) -> None:
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin
    pdf.set_font(fonts.sans, "B", 18)
    pdf.cell(
        width - 42,
        10,
        fonts.text(gettext("Table %(table)s") % {"table": card["table"]}),
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.set_font(fonts.sans, "", 11)
    pdf.cell(
        width - 42,
        6,
        fonts.text(
            gettext("%(league)s, round %(round)s: %(game)s")
            % {"league": round_cards["league"], "round": card["round"], "game": card["game_name"]}
        ),
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.image(io.BytesIO(qr_png(card["entry_url"])), x=pdf.w - pdf.r_margin - 38, y=12, w=38)
    pdf.set_font(fonts.sans, "B", 14)
    pdf.cell(
        width - 42,
        8,
        fonts.text(gettext("Entry code: %(code)s") % {"code": card["code"]}),
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.set_font(fonts.sans, "", 9)
    pdf.cell(width - 42, 5, fonts.text(card["entry_url"]), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    pdf.set_font(fonts.sans, "B", 10)
    for seat in card["seats"]:
        pdf.cell(22, 6, fonts.text(seat["compass"]), border=1)
        pdf.set_font(fonts.sans, "", 10)
        pdf.cell(
            60,
            6,
            fonts.text(
                gettext("seat %(seat)s: %(name)s") % {"seat": seat["seat"], "name": seat["name"]}
            ),
            border=1,
        )
        pdf.set_font(fonts.sans, "B", 10)
        pdf.ln(6)
    pdf.set_font(fonts.sans, "", 10)
    first = card["first_dealer"]
    pdf.cell(
        width,
        7,
        fonts.text(gettext("First dealer: %(name)s") % {"name": first["name"]}),
        new_x="LMARGIN",
        new_y="NEXT",
    )
    for note in card["sheet"]["notes"]:
        pdf.multi_cell(width, 5, fonts.text(note), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    players = [s for s in card["seats"] if s["role"] == "player"]
    fixed = 12 + 58 + 20
    column = (width - fixed) / max(len(players), 1)
    pdf.set_font(fonts.sans, "B", 9)
    pdf.cell(12, 6, _fit(pdf, fonts.text(gettext("Deal")), 11), border=1)
    pdf.cell(58, 6, fonts.text(gettext("Contract")), border=1)
    pdf.cell(20, 6, _fit(pdf, fonts.text(gettext("Dealer")), 19), border=1)
    for seat in players:
        pdf.cell(column, 6, _fit(pdf, fonts.text(seat["name"]), column - 1), border=1)
    pdf.ln(6)
    pdf.set_font(fonts.sans, "", 9)
    for row in grid_rows(card):
        pdf.cell(12, 6.5, str(row["deal"]), border=1)
        pdf.cell(58, 6.5, _fit(pdf, fonts.text(row["title"]), 57), border=1)
        pdf.cell(20, 6.5, fonts.text(row["dealer"]), border=1)
        for _ in players:
            pdf.cell(column, 6.5, "", border=1)
        pdf.ln(6.5)
    pdf.set_font(fonts.sans, "B", 9)
    pdf.cell(90, 6.5, fonts.text(gettext("Total")), border=1)
    for _ in players:
        pdf.cell(column, 6.5, "", border=1)
    pdf.ln(6.5)


def _fit(pdf: FPDF, text: str, width: float) -> str:
    """``text`` cut (with an ellipsis) to fit ``width`` mm in the current font."""
    if pdf.get_string_width(text) <= width - 1:
        return text
    while text and pdf.get_string_width(text + "...") > width - 1:
        text = text[:-1]
    return text + "..."


def _seating_page(pdf: FPDF, fonts: _Fonts, round_cards: Mapping[str, Any]) -> None:
    pdf.add_page()
    pdf.set_font(fonts.sans, "B", 18)
    pdf.cell(
        0,
        10,
        fonts.text(gettext("Seating, round %(round)s") % {"round": round_cards["round"]}),
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.set_font(fonts.sans, "", 12)
    for row in round_cards["seating"]:
        table = (
            gettext("table %(table)s") % {"table": row["table"]} if row["table"] is not None else ""
        )
        pdf.cell(80, 7, fonts.text(row["name"]), border="B")
        pdf.cell(30, 7, fonts.text(table), border="B")
        pdf.cell(50, 7, fonts.text(row["compass"]), border="B", new_x="LMARGIN", new_y="NEXT")


def _hand_record(
    pdf: FPDF, fonts: _Fonts, round_cards: Mapping[str, Any], record: Mapping[str, Any]
) -> None:
    if record["deal"] % 4 == 1:
        pdf.add_page()
        pdf.set_font(fonts.sans, "B", 14)
        title = gettext("Hand records, round %(round)s (seed %(seed)s)") % {
            "round": round_cards["round"],
            "seed": round_cards.get("seed"),
        }
        pdf.cell(0, 9, fonts.text(title), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(fonts.sans, "B", 11)
    pdf.cell(
        0,
        7,
        fonts.text(gettext("Deal %(deal)s") % {"deal": record["deal"]}),
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.set_font(fonts.mono, "", 10)
    compass = [s["compass"] for s in round_cards["tables"][0]["seats"]]
    hands: Sequence[Mapping[str, str]] = record["hands"]
    for seat, hand in enumerate(hands):
        symbols = "♠♥♦♣" if fonts.unicode else "SHDC"
        suits = "  ".join(
            f"{symbol} {hand[suit]}" for symbol, suit in zip(symbols, "SHDC", strict=True)
        )
        pdf.cell(0, 5.5, fonts.text(f"{compass[seat]:<11}{suits}"), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
