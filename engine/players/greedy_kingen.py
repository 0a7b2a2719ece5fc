"""Greedy play for Kingen and Dubbelkingen: duck in the negative contracts, win in trumps."""

from __future__ import annotations

import random

from engine.cards import RANK_OF, SUIT_MASKS, SUIT_OF, cards_of
from engine.game import ACCEPT, PASS, REJECT, TRUMP_ACTIONS, PlayerView
from engine.players.tactics import (
    beats,
    high_card_points,
    is_last_to_play,
    play_to_win,
    suit_length,
    winning_card,
)
from engine.variants.kingen import (
    CONTRACT_ACTIONS,
    NEGATIVE_CONTRACTS,
    OFFER_ACTIONS,
    PENALTY_MASK,
)


def greedy_kingen(view: PlayerView, rng: random.Random) -> int:
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    phase = view.phase
    if phase == "trump":
        return TRUMP_ACTIONS + _best_trump_suit(view.hand)
    if phase == "offer":
        return _offer(view)
    if phase == "accept":
        best = max(o["offer"] for o in view.public.get("offers", []))
        return ACCEPT if best >= 2 else REJECT
    if phase == "contract":
        return _choose_contract(view)
    contract = view.public.get("contract")
    if contract == "trumps":
        return play_to_win(view)
    return _play_to_avoid(view, contract or "tricks")


def _best_trump_suit(hand: int) -> int:
    return max(
        range(4), key=lambda s: (suit_length(hand, s), high_card_points(hand & SUIT_MASKS[s]))
    )


def _offer(view: PlayerView) -> int:
    best = max((o["offer"] for o in view.public.get("offers", [])), default=0)
    longest = max(suit_length(view.hand, s) for s in range(4))
    want = longest - 4
    if want > best and OFFER_ACTIONS + want in view.legal:
        return OFFER_ACTIONS + want
    return PASS


def _choose_contract(view: PlayerView) -> int:
    """Dubbelkingen: trumps with a long suit, else the negative that costs this hand least."""
    hand = view.hand
    legal = set(view.legal)
    trump = TRUMP_ACTIONS + _best_trump_suit(hand)
    strong = max(suit_length(hand, s) for s in range(4)) >= 5 or high_card_points(hand) >= 14
    if trump in legal and (strong or not legal - {TRUMP_ACTIONS + s for s in range(4)}):
        return trump
    high = sum(1 for c in cards_of(hand) if RANK_OF[c] >= 9)
    risk = {
        "tricks": high * 1.0,
        "hearts": (hand & SUIT_MASKS[2]).bit_count() * 0.8 + high * 0.2,
        "kings_jacks": (hand & PENALTY_MASK[2]).bit_count() * 1.5,
        "queens": (hand & PENALTY_MASK[3]).bit_count() * 2.0,
        "king_of_hearts": 5.0 if hand & PENALTY_MASK[4] else 0.5,
        "seventh_last": high * 0.4,
    }
    options = [a for a in view.legal if a >= CONTRACT_ACTIONS]
    if not options:
        return trump if trump in legal else view.legal[0]
    return min(options, key=lambda a: risk[NEGATIVE_CONTRACTS[a - CONTRACT_ACTIONS]])


def _play_to_avoid(view: PlayerView, contract: str) -> int:
    legal = view.legal
    penalty = PENALTY_MASK[NEGATIVE_CONTRACTS.index(contract)]
    if not view.trick:
        # Lead the lowest card, from the suit where it is lowest; keep penalty cards.
        safe = [c for c in legal if not penalty >> c & 1] or list(legal)
        return min(safe, key=lambda c: (RANK_OF[c], -suit_length(view.hand, SUIT_OF[c])))
    best = winning_card(view.trick, -1)
    led = SUIT_OF[view.trick[0]]
    if SUIT_OF[legal[0]] == led and all(SUIT_OF[c] == led for c in legal):
        ducks = [c for c in legal if not beats(c, best, -1)]
        if ducks:
            return max(ducks, key=lambda c: (penalty >> c & 1, c))
        if is_last_to_play(view):
            clean = [c for c in legal if not penalty >> c & 1]
            return max(clean) if clean else min(legal)
        return min(legal)
    # Void: throw penalty cards first, then the highest card.
    return max(legal, key=lambda c: (penalty >> c & 1, RANK_OF[c]))
