"""A few episodes of a King League game in the PettingZoo AEC environment over the rules
engine (engine/pettingzoo_env.py): every seat plays a random legal action from the
observation's action mask. Nothing is trained: it shows the loop a learner plugs into.

    pip install "./engine[pettingzoo]"          # or the league's dev install
    python bots/examples/python/pettingzoo_episodes.py kingen 3
"""

from __future__ import annotations

import random
import sys

from engine.pettingzoo_env import KingLeagueEnv
from engine.variants import FAMILIES


def episodes(game: str, count: int, seed: int = 0) -> list[dict[str, int]]:
    """Each episode's total reward per agent (the game's final scores)."""
    rng = random.Random(seed)
    env = KingLeagueEnv(game)
    results = []
    for episode in range(count):
        env.reset(seed=seed + episode)
        totals = dict.fromkeys(env.possible_agents, 0)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            totals[agent] += int(reward)
            if termination or truncation:
                action = None
            else:
                action = rng.choice(observation["action_mask"].nonzero()[0].tolist())
            env.step(action)
        results.append(totals)
    env.close()
    return results


if __name__ == "__main__":
    game = sys.argv[1] if len(sys.argv) > 1 else next(iter(FAMILIES))  # the first family
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    for number, totals in enumerate(episodes(game, count), 1):
        sys.stdout.write(f"episode {number}: {totals}\n")
