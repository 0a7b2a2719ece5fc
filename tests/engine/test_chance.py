"""The engine's own draws must equal the standard library's: seeded deals depend on it."""

from __future__ import annotations

import random

import pytest

from engine.chance import randbelow, shuffle


@pytest.mark.parametrize("size", [1, 2, 3, 13, 17, 28, 50, 51, 52, 60])
def test_shuffle_draws_exactly_as_random_shuffle(size: int) -> None:
    for seed in range(300):
        ours, theirs = list(range(size)), list(range(size))
        mine, reference = random.Random(seed), random.Random(seed)
        shuffle(mine, ours)
        reference.shuffle(theirs)
        assert ours == theirs
        assert mine.getstate() == reference.getstate()


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 13, 51, 52, 1000])
def test_randbelow_draws_exactly_as_randrange(n: int) -> None:
    for seed in range(300):
        mine, reference = random.Random(seed), random.Random(seed)
        assert [randbelow(mine, n) for _ in range(5)] == [reference.randrange(n) for _ in range(5)]
        assert mine.getstate() == reference.getstate()


def hands_of_each_deal(game_string: str, seed: int, player_seed: int) -> list[tuple[int, ...]]:
    """The hands dealt in each deal of a seeded game played by random players."""
    from engine import load_game
    from engine.chance import DEAL, Chance

    state = load_game(game_string).new_initial_state(seed=seed)
    rng = random.Random(player_seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return [e.cards for e in state.log if isinstance(e, Chance) and e.kind == DEAL]


@pytest.mark.parametrize(
    ("game", "fixed"),
    [
        ("kingen(shuffle_policy=full_shuffle)", True),
        ("kingen", False),
        ("king", True),
        ("priffe(rubbers_per_game=1)", True),
        ("kung_och_adel(rules=riddare)", False),
    ],
)
def test_deals_fixed_by_seed_says_whether_other_play_keeps_the_cards(
    game: str, fixed: bool
) -> None:
    """Two tables with one seed and different players: the same hands deal after deal
    exactly when ``deals_fixed_by_seed`` says so (for cut-only Kingen, only the first)."""
    from engine import load_game

    assert load_game(game).deals_fixed_by_seed is fixed
    one, other = hands_of_each_deal(game, 7, 1), hands_of_each_deal(game, 7, 2)
    assert one[0] == other[0]
    shared = min(len(one), len(other))
    assert shared > 1
    assert (one[:shared] == other[:shared]) is fixed
