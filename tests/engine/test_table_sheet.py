"""Score sheets of games played at a physical table (engine/table_sheet.py): an entry
written from a game the engine played scores exactly what the engine scored, deal by
deal; entries that do not add up are refused naming the problem; table records verify."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import jsonschema
import pytest

from engine import ScoreEntryError, load_game
from engine.game import State
from engine.record import table_record, verify_record
from engine.variants import king, kingen, kung_och_adel, priffe
from tests.engine.test_record_schema import SCHEMA


def _kingen_entry(pre: Any) -> dict[str, Any]:
    contract = pre.contract
    entry: dict[str, Any] = {"contract": kingen.CONTRACT_NAMES[contract]}
    if contract == kingen.SEVENTH_LAST:
        entry["seventh"] = pre.completed[pre.table.seventh_trick - 1][2]
        entry["last"] = pre.completed[-1][2]
    elif contract in (kingen.TRUMPS, kingen.TRICKS):
        entry["taken"] = list(pre.tricks_won)
    else:
        mask = kingen.PENALTY_MASK[contract]
        entry["taken"] = [(won & mask).bit_count() for won in pre.won_masks()]
    return entry


def _king_entry(pre: Any, scores: list[int]) -> dict[str, Any]:
    if len(pre.contracts) == 1:
        contract = pre.contracts[0]
        if contract == king.TRICKS:
            return {"taken": list(pre.tricks_won)}
        if contract == king.LAST_TWO:
            taken = [0] * 4
            taken[pre.completed[-2][2]] += 1
            taken[pre.completed[-1][2]] += 1
            return {"taken": taken}
        mask = king.PENALTY_MASK[contract]
        return {"taken": [(won & mask).bit_count() for won in pre.won_masks()]}
    return {"points": scores}


def _kung_entry(pre: Any, number: int) -> dict[str, Any]:
    names = kung_och_adel.RANK_NAMES
    entry: dict[str, Any] = {
        "ranks": [names[r] for r in pre.ranks],
        "tricks": list(pre.tricks_won),
    }
    if number == 1:
        entry["ranks_before"] = [names[r] for r in pre.rank_history[0]]
    return entry


def _priffe_entry(pre: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"contract": priffe.BID_NAMES[pre.contract]}
    if pre.forced:
        entry["forced"] = True
    else:
        entry["declarer"] = pre.declarer
    if pre.contract == priffe.MISERE:
        entry["made"] = pre.tricks_won[pre.declarer] == 0
        return entry
    tricks = [0, 0]
    held = [0, 0]
    one_hand = False
    mask = priffe.HONOUR_MASKS[pre.contract]
    for seat in range(4):
        tricks[pre.side_of[seat]] += pre.tricks_won[seat]
        count = (pre.dealt_hands[seat] & mask).bit_count()
        held[pre.side_of[seat]] += count
        one_hand = one_hand or count == 4
    entry.update(tricks=tricks, honours=held)
    if one_hand:
        entry["one_hand"] = True
    return entry


def _played_entry(game_string: str, seed: int) -> tuple[State[Any], list[dict[str, Any]]]:
    """A random game of ``game_string`` and the score sheet a table would write for it."""
    game = load_game(game_string)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    entry: list[dict[str, Any]] = []
    while not state.is_terminal():
        action = rng.choice(list(state.legal_actions()))
        before = len(state.deal_scores)
        pre = state.clone()
        pre.stop_after_deal = True
        state.apply_action(action)
        if len(state.deal_scores) > before:
            pre.apply_action(action)
            number = len(state.deal_scores)
            scores = state.deal_scores[-1]
            if game.family in ("kingen", "dubbelkingen"):
                entry.append(_kingen_entry(pre))
            elif game.family == "king":
                entry.append(_king_entry(pre, scores))
            elif game.family == "kung_och_adel":
                entry.append(_kung_entry(pre, number))
            else:
                entry.append(_priffe_entry(pre))
    return state, entry


GAMES = [
    "kingen",
    "kingen(players=3)",
    "kingen(players=5)",
    "kingen(rules=iwwa)",
    "dubbelkingen",
    "king",
    "king(quick_game=true)",
    "king(rules=denexa)",
    "kung_och_adel(deals=6)",
    "kung_och_adel(deals=4,rank_update=by_margin)",
    "priffe(rubbers_per_game=2,seating=fixed)",
    "priffe(players=3,rubbers_per_game=2,seating=fixed)",
]


@pytest.mark.parametrize("game_string", GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_entry_scores_what_the_engine_scored(game_string: str, seed: int) -> None:
    state, entry = _played_entry(game_string, seed)
    game = load_game(game_string)
    scored = game.table_scores(json.loads(json.dumps(entry)))
    assert [list(d) for d in scored.deal_scores] == state.deal_scores
    assert list(scored.scores) == state.scores()
    if game.partnership_play:
        units = game.partnership_units(state)
        assert [dict(u) for u in scored.units] == [
            {
                k: u[k]
                for k in (
                    "number",
                    "deals",
                    "seating",
                    "partners",
                    "totals",
                    "settlement",
                    "points",
                )
            }
            for u in units
        ]
    record = table_record(game, entry=entry, scored=scored)
    jsonschema.validate(record, SCHEMA)
    assert verify_record(record).ok


def _refused(game_string: str, entry: Any) -> str:
    with pytest.raises(ScoreEntryError) as caught:
        load_game(game_string).table_scores(entry)
    return str(caught.value)


def _kingen_sheet() -> list[dict[str, Any]]:
    return [
        {"taken": [4, 3, 3, 3]},
        {"taken": [3, 4, 3, 3]},
        {"taken": [2, 2, 2, 2]},
        {"taken": [1, 1, 1, 1]},
        {"taken": [0, 1, 0, 0]},
        {"seventh": 1, "last": 2},
        *[{"taken": [4, 3, 3, 3]}] * 4,
    ]


def test_kingen_refusals_name_what_does_not_add_up() -> None:
    good = _kingen_sheet()
    # tricks -4 -3 -3 -3, hearts -3 -4 -3 -3, kings and jacks -2 each, queens -2 each,
    # king of hearts 0 -5 0 0, 7th (seat 1) -2 and last (seat 2) -3, trumps 16 12 12 12.
    assert load_game("kingen").table_scores(good).scores == (5, -6, -1, 2)
    entry = [dict(d) for d in good]
    entry[1] = {"taken": [3, 4, 3, 2]}
    assert _refused("kingen", entry) == (
        "deal 2 (hearts): the hearts taken add up to 12; a deal has 13"
    )
    entry = [dict(d) for d in good]
    entry[2] = {"contract": "queens", "taken": [1, 1, 1, 1]}
    assert "the contract of deal 3 is kings_jacks, not queens" in _refused("kingen", entry)
    assert _refused("kingen", good[:9]) == "9 deals entered; a game of Kingen has 10"
    entry = [dict(d) for d in good]
    entry[0] = {"taken": [4, 3, 3, 3], "hearts": 2}
    assert "unknown field hearts" in _refused("kingen", entry)
    entry = [dict(d) for d in good]
    entry[5] = {"seventh": 7, "last": 2}
    assert "'seventh' must be a seat number (0, 1, 2, 3)" in _refused("kingen", entry)


def test_dubbelkingen_checks_the_contract_uses() -> None:
    deals: list[dict[str, Any]] = [{"contract": "tricks", "taken": [4, 3, 3, 3]}] * 3
    message = _refused("dubbelkingen", deals + [{}] * 17)
    assert (
        message
        == "deal 3 (tricks): tricks is chosen a third time; each negative contract is played twice"
    )


def test_king_kung_och_adel_and_priffe_refusals() -> None:
    king_entry: list[dict[str, Any]] = [{"taken": [4, 3, 3, 3]}] * 2 + [
        {"taken": [1, 1, 1, 1]},
        {"taken": [2, 2, 2, 2]},
        {"taken": [1, 0, 0, 0]},
        {"taken": [1, 1, 0, 0]},
    ]
    king_entry += [{"points": [100, 75, 75, 75]}] * 3 + [{"points": [100, 75, 75, 50]}]
    assert _refused("king", king_entry) == (
        "deal 10 (positive hand): the points add up to 300; a deal has 325"
    )
    ranks = ["monarch", "noble", "peasant", "fool"]
    assert _refused(
        "kung_och_adel(deals=1)", [{"ranks": ["monarch", "noble", "noble", "fool"]}]
    ) == ("deal 1: every rank is held once; nobody is peasant")
    message = _refused(
        "kung_och_adel(deals=1)",
        [{"ranks_before": ranks, "tricks": [6, 3, 3, 1], "ranks": ranks}],
    )
    assert message == (
        "deal 1: with these tricks the new ranks are monarch, fool, noble, peasant, "
        "not monarch, noble, peasant, fool"
    )
    assert (
        _refused(
            "priffe(rubbers_per_game=1)",
            [{"contract": "hearts", "declarer": 0, "tricks": [7, 5], "honours": [2, 2]}],
        )
        == "deal 1 (rubber 1): the tricks add up to 12; a deal has 13"
    )
    assert (
        _refused(
            "priffe(rubbers_per_game=1)",
            [{"contract": "hearts", "declarer": 0, "tricks": [13, 0], "honours": [2, 2]}],
        )
        == "the game is not over: no side has won rubber 1 of 1 yet"
    )


def test_priffe_rubber_worked_by_hand() -> None:
    # Rubber 1: seats 0 and 2 (side A) against 1 and 3 (side B).
    # Deal 1: A bid hearts, take 10: 40 trick points, first exit (+10); A hold 3 honours: 20.
    # Deal 2: B bid spel, take 5: A 8 tricks, 20 trick + 20 penalty; aces 2-2.
    # Deal 3: A bid diamonds, take 12: 60 trick points: 40 + 20 + 60 = 120 - 40 = 80 > 40 since
    # the first exit: second exit (+20). A: 40+10+20+20+20+60+20 = 190, B: 0 -> 19 each.
    entry = [
        {"contract": "hearts", "declarer": 0, "tricks": [10, 3], "honours": [3, 1]},
        {"contract": "spel", "declarer": 1, "tricks": [8, 5], "honours": [2, 2]},
        {"contract": "diamonds", "declarer": 2, "tricks": [12, 1], "honours": [2, 2]},
    ]
    scored = load_game("priffe(rubbers_per_game=1)").table_scores(entry)
    assert scored.scores == (19, -19, 19, -19)
    assert scored.units[0]["totals"] == [190, 0]


def test_totals_alone() -> None:
    assert load_game("kingen").table_totals([3, -3, 1, -1]).scores == (3, -3, 1, -1)
    with pytest.raises(ScoreEntryError, match="the game's totals always add up to 0"):
        load_game("kingen").table_totals([3, -3, 1, 0])
    with pytest.raises(ScoreEntryError, match="enter each deal"):
        load_game("priffe").table_totals([1, -1, 1, -1])


def test_engine_verify_checks_a_table_records_totals(tmp_path: Any) -> None:
    game = load_game("kingen")
    entry = _kingen_sheet()
    record = table_record(game, entry=entry, scored=game.table_scores(entry))
    path = tmp_path / "table.json"
    path.write_text(json.dumps(record))

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "engine", "verify", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )

    done = run()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["scores"] == [5, -6, -1, 2]
    record["deals"][1]["entry"]["taken"] = [3, 4, 3, 2]
    path.write_text(json.dumps(record))
    done = run()
    assert done.returncode == 1
    assert done.stderr.strip() == "deal 2 (hearts): the hearts taken add up to 12; a deal has 13"
    record["deals"][1]["entry"]["taken"] = [3, 4, 3, 3]
    record["scores"] = [5, -6, -1, 3]
    path.write_text(json.dumps(record))
    done = run()
    assert done.returncode == 1
    assert "final scores [5, -6, -1, 3] recorded, the entry gives [5, -6, -1, 2]" in done.stderr
    record["deals"][0] = {"deal": 1, "actions": []}
    path.write_text(json.dumps(record))
    assert run().returncode == 2
