"""A club night's score sheet and its refusals in the request's language.

The engine describes each family's score sheet (engine/table_sheet.py: the lines' titles,
the fields' labels, the notes, the compass positions) and refuses an entry that does not
add up (``deal 2 (hearts): the hearts taken add up to 12; a deal has 13``) in English,
importing nothing but the standard library. The league says them to people, so they are
translated here: the sheet's fixed words through the catalogue (web/engine_words.py gathers
them from every game, ``SHEET_WORDS`` in web/engine_messages.py), the words with a number
in them and the refusals of engine/table_sheet.py's checks by their pattern, like the
rules of card play in league/rule_words.py. A refusal not known here is told as the
engine said it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.utils.translation import gettext, ngettext, pgettext

_Said = Callable[[re.Match[str]], str]


def _compass(name: str) -> str:
    names = {
        "North": pgettext("compass", "North"),
        "East": pgettext("compass", "East"),
        "South": pgettext("compass", "South"),
        "West": pgettext("compass", "West"),
        "North-East": pgettext("compass", "North-East"),
        "South-East": pgettext("compass", "South-East"),
        "South-West": pgettext("compass", "South-West"),
        "North-West": pgettext("compass", "North-West"),
    }
    return names.get(name, name)


_NUMBERED: list[tuple[re.Pattern[str], _Said]] = [
    (re.compile(r"deal (\d+)"), lambda m: gettext("deal %(deal)s") % {"deal": m[1]}),
    (
        re.compile(r"rubber (\d+), deal (\d+)"),
        lambda m: gettext("rubber %(rubber)s, deal %(deal)s") % {"rubber": m[1], "deal": m[2]},
    ),
    (re.compile(r"took trick (\d+)"), lambda m: gettext("took trick %(trick)s") % {"trick": m[1]}),
    (re.compile(r"seat (\d+)"), lambda m: gettext("seat %(seat)s") % {"seat": m[1]}),
    (
        re.compile(r"deal (\d+) \(rubber (\d+)\)"),
        lambda m: gettext("deal %(deal)s (rubber %(rubber)s)") % {"deal": m[1], "rubber": m[2]},
    ),
    (
        re.compile(r"deal (\d+) \((.+)\)"),
        lambda m: gettext("deal %(deal)s (%(title)s)") % {"deal": m[1], "title": sheet_word(m[2])},
    ),
]


def sheet_word(text: str) -> str:
    """A word of the engine's score sheet (a title, a label, a note, a contract, a compass
    position) in the active language; as it is when it is not known here."""
    if not text:
        return text
    compass = _compass(text)
    if compass != text:
        return compass
    for pattern, said in _NUMBERED:
        match = pattern.fullmatch(text)
        if match:
            return said(match)
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
    """A round's table cards (league.club_night_reads.round_cards) for people."""
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


def _what(text: str) -> str:
    return sheet_word(text)


def _words(text: str) -> str:
    """``tricks, hearts, kings_jacks`` (the engine's names in a list), each word said as the
    sheet says it."""
    return ", ".join(sheet_word(word) for word in text.split(", "))


