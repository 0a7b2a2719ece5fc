"""What a seat may infer about the other hands from its view, as each family's rules allow.

A search bot (bots/builtin/hidden_hands.py) samples the unseen cards to fit what a view
proves. What is generic (a seat that did not follow suit is void in the suit led) it
works out itself; what depends on a family's rules it asks the game, through
``game.card_inference(view)``, a :class:`CardInference`:

- ``known_cards``: cards a seat is known to hold or not to hold from the family's public
  and private facts (Kingen's exposed trump indicator, Priffe's exposed träkarl, Kung och
  Adel's tribute);
- ``on_lead`` and ``on_follow``: the card-play obligations read backwards: a card that
  would have been illegal had the seat held some cards proves it holds none of them.

Inference is by rules, so it is exact: the real hands always satisfy what it says.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Any, Protocol

from engine.cards import BIT, parse_card


class SeatKnowledge(Protocol):
    """What inference reads of a seat's view (``engine.game.PlayerView`` is one): named
    here so that this module needs nothing of the game's."""

    @property
    def seat(self) -> int: ...
    @property
    def dealer(self) -> int: ...
    @property
    def trump(self) -> int: ...
    @property
    def hand(self) -> int: ...
    @property
    def played(self) -> int: ...
    @property
    def public(self) -> dict[str, Any]: ...
    @property
    def private(self) -> dict[str, Any]: ...


class CardInference:
    """A family's card-play obligations read backwards, and its facts about hands. The
    base infers nothing beyond following suit (which the caller handles)."""

    def __init__(self, view: SeatKnowledge) -> None:
        self.view = view
        self.trump = view.trump

    def known_cards(self, known: MutableSequence[int], excluded: MutableSequence[int]) -> None:
        """Add to ``known[seat]`` the cards the family's facts show ``seat`` holds, and to
        ``excluded[seat]`` those it cannot hold."""

    def on_lead(self, card_id: int, played_before: int, leads: list[int]) -> int:
        """Cards the leader of a trick cannot have held, given it led ``card_id`` after
        the cards ``played_before`` (a mask) in tricks led in the suits ``leads``."""
        return 0

    def on_follow(self, card_id: int, led: int, win: int, trumped: bool, leads: list[int]) -> int:
        """Cards a follower cannot have held, given it played ``card_id`` to a trick led in
        ``led`` whose winning card so far was ``win`` (a trump if ``trumped``); ``leads``
        are the suits led to the earlier tricks of the deal. Void in the suit led is
        handled by the caller."""
        return 0


def names_mask(names: object) -> int:
    """The mask of a list of card names from a view (nothing for None)."""
    mask = 0
    if isinstance(names, (list, tuple)):
        for name in names:
            mask |= BIT[parse_card(str(name))]
    return mask
