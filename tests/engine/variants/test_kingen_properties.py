"""Property tests: random legal play of every Kingen option keeps the invariants."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CHANCE, load_game
from engine.cards import cards_of
from engine.game import TrickTakingState
from engine.record import record_from_state, verify_record
from tests.engine.scripting import replace_a_card_play

BOOLEAN_OPTIONS = (
    "heart_lead_ban",
    "must_discard_penalty",
    "must_follow_with_penalty_when_safe",
    "must_beat_trump_lead",
    "must_trump",
    "must_overtrump",
    "end_when_penalties_exhausted",
)
TOTAL = {3: 51, 4: 52, 5: 50}


@st.composite
def kingen_strings(draw: st.DrawFn) -> str:
    family = draw(st.sampled_from(["kingen", "kingen", "dubbelkingen"]))
    options: dict[str, str] = {}
    if family == "kingen":
        options["players"] = str(draw(st.sampled_from([3, 4, 5])))
        options["trump_mode"] = draw(
            st.sampled_from(["last_card", "dealer_choice", "offer_tricks"])
        )
        order = draw(
            st.permutations(
                ["tricks", "hearts", "kings_jacks", "queens", "king_of_hearts", "seventh_last"]
            )
        )
        options["negative_order"] = "/".join(order)
        if draw(st.booleans()):
            options["rules"] = "iwwa"
    for name in BOOLEAN_OPTIONS:
        if draw(st.booleans()):
            options[name] = draw(st.sampled_from(["true", "false"]))
    options["undertrump_policy"] = draw(
        st.sampled_from(["must_trump_anyway", "free", "no_undertrump"])
    )
    options["k_hearts_points"] = draw(st.sampled_from(["4", "5"]))
    options["shuffle_policy"] = draw(st.sampled_from(["cut_only", "full_shuffle"]))
    return f"{family}({','.join(f'{k}={v}' for k, v in options.items())})"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_string=kingen_strings(), seed=st.integers(0, 2**32 - 1))
def test_random_play_keeps_every_invariant(game_string: str, seed: int) -> None:
    game = load_game(game_string)
    assert str(load_game(str(game))) == str(game)  # the canonical string is stable
    n = game.num_seats
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, TrickTakingState)
    rng = random.Random(seed)
    early_end = game.rules.end_when_penalties_exhausted
    while not state.is_terminal():
        assert state.current_seat != CHANCE
        legal = state.legal_actions()
        assert legal, "the legal set is never empty"
        seat = state.current_seat
        view = state.view_for(seat)
        for other in range(n):
            if other != seat:
                assert not view.hand & state.hands[other]
        assert view.hand == state.hands[seat]
        state.apply_action(rng.choice(legal))
    plays: dict[int, list[int]] = {}
    for deal_number, seat, action in state.history:
        if seat != CHANCE and isinstance(action, int) and action < 52:
            plays.setdefault(deal_number, []).append(action)
    assert sorted(plays) == list(range(1, game.deal_count + 1))
    for cards in plays.values():
        assert len(cards) == len(set(cards)), "no card is played twice in a deal"
        if not early_end:
            assert len(cards) == TOTAL[n], "every card is played in every deal"
    hand_size = TOTAL[n] // n
    assert len(state.deal_scores) == game.deal_count
    assert sum(state.scores()) == 0
    negatives = sum(sum(s) for s in state.deal_scores if sum(s) < 0)
    positives = sum(sum(s) for s in state.deal_scores if sum(s) > 0)
    expected = 104 if game.family == "dubbelkingen" else TOTAL[n]
    assert (negatives, positives) == (-expected, expected)
    assert all(sum(s) in (hand_size,) for s in state.deal_scores if sum(s) > 0)


@settings(max_examples=25, deadline=None)
@given(game_string=kingen_strings(), seed=st.integers(0, 2**32 - 1))
def test_records_round_trip_and_tampering_is_caught(game_string: str, seed: int) -> None:
    game = load_game(game_string)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    record = record_from_state(state)
    result = verify_record(record)
    assert result.ok
    assert result.scores == state.scores()
    assert result.complete
    deal_index = replace_a_card_play(record, rng)  # a card its seat was not dealt
    tampered = verify_record(record)
    assert not tampered.ok
    assert f"deal {deal_index + 1}" in tampered.problem


def test_a_deal_lists_every_card_of_the_deck_once() -> None:
    for players in (3, 4, 5):
        state = load_game(f"kingen(players={players})").new_initial_state(seed=players)
        assert isinstance(state, TrickTakingState)
        held = [cards_of(h) for h in state.hands]
        flat = [c for h in held for c in h]
        assert len(flat) == len(set(flat)) == TOTAL[players]
        assert {len(h) for h in held} == {TOTAL[players] // players}
