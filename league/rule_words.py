"""An illegal move's refusal in the request's language.

The engine names the rule that forbids a move in English (``must follow suit (you hold a
heart)``) and imports nothing but the standard library; the league says it to people, so
it translates the rules it knows here, by their pattern, with the suit and the cards in
the page's words: the rules of card play and every refusal of a bid, a contract, an offer,
a trump choice or a card passed in tribute, in every family. A rule not known here is told
as the engine said it (tests/web/test_translations.py tries every illegal action of every
family and fails on such a rule).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.utils.translation import gettext, gettext_noop, pgettext

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


_CARD = re.compile(r"(10|[2-9TJQKA])([CDHS])")
_SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def _card(code: str) -> str:
    """``QS`` -> ``Q♠`` (``V♠`` in Dutch, ``D♠`` in Swedish): a card in short, as the
    table's script writes it (cards.js ``cardShort``)."""
    match = _CARD.fullmatch(code)
    if match is None:
        return code
    rank = match[1]
    letters = {
        "T": "10",
        "J": pgettext("card letter", "J"),
        "Q": pgettext("card letter", "Q"),
        "K": pgettext("card letter", "K"),
        "A": pgettext("card letter", "A"),
    }
    return letters.get(rank, rank) + _SUIT_SYMBOLS[match[2]]


def _cards(text: str, separator: str = " ") -> str:
    """Cards in short, each said as ``_card`` says it."""
    return separator.join(_card(code) for code in text.split(separator))


_BID = re.compile(r"(\d+) ?(up|down)")


def _bid(text: str) -> str:
    """``8 up`` / ``8up`` -> ``8 op`` / ``8 upp``; ``1 down (3 up)`` -> ``1 neer (3 op)``."""

    def said(match: re.Match[str]) -> str:
        if match[2] == "up":
            return gettext("%(count)s up") % {"count": match[1]}
        return gettext("%(count)s down") % {"count": match[1]}

    return _BID.sub(said, text)


def action_in_language(action: str) -> str:
    """An action string in the active language: its verb and its object, as the table's
    script says it (cards.js ``actionWords``): ``play QS`` -> ``speel V♠``, ``bid 8up`` ->
    ``bied 8 op``, ``contract kings_jacks`` -> ``contract Heer & Zot``."""
    verb, _space, thing = action.partition(" ")
    verb_words = pgettext("action verb", verb)
    if not thing:
        return verb_words
    if _CARD.fullmatch(thing):
        words = _card(thing)
    elif thing in _SUIT_SYMBOLS:
        words = _SUIT_SYMBOLS[thing]
    elif thing.isdigit():
        words = thing
    elif _BID.fullmatch(thing):
        words = _bid(thing)
    else:
        words = gettext(thing.replace("_", " "))
    return f"{verb_words} {words}"


def _actions(text: str, separator: str = ", ") -> str:
    return separator.join(action_in_language(a) for a in text.split(separator))


def _rank(name: str) -> str:
    """A seat's rank in Kung och Adel (``monarch`` -> ``vorst`` / ``kung``)."""
    return gettext(name)


def _who(text: str) -> str:
    """``the Beneficiary`` or ``seat 2``, in the active language."""
    if text == "the Beneficiary":
        return gettext("the Beneficiary")
    return gettext("seat %(seat)s") % {"seat": text.removeprefix("seat ")}


def _fixed(message: str) -> Callable[[re.Match[str]], str]:
    """A rule without a variable part: its whole sentence is the catalogue's message."""
    return lambda m: gettext(message)


