"""``python -m engine solve``: each legal card's value at a record's position, and its
errors (exit 2, one line)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from engine import load_game
from engine.__main__ import main
from engine.double_dummy import solve
from engine.game import TrickTakingState
from engine.players import make_player
from engine.record import dumps_record, record_from_state


def _record(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    game = load_game("kingen(rules=iwwa)")
    state = game.new_initial_state(seed=11)
    assert isinstance(state, TrickTakingState)
    players = [make_player("greedy", s) for s in range(4)]
    while state.deal_number < 2 or state.phase != "play" or not state.completed:
        seat = state.acting_seat()
        state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)
    while len(state.completed) < 9:
        seat = state.acting_seat()
        state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)
    record = record_from_state(state)
    path = tmp_path / "game.json"
    path.write_text(dumps_record(record), encoding="utf-8")
    return path, record


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_solve_prints_each_legal_card_and_the_card_played(tmp_path: Path) -> None:
    path, record = _record(tmp_path)
    deals = record["deals"]
    assert isinstance(deals, list)
    actions = deals[1]["actions"]
    event = len(actions) - 3  # a card of the 9th trick
    code, out, err = _run("solve", str(path), "--deal", "2", "--event", str(event))
    assert (code, err) == (0, "")
    answer = json.loads(out)
    assert answer["played"] == actions[event - 1]["action"]
    assert answer["best"] == max(answer["values"].values())
    # the same position rebuilt by hand gives the same values
    game = load_game(record["game"])  # type: ignore[arg-type]
    state = game.new_initial_state(seed=11)
    players = [make_player("greedy", s) for s in range(4)]
    while not (state.deal_number == 2 and len(state.log) - state.deal_starts[1] == event - 1):
        seat = state.acting_seat()
        state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)
    expected = {game.action_to_string(c)[5:]: v for c, v in solve(state).items()}
    assert answer["values"] == expected
    assert answer["seat"] == state.acting_seat()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--deal", "9", "--event", "1"), "--deal 9: the record has deals 1 to 2"),
        (("--deal", "2", "--event", "999"), "--event 999: deal 2 has events 1 to"),
        (("--deal", "2", "--event", "1"), "deal 2, event 1: the position is not at a card"),
        (("--deal", "x", "--event", "1"), "usage error"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    path, _ = _record(tmp_path)
    code, out, err = _run("solve", str(path), *args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert message in err


def test_a_file_that_is_not_a_record(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{", encoding="utf-8")
    code, _, err = _run("solve", str(path), "--deal", "1", "--event", "1")
    assert code == 2
    assert err.startswith("not JSON")
