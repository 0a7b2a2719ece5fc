"""A club night's score sheet and its refusals in the request's language.

The engine describes each family's score sheet (engine/table_sheet.py: the lines' titles,
the fields' labels, the notes, the compass positions) and refuses an entry that does not
add up (``deal 2 (hearts): the hearts taken add up to 12; a deal has 13``) in English,
importing nothing but the standard library. The league says them to people, so they are
translated here: the sheet's fixed words through the catalogue (web/engine_words.py gathers
them from every game, ``SHEET_WORDS`` in web/engine_messages.py), the words with a number
in them and the refusals of engine/table_sheet.py's checks by their pattern, like the
rules of card play in league/words/engine_refusals.py. A refusal not known here is told as the
engine said it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.utils.translation import gettext, gettext_noop, ngettext

from league.domain.phrasebook import Phrasebook, Sentence
from league.words.seats import compass_in_language

_Said = Callable[[re.Match[str]], str]


_NUMBERED = Phrasebook(
    [
        gettext_noop("deal %(deal)s"),
        gettext_noop("rubber %(rubber)s, deal %(deal)s"),
        gettext_noop("took trick %(trick)s"),
        gettext_noop("seat %(seat)s"),
        gettext_noop("deal %(deal)s (rubber %(rubber)s)"),
        gettext_noop("deal %(deal)s (%(title)s)"),
    ],
    blanks={"deal": r"\d+", "rubber": r"\d+", "trick": r"\d+", "seat": r"\d+"},
    fills={"title": lambda title: sheet_word(title)},  # defined below
)
"""The sheet's words with a number in them."""


def sheet_word(text: str) -> str:
    """A word of the engine's score sheet (a title, a label, a note, a contract, a compass
    position) in the active language; as it is when it is not known here."""
    if not text:
        return text
    compass = compass_in_language(text)
    if compass != text:
        return compass
    numbered = _NUMBERED.say(text, gettext)
    if numbered is not None:
        return numbered
    word = text.replace("_", " ") if "_" in text and " " not in text else text
    return gettext(word)


def sheet_in_language(sheet: Mapping[str, Any]) -> dict[str, Any]:
    """A sheet's JSON (``ScoreSheet.to_json``) for people: its titles, labels, notes and
    compass positions in the active language, each choice with its label (``choice_labels``;
    the choices themselves are what an entry holds and stay as they are)."""
    return {
        **sheet,
        "compass": [sheet_word(c) for c in sheet.get("compass", [])],
        "notes": [sheet_word(n) for n in sheet.get("notes", []) if n],
        "dealer_rule": sheet_word(sheet.get("dealer_rule", "")),
        "lines": [
            {
                **line,
                "title": sheet_word(line["title"]),
                "fields": [
                    {
                        **f,
                        "label": sheet_word(f["label"]),
                        "choice_labels": [sheet_word(c) for c in f.get("choices", [])],
                    }
                    for f in line["fields"]
                ],
            }
            for line in sheet.get("lines", [])
        ],
    }


