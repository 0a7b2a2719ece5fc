"""Helpers for rules tests: hand-made deals and scripted play through the public API."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine import CHANCE, Chance, State, load_game
from engine.cards import cards_of, mask_of, parse_card
from engine.chance import DEAL, FIRST_DEALER
from engine.game import TrickTakingState


def cards(text: str) -> int:
    """A mask from card strings: ``cards("AH 2H 3C")``."""
    return mask_of(parse_card(c) for c in text.split())


def complete_deal(
    fixed: Sequence[str], deck: int, hand_size: int, seed: int = 0
) -> tuple[int, ...]:
    """Hands where each seat holds the cards given in ``fixed`` and the rest of the deck is
    spread at random over the seats that still need cards."""
    hands = [cards(text) for text in fixed]
    rest = cards_of(deck & ~mask_of(c for h in hands for c in cards_of(h)))
    random.Random(seed).shuffle(rest)
    for seat, hand in enumerate(hands):
        need = hand_size - hand.bit_count()
        if need < 0:
            raise ValueError(f"seat {seat} is given more than {hand_size} cards")
        hands[seat] = hand | mask_of(rest[:need])
        rest = rest[need:]
    if rest:
        raise ValueError("cards left over")
    return tuple(hands)


def new_state(game_string: str, first_dealer: int = 0) -> TrickTakingState[Any]:
    """A state without a seed whose first dealer is chosen; deals are applied by the test."""
    state = load_game(game_string).new_initial_state(seed=None)
    assert isinstance(state, TrickTakingState)
    state.apply_chance(Chance(FIRST_DEALER, seat=first_dealer))
    return state


def deal(state: State[Any], hands: Sequence[int], exposed: int = -1) -> None:
    state.apply_chance(Chance(DEAL, tuple(hands), exposed))


def play(state: State[Any], *actions: str) -> None:
    """Apply actions given as strings (``"play QS"``, ``"trump H"``) for the seats to act."""
    for text in actions:
        state.apply_action(state.parse_action(text))


def legal_strings(state: State[Any]) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


def play_randomly_until(state: State[Any], deal_number: int, rng: random.Random) -> None:
    """Random legal play (and random chance) until deal ``deal_number``'s cards are due."""
    while not (state.current_seat == CHANCE and state.deal_number == deal_number - 1):
        if state.current_seat == CHANCE:
            state.apply_chance(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def replace_a_card_play(record: dict[str, Any], rng: random.Random) -> int:
    """Tamper with a record in place: one card play, in a deal chosen at random, becomes a
    card its seat was not dealt. Returns the index of the deal tampered with."""
    played_deals = [
        i
        for i, d in enumerate(record["deals"])
        if any(a.get("action", "").startswith("play") for a in d["actions"])
    ]
    deal_index = rng.choice(played_deals)
    actions = record["deals"][deal_index]["actions"]
    index = rng.choice([i for i, a in enumerate(actions) if a.get("action", "").startswith("play")])
    seat = actions[index]["seat"]
    dealt = next(a for a in actions if a.get("chance") == "deal")["cards"][seat]
    foreign = next(c for c in ("2C", "3C", "AS", "KH", "9D", "4S") if c not in dealt)
    actions[index] = {"seat": seat, "action": f"play {foreign}"}
    return deal_index
