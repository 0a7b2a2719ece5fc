"""The strong bot's inference from trump play holds under every combination of Kingen's
trump obligations (SPEC 3.6: on a trumped trick a void seat overtrumps only when
must_overtrump obliges it and it can; otherwise the undertrump policy decides, whatever
must_trump says). An inference from an obligation that is not in force would exclude
cards a seat really holds."""

from __future__ import annotations

import itertools
import random

import pytest

from bots.builtin.hidden_hands import hand_constraints
from engine import load_game
from engine.cards import card_names


@pytest.mark.parametrize(
    ("must_trump", "must_overtrump", "policy"),
    list(
        itertools.product(
            ["true", "false"], ["true", "false"], ["must_trump_anyway", "free", "no_undertrump"]
        )
    ),
)
def test_trump_play_inference_holds_for_the_real_hands(
    must_trump: str, must_overtrump: str, policy: str
) -> None:
    game = load_game(
        f"kingen(trump_mode=dealer_choice,must_trump={must_trump},"
        f"must_overtrump={must_overtrump},undertrump_policy={policy})"
    )
    for seed in range(6):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.acting_seat()
            view = state.view_for(seat)
            if view.phase == "play" and view.public["contract"] == "trumps":
                constraints = hand_constraints(view)
                hands: list[int] = state.hands  # type: ignore[attr-defined]
                for other in range(game.num_seats):
                    wrong = constraints.excluded[other] & hands[other]
                    assert not wrong, f"seed {seed}: seat {other} holds {card_names(wrong)}"
                    assert constraints.known[other] & ~hands[other] == 0
            state.apply_action(rng.choice(view.legal), seat=seat)
