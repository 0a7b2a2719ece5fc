"""Greedy play for King (Brazilian and Denexa rules): duck in the negative hands and in
down hands, win in up hands, and bid, accept and choose by a rough count of tricks.

The count: ``up_tricks`` expects about one trick per ace, three quarters of one per
guarded king, half of one per queen with two guards, and most of the length beyond
three cards in the trump suit; ``down_tricks`` expects a trick for each high card that
has too few low cards of its suit to hide behind. A positive hand is worth 325 in all,
so an average share is about 81 points (3.25 tricks up). Both counts are calibrated on
greedy self-play (see ``DOWN_CALIBRATION``).
"""

from __future__ import annotations

import random

from engine.cards import RANK_OF, SUIT_MASKS, SUIT_OF, cards_of
from engine.game import ACCEPT, NO_TRUMP_ACTION, PASS, TRUMP_ACTIONS, PlayerView
from engine.players.tactics import beats, is_last_to_play, play_to_win, suit_length, winning_card
from engine.variants.king import (
    AUCTION,
    DECLINE,
    DOWN_ACTION,
    DOWN_START_POINTS,
    DOWN_TRICK_POINTS,
    FOIL,
    FOIL_SCORES,
    MATCH,
    NEGATIVE_CONTRACTS,
    NOMINATE_ACTIONS,
    PENALTY_MASK,
    ULTIMATUM,
    UP_ACTION,
    UP_TRICK_POINTS,
    bid_direction,
    bid_tricks,
    bid_value,
    is_bid,
)

FAIR_SHARE = 3.25
"""Tricks of an average player in a positive hand (325 points shared by four)."""
ULTIMATUM_TRICKS_NEEDED = 10.5
UP_CALIBRATION = 0.5
DOWN_CALIBRATION = (1.3, 1.5)
"""Fitted on greedy self-play of positive hands (300 random deals): the raw counts
underestimate, mostly in down hands, where the actual tricks are about 1.3 + 1.5 x raw."""


def greedy_king(view: PlayerView, rng: random.Random) -> int:
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    phase = view.phase
    if phase == "play":
        return _play(view)
    if phase == "nominate":
        # The first dealer's right-hand neighbour is the last Beneficiary: be that player.
        return NOMINATE_ACTIONS + (view.seat + 1) % view.num_seats
    if phase == "auction":
        return _bid(view)
    if phase == "ultimatum":
        takes = up_tricks(view.hand, best_trump(view.hand)) >= ULTIMATUM_TRICKS_NEEDED
        return next(a for a in legal if a != PASS) if takes else PASS
    if phase == "accept":
        return _answer_bid(view)
    if phase == "direction":
        return _choose_direction(view)
    if phase == "trump":
        return _choose_trump(view)
    return _decide_benefit(view)


# --- counting tricks ------------------------------------------------------------------


def up_tricks(hand: int, trump: int) -> float:
    """Tricks this hand should take playing to win with ``trump`` (-1: no trumps)."""
    total = 0.0
    for suit in range(4):
        held = hand & SUIT_MASKS[suit]
        length = held.bit_count()
        ranks = {RANK_OF[c] for c in cards_of(held)}
        total += 12 in ranks
        total += 0.75 * (11 in ranks and length >= 2) + 0.25 * (11 in ranks and length == 1)
        total += 0.5 * (10 in ranks and length >= 3)
        if suit == trump:
            total += 0.9 * max(0, length - 3)
        elif trump < 0 and 12 in ranks:
            total += 0.4 * max(0, length - 4)
    return UP_CALIBRATION + total


def down_tricks(hand: int) -> float:
    """Tricks this hand is likely to be forced to take when playing to lose them."""
    total = 0.0
    for suit in range(4):
        ranks = sorted(RANK_OF[c] for c in cards_of(hand & SUIT_MASKS[suit]))
        low = sum(1 for r in ranks if r <= 4)  # 2..6 hide high cards
        high = sum(1 for r in ranks if r >= 9)  # J..A
        total += max(0.0, high - 0.8 * low) * 0.7
    return DOWN_CALIBRATION[0] + DOWN_CALIBRATION[1] * total


def best_trump(hand: int) -> int:
    """The suit (or -1 for no trumps) that makes the most tricks for this hand."""
    return max((-1, 0, 1, 2, 3), key=lambda t: up_tricks(hand, t))


def _trump_action(trump: int) -> int:
    return NO_TRUMP_ACTION if trump < 0 else TRUMP_ACTIONS + trump


def _up_points(tricks: float) -> float:
    return UP_TRICK_POINTS * tricks


def _down_points(tricks: float) -> float:
    return DOWN_START_POINTS - DOWN_TRICK_POINTS * tricks


# --- the positive hands' decisions ----------------------------------------------------


def _own_play(view: PlayerView) -> tuple[float, float]:
    """What playing the hand oneself is worth: (up with the best trumps, down)."""
    hand = view.hand
    return _up_points(up_tricks(hand, best_trump(hand))), _down_points(down_tricks(hand))


