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
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext

import segno

if TYPE_CHECKING:
    from fpdf import FPDF

PAPER_SIZES = {"a4": "A4", "letter": "Letter"}
"""The paper sizes of the PDF download (``?paper=``)."""
BLANK_ROWS = 16
"""Rows of the grid of a game whose length the play decides (Priffe's rubbers)."""
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
"""Debian's fonts-dejavu-core (Chromium's dependency here): a font for every name. Without
it the PDF's core fonts write Latin-1 only (anything else as ``?``)."""


QUIET_ZONE = 4
"""Modules of white round a QR code: the four its specification asks for (ISO/IEC 18004)."""


def qr_svg(url: str) -> str:
    """An inline SVG of a QR code for ``url`` (no XML declaration: it goes into a page),
    with a viewBox and no fixed size: the page's style scales it whole, quiet zone and
    all."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(
        buffer, kind="svg", scale=4, border=QUIET_ZONE, xmldecl=False, omitsize=True
    )
    return buffer.getvalue().decode("utf-8")


def qr_png(url: str) -> bytes:
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="png", scale=6, border=QUIET_ZONE)
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
    on ``paper`` (``a4`` or ``letter``). fpdf2 (0.55 s of CPU to import) is imported here,
    on a web process's first PDF, not when it starts."""
    from fpdf import FPDF

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


QR_MM = 36
"""The printed side of a QR code, quiet zone included (about 1 mm a module)."""


def _lines(pdf: FPDF, width: float, text: str) -> int:
    from fpdf.enums import MethodReturnValue

    said = pdf.multi_cell(width, 4, text, align="L", dry_run=True, output=MethodReturnValue.LINES)
    return max(1, len(said)) if isinstance(said, list) else 1


def _row(
    pdf: FPDF, cells: Sequence[tuple[float, str]], *, line: float = 4.5, least: float = 6.5
) -> None:
    """One row of bordered cells whose text wraps (nothing is cut off): as tall as its
    longest cell; a cell of one line is centred in it."""
    counts = [_lines(pdf, width, text) for width, text in cells]
    height = max(least, max(counts) * line)
    x, y = pdf.l_margin, pdf.get_y()
    for (width, text), count in zip(cells, counts, strict=True):
        pdf.rect(x, y, width, height)
        pdf.set_xy(x, y)
        pdf.multi_cell(width, height if count == 1 else line, text, align="L")
        x += width
    pdf.set_xy(pdf.l_margin, y + height)


def _side_words(card: Mapping[str, Any], side: Mapping[str, Any]) -> str:
    return gettext("Side %(side)s (%(names)s): code %(code)s") % {
        "side": side["side"],
        "names": ", ".join(side["names"]),
        "code": side["code"],
    }


def _card_page(
    pdf: FPDF, fonts: _Fonts, round_cards: Mapping[str, Any], card: Mapping[str, Any]
) -> None:
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin
    sides = card.get("sides") or [
        {"side": 1, "names": [], "code": card["code"], "entry_url": card["entry_url"]}
    ]
    codes_width = (QR_MM + 4) * len(sides)
    text_width = width - codes_width
    top = pdf.get_y()
    for index, side in enumerate(sides):
        x = pdf.w - pdf.r_margin - (QR_MM + 4) * (len(sides) - index) + 4
        pdf.image(io.BytesIO(qr_png(side["entry_url"])), x=x, y=top, w=QR_MM)
        pdf.set_xy(x, top + QR_MM)
        pdf.set_font(fonts.sans, "B", 10)
        pdf.cell(
            QR_MM,
            5,
            fonts.text(gettext("Side %(side)s: %(code)s") % side),
            align="C",
        )
    pdf.set_xy(pdf.l_margin, top)
    pdf.set_font(fonts.sans, "B", 18)
    pdf.multi_cell(
        text_width,
        9,
        fonts.text(gettext("Table %(table)s") % {"table": card["table"]}),
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.set_font(fonts.sans, "", 11)
    pdf.multi_cell(
        text_width,
        5.5,
        fonts.text(
            gettext("%(league)s, round %(round)s: %(game)s")
            % {"league": round_cards["league"], "round": card["round"], "game": card["game_name"]}
        ),
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.set_font(fonts.sans, "B", 11)
    for side in sides:
        pdf.multi_cell(
            text_width, 5.5, fonts.text(_side_words(card, side)), new_x="LMARGIN", new_y="NEXT"
        )
    pdf.set_font(fonts.sans, "", 8)
    pdf.multi_cell(
        text_width,
        4,
        fonts.text(
            gettext(
                "Each side enters or confirms with its own code: what one side enters, a "
                "player of the other side confirms on their own phone."
            )
        ),
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.set_y(max(pdf.get_y(), top + QR_MM + 6) + 2)
    pdf.set_font(fonts.sans, "", 10)
    for seat in card["seats"]:
        name = seat["name"]
        if seat.get("reserve"):
            name = gettext("%(name)s (reserve: the score does not count)") % {"name": name}
        _row(
            pdf,
            [
                (24, fonts.text(seat["compass"])),
                (
                    width - 24,
                    fonts.text(
                        gettext("seat %(seat)s: %(name)s") % {"seat": seat["seat"], "name": name}
                    ),
                ),
            ],
            least=6,
        )
    first = card["first_dealer"]
    pdf.multi_cell(
        width,
        6,
        fonts.text(gettext("First dealer: %(name)s") % {"name": first["name"]}),
        new_x="LMARGIN",
        new_y="NEXT",
    )
    for note in card["sheet"]["notes"]:
        pdf.multi_cell(width, 4.5, fonts.text(note), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(1)
    players = [s for s in card["seats"] if s["role"] == "player"]
    fixed = 10 + 58 + 18
    column = (width - fixed) / max(len(players), 1)
    pdf.set_font(fonts.sans, "B", 8)
    _row(
        pdf,
        [
            (10, fonts.text(gettext("Deal"))),
            (58, fonts.text(gettext("Contract"))),
            (18, fonts.text(gettext("Dealer"))),
        ]
        + [(column, fonts.text(seat["name"])) for seat in players],
        line=3.8,
        least=6,
    )
    pdf.set_font(fonts.sans, "", 8.5)
    for row in grid_rows(card):
        _row(
            pdf,
            [
                (10, str(row["deal"])),
                (58, fonts.text(row["title"])),
                (18, fonts.text(row["dealer"])),
            ]
            + [(column, "") for _ in players],
            line=3.8,
            least=6.2,
        )
    pdf.set_font(fonts.sans, "B", 9)
    _row(pdf, [(86, fonts.text(gettext("Total")))] + [(column, "") for _ in players], least=6.2)


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
