"""Small card-play facts that every greedy policy needs, computed from a view."""

from __future__ import annotations

from engine.cards import RANK_OF, SUIT_MASKS, SUIT_OF, cards_of, winning_card

__all__ = [
    "beats",
    "high_card_points",
    "is_boss",
    "is_last_to_play",
    "play_to_win",
    "suit_length",
    "winning_card",
]
from engine.game import PlayerView


def beats(card: int, best: int, trump: int) -> bool:
    """Would ``card`` take the lead from ``best`` in a trick?"""
    suit, best_suit = SUIT_OF[card], SUIT_OF[best]
    return (suit == best_suit and card > best) or (suit == trump and best_suit != trump)


def is_last_to_play(view: PlayerView) -> bool:
    return len(view.trick) == view.num_seats - 1


def suit_length(hand: int, suit: int) -> int:
    return (hand & SUIT_MASKS[suit]).bit_count()


def high_card_points(hand: int) -> int:
    """Milton Work points: A 4, K 3, Q 2, J 1."""
    return sum(max(0, RANK_OF[c] - 8) for c in cards_of(hand))


def is_boss(card: int, played: int, hand: int) -> bool:
    """No unplayed card of the suit held by someone else ranks above ``card``."""
    above = SUIT_MASKS[SUIT_OF[card]] & ~((1 << (card + 1)) - 1)
    return not above & ~played & ~hand


def play_to_win(view: PlayerView) -> int:
    """Win tricks cheaply: lead a sure winner, else low; when following, win with the
    lowest winner as last to play, else the highest; else throw the lowest card."""
    legal = view.legal
    trump = view.trump
    if not view.trick:
        bosses = [c for c in legal if is_boss(c, view.played, view.hand)]
        if bosses:
            return max(bosses, key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c]))
        return min(legal, key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c]))
    best = winning_card(view.trick, trump)
    winners = [c for c in legal if beats(c, best, trump)]
    if winners:
        if is_last_to_play(view):
            return min(winners, key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c]))
        return max(winners, key=lambda c: (SUIT_OF[c] != trump, RANK_OF[c]))
    return min(legal, key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c]))
