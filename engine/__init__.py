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

The engine is also a distribution of its own for bot authors (``pip install ./engine``:
engine/pyproject.toml, no Django), and the league puts the same files on the path of
every Python bot in the sandbox: ``engine.protocol_view.view_from_json`` rebuilds a request's view,
``engine.hidden_hands.search_state`` draws a full state consistent with it to search.
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
from engine.game import CHANCE, TERMINAL, Game, PlayerView, ScoringUnit, SeatRole, State, TrickView
from engine.variants import FAMILIES, load_game, register_family, unregister_family

__version__ = "1.0.0"
"""The distribution's version; its major number is the bot protocol's version
(bots.protocol.PROTOCOL_VERSION; tests/bots/test_engine_distribution.py holds them equal),
so a bot written against protocol 1 asks for ``king-league-engine>=1,<2``."""

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
    "__version__",
    "load_game",
    "register_family",
    "unregister_family",
]
