"""Reference players inside the engine: ``random`` and ``greedy``.

A player is anything with ``choose(view) -> action``; it sees only a PlayerView, never a
State. ``greedy`` dispatches on the view's family to a policy of rules of thumb
(``GREEDY_POLICIES``: the engine's families' from engine/players/greedy_*.py). Stronger
bots live in ``bots/``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from engine.errors import EngineError
from engine.game import PlayerView
from engine.players.greedy_king import greedy_king
from engine.players.greedy_kingen import greedy_kingen
from engine.players.greedy_kung_och_adel import greedy_kung_och_adel
from engine.players.greedy_priffe import greedy_priffe


class Player(Protocol):
    def choose(self, view: PlayerView) -> int: ...


GreedyPolicy = Callable[[PlayerView, random.Random], int]
GREEDY_POLICIES: dict[str, GreedyPolicy] = {
    "king": greedy_king,
    "kingen": greedy_kingen,
    "dubbelkingen": greedy_kingen,
    "kung_och_adel": greedy_kung_och_adel,
    "priffe": greedy_priffe,
}
"""The greedy policy of each family, by family name (a family defined elsewhere, such as a
test's, adds its own)."""


def any_legal(view: PlayerView, rng: random.Random) -> int:
    """The policy of a family without rules of thumb: any legal action."""
    return rng.choice(view.legal)


def greedy_policy_of(family: str) -> GreedyPolicy:
    """The family's greedy policy, or :func:`any_legal` when it has none."""
    return GREEDY_POLICIES.get(family, any_legal)


class RandomPlayer:
    """Uniform over the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView) -> int:
        return self.rng.choice(view.legal)


class GreedyPlayer:
    """Sensible rules of thumb per family; ties broken by its seeded generator. A family
    without a policy in ``GREEDY_POLICIES`` is played like ``random``."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView) -> int:
        return greedy_policy_of(view.game.family)(view, self.rng)


PLAYERS: dict[str, Callable[[int | None], Player]] = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
}


def make_player(name: str, seed: int | None = None) -> Player:
    """A reference player by name; EngineError naming the known ones otherwise."""
    factory = PLAYERS.get(name)
    if factory is None:
        raise EngineError(f"unknown player {name!r} (known: {', '.join(sorted(PLAYERS))})")
    return factory(seed)
