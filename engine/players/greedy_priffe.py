"""Greedy play for Priffe: bid what the hand can make, win tricks for the side in trumps
and spel, duck in noll, and gang up on a misère bidder.

The träkarl's partner also plays the träkarl: when a view's ``to_act`` is not its own
seat, the cards to choose from are the träkarl's (``public["trakarl"]["hand"]``).
"""

from __future__ import annotations

import random
from typing import Any

from engine.cards import RANK_OF, SUIT_OF, cards_of, mask_of, parse_card
from engine.game import PASS, PlayerView
from engine.players.tactics import (
    beats,
    high_card_points,
    is_boss,
    is_last_to_play,
    suit_length,
    winning_card,
)
from engine.variants.priffe import (
    BID_ACTIONS,
    CLUBS_BID,
    DIAMONDS_BID,
    HEARTS_BID,
    MISERE,
    NOLL,
    SPADES_BID,
    SPEL,
)

RANK_TEN = 8


def greedy_priffe(view: PlayerView, rng: random.Random) -> int:
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    if view.phase == "bid":
        return _bid(view)
    public = view.public
    hand = _acting_hand(view)
    contract = public.get("contract")
    if contract == "misere":
        if view.to_act == public["declarer"]:
            return _play_to_avoid(view)
        return _play_against_misere(view, public["declarer"])
    if contract == "noll":
        return _play_to_avoid(view)
    return _play_to_win(view, hand)


def _acting_hand(view: PlayerView) -> int:
    """The hand the view's seat plays now: its own, or the träkarl's it controls."""
    if view.to_act != view.seat and "trakarl" in view.public:
        shown = view.public["trakarl"]["hand"] or []
        return mask_of(parse_card(c) for c in shown)
    return view.hand


# --- bidding --------------------------------------------------------------------------


def _bid(view: PlayerView) -> int:
    hand = view.hand
    legal = set(view.legal)
    public = view.public
    partner = _partner(public, view.seat)
    partner_bid = max((_level(b["bid"]) for b in public["bids"] if b["seat"] == partner), default=0)
    wanted = _wanted_bids(hand, partner_strong=partner_bid in (CLUBS_BID, SPADES_BID))
    for level in wanted:
        if BID_ACTIONS + level not in legal:
            continue
        if partner_bid > SPADES_BID and level not in (SPEL, MISERE):
            break  # leave partner's contract alone
        return BID_ACTIONS + level
    return PASS


def _wanted_bids(hand: int, *, partner_strong: bool) -> list[int]:
    """The bids this hand would like to make, best first."""
    points = high_card_points(hand)
    lengths = [suit_length(hand, s) for s in range(4)]
    high = sum(1 for c in cards_of(hand) if RANK_OF[c] >= RANK_TEN)
    boost = 3 if partner_strong else 0
    wanted: list[int] = []
    if high == 0 and max(RANK_OF[c] for c in cards_of(hand)) <= 6:
        wanted.append(MISERE)
    if points + boost >= 18 and min(lengths) >= 2:
        wanted.append(SPEL)
    for level, suit in ((HEARTS_BID, 2), (DIAMONDS_BID, 1)):
        length = lengths[suit]
        if (length >= 5 and points + boost >= 11) or (length >= 6 and points + boost >= 8):
            wanted.append(level)
    if points <= 6 and high <= 3:
        wanted.append(NOLL)
    if points >= 13:
        wanted.append(SPADES_BID)
    elif points >= 10:
        wanted.append(CLUBS_BID)
    return wanted


def _level(name: str) -> int:
    names = ("pass", "clubs", "spades", "diamonds", "hearts", "noll", "spel", "misere")
    return names.index(name)


# --- play -----------------------------------------------------------------------------


def _partner(public: dict[str, Any], seat: int) -> int:
    for pair in public["partners"]:
        if seat in pair:
            return int(pair[0] if pair[1] == seat else pair[1])
    raise ValueError(f"seat {seat} is in no partnership")


def _trick_winner_seat(view: PlayerView) -> int:
    """The seat winning the current trick so far (the seating of the rubber decides who
    played which card)."""
    seating = view.public["seating"]
    best = winning_card(view.trick, view.trump)
    position = seating.index(view.leader) + view.trick.index(best)
    return int(seating[position % len(seating)])


def _play_to_win(view: PlayerView, hand: int) -> int:
    legal = view.legal
    trump = view.trump
    known = hand | view.hand
    if not view.trick:
        bosses = [c for c in legal if is_boss(c, view.played, known)]
        if bosses:
            return max(bosses, key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c]))
        return min(legal, key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c]))
    partner = _partner(view.public, view.to_act)
    best = winning_card(view.trick, trump)
    partner_wins = _trick_winner_seat(view) == partner
    if partner_wins and (is_last_to_play(view) or is_boss(best, view.played, known)):
        return min(legal, key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c]))
    winners = [c for c in legal if beats(c, best, trump)]
    if winners:
        if is_last_to_play(view):
            return min(winners, key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c]))
        return max(winners, key=lambda c: (SUIT_OF[c] != trump, RANK_OF[c]))
    return min(legal, key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c]))


def _play_to_avoid(view: PlayerView) -> int:
    """Take as few tricks as possible (noll, or the misère bidder)."""
    legal = view.legal
    if not view.trick:
        return min(legal, key=lambda c: (RANK_OF[c], SUIT_OF[c]))
    best = winning_card(view.trick, view.trump)
    led = SUIT_OF[view.trick[0]]
    if all(SUIT_OF[c] == led for c in legal):
        ducks = [c for c in legal if not beats(c, best, view.trump)]
        if ducks:
            return max(ducks)
        return max(legal) if is_last_to_play(view) else min(legal)
    return max(legal, key=lambda c: RANK_OF[c])  # void: throw the most dangerous card


def _play_against_misere(view: PlayerView, bidder: int) -> int:
    """Defend against misère: leave the bidder winning, lead low to force it to win."""
    legal = view.legal
    if not view.trick:
        return min(legal, key=lambda c: RANK_OF[c])
    best = winning_card(view.trick, view.trump)
    if _trick_winner_seat(view) == bidder:
        unders = [c for c in legal if not beats(c, best, view.trump)]
        if unders:
            return max(unders, key=lambda c: RANK_OF[c])
    return min(legal, key=lambda c: RANK_OF[c])
