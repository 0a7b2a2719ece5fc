"""Cards as small ints and hands as 52-bit masks.

A card is ``suit * 13 + rank`` with ranks 0..12 standing for 2..A and suits 0..3 for
clubs, diamonds, hearts, spades ("CDHS"). This suit-major layout makes every suit a
contiguous 13-bit field of a hand mask, so following suit is one ``&`` and counting
point cards is one ``bit_count`` (docs/engine.md, *The model*).

Card strings are rank then suit: ``"QS"``, ``"TH"`` (``"10H"`` is accepted on input).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.errors import InvalidCardError

SUIT_LETTERS = "CDHS"
RANK_LETTERS = "23456789TJQKA"
SUIT_NAMES = ("club", "diamond", "heart", "spade")
RANK_NAMES = (
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king", "ace",
)  # fmt: skip
SUIT_SYMBOLS = ("\u2663", "\u2666", "\u2665", "\u2660")

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
NO_SUIT = -1

RANK_TWO, RANK_SEVEN, RANK_TEN = 0, 5, 8
RANK_JACK, RANK_QUEEN, RANK_KING, RANK_ACE = 9, 10, 11, 12

FULL_DECK: int = (1 << 52) - 1
SUIT_MASKS: tuple[int, ...] = tuple(0x1FFF << (13 * s) for s in range(4))
BIT: tuple[int, ...] = tuple(1 << c for c in range(52))
SUIT_OF: tuple[int, ...] = tuple(c // 13 for c in range(52))
RANK_OF: tuple[int, ...] = tuple(c % 13 for c in range(52))


def card(rank: int, suit: int) -> int:
    """The card of ``rank`` (0 = two .. 12 = ace) in ``suit`` (0..3)."""
    return suit * 13 + rank


def rank_mask(rank: int) -> int:
    """The four cards of one rank."""
    return sum(BIT[card(rank, s)] for s in range(4))


def _holdings(suit: int) -> tuple[tuple[int, ...], ...]:
    """For each 13-bit holding of ``suit``, its card ids ascending. Built by doubling (the
    holdings with rank r are those without it, plus r), 8 times faster than card by card:
    it runs at every import of the engine."""
    table: list[tuple[int, ...]] = [()]
    for c in range(13 * suit, 13 * suit + 13):
        table += [(*held, c) for held in table]
    return tuple(table)


# Per-suit lookup tables: a 13-bit holding -> the tuple of its card ids, ascending.
SUIT_CARDS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(_holdings(s) for s in range(4))
_C, _D, _H, _S = SUIT_CARDS


def cards_of(mask: int) -> list[int]:
    """The cards of a mask as a list of ids, ascending (clubs first, low to high)."""
    return [*_C[mask & 0x1FFF], *_D[mask >> 13 & 0x1FFF], *_H[mask >> 26 & 0x1FFF], *_S[mask >> 39]]


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        mask |= BIT[c]
    return mask


def highest(mask: int) -> int:
    """The highest card id in a non-empty mask (within one suit: the highest rank)."""
    return mask.bit_length() - 1


def lowest(mask: int) -> int:
    """The lowest card id in a non-empty mask."""
    return (mask & -mask).bit_length() - 1


def above(c: int) -> int:
    """The cards of the same suit ranked above ``c``."""
    return SUIT_MASKS[SUIT_OF[c]] & ~((BIT[c] << 1) - 1)


def below(c: int) -> int:
    """The cards of the same suit ranked below ``c``."""
    return SUIT_MASKS[SUIT_OF[c]] & (BIT[c] - 1)


def winning_card(trick: Sequence[int], trump: int) -> int:
    """The card winning (so far) a non-empty trick, ``trick[0]`` led; ``trump`` may be -1."""
    best = trick[0]
    for c in trick[1:]:
        suit, best_suit = SUIT_OF[c], SUIT_OF[best]
        if (suit == best_suit and c > best) or (suit == trump and best_suit != trump):
            best = c
    return best


CARD_NAMES: tuple[str, ...] = tuple(RANK_LETTERS[c % 13] + SUIT_LETTERS[c // 13] for c in range(52))
"""``CARD_NAMES[c]`` is ``card_name(c)``, for hot paths."""


def card_name(c: int) -> str:
    return CARD_NAMES[c]


def card_symbol(c: int) -> str:
    """A card for people: ``Q♠``, ``10♥``."""
    rank = RANK_LETTERS[c % 13]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[c // 13]


def parse_card(text: str) -> int:
    """``"QS"``, ``"qs"``, ``"10H"``, ``"TH"`` -> a card id; anything else is an error."""
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANK_LETTERS or t[1] not in SUIT_LETTERS:
        raise InvalidCardError(f"not a card: {text!r} (expected rank and suit, e.g. 'QS', 'TH')")
    return card(RANK_LETTERS.index(t[0]), SUIT_LETTERS.index(t[1]))


def parse_suit(text: str) -> int:
    t = text.strip().upper()
    if len(t) != 1 or t not in SUIT_LETTERS:
        raise InvalidCardError(f"not a suit: {text!r} (expected one of C, D, H, S)")
    return SUIT_LETTERS.index(t)


def format_cards(mask: int) -> str:
    """A hand for people, suit by suit from spades down, high cards first."""
    groups = []
    for s in (SPADES, HEARTS, DIAMONDS, CLUBS):
        held = [card_name(c)[0] for c in reversed(SUIT_CARDS[s][mask >> (13 * s) & 0x1FFF])]
        groups.append(SUIT_SYMBOLS[s] + ("".join(held) if held else "-"))
    return " ".join(groups)


def card_names(mask: int) -> list[str]:
    return [card_name(c) for c in cards_of(mask)]
