"""A PettingZoo AEC environment over the rules engine, for every game family.

    pip install "./engine[pettingzoo]"        # or the league's dev install

    from engine.pettingzoo_env import KingLeagueEnv
    env = KingLeagueEnv("kingen")
    env.reset(seed=1)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        mask = observation["action_mask"]
        action = None if termination or truncation else int(mask.nonzero()[0][0])
        env.step(action)

This is the one module of ``engine`` that needs libraries beyond the standard library
(numpy, gymnasium, pettingzoo: the distribution's ``pettingzoo`` extra); nothing else in
``engine`` imports it, and the sandbox's copy of the engine leaves it out.

- **Agents**: ``seat_0`` ... ``seat_{n-1}``; the agent selected is the seat whose player
  decides now (a dummy seat, as Priffe's träkarl, is played by its partner's agent).
- **Actions**: ``Discrete(n)`` over the family's action codes (cards 0-51, then contracts,
  trumps, bids, ...: ``env.action_to_string(code)``), with the legal ones in the
  observation's ``action_mask``.
- **Observations**: the seat's own view only (engine.game.PlayerView), as 0/1 int8
  features: its hand, the current trick, the cards played in the deal, the trump suit
  (or none), its seat, the phase. Nothing of another seat's hidden cards.
- **Rewards**: each seat's points as they are scored, deal by deal (the running totals'
  change), so an episode's rewards add up to the game's final scores.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from engine.cards import SUIT_LETTERS
from engine.game import PlayerView, State
from engine.variants import load_game

PHASES = (
    "play",
    "contract",
    "trump",
    "bid",
    "auction",
    "accept",
    "benefit",
    "direction",
    "ultimatum",
    "lead",
    "return",
    "tribute",
)
"""The phases observations name (one-hot, with one more slot for any other)."""
MAX_ACTION_CODE = 1024


def action_count(game: Any) -> int:
    """One more than the family's highest action code (codes without a name are never
    legal: the mask keeps them out)."""
    highest = 0
    for code in range(MAX_ACTION_CODE):
        try:
            game.action_to_string(code)
        except ValueError:
            continue
        highest = code
    return highest + 1


class KingLeagueEnv(AECEnv):  # type: ignore[misc]  # pettingzoo's classes are untyped
    metadata: ClassVar[dict[str, Any]] = {
        "name": "king_league_v1",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(self, game: str = "kingen", render_mode: str | None = None) -> None:
        super().__init__()
        self.game = load_game(game)
        self.render_mode = render_mode
        seats = self.game.num_seats
        self.possible_agents = [f"seat_{seat}" for seat in range(seats)]
        self.agents: list[str] = []
        self.actions = action_count(self.game)
        self.features = 52 * 3 + 5 + seats + len(PHASES) + 1
        observation = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (self.features,), np.int8),
                "action_mask": spaces.Box(0, 1, (self.actions,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = {
            agent: spaces.Discrete(self.actions) for agent in self.possible_agents
        }
        self._rng = random.Random()
        self.state: State[Any] | None = None
        self._totals: tuple[int, ...] = (0,) * seats

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def action_to_string(self, action: int) -> str:
        return str(self.game.action_to_string(action))

    # ---------------------------------------------------------------- episodes

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)
        self.state = self.game.new_initial_state(seed=self._rng.randrange(2**31))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._totals = (0,) * self.game.num_seats
        self.agent_selection = self._agent_to_act()

    def _agent_to_act(self) -> str:
        assert self.state is not None
        return self.possible_agents[self.state.acting_seat()]

    def _running_totals(self) -> tuple[int, ...]:
        assert self.state is not None
        if self.state.is_terminal():
            return tuple(self.state.scores())
        return tuple(self.state.view_for(self.state.acting_seat()).scores)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.state is not None
        assert action is not None
        self._cumulative_rewards[agent] = 0
        self.state.apply_action(int(action))
        totals = self._running_totals()
        self.rewards = {
            name: totals[seat] - self._totals[seat]
            for seat, name in enumerate(self.possible_agents)
        }
        self._totals = totals
        if self.state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self._agent_to_act()
        self._accumulate_rewards()

    # ---------------------------------------------------------------- what a seat sees

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.state is not None
        seat = self.possible_agents.index(agent)
        view = self.state.view_for(seat)
        mask = np.zeros(self.actions, dtype=np.int8)
        if not self.state.is_terminal() and self.state.acting_seat() == seat:
            for code in self.state.legal_actions():
                mask[code] = 1
        return {"observation": self.features_of(view), "action_mask": mask}

    def features_of(self, view: PlayerView) -> np.ndarray:
        features = np.zeros(self.features, dtype=np.int8)
        for card in range(52):
            features[card] = view.hand >> card & 1
            features[52 + card] = view.played >> card & 1
        for card in view.trick:
            features[104 + card] = 1
        features[156 + (view.trump + 1 if 0 <= view.trump < len(SUIT_LETTERS) else 0)] = 1
        features[161 + view.seat] = 1
        phase = PHASES.index(view.phase) if view.phase in PHASES else len(PHASES)
        features[161 + self.game.num_seats + phase] = 1
        return features

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.state is None:
            return None
        if self.state.is_terminal():
            return f"{self.game}: over, scores {list(self.state.scores())}"
        view = self.state.view_for(self.state.acting_seat())
        return (
            f"{self.game}: deal {view.deal_number}, {self.agent_selection} to act ({view.phase}),"
            f" trick {[self.action_to_string(c) for c in view.trick]}, scores {list(view.scores)}"
        )

    def close(self) -> None:
        self.state = None
