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