def seats_in_language(seats: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Seats (``seat_positions``) with their compass positions in the active language (and
    the name of a seat no one plays, such as the dummy)."""
    return [
        {
            **s,
            "compass": sheet_word(str(s.get("compass", ""))),
            **({"name": gettext(s["name"])} if s.get("role") != "player" and s.get("name") else {}),
        }
        for s in seats
    ]


def cards_in_language(cards: Mapping[str, Any]) -> dict[str, Any]:
    """A round's table cards (league.selectors.club_nights.round_cards) for people."""
    tables = []
    for card in cards["tables"]:
        first = card["first_dealer"]
        tables.append(
            {
                **card,
                "seats": seats_in_language(card["seats"]),
                "first_dealer": {
                    **first,
                    "name": (
                        first["name"] if first["seat"] is not None else sheet_word(first["name"])
                    ),
                    "compass": sheet_word(first["compass"]),
                },
                "order": [{**line, "title": sheet_word(line["title"])} for line in card["order"]],
                "sheet": sheet_in_language(card["sheet"]),
                "sides": [
                    {**side, "compass": [sheet_word(c) for c in side["compass"]]}
                    for side in card.get("sides", [])
                ],
            }
        )
    seating = [
        {
            **row,
            "compass": gettext("sits out (bye)")
            if row["table"] is None
            else sheet_word(row["compass"]),
        }
        for row in cards["seating"]
    ]
    return {**cards, "tables": tables, "seating": seating}


def _words(text: str) -> str:
    """``tricks, hearts, kings_jacks`` (the engine's names in a list), each word said as the
    sheet says it."""
    return ", ".join(sheet_word(word) for word in text.split(", "))


_COUNTED: list[tuple[re.Pattern[str], _Said]] = [
    (
        re.compile(r"(\d+) deals? entered; a game of (.+) has (\d+)"),
        lambda m: (
            ngettext(
                "%(count)s deal entered; a game of %(game)s has %(deals)s",
                "%(count)s deals entered; a game of %(game)s has %(deals)s",
                int(m[1]),
            )
            % {"count": m[1], "game": gettext(m[2]), "deals": m[3]}
        ),
    ),
    (
        re.compile(r"(\d+) hands? entered; a game of (.+) has (\d+)"),
        lambda m: (
            ngettext(
                "%(count)s hand entered; a game of %(game)s has %(deals)s",
                "%(count)s hands entered; a game of %(game)s has %(deals)s",
                int(m[1]),
            )
            % {"count": m[1], "game": gettext(m[2]), "deals": m[3]}
        ),
    ),
]
"""The refusals said in the singular or the plural by their count."""

_REFUSALS = Phrasebook(
    [
        gettext_noop("an entry must be a list with one object per deal"),
        gettext_noop("must be an object"),
        gettext_noop("'%(key)s' must list %(count)s whole numbers, the %(what)s of each seat"),
        gettext_noop(
            "'%(key)s' must list %(count)s whole numbers, the %(what)s of each side (A, B)"
        ),
        gettext_noop("the %(what)s cannot be below %(minimum)s"),
        gettext_noop(
            "the %(what)s add up to %(sum)s; the game's totals always add up to %(total)s"
        ),
        gettext_noop("the %(what)s add up to %(sum)s; a deal has %(total)s"),
        gettext_noop("'%(key)s' must be a seat number (%(seats)s)"),
        Sentence(gettext_noop("'%(key)s' must be one of %(choices)s"), fills={"choices": str}),
        Sentence(
            gettext_noop("unknown field %(fields)s (this line has %(allowed)s)"),
            pattern=r"unknown fields? (?P<fields>.*) \(this line has (?P<allowed>.*)\)",
        ),
        gettext_noop("game totals alone are not enough here; enter each deal"),
        gettext_noop("seat %(seat)s plays no cards; its total must be 0"),
        gettext_noop("the organiser asks for each deal, not game totals"),
        # The families' own rules of an entry (each family's ``score_sheet`` in the engine).
        # King
        gettext_noop("every score of this hand is a multiple of %(unit)s"),
        gettext_noop("a negative hand scores no points above 0"),
        # Kingen and Dubbelkingen
        gettext_noop("no seat can take more than %(count)s tricks"),
        gettext_noop("%(contract)s is chosen a third time; each negative contract is played twice"),
        gettext_noop(
            "seat %(seat)s chooses trumps a third time; each player chooses trumps on two "
            "of their deals"
        ),
        gettext_noop("name the 'contract' the dealer chose (%(choices)s)"),
        gettext_noop(
            "the contract of deal %(deal)s is %(contract)s, not %(named)s (the contracts "
            "come in a fixed order)"
        ),
        gettext_noop("no tricks are offered under these rules"),
        gettext_noop("'offer' must be the tricks offered, 1 to %(top)s"),
        gettext_noop("the dealer makes no offer"),
        # Kung och Adel
        gettext_noop("'%(key)s' must list the rank of each of the 4 seats (%(ranks)s)"),
        gettext_noop("every rank is held once; nobody is %(ranks)s"),
        gettext_noop("with these tricks the new ranks are %(expected)s, not %(entered)s"),
        # Priffe
        gettext_noop("'%(key)s' must be true or false"),
        gettext_noop("no deal entered"),
        gettext_noop("the game is not over: no side has won rubber %(rubber)s of %(rubbers)s yet"),
        gettext_noop(
            "the game ended with deal %(deal)s (the second exit of rubber %(rubber)s); "
            "%(count)s deals are entered"
        ),
        gettext_noop("name the 'contract' (%(choices)s)"),
        gettext_noop("a forced noll is a noll without declarer"),
        gettext_noop("a misère writes only its declarer and whether it was 'made'"),
        gettext_noop("'made' is for a misère only"),
        gettext_noop("all four honours in one hand, but no side holds all four"),
    ],
    blanks={
        "key": r"\w+",
        "count": r"\d+",
        "minimum": r"-?\d+",
        "sum": r"-?\d+",
        "total": r"-?\d+",
        "seats": r".*",
        "choices": r".+",
        "seat": r"\d+",
        "unit": r"\d+",
        "contract": r"\w+",
        "named": r"\w+",
        "deal": r"\d+",
        "top": r"\d+",
        "rubber": r"\d+",
        "rubbers": r"\d+",
    },
    fills={
        "what": sheet_word,
        "contract": sheet_word,
        "named": sheet_word,
        "choices": _words,
        "ranks": _words,
        "expected": _words,
        "entered": _words,
    },
)
"""The engine's refusals of an entry known here, each sentence as the catalogue has it."""


def _refusal(text: str) -> str | None:
    for pattern, said in _COUNTED:
        match = pattern.fullmatch(text)
        if match:
            return said(match)
    return _REFUSALS.say(text, gettext)


_WHERE = re.compile(r"(deal \d+(?: \(.+?\))?|totals|entry|[a-z_]+)(: )(.*)")


def score_refusal_in_language(message: str) -> str:
    """The engine's refusal of an entry (``ScoreEntryError``) in the active language: the
    place (``deal 2 (hearts)``) and the rule when its pattern is known here (a family's
    own rule, such as Kingen's order of contracts, is said here too; a rule not known here is
    told as the engine said it after its place)."""
    refusal = _refusal(message)
    if refusal is not None:
        return refusal
    where = _WHERE.fullmatch(message)
    if where is None:
        return message
    place = sheet_word(where[1]) if where[1].startswith("deal") else where[1]
    refusal = _refusal(where[3])
    if refusal is not None:
        return f"{place}: {refusal}"
    return f"{place}: {where[3]}"  # a family's own rule: its place said, the rule in English
