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

from django.utils.translation import gettext, gettext_noop, pgettext

from engine.errors import IllegalActionError
from league.domain.phrasebook import Phrasebook, Sentence


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

_RULES = Phrasebook(
    [
        # the rules of card play
        gettext_noop("must follow suit (you hold a %(suit)s)"),
        gettext_noop("must trump when void in the suit led (you hold a %(suit)s)"),
        gettext_noop("must overtrump with a higher %(suit)s"),
        gettext_noop("must play a %(suit)s on a trumped trick (you hold one)"),
        gettext_noop("may not play a %(suit)s on a trumped trick while holding another suit"),
        gettext_noop("must play a penalty card that cannot win the trick (%(cards)s)"),
        gettext_noop("must discard a penalty card when void (%(cards)s)"),
        gettext_noop("may not lead a heart while holding another suit (heart-lead ban)"),
        gettext_noop(
            "may not lead a heart while holding another suit until a heart has been played"
        ),
        gettext_noop("may not lead a heart while holding another suit"),
        gettext_noop("must beat the highest trump when trumps are led"),
        gettext_noop("must discard the K♥ when void in the suit led"),
        gettext_noop("must play the K♥ the first time hearts are led"),
        gettext_noop("must play the K♥ when it cannot win the trick"),
        gettext_noop("a card must be played now"),
        *_FIXED_RULES,
        gettext_noop("you do not hold %(card)s"),
        gettext_noop("not your turn: seat %(to_act)s is to act"),
        gettext_noop("no action is expected now (phase %(phase)s)"),
        gettext_noop("not an action of %(game)s"),
        gettext_noop("not a card: %(text)s (expected rank and suit, e.g. 'QS', 'TH')"),
        gettext_noop("not a suit: %(text)s (expected one of C, D, H, S)"),
        # King
        gettext_noop(
            "the Beneficiary may foil (score 4-3-3-3) only after an auction whose best "
            "bid is worth %(count)s up or less, not without an auction"
        ),
        gettext_noop(
            "the Beneficiary may foil (score 4-3-3-3) only after an auction whose best "
            "bid is worth %(count)s up or less"
        ),
        Sentence(
            gettext_noop("after the ultimatum a player may only %(bid)s or pass"),
            fills={"bid": action_in_language},
        ),
        gettext_noop("the auction is over: the Beneficiary answers the high bid (%(choices)s)"),
        gettext_noop("%(who)s must choose one of: %(choices)s"),
        gettext_noop(
            "only a bidder who speaks before seat %(seat)s may match its bid (preference)"
        ),
        Sentence(gettext_noop("bids go up to %(bid)s"), pattern=r"bids go up to (?P<bid>\d+ up)"),
        gettext_noop("a down bid is at most %(down)s (the limit is %(up)s)"),
        gettext_noop("a bid must be worth more than %(bid)s"),
        gettext_noop("a bid must be more than %(bid)s"),
        # Kingen and Dubbelkingen
        gettext_noop("an offer must be more than %(best)s and at most %(top)s tricks"),
        # Kung och Adel
        gettext_noop("the %(giver)s must now pass a card to the %(receiver)s (%(verb)s ...)"),
        Sentence(
            gettext_noop(
                "tribute is your best cards, the highest trumps first, then the highest "
                "cards: give %(cards)s"
            ),
            fills={"cards": lambda cards: gettext(" or ").join(map(_card, cards.split(" or ")))},
        ),
        gettext_noop("pass one card per action (%(first)s, then the next)"),
        # Priffe
        Sentence(
            gettext_noop("a bid must be higher than %(bid)s"),
            fills={"bid": gettext},
            pattern=r"a bid must be higher than (?P<bid>\w+)",
        ),
    ],
    blanks={
        "suit": r"\w+",
        "card": r"\S+",
        "cards": r".*",
        "text": r".*",
        "count": r"\d+",
        "seat": r"\d+",
        "to_act": r"\d+",
        "best": r"\d+",
        "top": r"\d+",
        "phase": r"\w+",
        "game": r"\w+",
        "who": r"the Beneficiary|seat \d+",
        "giver": r"\w+",
        "receiver": r"\w+",
        "verb": r"tribute|return",
        "first": r"\w+ \S+",
    },
    fills={
        "suit": _suit,
        "card": _card,
        "cards": _cards,
        "bid": _bid,
        "down": _bid,
        "up": _bid,
        "choices": _actions,
        "who": _who,
        "giver": _rank,
        "receiver": _rank,
        "verb": lambda verb: pgettext("action verb", verb),
        "first": action_in_language,
    },
)
"""Every rule of the engine's refusals known here, each sentence as the catalogue has it."""


def rule_in_language(rule: str) -> str:
    """``rule`` (the engine's words) in the active language, when it is a rule known here."""
    prefix = ""
    if rule.startswith("IWWA: "):
        prefix, rule = "IWWA: ", rule[len("IWWA: ") :]
    said = _RULES.say(rule, gettext)
    return prefix + (said if said is not None else rule)


def refusal_in_language(error: IllegalActionError) -> str:
    """The refusal of an illegal move as the API answers it: the action, then the rule."""
    rule = rule_in_language(error.rule)
    if not error.action:
        return rule
    return f"{action_in_language(error.action)}: {rule}"
