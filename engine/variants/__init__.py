"""The registry of game families: ``load_game`` turns a game string into a Game."""

from __future__ import annotations

from typing import Any

from engine.errors import InvalidGameError
from engine.game import Game
from engine.options import parse_game_string
from engine.variants.king import KingGame
from engine.variants.kingen import DubbelkingenGame, KingenGame
from engine.variants.kung_och_adel import KungOchAdelGame
from engine.variants.priffe import PriffeGame

FAMILIES: dict[str, type[Game[Any]]] = {
    KingenGame.family: KingenGame,
    DubbelkingenGame.family: DubbelkingenGame,
    KingGame.family: KingGame,
    KungOchAdelGame.family: KungOchAdelGame,
    PriffeGame.family: PriffeGame,
}
"""Every playable family by its game-string name. A new family registers here."""


def register_family(game_class: type[Game[Any]]) -> None:
    """Make ``game_class`` playable under its ``family`` name (``load_game`` finds it).

    A family describes itself on its Game class (seats and their roles, partnerships, the
    length option, names for people: docs/engine.md), so registering it is all the
    league, the bots and the pages need. Registering a name twice replaces the class;
    ``unregister_family`` removes it again (tests register families of their own)."""
    if not game_class.family.isidentifier():
        raise InvalidGameError(f"not a family name: {game_class.family!r}")
    FAMILIES[game_class.family] = game_class


def unregister_family(family: str) -> None:
    """Forget a family registered with ``register_family`` (nothing if unknown)."""
    FAMILIES.pop(family, None)


def load_game(text: str) -> Game[Any]:
    """Parse and validate a game string such as ``kingen(rules=iwwa,players=5)``.

    Raises InvalidGameError naming the unknown family, option or bad value.
    """
    family, raw = parse_game_string(text)
    game_class = FAMILIES.get(family)
    if game_class is None:
        raise InvalidGameError(
            f"unknown game {family!r} (known games: {', '.join(sorted(FAMILIES))})"
        )
    rules, preset = game_class.rules_class.from_options(raw)
    return game_class(rules, preset)
