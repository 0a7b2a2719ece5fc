"""Built-in bots: in process, behind the same interface as uploaded ones.

``BUILTIN_PLAYERS[name](seed)`` makes a player with ``choose(view) -> action``; the bot
runner looks them up as ``builtin:NAME``. ``random`` and ``greedy`` are the engine's
reference players; ``strong`` is the search bot of ``bots.builtin.strong``; ``solver``
samples deals and solves each double dummy (``bots.builtin.solver``).
"""

from __future__ import annotations

from collections.abc import Callable

from bots.builtin.solver import SolverPlayer
from bots.builtin.strong import StrongPlayer
from engine.players import GreedyPlayer, Player, RandomPlayer

BUILTIN_PLAYERS: dict[str, Callable[[int | None], Player]] = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
    "strong": StrongPlayer,
    "solver": SolverPlayer,
}
"""Every built-in bot by name: a factory taking the seed."""

__all__ = ["BUILTIN_PLAYERS", "SolverPlayer", "StrongPlayer"]
