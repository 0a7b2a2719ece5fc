"""The rules engine as a library for bot authors: a distribution of its own (engine/
pyproject.toml, its version tied to the protocol's), the same files importable read-only
by Python bots in the sandbox, a view rebuilt from the protocol's JSON, full states drawn
consistent with it, and the example search bot playing on them."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import engine
from bots.bundle import BotBundle, bot_bundle_check
from bots.match import BotSpec, match_play
from bots.protocol import PROTOCOL_VERSION
from bots.seats import Outcome
from engine.hidden_hands import HandSampler, search_state
from engine.protocol_view import view_from_json
from engine.variants import FAMILIES, load_game
from tests.bots.botcode import assert_others_intact, log_lines

PROJECT = Path(__file__).resolve().parents[2]


def test_the_engines_version_is_tied_to_the_protocols() -> None:
    assert engine.__version__.split(".")[0] == str(PROTOCOL_VERSION)
    project = tomllib.loads((PROJECT / "engine" / "pyproject.toml").read_text())["project"]
    assert project["name"] == "king-league-engine"
    assert project["dependencies"] == []


@pytest.mark.slow
def test_the_distribution_installs_with_pip_and_imports_without_django(tmp_path: Path) -> None:
    source = tmp_path / "source"
    shutil.copytree(
        PROJECT / "engine",
        source,
        ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"),
    )
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(target),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    probe = (
        "import sys, engine, engine.hidden_hands, engine.game, engine.players; "
        "print(engine.__version__, 'django' in sys.modules, engine.__file__)"
    )
    result = subprocess.run(
        [sys.executable, "-S", "-c", probe],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(target)},
        check=True,
    )
    version, django, location = result.stdout.split()
    assert (version, django) == (engine.__version__, "False")
    assert location.startswith(str(target))


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_view_rebuilt_from_its_json_is_the_view(family: str) -> None:
    game = load_game(family)
    rng = random.Random(3)
    state = game.new_initial_state(seed=3)
    checked = 0
    while not state.is_terminal():
        view = state.view_for(state.acting_seat())
        rebuilt = view_from_json(view.to_json())
        assert rebuilt == view
        checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 20


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_search_state_fits_the_view(family: str) -> None:
    game = load_game(family)
    rng = random.Random(5)
    state = game.new_initial_state(seed=5)
    searched = 0
    while not state.is_terminal() and searched < 10:
        seat = state.acting_seat()
        view = view_from_json(state.view_for(seat).to_json())
        if view.legal and all(action < 52 for action in view.legal) and len(view.legal) > 1:
            sampler = HandSampler(view)
            for _ in range(5):
                guess = search_state(view, rng, sampler)
                assert guess.view_for(seat).hand == view.hand
                assert guess.view_for(seat).hand_sizes == view.hand_sizes
                assert sorted(guess.legal_actions()) == sorted(view.legal)
                world = guess.clone()
                while not world.is_terminal():
                    world.apply_action(rng.choice(world.legal_actions()))
                assert len(world.deal_scores[-1]) == game.num_seats
            searched += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert searched > 0


@pytest.mark.sandbox
def test_python_bots_import_the_leagues_engine_read_only_in_the_sandbox() -> None:
    code = b"""import sys
import engine, kingbot
from engine.protocol_view import view_from_json

def choose(request):
    view = view_from_json(request.view)
    kingbot.log(f"ENGINE {engine.__version__} {engine.__file__} {len(view.legal)}")
    try:
        open(engine.__file__, "a")
        kingbot.log("LEAK write")
    except OSError as exc:
        kingbot.log(f"BLOCKED {exc.errno}")
    return request.legal[0]

kingbot.run(choose)
"""
    result = match_play(
        "kingen",
        [BotSpec.uploaded(BotBundle("main.py", "py", code))] + [BotSpec.builtin("greedy")] * 3,
        seed=2,
    )
    assert_others_intact(result)
    assert result.seats[0].outcome is Outcome.OK
    lines = log_lines(result, "ENGINE")
    assert lines[0].split()[:2] == [engine.__version__, "/kl/engine/__init__.py"]
    assert set(log_lines(result, "BLOCKED")) <= {"13", "30"}  # EACCES (not its file), EROFS
    assert log_lines(result, "BLOCKED")


@pytest.mark.sandbox
def test_the_example_search_bot_plays_a_whole_match_in_the_sandbox() -> None:
    bot = bot_bundle_check(
        "search_bot.py", (PROJECT / "bots" / "examples" / "python" / "search_bot.py").read_bytes()
    )
    result = match_play("kingen", [BotSpec.uploaded(bot)] + [BotSpec.builtin("greedy")] * 3, seed=4)
    report = result.seats[0]
    assert report.outcome is Outcome.OK, report.faults
    assert report.fallbacks == 0, report.fallback_reasons
    assert_others_intact(result)


# ---------------------------------------------------------------- PettingZoo


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_pettingzoo_environment_passes_pettingzoos_api_test(family: str) -> None:
    from pettingzoo.test import (  # type: ignore[import-untyped]  # optional: the pettingzoo extra
        api_test,
    )

    from engine.pettingzoo_env import KingLeagueEnv  # needs that extra too

    api_test(KingLeagueEnv(family), num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_an_episode_observes_the_seats_view_and_its_rewards_are_the_scores(family: str) -> None:
    from engine.pettingzoo_env import KingLeagueEnv  # needs the engine's pettingzoo extra

    env = KingLeagueEnv(family)
    env.reset(seed=11)
    rng = random.Random(11)
    totals = dict.fromkeys(env.possible_agents, 0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += int(reward)
        seat = env.possible_agents.index(agent)
        assert env.state is not None
        features = observation["observation"]
        own_hand = env.state.view_for(seat).hand
        assert [int(features[c]) for c in range(52)] == [own_hand >> c & 1 for c in range(52)]
        if termination or truncation:
            env.step(None)
            continue
        legal = sorted(observation["action_mask"].nonzero()[0].tolist())
        assert legal == sorted(env.state.legal_actions())
        other = env.possible_agents[(seat + 1) % len(env.possible_agents)]
        assert not env.observe(other)["action_mask"].any()  # only the agent to act has a move
        env.step(rng.choice(legal))
    assert env.state is not None
    assert [totals[agent] for agent in env.possible_agents] == list(env.state.scores())


def test_the_pettingzoo_example_runs_a_few_episodes() -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(PROJECT / "bots" / "examples" / "python" / "pettingzoo_episodes.py"),
            "kingen",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=PROJECT,
        check=True,
    )
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["episode 1", "episode 2"]
