"""Golden playthroughs: seeded games kept as records. Replaying them checks the rules did
not change; regenerating them from the seed checks dealing and the reference players did
not either. After an intended rules change, regenerate with
``python -m tests.engine.test_golden`` and review the diff."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from engine.players import make_player
from engine.record import dumps_record, record_from_state, verify_record
from engine.variants import load_game

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "kingen-basic-seed1.json": ("kingen", 1, "greedy,random,greedy,random"),
    "kingen-iwwa-seed2.json": ("kingen(rules=iwwa)", 2, "greedy"),
    "kingen-3p-offers-seed3.json": ("kingen(players=3,trump_mode=offer_tricks)", 3, "greedy"),
    "kingen-5p-seed4.json": (
        "kingen(k_hearts_points=4,players=5)",
        4,
        "greedy,random,greedy,random,greedy",
    ),
    "dubbelkingen-seed5.json": ("dubbelkingen", 5, "greedy"),
    "king-seed46.json": ("king", 46, "greedy,random,greedy,random"),
    "king-denexa-seed44.json": ("king(rules=denexa)", 44, "greedy"),
    "king-quick-nominate-seed56.json": (
        "king(k_hearts_nominates_dealer=true,quick_game=true)",
        56,
        "greedy",
    ),
    "priffe-seed8.json": ("priffe(rubbers_per_game=2)", 8, "greedy,random,greedy,random"),
    "priffe-trakarl-seed9.json": ("priffe(players=3,rubbers_per_game=1)", 9, "greedy"),
    "kung-och-adel-seed6.json": ("kung_och_adel", 6, "greedy,random,greedy,random"),
    "kung-och-adel-riddare-seed7.json": ("kung_och_adel(deals=4,rules=riddare)", 7, "greedy"),
}


def play_case(game_string: str, seed: int, bots: str) -> str:
    game = load_game(game_string)
    names = bots.split(",")
    names = names * game.num_seats if len(names) == 1 else names
    players = [make_player(name, seed * 31 + seat) for seat, name in enumerate(names)]
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        seat = state.acting_seat()
        state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)
    seats = [{"name": f"{name} {seat}", "player": name} for seat, name in enumerate(names)]
    return dumps_record(record_from_state(state, seats=seats))


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_record_verifies(name: str) -> None:
    result = verify_record((GOLDEN / name).read_text())
    assert result.ok, result.problem
    assert result.complete


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_record_is_reproduced_from_its_seed(name: str) -> None:
    expected = json.loads((GOLDEN / name).read_text())
    assert json.loads(play_case(*CASES[name])) == expected


if __name__ == "__main__":
    for file_name, case in CASES.items():
        (GOLDEN / file_name).write_text(play_case(*case))
        sys.stdout.write(f"wrote {GOLDEN / file_name}\n")
