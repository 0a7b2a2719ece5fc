"""What a game tells the double-dummy solver about its card play (engine/double_dummy.py).

The solver never asks a family's name: a card-play state describes its deal in two
declarations, each from a method of the state (``TrickTakingState.solver_play_rules`` and
``solver_scoring``, which every family implements for its own contracts):

- :class:`CardPlayRules`: which cards are legal, as a handful of obligations that the
  families' rules combine (follow suit; a suit that may not be led; a penalty card that
  must be played when it cannot win; trumping, overtrumping and undertrumping; a card
  that must be discarded). The solver computes legal cards from these; the tests check
  that they give exactly the engine's legal cards (the engine stays the referee).
- :class:`DealScoring`: what a seat scores from the rest of the deal: points per card
  taken and per trick won (by its index in the deal, for "the 7th and the last trick"),
  for the tricks won by the seats of its ``side``; and a final ``outcome`` of the seats'
  trick counts, each capped where more tricks change nothing (quotas, a contract's
  tricks, a payment), for the scores that are not a sum over tricks.

Both are plain data (ints, masks and tuples) so that the compiled solver reads them too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

NO_CARD = -1


@dataclass(frozen=True, slots=True)
class CardPlayRules:
    """The legal cards of a deal's card play, as obligations applied in this order.

    Leading: any card, except that no card of ``lead_ban_suit`` may be led while the
    leader holds another suit (with ``lead_ban_until_broken``: only until a card of that
    suit has been played in the deal).

    Following, holding the suit led: ``forced_card`` if held and (the trick's winning card
    is ``forced_when_beaten_by``, or ``forced_on_first_lead`` and no earlier trick of the
    deal was led in the suit led); else the cards of ``follow_penalty`` that cannot win
    (lower than the winning card) if some but not all of the suit's cards are such; else,
    with ``beat_trump_lead`` and trumps led, the trumps above the winning card if any but
    not all are; else the suit led. ``forced_card`` applies only when its suit is led.

    Void in the suit led: ``forced_card`` if held and ``forced_on_void`` (and the hand
    holds more than it); else, with ``trump_rules`` and trumps held: on a trick already
    trumped, with ``must_overtrump`` the higher trumps if any; else by ``undertrump``
    (``must_trump_anyway``: the trumps; ``no_undertrump``: the cards of other suits if
    any; ``free``: any card); not trumped yet: the trumps if ``must_trump``, else any
    card. Without trumps held or ``trump_rules``: the cards of ``discard_penalty`` if
    some but not all of the hand; else any card.
    """

    lead_ban_suit: int = -1
    lead_ban_until_broken: bool = False
    forced_card: int = NO_CARD
    forced_on_void: bool = False
    forced_when_beaten_by: int = NO_CARD
    forced_on_first_lead: bool = False
    follow_penalty: int = 0
    beat_trump_lead: bool = False
    trump_rules: bool = False
    must_trump: bool = False
    must_overtrump: bool = False
    undertrump: str = "free"
    discard_penalty: int = 0

    @property
    def plain(self) -> bool:
        """Whether following suit is the only rule."""
        return self == PLAIN_PLAY


PLAIN_PLAY = CardPlayRules()
"""Follow suit if able, else any card."""

UNDERTRUMP_CODES = {"free": 0, "must_trump_anyway": 1, "no_undertrump": 2}
"""The undertrump policies as the compiled solver numbers them."""


def _no_outcome(counts: tuple[int, ...]) -> int:
    return 0


@dataclass(frozen=True, slots=True)
class DealScoring:
    """What one seat scores from the card play of a deal, in the game's own points.

    The seat's value of the deal is the sum, over the tricks won by a seat of ``side``,
    of ``card_points`` of every card in the trick and ``trick_points`` of the trick's
    index in the deal (0 for the first trick); plus ``outcome(counts)``, where
    ``counts[counter]`` is the number of tricks won in the whole deal by the seats whose
    ``counters`` entry is ``counter``, capped at ``caps[counter]``; plus ``base``. The
    seats of ``side`` play together to raise it; the other seats together to lower it.
    """

    side: tuple[int, ...]
    """The seats that play for the seat (itself; its partner and a dummy partner)."""
    card_points: tuple[int, ...] = (0,) * 52
    trick_points: tuple[int, ...] = ()
    """Points by trick index; missing indices are worth 0."""
    counters: tuple[int, ...] = ()
    """Per seat, the index of the count its tricks go to, or -1 (empty: no counts)."""
    caps: tuple[int, ...] = ()
    outcome: Callable[[tuple[int, ...]], int] = field(default=_no_outcome)
    base: int = 0

    def outcome_table(self) -> tuple[int, ...]:
        """``outcome`` of every capped count vector, the first count varying fastest."""
        size = 1
        for cap in self.caps:
            size *= cap + 1
        table = []
        for index in range(size):
            counts = []
            rest = index
            for cap in self.caps:
                counts.append(rest % (cap + 1))
                rest //= cap + 1
            table.append(self.outcome(tuple(counts)))
        return tuple(table)
