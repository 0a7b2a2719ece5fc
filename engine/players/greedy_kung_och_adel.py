"""Greedy play for Kung och Adel: win tricks, keep winners, pass away losers.

Every seat wants at least its quota, and taking more never hurts: a higher rank that
fails drops below you. So the policy plays to win every trick it can. The monarch names
its longest suit trumps and orders a redeal of a court-less hand unless it holds a long
suit; tribute among equal cards comes from the shortest suit (keeping guarded honours
and making a void); returns are the lowest plain cards of the shortest suits (voids to
trump in later); the monarch leads the first trick itself with a strong trump holding,
else lets the player on its left lead so that it plays last.
"""

from __future__ import annotations

import random

from engine.cards import RANK_ACE, RANK_KING, RANK_OF, SUIT_MASKS, SUIT_OF
from engine.game import TRUMP_ACTIONS, PlayerView
from engine.players.tactics import (
    beats,
    high_card_points,
    is_boss,
    is_last_to_play,
    suit_length,
    winning_card,
)
from engine.variants.kung_och_adel import (
    LEAD_ACTIONS,
    MONARCH,
    REDEAL_ACTION,
    RETURN_ACTIONS,
    TRIBUTE_ACTIONS,
)


def greedy_kung_och_adel(view: PlayerView, rng: random.Random) -> int:
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    phase = view.phase
    if phase == "trump":
        return _trump_or_redeal(view)
    if phase == "tribute":
        return _tribute(view)
    if phase == "return":
        return _card_to_return(view)
    if phase == "lead":
        return _first_leader(view)
    return _play_to_win(view)


def _best_trump_suit(hand: int) -> int:
    return max(
        range(4), key=lambda s: (suit_length(hand, s), high_card_points(hand & SUIT_MASKS[s]))
    )


def _trump_or_redeal(view: PlayerView) -> int:
    hand = view.hand
    longest = max(suit_length(hand, s) for s in range(4))
    if REDEAL_ACTION in view.legal and longest <= hand.bit_count() // 2:
        return REDEAL_ACTION
    return TRUMP_ACTIONS + _best_trump_suit(hand)


def _tribute(view: PlayerView) -> int:
    """Forced cards (trumps) first; among equal cards the one from the shortest suit."""
    hand = view.hand
    cards = [a - TRIBUTE_ACTIONS for a in view.legal]
    give = min(
        cards,
        key=lambda c: (SUIT_OF[c] != view.trump, -RANK_OF[c], suit_length(hand, SUIT_OF[c])),
    )
    return TRIBUTE_ACTIONS + give


def _card_to_return(view: PlayerView) -> int:
    """A low plain card, from the shortest suit (a void lets the trumps work)."""
    hand = view.hand
    trump = view.trump

    def cost(c: int) -> tuple[bool, bool, int, int]:
        suit = SUIT_OF[c]
        return (suit == trump, RANK_OF[c] >= RANK_KING, suit_length(hand, suit), RANK_OF[c])

    return RETURN_ACTIONS + min((a - RETURN_ACTIONS for a in view.legal), key=cost)


def _first_leader(view: PlayerView) -> int:
    """Lead with a strong trump holding (draw trumps); else play last to the first trick."""
    trumps = view.hand & SUIT_MASKS[view.trump]
    top_trump = bool(trumps) and RANK_OF[trumps.bit_length() - 1] == RANK_ACE
    monarch: int = view.public["seats_by_rank"][MONARCH]
    if top_trump or trumps.bit_count() >= 5:
        return LEAD_ACTIONS + monarch
    return LEAD_ACTIONS + (monarch + 1) % view.num_seats


def _play_to_win(view: PlayerView) -> int:
    legal = view.legal
    trump = view.trump
    if not view.trick:
        bosses = [c for c in legal if is_boss(c, view.played, view.hand)]
        if bosses:
            return max(bosses, key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c]))
        # No sure winner: lead low from the longest plain suit, to set up its cards.
        return min(
            legal,
            key=lambda c: (SUIT_OF[c] == trump, -suit_length(view.hand, SUIT_OF[c]), RANK_OF[c]),
        )
    best = winning_card(view.trick, trump)
    winners = [c for c in legal if beats(c, best, trump)]
    if winners:
        if is_last_to_play(view):
            return min(winners, key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c]))
        return max(winners, key=lambda c: (SUIT_OF[c] != trump, RANK_OF[c]))
    # Cannot win: throw the cheapest card, a plain one from the shortest suit.
    return min(
        legal,
        key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c], suit_length(view.hand, SUIT_OF[c])),
    )
