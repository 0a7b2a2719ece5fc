"""league.domain.table_phase: what the table says to the person at a seat, from plain facts
(the API's and the page's answers are tests/api/test_table.py's)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.variants import load_game
from league.domain.table_phase import (
    TablePhase,
    action_labels,
    moves_played_for,
    seat_turn,
)

KINGEN = load_game("kingen")


def turn(**facts: Any) -> tuple[str, int | None, bool, bool]:
    given: dict[str, Any] = {
        "seat": 0,
        "running": True,
        "failed": False,
        "finished": False,
        "game_over": False,
        "acting_seat": 0,
        "waiting_seat": 0,
    }
    found = seat_turn(**(given | facts))
    return found.phase, found.to_act, found.your_turn, found.person_waited_for


def test_the_league_waiting_for_this_seat_is_your_move() -> None:
    assert turn() == (TablePhase.YOUR_MOVE, 0, True, True)


def test_another_persons_move_has_their_deadline_not_yours() -> None:
    assert turn(acting_seat=2, waiting_seat=2) == (TablePhase.PLAYER_TO_MOVE, 2, False, True)


def test_the_engines_turn_is_not_yours_until_the_league_waits_for_you() -> None:
    # The game waits for seat 0 but the worker has not handed the match over yet.
    assert turn(waiting_seat=None) == (TablePhase.BOTS_TO_MOVE, 0, False, False)
    assert turn(running=False, waiting_seat=None) == (TablePhase.BOTS_TO_MOVE, 0, False, False)


@pytest.mark.parametrize(
    "facts",
    [
        {"game_over": True, "acting_seat": None},
        {"finished": True, "running": False},  # the match says so, whatever the replay
    ],
)
def test_a_game_over_is_finished_with_nobody_to_act(facts: dict[str, Any]) -> None:
    assert turn(**facts) == (TablePhase.FINISHED, None, False, False)


def test_a_failed_match_says_so_before_anything_else() -> None:
    assert turn(failed=True, running=False)[0] == TablePhase.ERROR
    assert turn(failed=True, running=False, game_over=True, acting_seat=None)[0] == (
        TablePhase.ERROR
    )


def test_actions_carry_the_games_labels_and_an_unknown_one_stays_as_it_is() -> None:
    labelled = action_labels(KINGEN, ["play 2C", "dance"])
    assert labelled[0]["action"] == "play 2C"
    assert labelled[0]["label"] == "play a card"
    assert labelled[1] == {"action": "dance", "label": "dance", "explanation": ""}


def test_the_moves_played_for_a_person_count_their_strikes() -> None:
    faults = [
        {"cause": "timeout", "fallback": "play 2C", "deal": 0, "decision": 3},
        {"cause": "illegal", "fallback": "play 4C"},  # not a missed deadline
        "not a fault",
        {"cause": "timeout", "fallback": ""},  # nothing was played
        {"cause": "timeout", "fallback": "play KC", "deal": 1, "decision": 9},
    ]
    moved = moves_played_for(game=KINGEN, faults=faults, strikes_allowed=2)
    assert [(m["action"], m["strike"], m["deal"], m["decision"]) for m in moved] == [
        ("play 2C", 1, 0, 3),
        ("play KC", 2, 1, 9),
    ]
    assert moved[0]["label"] == "play a card"
    assert moved[0]["strikes_allowed"] == 2
    assert [m["forfeit"] for m in moved] == [False, True]  # the second strike of two
    assert moves_played_for(game=KINGEN, faults=None, strikes_allowed=3) == []