def _decide_benefit(view: PlayerView) -> int:
    """The Beneficiary's first word: foil, ultimatum, auction, or decide the hand."""
    legal = set(view.legal)
    up, down = _own_play(view)
    if view.game.rules.positive_mode == "up_only":
        down = 0.0
    best = max(up, down)
    if FOIL in legal and FOIL_SCORES[0] > best:
        return FOIL
    if ULTIMATUM in legal and down >= max(up, 150.0):
        return ULTIMATUM  # someone pays 8 up, or the hand is played down: both suit us
    if AUCTION in legal and best < 110:
        return AUCTION
    if UP_ACTION in legal:
        return DOWN_ACTION if down > up and DOWN_ACTION in legal else UP_ACTION
    # Trumps are named first (Denexa order): the best trumps to play up, none to play down.
    return NO_TRUMP_ACTION if down > up else _trump_action(best_trump(view.hand))


def _choose_trump(view: PlayerView) -> int:
    legal = set(view.legal)
    if FOIL in legal and FOIL_SCORES[0] > max(_own_play(view)):
        return FOIL
    if view.public.get("direction") == "down":
        return NO_TRUMP_ACTION if NO_TRUMP_ACTION in legal else view.legal[0]
    action = _trump_action(best_trump(view.hand))
    return action if action in legal else view.legal[0]


def _choose_direction(view: PlayerView) -> int:
    legal = set(view.legal)
    if FOIL in legal and FOIL_SCORES[0] > max(_own_play(view)):
        return FOIL
    hand = view.hand
    owed = view.public.get("bid_tricks", 0) if view.public.get("auction_winner", -1) >= 0 else 0
    rules = view.game.rules
    up_count = up_tricks(hand, view.trump)
    if view.seat != view.public.get("trump_chooser"):
        up_count *= 0.7  # somebody else chose the trumps to suit their own hand
    down_count = down_tricks(hand)
    if owed:
        up_count += owed  # the winner gives the Beneficiary its bid after an up hand
        if rules.payment == "by_direction":
            down_count -= owed  # ... and receives the Beneficiary's tricks after a down hand
        else:
            down_count += owed
    if UP_ACTION not in legal:
        return DOWN_ACTION
    if DOWN_ACTION not in legal:
        return UP_ACTION
    return UP_ACTION if _up_points(up_count) >= _down_points(down_count) else DOWN_ACTION


def _bid(view: PlayerView) -> int:
    """Bid the cheapest bid the hand can afford; match when preference allows."""
    legal = view.legal
    hand = view.hand
    can_up = up_tricks(hand, best_trump(hand)) - FAIR_SHARE - 0.25
    can_down = FAIR_SHARE - down_tricks(hand)

    def affordable(action: int) -> bool:
        if bid_direction(action) == 1:
            return bid_tricks(action) <= can_down
        return bid_tricks(action) <= can_up

    high = view.public.get("high_bid")
    if MATCH in legal and high is not None and affordable(view.game.parse_action(high)):
        return MATCH
    bids = [a for a in legal if is_bid(a) and affordable(a)]
    if bids:
        return min(bids, key=bid_value)
    if PASS in legal:
        return PASS
    return min((a for a in legal if is_bid(a)), key=bid_value)


def _answer_bid(view: PlayerView) -> int:
    """Accept, decline or foil: whichever should score the Beneficiary most."""
    legal = set(view.legal)
    bid = view.game.parse_action(view.public["high_bid"])
    hand = view.hand
    k = bid_tricks(bid)
    if bid_direction(bid) == 1:
        accepted = _down_points(max(0.0, down_tricks(hand) - k))
    else:
        accepted = _up_points(0.7 * up_tricks(hand, -1) + k)
    options = {ACCEPT: accepted}
    if DECLINE in legal:
        options[DECLINE] = max(_own_play(view))
    if FOIL in legal:
        options[FOIL] = float(FOIL_SCORES[0])
    return max(options, key=lambda a: options[a])


# --- card play ------------------------------------------------------------------------


def _play(view: PlayerView) -> int:
    public = view.public
    if public.get("positive"):
        if public.get("direction") == "up":
            return play_to_win(view)
        return _play_to_avoid(view, 0, view.trump)
    penalty = 0
    for name in public.get("negative", ()):
        penalty |= PENALTY_MASK[NEGATIVE_CONTRACTS.index(name)]
    return _play_to_avoid(view, penalty, -1)


def _play_to_avoid(view: PlayerView, penalty: int, trump: int) -> int:
    legal = view.legal
    if not view.trick:
        # Lead low from a long suit; keep penalty cards and trumps back.
        safe = [c for c in legal if not penalty >> c & 1] or list(legal)
        return min(
            safe,
            key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c], -suit_length(view.hand, SUIT_OF[c])),
        )
    best = winning_card(view.trick, trump)
    ducks = [c for c in legal if not beats(c, best, trump)]
    if ducks:
        # The highest card that still loses: penalty cards first, trumps last.
        return max(ducks, key=lambda c: (penalty >> c & 1, SUIT_OF[c] != trump, RANK_OF[c]))
    if is_last_to_play(view):
        clean = [c for c in legal if not penalty >> c & 1]
        return max(clean, key=lambda c: RANK_OF[c]) if clean else min(legal)
    return min(legal, key=lambda c: (penalty >> c & 1, RANK_OF[c]))
