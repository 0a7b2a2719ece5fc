"""King League's rules engine: pure Python, no Django, no I/O at import.

Public API::

    from engine import load_game

    game = load_game("kingen(rules=iwwa)")
    state = game.new_initial_state(seed=1)
    state.legal_actions()
    state.apply_action(a)
    state.view_for(seat)
    state.is_terminal()
    state.scores()

See docs/engine.md for the model and docs/record-format.md for game records.
"""

from engine.chance import Chance
from engine.errors import (
    EngineError,
    IllegalActionError,
    InvalidCardError,
    InvalidChanceError,
    InvalidGameError,
    RecordError,
    ScoreEntryError,
)
from engine.game import CHANCE, TERMINAL, Game, ScoringUnit, SeatRole, State
from engine.variants import FAMILIES, load_game, register_family, unregister_family
from engine.view import PlayerView, TrickView

__all__ = [
    "CHANCE",
    "FAMILIES",
    "TERMINAL",
    "Chance",
    "EngineError",
    "Game",
    "IllegalActionError",
    "InvalidCardError",
    "InvalidChanceError",
    "InvalidGameError",
    "PlayerView",
    "RecordError",
    "ScoreEntryError",
    "ScoringUnit",
    "SeatRole",
    "State",
    "TrickView",
    "load_game",
    "register_family",
    "unregister_family",
]
