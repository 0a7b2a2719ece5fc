"""What the table tells the person at a seat in a sentence, in their language: each move
played for them when a deadline passed (from league.domain.table_phase.moves_played_for),
a card named in words as card players say it ("the eight of clubs", "de klaveren acht",
"klöver åtta"), a contract by its name in the game's words."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext, pgettext

from league.words.engine_refusals import action_in_language
from league.words.games_and_times import duration_abbreviated

_CARD = re.compile(r"(10|[2-9TJQKA])([CDHS])")


def _rank_words(rank: str) -> str:
    return {
        "2": pgettext("card rank", "two"),
        "3": pgettext("card rank", "three"),
        "4": pgettext("card rank", "four"),
        "5": pgettext("card rank", "five"),
        "6": pgettext("card rank", "six"),
        "7": pgettext("card rank", "seven"),
        "8": pgettext("card rank", "eight"),
        "9": pgettext("card rank", "nine"),
        "10": pgettext("card rank", "ten"),
        "T": pgettext("card rank", "ten"),
        "J": pgettext("card rank", "jack"),
        "Q": pgettext("card rank", "queen"),
        "K": pgettext("card rank", "king"),
        "A": pgettext("card rank", "ace"),
    }[rank]


def _suit_words(suit: str) -> str:
    return {
        "C": pgettext("suit", "clubs"),
        "D": pgettext("suit", "diamonds"),
        "H": pgettext("suit", "hearts"),
        "S": pgettext("suit", "spades"),
    }[suit]


def card_in_words(code: str) -> str:
    """``8C`` -> ``the eight of clubs`` (``de klaveren acht``, ``klöver åtta``): a card as
    one names it in a sentence; the code as it is when it names no card."""
    match = _CARD.fullmatch(code)
    if match is None:
        return code
    return pgettext("a card in a sentence", "the %(rank)s of %(suit)s") % {
        "rank": _rank_words(match[1]),
        "suit": _suit_words(match[2]),
    }


def action_in_words(action: str) -> str:
    """An action string said in a sentence: a card played by its name (``play 8C`` -> ``the
    eight of clubs``), anything else (a bid, a contract by its name, a pass) as the table
    says it (league.words.engine_refusals.action_in_language)."""
    verb, _space, thing = action.partition(" ")
    if verb == "play" and _CARD.fullmatch(thing):
        return card_in_words(thing)
    return action_in_language(action)


def moved_for_you_words(moved: Mapping[str, Any], *, move_seconds: float) -> str:
    """``No move within 2 min: the two of clubs was played for you (strike 1 of 2).``, and when it
    was the last strike, that a bot plays the seat for the rest of the game."""
    values = {
        "within": duration_abbreviated(move_seconds),
        "action": action_in_words(str(moved["action"])),
        "strike": moved["strike"],
        "strikes_allowed": moved["strikes_allowed"],
    }
    if moved["forfeit"]:
        return (
            gettext(
                "No move within %(within)s: %(action)s was played for you (strike %(strike)s of "
                "%(strikes_allowed)s); a bot plays your seat for the rest of the game."
            )
            % values
        )
    return (
        gettext(
            "No move within %(within)s: %(action)s was played for you (strike %(strike)s of "
            "%(strikes_allowed)s)."
        )
        % values
    )
