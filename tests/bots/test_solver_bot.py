"""The ``solver`` bot: legal, complete deals in every family, from its view alone."""

from __future__ import annotations

import pytest

from bots.builtin import BUILTIN_PLAYERS, SolverPlayer
from bots.builtin.strong import StrongPlayer
from engine import load_game

GAMES = (
    "kingen(rules=iwwa)",
    "dubbelkingen",
    "king",
    "kung_och_adel",
    "priffe",
    "priffe(players=3)",
)


def fast_solver(seed: int) -> SolverPlayer:
    player = SolverPlayer(seed, time_budget_ms=None, samples=2, node_limit=30_000)
    player.fallback = StrongPlayer(seed, time_budget_ms=None, samples=2)
    return player


@pytest.mark.parametrize("game_string", GAMES)
def test_the_solver_bot_plays_whole_deals_legally(game_string: str) -> None:
    """A table of solver bots through the engine's checks (apply_action raises on an
    illegal card) until a deal is over; some decisions were solved, not all fell back."""
    game = load_game(game_string)
    state = game.new_initial_state(seed=5)
    players = [fast_solver(s) for s in range(game.num_seats)]
    solved = 0
    while not state.deal_scores and not state.is_terminal():
        seat = state.acting_seat()
        player = players[seat]
        state.apply_action(player.choose(state.view_for(seat)), seat=seat)
        solved += player.last_samples > 0
    assert solved > 0


def test_the_solver_bot_is_registered() -> None:
    assert isinstance(BUILTIN_PLAYERS["solver"](1), SolverPlayer)
