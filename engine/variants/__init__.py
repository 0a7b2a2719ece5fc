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
    FAMILIES[game_class.family] = game_class


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
