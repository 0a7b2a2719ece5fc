"""An illegal move's refusal in the request's language.

The engine names the rule that forbids a move in English (``must follow suit (you hold a
heart)``) and imports nothing but the standard library; the league says it to people, so
it translates the rules it knows here, by their pattern, with the suit and the cards in
the page's words. A rule not known here is told as the engine said it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.utils.translation import gettext, pgettext

from engine.errors import IllegalActionError


def _suit(name: str) -> str:
    """``heart`` -> ``harten`` / ``hjärter`` (a suit's name in a sentence)."""
    names = {
        "club": pgettext("suit in a sentence", "club"),
        "diamond": pgettext("suit in a sentence", "diamond"),
        "heart": pgettext("suit in a sentence", "heart"),
        "spade": pgettext("suit in a sentence", "spade"),
    }
    return names.get(name, name)


_RULES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (
        re.compile(r"must follow suit \(you hold a (\w+)\)"),
        lambda m: gettext("must follow suit (you hold a %(suit)s)") % {"suit": _suit(m[1])},
    ),
    (
        re.compile(r"must trump when void in the suit led \(you hold a (\w+)\)"),
        lambda m: (
            gettext("must trump when void in the suit led (you hold a %(suit)s)")
            % {"suit": _suit(m[1])}
        ),
    ),
    (
        re.compile(r"must overtrump with a higher (\w+)"),
        lambda m: gettext("must overtrump with a higher %(suit)s") % {"suit": _suit(m[1])},
    ),
    (
        re.compile(r"must play a (\w+) on a trumped trick \(you hold one\)"),
        lambda m: (
            gettext("must play a %(suit)s on a trumped trick (you hold one)")
            % {"suit": _suit(m[1])}
        ),
    ),
    (
        re.compile(r"may not play a (\w+) on a trumped trick while holding another suit"),
        lambda m: (
            gettext("may not play a %(suit)s on a trumped trick while holding another suit")
            % {"suit": _suit(m[1])}
        ),
    ),
    (
        re.compile(r"must play a penalty card that cannot win the trick \((.*)\)"),
        lambda m: (
            gettext("must play a penalty card that cannot win the trick (%(cards)s)")
            % {"cards": m[1]}
        ),
    ),
    (
        re.compile(r"must discard a penalty card when void \((.*)\)"),
        lambda m: gettext("must discard a penalty card when void (%(cards)s)") % {"cards": m[1]},
    ),
    (
        re.compile(r"may not lead a heart while holding another suit \(heart-lead ban\)"),
        lambda m: gettext("may not lead a heart while holding another suit (heart-lead ban)"),
    ),
    (
        re.compile(
            r"may not lead a heart while holding another suit until a heart has been played"
        ),
        lambda m: gettext(
            "may not lead a heart while holding another suit until a heart has been played"
        ),
    ),
    (
        re.compile(r"may not lead a heart while holding another suit"),
        lambda m: gettext("may not lead a heart while holding another suit"),
    ),
    (
        re.compile(r"must beat the highest trump when trumps are led"),
        lambda m: gettext("must beat the highest trump when trumps are led"),
    ),
    (
        re.compile(r"must discard the K♥ when void in the suit led"),
        lambda m: gettext("must discard the K♥ when void in the suit led"),
    ),
    (
        re.compile(r"must play the K♥ the first time hearts are led"),
        lambda m: gettext("must play the K♥ the first time hearts are led"),
    ),
    (
        re.compile(r"must play the K♥ when it cannot win the trick"),
        lambda m: gettext("must play the K♥ when it cannot win the trick"),
    ),
    (
        re.compile(r"a card must be played now"),
        lambda m: gettext("a card must be played now"),
    ),
]


def rule_in_language(rule: str) -> str:
    """``rule`` (the engine's words) in the active language, when it is a rule known here."""
    prefix = ""
    if rule.startswith("IWWA: "):
        prefix, rule = "IWWA: ", rule[len("IWWA: ") :]
    for pattern, said in _RULES:
        match = pattern.fullmatch(rule)
        if match:
            return prefix + said(match)
    return prefix + rule


def refusal_in_language(error: IllegalActionError) -> str:
    """The refusal of an illegal move as the API answers it: the action, then the rule."""
    rule = rule_in_language(error.rule)
    return f"{error.action}: {rule}" if error.action else rule