_FIXED_RULES = [
    # every family
    gettext_noop("the game is over"),
    gettext_noop("a deal comes next, not an action"),
    gettext_noop("not allowed by the rules of this contract"),
    # King: the auction, the Beneficiary's choices, up or down, trumps
    gettext_noop("the player who drew the K♥ must nominate the first dealer (nominate 0..3)"),
    gettext_noop("the Beneficiary must accept the high bid (declining is not allowed)"),
    gettext_noop("only the Beneficiary may accept or decline, once the auction is over"),
    gettext_noop("there is no bid to accept or decline"),
    gettext_noop("only the Beneficiary may foil the auction, once it is over"),
    gettext_noop("the foiled auction (4-3-3-3) is not played in this game"),
    gettext_noop("there is no auction now"),
    gettext_noop("only the Beneficiary may open the auction, before deciding the hand"),
    gettext_noop("positive hands are not auctioned in this game"),
    gettext_noop("no ultimatum when positive hands are played up only"),
    gettext_noop("the ultimatum (8 up or down) is not played in this game"),
    gettext_noop("positive hands are played up only"),
    gettext_noop("the hand is already played up"),
    gettext_noop("the hand is already played down"),
    gettext_noop("trumps are named first, then up or down"),
    gettext_noop("trumps are already named"),
    gettext_noop("down hands are played without trumps"),
    gettext_noop("choose up or down first; trumps are named after"),
    gettext_noop("the opener must bid"),
    gettext_noop("matching (preference) is not played in this game"),
    gettext_noop("there is no bid to match"),
    gettext_noop("bid, match or pass"),
    gettext_noop("a bid names up or down, e.g. 'bid 3up' or 'bid 1down'"),
    gettext_noop("a bid is a number of tricks, e.g. 'bid 3' (the dealer chooses up or down)"),
    gettext_noop("positive hands are played up only: no down bids"),
    # Kingen and Dubbelkingen: the dealer's contract, the offers for trumps
    gettext_noop(
        "you must choose trumps: your remaining deals are needed for your two trump choices"
    ),
    gettext_noop("you have already chosen trumps twice; choose a negative contract"),
    gettext_noop("each negative contract may be played at most twice"),
    gettext_noop("the dealer must choose a contract or a trump suit"),
    gettext_noop("the trump suit must be named now"),
    gettext_noop("offer a number of tricks for the right to name trumps, or pass"),
    gettext_noop("the dealer must accept or reject the highest offer"),
    # Kung och Adel: trumps, the redeal, the first lead
    gettext_noop("redeals are not played in this game"),
    gettext_noop("the monarch may order a redeal only while holding nothing above a 10"),
    gettext_noop("the monarch must name a trump suit"),
    gettext_noop("the monarch must name a trump suit or order a redeal"),
    gettext_noop("the monarch chooses who leads the first trick: lead 0, 1, 2 or 3"),
    # Priffe: the bidding
    gettext_noop("bid a contract (e.g. bid hearts) or pass"),
    gettext_noop("misère is not allowed at this table"),
    gettext_noop(
        "the träkarl's partner may not bid misère (the träkarl would play against its own partner)"
    ),
]

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
            % {"cards": _cards(m[1])}
        ),
    ),
    (
        re.compile(r"must discard a penalty card when void \((.*)\)"),
        lambda m: (
            gettext("must discard a penalty card when void (%(cards)s)") % {"cards": _cards(m[1])}
        ),
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
    *((re.compile(re.escape(rule)), _fixed(rule)) for rule in _FIXED_RULES),
    (
        re.compile(r"you do not hold (\S+)"),
        lambda m: gettext("you do not hold %(card)s") % {"card": _card(m[1])},
    ),
    (
        re.compile(r"not your turn: seat (\d+) is to act"),
        lambda m: gettext("not your turn: seat %(to_act)s is to act") % {"to_act": m[1]},
    ),
    (
        re.compile(r"no action is expected now \(phase (\w+)\)"),
        lambda m: gettext("no action is expected now (phase %(phase)s)") % {"phase": m[1]},
    ),
    (
        re.compile(r"not an action of (\w+)"),
        lambda m: gettext("not an action of %(game)s") % {"game": m[1]},
    ),
    (
        re.compile(r"not a card: (.*) \(expected rank and suit, e\.g\. 'QS', 'TH'\)"),
        lambda m: (
            gettext("not a card: %(text)s (expected rank and suit, e.g. 'QS', 'TH')")
            % {"text": m[1]}
        ),
    ),
    (
        re.compile(r"not a suit: (.*) \(expected one of C, D, H, S\)"),
        lambda m: gettext("not a suit: %(text)s (expected one of C, D, H, S)") % {"text": m[1]},
    ),
    # King
    (
        re.compile(
            r"the Beneficiary may foil \(score 4-3-3-3\) only after an auction whose best bid "
            r"is worth (\d+) up or less(, not without an auction)?"
        ),
        lambda m: (
            (
                gettext(
                    "the Beneficiary may foil (score 4-3-3-3) only after an auction whose best "
                    "bid is worth %(count)s up or less, not without an auction"
                )
                if m[2]
                else gettext(
                    "the Beneficiary may foil (score 4-3-3-3) only after an auction whose best "
                    "bid is worth %(count)s up or less"
                )
            )
            % {"count": m[1]}
        ),
    ),
    (
        re.compile(r"after the ultimatum a player may only (.+) or pass"),
        lambda m: (
            gettext("after the ultimatum a player may only %(bid)s or pass")
            % {"bid": action_in_language(m[1])}
        ),
    ),
    (
        re.compile(r"the auction is over: the Beneficiary answers the high bid \((.+)\)"),
        lambda m: (
            gettext("the auction is over: the Beneficiary answers the high bid (%(choices)s)")
            % {"choices": _actions(m[1])}
        ),
    ),
    (
        re.compile(r"(the Beneficiary|seat \d+) must choose one of: (.+)"),
        lambda m: (
            gettext("%(who)s must choose one of: %(choices)s")
            % {"who": _who(m[1]), "choices": _actions(m[2])}
        ),
    ),
    (
        re.compile(r"only a bidder who speaks before seat (\d+) may match its bid \(preference\)"),
        lambda m: (
            gettext("only a bidder who speaks before seat %(seat)s may match its bid (preference)")
            % {"seat": m[1]}
        ),
    ),
    (
        re.compile(r"bids go up to (\d+) up"),
        lambda m: gettext("bids go up to %(bid)s") % {"bid": _bid(f"{m[1]} up")},
    ),
    (
        re.compile(r"a down bid is at most (\d+) down \(the limit is (\d+) up\)"),
        lambda m: (
            gettext("a down bid is at most %(down)s (the limit is %(up)s)")
            % {"down": _bid(f"{m[1]} down"), "up": _bid(f"{m[2]} up")}
        ),
    ),
    (
        re.compile(r"a bid must be worth more than (.+)"),
        lambda m: gettext("a bid must be worth more than %(bid)s") % {"bid": _bid(m[1])},
    ),
    (
        re.compile(r"a bid must be more than (.+)"),
        lambda m: gettext("a bid must be more than %(bid)s") % {"bid": _bid(m[1])},
    ),
    # Kingen and Dubbelkingen
    (
        re.compile(r"an offer must be more than (\d+) and at most (\d+) tricks"),
        lambda m: (
            gettext("an offer must be more than %(best)s and at most %(top)s tricks")
            % {"best": m[1], "top": m[2]}
        ),
    ),
    # Kung och Adel
    (
        re.compile(r"the (\w+) must now pass a card to the (\w+) \((tribute|return) \.\.\.\)"),
        lambda m: (
            gettext("the %(giver)s must now pass a card to the %(receiver)s (%(verb)s ...)")
            % {
                "giver": _rank(m[1]),
                "receiver": _rank(m[2]),
                "verb": pgettext("action verb", m[3]),
            }
        ),
    ),
    (
        re.compile(
            r"tribute is your best cards, the highest trumps first, then the highest cards: "
            r"give (.+)"
        ),
        lambda m: (
            gettext(
                "tribute is your best cards, the highest trumps first, then the highest "
                "cards: give %(cards)s"
            )
            % {"cards": gettext(" or ").join(_card(c) for c in m[1].split(" or "))}
        ),
    ),
    (
        re.compile(r"pass one card per action \((\w+) (\S+), then the next\)"),
        lambda m: (
            gettext("pass one card per action (%(first)s, then the next)")
            % {"first": action_in_language(f"{m[1]} {m[2]}")}
        ),
    ),
    # Priffe
    (
        re.compile(r"a bid must be higher than (\w+)"),
        lambda m: gettext("a bid must be higher than %(bid)s") % {"bid": gettext(m[1])},
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
    if not error.action:
        return rule
    return f"{action_in_language(error.action)}: {rule}"
