"""Write the card images: 52 faces and a back, plain SVG, into engine/viewer/static/web/cards/
(package data of the engine, where the replay viewer lives; the site serves them), and
the four-colour deck (clubs green, diamonds blue: a person's display setting) into
engine/viewer/static/web/cards-four/.

    python manage.py card_faces            # (re)write the files
    python manage.py card_faces --check    # exit 1 when a committed file differs

The design is plain and readable at any size: a large rank and suit in two corners, the
pips of the rank (a framed letter for J, Q, K), red hearts and diamonds, black clubs and
spades. Suits are drawn as paths, so no font is needed for them. Files are named like the
card strings of the engine: ``QS.svg``, ``TH.svg``, ``back.svg``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from engine.cards import RANK_LETTERS, RANK_NAMES, SUIT_LETTERS, SUIT_NAMES, SUIT_OF, parse_card
from engine.viewer import STATIC_DIR as VIEWER_STATIC_DIR

CARDS_DIR = VIEWER_STATIC_DIR / "web" / "cards"
FOUR_COLOUR_DIR = CARDS_DIR.parent / "cards-four"

RANK_LABELS = {"T": "10"}
RED = "#c0262d"
BLACK = "#1d2330"
GREEN = "#17703a"
BLUE = "#1f4fb0"
TWO_COLOURS = {"H": RED, "D": RED, "C": BLACK, "S": BLACK}
FOUR_COLOURS = {"H": RED, "D": BLUE, "C": GREEN, "S": BLACK}
"""Every colour keeps 4.5:1 or more against the white face (WCAG AA for text)."""
WIDTH, HEIGHT = 200, 280

# Suit symbols in a 100 x 100 box.
SUIT_PATHS = {
    "H": "M50 92C22 68 2 50 2 28C2 12 14 2 28 2C39 2 47 9 50 19C53 9 61 2 72 2"
    "C86 2 98 12 98 28C98 50 78 68 50 92Z",
    "D": "M50 2L86 50L50 98L14 50Z",
    "S": "M50 2C32 26 2 40 2 63C2 78 14 88 27 88C37 88 44 83 47 77C46 87 41 94 31 99"
    "H69C59 94 54 87 53 77C56 83 63 88 73 88C86 88 98 78 98 63C98 40 68 26 50 2Z",
    "C": "M50 4A22 22 0 0 0 35 42A22 22 0 1 0 47 76C46 87 41 94 31 99H69C59 94 54 87 53 76"
    "A22 22 0 1 0 65 42A22 22 0 0 0 50 4Z",
}

# Pip centres (x, y) for 2..10 on a 200 x 280 card; those below the middle are turned.
_PIPS: dict[str, list[tuple[int, int]]] = {
    "2": [(100, 72), (100, 208)],
    "3": [(100, 72), (100, 140), (100, 208)],
    "4": [(68, 72), (132, 72), (68, 208), (132, 208)],
    "5": [(68, 72), (132, 72), (100, 140), (68, 208), (132, 208)],
    "6": [(68, 72), (132, 72), (68, 140), (132, 140), (68, 208), (132, 208)],
    "7": [(68, 72), (132, 72), (100, 106), (68, 140), (132, 140), (68, 208), (132, 208)],
    "8": [(x, y) for x in (68, 132) for y in (72, 140, 208)] + [(100, 106), (100, 174)],
    "9": [(x, y) for x in (68, 132) for y in (72, 117, 163, 208)] + [(100, 140)],
    "10": [(x, y) for x in (68, 132) for y in (72, 117, 163, 208)] + [(100, 94), (100, 186)],
}


def _suit(suit: str, x: float, y: float, size: float, *, turned: bool = False) -> str:
    """A suit symbol of ``size`` pixels centred on (x, y)."""
    scale = size / 100
    turn = f" rotate(180 {x:g} {y:g})" if turned else ""
    return (
        f'<path transform="{turn.strip()} translate({x - size / 2:g} {y - size / 2:g})'
        f' scale({scale:g})" d="{SUIT_PATHS[suit]}"/>'
    ).replace('transform=" ', 'transform="')


def _index(label: str, suit: str) -> str:
    """The corner index: rank over suit, top left and (turned) bottom right."""
    size = 40 if len(label) > 1 else 46
    corner = (
        f'<text x="24" y="50" font-size="{size}" text-anchor="middle" '
        f'font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif" font-weight="700" '
        f'letter-spacing="-3">{label}</text>'
        f"{_suit(suit, 24, 72, 30)}"
    )
    return f'<g>{corner}</g><g transform="rotate(180 {WIDTH / 2:g} {HEIGHT / 2:g})">{corner}</g>'


def card_svg(card: str, colours: dict[str, str] = TWO_COLOURS) -> str:
    rank, suit = card[0], card[1]
    label = RANK_LABELS.get(rank, rank)
    colour = colours[suit]
    card_id = parse_card(card)
    title = f"{RANK_NAMES[card_id % 13]} of {SUIT_NAMES[SUIT_OF[card_id]]}s"
    if rank == "A":
        middle = _suit(suit, 100, 140, 96)
    elif rank in "JQK":
        middle = (
            f'<rect x="50" y="52" width="100" height="176" rx="8" fill="none" '
            f'stroke="{colour}" stroke-width="3"/>'
            f'<text x="100" y="150" font-size="84" text-anchor="middle" '
            f'font-family="DejaVu Serif, Liberation Serif, Georgia, serif" '
            f'font-weight="700">{rank}</text>'
            f"{_suit(suit, 100, 190, 40)}"
        )
    else:
        middle = "".join(_suit(suit, x, y, 30, turned=y > HEIGHT / 2) for x, y in _PIPS[label])
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{title}">'
        f"<title>{title}</title>"
        f'<rect x="2" y="2" width="{WIDTH - 4}" height="{HEIGHT - 4}" rx="14" '
        f'fill="#fff" stroke="#9aa0ab" stroke-width="3"/>'
        f'<g fill="{colour}">{_index(label, suit)}{middle}</g>'
        f"</svg>\n"
    )


def back_svg() -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="card back">'
        "<title>card back</title>"
        '<defs><pattern id="lattice" width="20" height="20" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)">'
        '<rect width="20" height="20" fill="#24477a"/>'
        '<path d="M0 10H20M10 0V20" stroke="#3b6bb0" stroke-width="4"/></pattern></defs>'
        f'<rect x="2" y="2" width="{WIDTH - 4}" height="{HEIGHT - 4}" rx="14" '
        f'fill="#fff" stroke="#9aa0ab" stroke-width="3"/>'
        f'<rect x="14" y="14" width="{WIDTH - 28}" height="{HEIGHT - 28}" rx="8" '
        'fill="url(#lattice)"/>'
        f'<g fill="#fff" opacity="0.9">{_suit("S", 100, 140, 50)}</g>'
        "</svg>\n"
    )


def card_files(colours: dict[str, str] = TWO_COLOURS) -> dict[str, str]:
    """Every file name and its SVG text."""
    files = {
        f"{rank}{suit}.svg": card_svg(rank + suit, colours)
        for suit in SUIT_LETTERS
        for rank in RANK_LETTERS
    }
    files["back.svg"] = back_svg()
    return files


def all_card_files() -> dict[Path, str]:
    """Both decks: every file's path and its SVG text."""
    return {
        **{CARDS_DIR / name: text for name, text in card_files().items()},
        **{FOUR_COLOUR_DIR / name: text for name, text in card_files(FOUR_COLOURS).items()},
    }


class Command(BaseCommand):
    help = "Write the 52 card faces and the back as SVG, in two and in four colours."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--check", action="store_true", help="only check that the files are up to date"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        files = all_card_files()
        if options["check"]:
            stale = [
                f"{path.parent.name}/{path.name}"
                for path, text in files.items()
                if not path.is_file() or path.read_text(encoding="utf-8") != text
            ]
            if stale:
                raise CommandError(
                    f"card images out of date: {', '.join(stale)} (run manage.py card_faces)"
                )
            self.stdout.write(f"{len(files)} card images are up to date")
            return
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        self.stdout.write(f"wrote {len(files)} card images to {CARDS_DIR} and {FOUR_COLOUR_DIR}")
