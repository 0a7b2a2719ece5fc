"""A test-only family, ``toy_tricks``: the proof that a game describes itself.

Four players, twelve cards (the queens, kings and aces), three each. Each deal the seat
left of the dealer names trumps (a suit or no trumps), then three tricks are played,
following suit; a trick scores a point. A match is ``deals`` deals (2 unless the game
string says otherwise). Nothing outside this module knows the family: the league, the
bots and the pages learn all they need from the Game class (docs/engine.md, "What a
game says of itself").

    register_toy_family()      # from a test; unregister_toy_family() after it
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import BIT, RANK_ACE, RANK_KING, RANK_QUEEN, SUIT_LETTERS, SUIT_MASKS
from engine.chance import DEAL, Chance
from engine.errors import InvalidChanceError
from engine.game import NO_TRUMP_ACTION, TRUMP_ACTIONS, Game, PlayerView, TrickTakingState
from engine.options import Rules, option
from engine.variants import register_family, unregister_family

FAMILY = "toy_tricks"
SEATS = 4
HAND_SIZE = 3
PACK = tuple(suit * 13 + rank for suit in range(4) for rank in (RANK_QUEEN, RANK_KING, RANK_ACE))
PACK_MASK = sum(BIT[c] for c in PACK)


@dataclass(frozen=True, kw_only=True, slots=True)
class ToyRules(Rules):
    deals: int = option(2, "Deals in a match.", minimum=1, maximum=20)


class ToyGame(Game[ToyRules]):
    family = FAMILY
    rules_class = ToyRules
    title = "Toy Tricks"
    length_option = "deals"
    examples = ("toy_tricks", "toy_tricks(deals=1)")

    @property
    def num_seats(self) -> int:
        return SEATS

    @property
    def deal_count(self) -> int:
        return self.rules.deals

    @property
    def deck(self) -> int:
        return PACK_MASK

    def new_initial_state(self, seed: int | None = None) -> ToyState:
        return ToyState(self, seed)


class ToyState(TrickTakingState[ToyGame]):
    __slots__ = ()

    def __init__(self, game: ToyGame, seed: int | None) -> None:
        super().__init__(game, seed)
        self.tricks_per_deal = HAND_SIZE
        self.plain_play = True  # only follow suit
        if self.rng is not None:
            self._resolve_chance()

    def _sample_chance(self, rng: random.Random) -> Chance:
        pack = list(PACK)
        rng.shuffle(pack)
        return Chance(
            DEAL,
            tuple(sum(BIT[c] for c in pack[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(4)),
        )

    def _apply_chance(self, event: Chance) -> None:
        if event.kind != DEAL or len(event.cards) != SEATS or event.exposed >= 0:
            raise InvalidChanceError("a deal of three cards to each of four seats is due")
        union = 0
        for hand in event.cards:
            if hand.bit_count() != HAND_SIZE or hand & ~PACK_MASK or hand & union:
                raise InvalidChanceError("each seat is dealt three of the queens, kings, aces")
            union |= hand
        self.deal_number += 1
        self.dealer = (self.deal_number - 1) % SEATS
        self.hands = list(event.cards)
        self.trump = -1
        self.phase = "trumps"
        self.current_seat = (self.dealer + 1) % SEATS
        self._legal_cache = None

    def _bidding_actions(self) -> list[int]:
        if self.phase != "trumps":
            return []
        return [*range(TRUMP_ACTIONS, TRUMP_ACTIONS + 4), NO_TRUMP_ACTION]

    def _apply_bid(self, action: int) -> None:
        if self.phase != "trumps" or action not in self._bidding_actions():
            raise self._illegal("name trumps: a suit or NT", action)
        self.trump = -1 if action == NO_TRUMP_ACTION else action - TRUMP_ACTIONS
        self._start_play((self.dealer + 1) % SEATS)

    def _play_rule(self) -> tuple[int, str]:
        hand = self.hands[self.current_seat]
        if self.trick and hand & SUIT_MASKS[self.led_suit]:
            return hand & SUIT_MASKS[self.led_suit], self.REASON_FOLLOW
        return hand, ""

    def _after_trick(self, winner: int) -> None:
        self._finish_deal(list(self.tricks_won))

    def contract_name(self) -> str:
        if self.phase != "play":
            return ""
        return "no trumps" if self.trump < 0 else f"trumps ({SUIT_LETTERS[self.trump]})"

    def view_for(self, seat: int) -> PlayerView:
        return self._view(seat, {"pack": "queens, kings and aces"})

    def _legal_for_view(self, seat: int) -> tuple[int, ...]:
        return tuple(self.legal_actions()) if seat == self.current_seat else ()


def register_toy_family() -> None:
    register_family(ToyGame)


def unregister_toy_family() -> None:
    unregister_family(FAMILY)


def play_out(game: str, seed: int, choose: Any) -> Sequence[int]:
    """Play a game of the toy family to its end with ``choose(view) -> action``; its scores."""
    from engine.variants import load_game

    state = load_game(game).new_initial_state(seed=seed)
    while not state.is_terminal():
        seat = state.acting_seat()
        state.apply_action(choose(state.view_for(seat)), seat=seat)
    return state.scores()
