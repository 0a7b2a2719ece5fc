"""Property tests: random legal play of every King option keeps the invariants of SPEC
4 and 5 (negative hands -1300, positive hands +1300, every game 0), views never leak,
clones are independent, search states agree, and records verify (and catch tampering)."""

from __future__ import annotations

import json
import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CHANCE, load_game
from engine.cards import card_name, cards_of
from engine.players.greedy_king import greedy_king
from engine.record import record_from_state, verify_record
from engine.variants.king import FOIL, NEGATIVE_CONTRACTS, KingRules, KingState
from tests.engine.scripting import replace_a_card_play

CARD = re.compile(r"\b[2-9TJQKA][CDHS]\b")


@st.composite
def king_strings(draw: st.DrawFn) -> str:
    """Any game string of the family: every option drawn, over either preset."""
    options: dict[str, str] = {}
    if draw(st.booleans()):
        options["rules"] = "denexa"
    for name, spec in KingRules.option_specs().items():
        if not draw(st.booleans()):
            continue  # keep the preset's (or the family's) value
        if spec.kind == "bool":
            options[name] = draw(st.sampled_from(["true", "false"]))
        elif spec.kind == "choice":
            options[name] = draw(st.sampled_from(spec.choices))
        elif spec.kind == "names":
            options[name] = "/".join(draw(st.permutations(list(NEGATIVE_CONTRACTS))))
    body = ",".join(f"{k}={v}" for k, v in options.items())
    return f"king({body})" if body else "king"


def play_randomly(game_string: str, seed: int) -> KingState:
    state = load_game(game_string).new_initial_state(seed=seed)
    assert isinstance(state, KingState)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def assert_view_hides_other_hands(state: KingState, seat: int) -> None:
    view = state.view_for(seat)
    assert view.hand == state.hands[seat]
    hidden = 0
    for other in range(4):
        if other != seat:
            hidden |= state.hands[other]
    assert not view.hand & hidden
    data = view.to_json()
    del data["hand"]
    named = set(CARD.findall(json.dumps(data)))
    assert not named & {card_name(c) for c in cards_of(hidden)}, "a hidden card leaks"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_string=king_strings(), seed=st.integers(0, 2**32 - 1))
def test_random_play_keeps_every_invariant(game_string: str, seed: int) -> None:
    game = load_game(game_string)
    assert str(load_game(str(game))) == str(game)  # the canonical string is stable
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, KingState)
    rng = random.Random(seed)
    checked_clone = False
    while not state.is_terminal():
        assert state.current_seat != CHANCE
        legal = state.legal_actions()
        assert legal, "the legal set is never empty"
        assert list(legal) == sorted(legal)
        seat = state.current_seat
        if state.phase != "play" or rng.random() < 0.1:
            for action in legal:
                assert game.parse_action(game.action_to_string(action)) == action
            assert_view_hides_other_hands(state, seat)
            assert_view_hides_other_hands(state, rng.choice([s for s in range(4) if s != seat]))
        action = rng.choice(legal)
        if not checked_clone and rng.random() < 0.01:
            checked_clone = True
            before = (len(state.log), state.phase, list(state.hands), state.legal_actions())
            clone = state.clone()
            clone.apply_action(action)
            assert len(clone.log) > before[0]
            assert (len(state.log), state.phase, state.hands, state.legal_actions()) == before
        state.apply_action(action)
    negatives = game.deal_count - 4
    assert len(state.deal_scores) == game.deal_count
    assert sum(sum(s) for s in state.deal_scores[:negatives]) == -1300
    assert [sum(s) for s in state.deal_scores[negatives:]] == [325] * 4
    assert sum(state.scores()) == 0
    plays: dict[int, list[int]] = {}
    foiled: set[int] = set()
    for deal_number, seat, event in state.history:
        if seat != CHANCE and isinstance(event, int) and event < 52:
            plays.setdefault(deal_number, []).append(event)
        if event == FOIL:
            foiled.add(deal_number)
    assert all(number > negatives for number in foiled)
    for number in range(1, game.deal_count + 1):
        played = plays.get(number, [])
        assert len(played) == len(set(played)), "no card is played twice in a deal"
        if number in foiled:
            beneficiary = (state.first_dealer + number - 1) % 4
            expected = [100 if s == beneficiary else 75 for s in range(4)]
            assert (played, state.deal_scores[number - 1]) == ([], expected)
        else:
            assert len(played) == 52, "every card is played once in every deal"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_string=king_strings(), seed=st.integers(0, 2**32 - 1))
def test_search_state_from_a_view_agrees_with_the_game(game_string: str, seed: int) -> None:
    game = load_game(game_string)
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, KingState)
    rng = random.Random(seed)
    target = rng.randrange(1, game.deal_count + 1)
    while not (state.phase == "play" and state.deal_number == target and rng.random() < 0.1):
        state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            return
    seat = state.current_seat
    search = game.new_search_state(state.view_for(seat), state.hands)
    assert search.legal_actions() == state.legal_actions()
    while state.deal_number == target and len(state.deal_scores) < target:
        action = rng.choice(state.legal_actions())
        search.apply_action(action)
        state.apply_action(action)
    assert search.is_terminal()
    assert search.deal_scores[-1] == state.deal_scores[target - 1]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_string=king_strings(), seed=st.integers(0, 2**32 - 1))
def test_records_round_trip_and_tampering_is_caught(game_string: str, seed: int) -> None:
    state = play_randomly(game_string, seed)
    record = record_from_state(state)
    result = verify_record(json.loads(json.dumps(record)))
    assert result.ok, result.problem
    assert result.scores == state.scores()
    assert result.complete
    rng = random.Random(seed)
    # A card the player does not hold at that point.
    tampered = json.loads(json.dumps(record))
    deal_index = replace_a_card_play(tampered, rng)
    outcome = verify_record(tampered)
    assert not outcome.ok
    assert f"deal {deal_index + 1}" in outcome.problem
    # A positive hand's first decision replaced by a bid out of turn or out of place.
    positive = record["deals"][-1]["actions"]
    first = next(i for i, a in enumerate(positive) if "seat" in a)
    tampered = json.loads(json.dumps(record))
    tampered["deals"][-1]["actions"][first] = {"seat": positive[first]["seat"], "action": "bid 9up"}
    outcome = verify_record(tampered)
    assert not outcome.ok
    assert f"deal {len(record['deals'])}" in outcome.problem
    # A changed score.
    tampered = json.loads(json.dumps(record))
    tampered["deals"][-1]["scores"][0] += 25
    assert not verify_record(tampered).ok


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_string=king_strings(), seed=st.integers(0, 2**32 - 1))
def test_greedy_plays_every_option_combination(game_string: str, seed: int) -> None:
    state = load_game(game_string).new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        seat = state.current_seat
        view = state.view_for(seat)
        action = greedy_king(view, rng)
        assert action in view.legal
        state.apply_action(action, seat=seat)
    assert sum(state.scores()) == 0
