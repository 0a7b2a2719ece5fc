"""engine/analysis.py: each card's costs agree with the solver asked directly, the marks
follow the documented thresholds, and a card over the node budget is kept, not dropped."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import load_game
from engine.analysis import (
    REASON_BUDGET,
    REASON_EARLIER,
    REASON_TIME,
    AnalysisSettings,
    analyse_record,
    deal_stake,
    mark_of,
)
from engine.cards import card_name
from engine.double_dummy import solve
from engine.game import TrickTakingState
from engine.hidden_hands import HandSampler
from engine.players import make_player
from engine.record import record_from_state, state_before_event

FAMILIES = ["kingen", "priffe", "king", "kung_och_adel(deals=2)", "dubbelkingen"]


def _one_deal_record(game_string: str, seed: int) -> dict[str, Any]:
    """The record of a game's first deal played by greedy players; within the test's
    small node budget only its endgame (the last tricks) is analysed."""
    game = load_game(game_string)
    state = game.new_initial_state(seed=seed)
    players = [make_player("greedy", seed * 7 + s) for s in range(game.num_seats)]
    while not (state.phase == "play" and isinstance(state, TrickTakingState)):
        seat = state.acting_seat()
        state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)
    deal = state.deal_number
    while not state.is_terminal() and state.deal_number == deal:
        seat = state.acting_seat()
        state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)
    return record_from_state(state)


def _card_events(record: dict[str, Any]) -> list[tuple[int, int]]:
    """(deal, event) of every card played in the record, from 1."""
    return [
        (deal["deal"], index)
        for deal in record["deals"]
        for index, event in enumerate(deal["actions"], start=1)
        if str(event.get("action", "")).startswith("play ")
    ]


@pytest.mark.parametrize("game_string", FAMILIES)
def test_each_card_costs_what_the_solver_says_with_all_hands_and_from_the_seats_view(
    game_string: str,
) -> None:
    record = _one_deal_record(game_string, seed=5)
    settings = AnalysisSettings(samples=3, node_limit=60_000, seed=9)
    analysis = analyse_record(record, settings)
    cards = analysis["cards"]
    assert [(c["deal"], c["event"]) for c in cards] == _card_events(record)
    analysed = [c for c in cards if c["analysed"] and not c["forced"]]
    assert analysed, "the last tricks of a deal are within any budget"
    for card in analysed:
        state, chosen = state_before_event(record, card["deal"], card["event"])
        assert isinstance(state, TrickTakingState)
        assert chosen is not None
        played = state.parse_action(chosen["action"])
        assert card["card"] == card_name(played)
        seat = state.acting_seat()
        assert card["player"] == seat
        values = solve(state)
        best = max(values.values())
        assert card["cost"] == best - values[played]
        assert sorted(card["best"]) == sorted(card_name(c) for c, v in values.items() if v == best)
        # As the seat could know it: the mean over the deals drawn from its view.
        view = state.view_for(seat)
        sampler = HandSampler(view)
        rng = random.Random(f"analysis/{settings.seed}/{card['deal']}/{card['event']}")
        totals = dict.fromkeys(view.legal, 0.0)
        for _ in range(settings.samples):
            drawn = solve(view.game.new_search_state(view, sampler.sample(rng)))
            for action in totals:
                totals[action] += drawn[action]
        means = {a: t / settings.samples for a, t in totals.items()}
        assert card["view_cost"] == pytest.approx(max(means.values()) - means[played], abs=1e-5)
        assert card["view_cost"] >= 0
        assert card["cost"] >= 0
        assert card["stake"] == deal_stake(state, seat)
        assert card["mark"] == mark_of(card["view_cost"], card["stake"], settings)


def test_a_budget_too_small_keeps_every_card_with_its_reason_and_counts_them() -> None:
    record = _one_deal_record("kingen", seed=3)
    generous = analyse_record(record, AnalysisSettings(samples=2, node_limit=2_000_000))
    tight = analyse_record(record, AnalysisSettings(samples=2, node_limit=300))
    assert len(tight["cards"]) == len(generous["cards"]) == len(_card_events(record))
    reasons = {c["reason"] for c in tight["cards"] if not c["analysed"]}
    assert REASON_BUDGET in reasons or any(r.startswith("a sampled") for r in reasons)
    assert REASON_EARLIER in reasons
    not_analysed = sum(1 for c in tight["cards"] if not c["analysed"])
    assert sum(row["not_analysed"] for row in tight["summary"]) == not_analysed > 0
    assert sum(row["not_analysed"] for row in generous["summary"]) < not_analysed
    # A card given up is never marked, and no card after one over the budget is given up
    # for being earlier.
    for deal in {c["deal"] for c in tight["cards"]}:
        reasons_in_order = [c["reason"] for c in tight["cards"] if c["deal"] == deal]
        if REASON_EARLIER in reasons_in_order:
            last_earlier = max(i for i, r in enumerate(reasons_in_order) if r == REASON_EARLIER)
            assert reasons_in_order[last_earlier + 1] not in ("", REASON_EARLIER)
    assert all(not c["mark"] for c in tight["cards"] if not c["analysed"])


def test_cards_left_when_the_time_budget_is_spent_are_kept_with_their_reason() -> None:
    record = _one_deal_record("kingen", seed=4)
    analysis = analyse_record(record, AnalysisSettings(samples=1, seconds=1e-9))
    cards = analysis["cards"]
    assert len(cards) == len(_card_events(record))
    late = [c for c in cards if c["reason"] == REASON_TIME]
    assert len(late) >= len(cards) - 1  # at most the first card tried was begun in time
    assert all(not c["analysed"] for c in late)
    assert sum(row["not_analysed"] for row in analysis["summary"]) >= len(late)


def test_marks_follow_the_documented_thresholds() -> None:
    settings = AnalysisSettings()
    assert mark_of(0, 13, settings) == ""
    assert mark_of(0.6, 13, settings) == ""  # under 5 %
    assert mark_of(1, 13, settings) == "inaccuracy"  # 7.7 %
    assert mark_of(2, 13, settings) == "mistake"  # 15 %
    assert mark_of(3, 13, settings) == "blunder"  # 23 %
    with pytest.raises(ValueError, match="thresholds"):
        AnalysisSettings(inaccuracy=0.3, mistake=0.2)
    with pytest.raises(ValueError, match="samples"):
        AnalysisSettings(samples=0)


def test_the_summary_counts_each_players_cards() -> None:
    record = _one_deal_record("priffe", seed=2)
    analysis = analyse_record(record, AnalysisSettings(samples=2, node_limit=100_000))
    for row in analysis["summary"]:
        mine = [c for c in analysis["cards"] if c["player"] == row["seat"]]
        assert row["cards"] == len(mine)
        assert row["analysed"] + row["not_analysed"] == len(mine)
        decisions = [c for c in mine if c["analysed"] and not c["forced"]]
        marked = sum(1 for c in decisions if c["mark"])
        assert row["inaccuracies"] + row["mistakes"] + row["blunders"] == marked
        if decisions:
            assert row["accuracy"] == round(100 * (len(decisions) - marked) / len(decisions), 1)
