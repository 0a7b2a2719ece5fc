"""Chance events: what the cards did, as opposed to what a player chose.

A state created with a seed resolves its chance events itself (shuffling, cutting,
drawing) from a ``random.Random(seed)``; a state created without one waits for them to
be applied, which is how a record written by hand or taken from a real table is
replayed. Either way every event is kept in the state's history, so the record of a game
always carries the cards dealt explicitly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine.cards import card_name, cards_of, mask_of, parse_card
from engine.errors import InvalidCardError, InvalidChanceError

DEAL = "deal"
"""Cards given to the seats (``cards[seat]`` is a mask); ``exposed`` is a card shown to all."""
DRAW = "draw"
"""Cards drawn face up, e.g. to decide ranks; public to everyone."""
FIRST_DEALER = "first_dealer"
"""The seat that deals first, chosen at random."""


_BITS_BELOW = tuple((i + 1).bit_length() for i in range(128))
"""``_BITS_BELOW[i]``: the bits random.Random draws to choose an index from 0 to ``i``."""


def shuffle(rng: random.Random, cards: list[int]) -> None:
    """Shuffle ``cards`` in place exactly as ``rng.shuffle(cards)`` does, in about half the
    time: CPython's ``random.shuffle`` (3.11 to 3.13) with its ``_randbelow`` written inline
    (a swap with an index drawn by rejection from ``getrandbits``). Seeded deals depend on
    it: it must give what ``random.shuffle`` gives (checked for every seed of a sample)."""
    if len(cards) > len(_BITS_BELOW):
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        k = _BITS_BELOW[i]
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def randbelow(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)`` for n >= 1, drawing exactly as it does (``randrange(a, a + n)``
    is ``a + randbelow(rng, n)``), without its argument checks."""
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


@dataclass(frozen=True, slots=True)
class Chance:
    kind: str
    cards: tuple[int, ...] = ()
    exposed: int = -1
    seat: int = -1

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"chance": self.kind}
        if self.kind == FIRST_DEALER:
            out["seat"] = self.seat
        else:
            out["cards"] = [[card_name(c) for c in cards_of(mask)] for mask in self.cards]
        if self.exposed >= 0:
            out["exposed"] = card_name(self.exposed)
        return out

    @classmethod
    def from_json(cls, data: Any, num_seats: int) -> Chance:
        if not isinstance(data, dict) or not isinstance(data.get("chance"), str):
            raise InvalidChanceError("a chance event must be an object with a 'chance' kind")
        kind = data["chance"]
        if kind == FIRST_DEALER:
            seat = data.get("seat")
            if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < num_seats:
                raise InvalidChanceError(
                    f"first_dealer: 'seat' must be a seat from 0 to {num_seats - 1}"
                )
            return cls(kind, seat=seat)
        if kind not in (DEAL, DRAW):
            raise InvalidChanceError(f"unknown chance event {kind!r}")
        cards = data.get("cards")
        if not isinstance(cards, list) or len(cards) != num_seats:
            raise InvalidChanceError(
                f"{kind}: 'cards' must list the cards of each of the {num_seats} seats"
            )
        masks = []
        seen = 0
        for seat, held in enumerate(cards):
            if not isinstance(held, list) or not all(isinstance(c, str) for c in held):
                raise InvalidChanceError(
                    f"{kind}: the cards of seat {seat} must be a list of card strings"
                )
            try:
                ids = [parse_card(c) for c in held]
            except InvalidCardError as exc:
                raise InvalidChanceError(f"{kind}: seat {seat}: {exc}") from None
            mask = mask_of(ids)
            if mask.bit_count() != len(ids) or mask & seen:
                twice = [c for c in ids if ids.count(c) > 1] or [c for c in ids if seen >> c & 1]
                raise InvalidChanceError(f"{kind}: card {card_name(twice[0])} is dealt twice")
            seen |= mask
            masks.append(mask)
        exposed = -1
        if data.get("exposed") is not None:
            try:
                exposed = parse_card(str(data["exposed"]))
            except InvalidCardError as exc:
                raise InvalidChanceError(f"{kind}: exposed: {exc}") from None
        return cls(kind, tuple(masks), exposed)
