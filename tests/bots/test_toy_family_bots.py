"""Every built-in bot plays a family it has never heard of (the test-only toy family of
tests/engine/toy_family.py): they pick among the legal actions, and what the strong bot
infers about the hidden hands it asks of the game."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bots.builtin import BUILTIN_PLAYERS
from bots.builtin.hidden_hands import hand_constraints
from engine import load_game
from tests.engine.toy_family import PACK_MASK, play_out, register_toy_family, unregister_toy_family


@pytest.fixture(autouse=True)
def toy_family() -> Iterator[None]:
    register_toy_family()
    yield
    unregister_toy_family()


@pytest.mark.parametrize("name", sorted(BUILTIN_PLAYERS))
def test_a_built_in_bot_plays_a_family_it_does_not_know(name: str) -> None:
    players = [BUILTIN_PLAYERS[name](seed) for seed in range(4)]
    scores = play_out("toy_tricks(deals=2)", 11, lambda view: players[view.seat].choose(view))
    assert sum(scores) == 2 * 3  # every trick of both deals was played and scored


def test_hidden_hands_of_a_family_are_read_from_what_the_game_says() -> None:
    state = load_game("toy_tricks").new_initial_state(seed=4)
    state.apply_action(state.legal_actions()[0])  # trumps
    view = state.view_for(state.current_seat)
    constraints = hand_constraints(view)  # the toy's deck: twelve cards, not fifty-two
    assert constraints.pool | view.hand == PACK_MASK
    assert sum(constraints.sizes) == 12