_REFUSALS: list[tuple[re.Pattern[str], _Said]] = [
    (
        re.compile(r"an entry must be a list with one object per deal"),
        lambda m: gettext("an entry must be a list with one object per deal"),
    ),
    (re.compile(r"must be an object"), lambda m: gettext("must be an object")),
    (
        re.compile(r"'(\w+)' must list (\d+) whole numbers, the (.+) of each (seat|side \(A, B\))"),
        lambda m: (
            (
                gettext("'%(key)s' must list %(count)s whole numbers, the %(what)s of each seat")
                if m[4] == "seat"
                else gettext(
                    "'%(key)s' must list %(count)s whole numbers, the %(what)s of each side (A, B)"
                )
            )
            % {"key": m[1], "count": m[2], "what": _what(m[3])}
        ),
    ),
    (
        re.compile(r"the (.+) cannot be below (-?\d+)"),
        lambda m: (
            gettext("the %(what)s cannot be below %(minimum)s")
            % {"what": _what(m[1]), "minimum": m[2]}
        ),
    ),
    (
        re.compile(r"the (.+) add up to (-?\d+); the game's totals always add up to (-?\d+)"),
        lambda m: (
            gettext("the %(what)s add up to %(sum)s; the game's totals always add up to %(total)s")
            % {"what": _what(m[1]), "sum": m[2], "total": m[3]}
        ),
    ),
    (
        re.compile(r"the (.+) add up to (-?\d+); a deal has (-?\d+)"),
        lambda m: (
            gettext("the %(what)s add up to %(sum)s; a deal has %(total)s")
            % {"what": _what(m[1]), "sum": m[2], "total": m[3]}
        ),
    ),
    (
        re.compile(r"'(\w+)' must be a seat number \((.*)\)"),
        lambda m: (
            gettext("'%(key)s' must be a seat number (%(seats)s)") % {"key": m[1], "seats": m[2]}
        ),
    ),
    (
        re.compile(r"'(\w+)' must be one of (.*)"),
        lambda m: gettext("'%(key)s' must be one of %(choices)s") % {"key": m[1], "choices": m[2]},
    ),
    (
        re.compile(r"unknown fields? (.*) \(this line has (.*)\)"),
        lambda m: (
            gettext("unknown field %(fields)s (this line has %(allowed)s)")
            % {"fields": m[1], "allowed": m[2]}
        ),
    ),
    (
        re.compile(r"game totals alone are not enough here; enter each deal"),
        lambda m: gettext("game totals alone are not enough here; enter each deal"),
    ),
    (
        re.compile(r"seat (\d+) plays no cards; its total must be 0"),
        lambda m: gettext("seat %(seat)s plays no cards; its total must be 0") % {"seat": m[1]},
    ),
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
        re.compile(r"the organiser asks for each deal, not game totals"),
        lambda m: gettext("the organiser asks for each deal, not game totals"),
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
    # The families' own rules of an entry (each family's ``score_sheet`` in the engine).
    # King
    (
        re.compile(r"every score of this hand is a multiple of (\d+)"),
        lambda m: gettext("every score of this hand is a multiple of %(unit)s") % {"unit": m[1]},
    ),
    (
        re.compile(r"a negative hand scores no points above 0"),
        lambda m: gettext("a negative hand scores no points above 0"),
    ),
    # Kingen and Dubbelkingen
    (
        re.compile(r"no seat can take more than (\d+) tricks"),
        lambda m: gettext("no seat can take more than %(count)s tricks") % {"count": m[1]},
    ),
    (
        re.compile(r"(\w+) is chosen a third time; each negative contract is played twice"),
        lambda m: (
            gettext("%(contract)s is chosen a third time; each negative contract is played twice")
            % {"contract": sheet_word(m[1])}
        ),
    ),
    (
        re.compile(
            r"seat (\d+) chooses trumps a third time; each player chooses trumps on two of their "
            r"deals"
        ),
        lambda m: (
            gettext(
                "seat %(seat)s chooses trumps a third time; each player chooses trumps on two "
                "of their deals"
            )
            % {"seat": m[1]}
        ),
    ),
    (
        re.compile(r"name the 'contract' the dealer chose \((.+)\)"),
        lambda m: (
            gettext("name the 'contract' the dealer chose (%(choices)s)")
            % {"choices": _words(m[1])}
        ),
    ),
    (
        re.compile(
            r"the contract of deal (\d+) is (\w+), not (\w+) \(the contracts come in a fixed "
            r"order\)"
        ),
        lambda m: (
            gettext(
                "the contract of deal %(deal)s is %(contract)s, not %(named)s (the contracts "
                "come in a fixed order)"
            )
            % {"deal": m[1], "contract": sheet_word(m[2]), "named": sheet_word(m[3])}
        ),
    ),
    (
        re.compile(r"no tricks are offered under these rules"),
        lambda m: gettext("no tricks are offered under these rules"),
    ),
    (
        re.compile(r"'offer' must be the tricks offered, 1 to (\d+)"),
        lambda m: gettext("'offer' must be the tricks offered, 1 to %(top)s") % {"top": m[1]},
    ),
    (
        re.compile(r"the dealer makes no offer"),
        lambda m: gettext("the dealer makes no offer"),
    ),
    # Kung och Adel
    (
        re.compile(r"'(\w+)' must list the rank of each of the 4 seats \((.+)\)"),
        lambda m: (
            gettext("'%(key)s' must list the rank of each of the 4 seats (%(ranks)s)")
            % {"key": m[1], "ranks": _words(m[2])}
        ),
    ),
    (
        re.compile(r"every rank is held once; nobody is (.+)"),
        lambda m: gettext("every rank is held once; nobody is %(ranks)s") % {"ranks": _words(m[1])},
    ),
    (
        re.compile(r"with these tricks the new ranks are (.+), not (.+)"),
        lambda m: (
            gettext("with these tricks the new ranks are %(expected)s, not %(entered)s")
            % {"expected": _words(m[1]), "entered": _words(m[2])}
        ),
    ),
    # Priffe
    (
        re.compile(r"'(\w+)' must be true or false"),
        lambda m: gettext("'%(key)s' must be true or false") % {"key": m[1]},
    ),
    (re.compile(r"no deal entered"), lambda m: gettext("no deal entered")),
    (
        re.compile(r"the game is not over: rubber (\d+) of (\d+) has had no second exit yet"),
        lambda m: (
            gettext(
                "the game is not over: rubber %(rubber)s of %(rubbers)s has had no second exit yet"
            )
            % {"rubber": m[1], "rubbers": m[2]}
        ),
    ),
    (
        re.compile(
            r"the game ended with deal (\d+) \(the second exit of rubber (\d+)\); (\d+) deals "
            r"are entered"
        ),
        lambda m: (
            gettext(
                "the game ended with deal %(deal)s (the second exit of rubber %(rubber)s); "
                "%(count)s deals are entered"
            )
            % {"deal": m[1], "rubber": m[2], "count": m[3]}
        ),
    ),
    (
        re.compile(r"name the 'contract' \((.+)\)"),
        lambda m: gettext("name the 'contract' (%(choices)s)") % {"choices": _words(m[1])},
    ),
    (
        re.compile(r"a forced noll is a noll without declarer"),
        lambda m: gettext("a forced noll is a noll without declarer"),
    ),
    (
        re.compile(r"a misère writes only its declarer and whether it was 'made'"),
        lambda m: gettext("a misère writes only its declarer and whether it was 'made'"),
    ),
    (
        re.compile(r"'made' is for a misère only"),
        lambda m: gettext("'made' is for a misère only"),
    ),
    (
        re.compile(r"all four honours in one hand, but no side holds all four"),
        lambda m: gettext("all four honours in one hand, but no side holds all four"),
    ),
]
_WHERE = re.compile(r"(deal \d+(?: \(.+?\))?|totals|entry|[a-z_]+)(: )(.*)")


def score_refusal_in_language(message: str) -> str:
    """The engine's refusal of an entry (``ScoreEntryError``) in the active language: the
    place (``deal 2 (hearts)``) and the rule when its pattern is known here (a family's
    own rule, such as Kingen's order of contracts, is said here too; a rule not known here is
    told as the engine said it after its place)."""
    for pattern, said in _REFUSALS:
        match = pattern.fullmatch(message)
        if match:
            return said(match)
    where = _WHERE.fullmatch(message)
    if where is None:
        return message
    place = sheet_word(where[1]) if where[1].startswith("deal") else where[1]
    for pattern, said in _REFUSALS:
        match = pattern.fullmatch(where[3])
        if match:
            return f"{place}: {said(match)}"
    return f"{place}: {where[3]}"  # a family's own rule: its place said, the rule in English
