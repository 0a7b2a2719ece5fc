"""Property tests: random (and greedy) legal play of every Priffe option keeps the
invariants of SPEC 6: every deal plays each card once, the rubber's settlement is zero-sum
and follows the totals, honours come from the deal, views hide every unexposed hand."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CHANCE, Chance, load_game
from engine.cards import card_name, cards_of
from engine.chance import DEAL
from engine.players import make_player
from engine.record import record_from_state, verify_record
from engine.variants.priffe import HONOUR_MASKS, MISERE, PriffeState
from tests.engine.scripting import replace_a_card_play

CHOICES = {
    "players": ["3", "4"],
    "misere_allowed": ["true", "false"],
    "informational_only_means": ["forced_noll", "suit_contract"],
    "first_leader": ["forehand", "left_of_bidder"],
    "exit1_threshold": ["10", "30", "50"],
    "exit1_counts_penalty": ["true", "false"],
    "exit1_counts_honours": ["true", "false"],
    "exit2_increment": ["0", "40", "60"],
    "exit2_strictly_greater": ["true", "false"],
    "exit_bonus": ["10-20", "0-0", "20-50"],
    "forced_noll_penalty": ["true", "false"],
    "rubbers_per_game": ["1", "2", "3"],
    "seating": ["random", "fixed"],
}


@st.composite
def priffe_strings(draw: st.DrawFn) -> str:
    options = {name: draw(st.sampled_from(values)) for name, values in CHOICES.items()}
    return f"priffe({','.join(f'{k}={v}' for k, v in options.items())})"


def dealt_hands(state: PriffeState) -> list[tuple[int, ...]]:
    return [e.cards for _, seat, e in state.history if isinstance(e, Chance) and e.kind == DEAL]


def hidden_cards_of(state: PriffeState, seat: int) -> int:
    """The unplayed cards ``seat`` may not see: every other hand, except an exposed träkarl."""
    hidden = 0
    for other, hand in enumerate(state.hands):
        if other != seat and not (other == state.trakarl and state.trakarl_exposed()):
            hidden |= hand
    return hidden


def assert_view_hides_other_hands(state: PriffeState, seat: int) -> None:
    view = state.view_for(seat)
    assert view.hand == state.hands[seat]
    text = json.dumps({k: v for k, v in view.to_json().items() if k != "public"})
    text += json.dumps({k: v for k, v in view.public.items() if k != "draw"})
    for c in cards_of(hidden_cards_of(state, seat)):
        assert f'"{card_name(c)}"' not in text, f"seat {seat} sees {card_name(c)}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game_string=priffe_strings(),
    seed=st.integers(0, 2**32 - 1),
    bots=st.lists(st.sampled_from(["random", "greedy"]), min_size=4, max_size=4),
)
def test_every_option_plays_to_the_end_keeping_every_invariant(
    game_string: str, seed: int, bots: list[str]
) -> None:
    game = load_game(game_string)
    assert str(load_game(str(game))) == str(game)  # the canonical string is stable
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, PriffeState)
    players = [make_player(name, seed + seat) for seat, name in enumerate(bots)]
    rng = random.Random(seed)
    decisions = 0
    while not state.is_terminal():
        assert state.current_seat != CHANCE
        legal = state.legal_actions()
        assert legal, "the legal set is never empty"
        seat = state.acting_seat()
        assert seat != state.trakarl or state.trakarl < 0, "the träkarl never decides"
        view = state.view_for(seat)
        assert view.legal == tuple(legal)
        decisions += 1
        if decisions % 11 == 0:
            assert_view_hides_other_hands(state, rng.randrange(4))
        action = players[seat].choose(view)
        assert action in legal
        state.apply_action(action, seat=seat)

    rubbers = state.rubbers
    assert len(rubbers) == game.rules.rubbers_per_game
    sheets = [sheet for r in rubbers for sheet in r.sheets]
    assert [s.deal for s in sheets] == list(range(1, len(state.deal_scores) + 1))
    deals = dealt_hands(state)
    assert len(deals) == len(sheets)

    # Every card is played once per deal; only a lost misère ends a deal early.
    plays: dict[int, list[int]] = {}
    for deal_number, who, event in state.history:
        if who != CHANCE and isinstance(event, int) and event < 52:
            plays.setdefault(deal_number, []).append(event)
    for sheet in sheets:
        played = plays[sheet.deal]
        assert len(played) == len(set(played))
        if sheet.contract == MISERE and sheet.misere_made is False:
            assert len(played) % 4 == 0, "a lost misère ends after a whole trick"
        else:
            assert len(played) == 52
            assert sum(sheet.tricks) == 13

    for rubber in rubbers:
        settlement = rubber.settlement
        assert settlement is not None
        assert sum(settlement) == 0, "each rubber settles to zero"
        share = (rubber.totals[0] - rubber.totals[1]) // 10
        expected = [share if seat in rubber.partners[0] else -share for seat in range(4)]
        if state.trakarl >= 0:
            partner = rubber.partners[1][0]
            expected[partner] += expected[3]
            expected[3] = 0
        assert list(settlement) == expected
        assert 2 in rubber.exits, "a rubber ends with a second exit"
        bonus = game.rules.exit_bonus
        for side in (0, 1):
            assert rubber.bonus_points[side] == sum(bonus[: rubber.exits[side]])
            assert sum(s.bonus_points[side] for s in rubber.sheets) == rubber.bonus_points[side]
        for sheet in rubber.sheets:
            hands = deals[sheet.deal - 1]
            if sheet.contract == MISERE:
                assert sheet.trick_points == sheet.honour_points == (0, 0)
                continue
            # Trick points: one side scores 10 for each trick of the larger side above six.
            assert sum(sheet.trick_points) == 10 * (max(sheet.tricks) - 6)
            assert 0 in sheet.trick_points
            # Honours from the cards dealt to each side (never from the tricks).
            mask = HONOUR_MASKS[sheet.contract]
            by_side = [0, 0]
            for seat, hand in enumerate(hands):
                by_side[0 if seat in rubber.partners[0] else 1] += (hand & mask).bit_count()
            one_hand = any((hand & mask).bit_count() == 4 for hand in hands)
            value = {0: 0, 1: 0, 2: 0, 3: 20, 4: 50 if one_hand else 40}
            assert list(sheet.honour_points) == [value[by_side[0]], value[by_side[1]]]

    # Individual points: zero-sum, the sum of each deal's points.
    scores = state.scores()
    assert sum(scores) == 0
    assert scores == [sum(column) for column in zip(*state.deal_scores, strict=True)]
    if state.trakarl >= 0:
        assert scores[state.trakarl] == 0
    assert state.view_for(0).public["individual"] == scores


@settings(max_examples=25, deadline=None)
@given(game_string=priffe_strings(), seed=st.integers(0, 2**32 - 1))
def test_a_clone_is_independent_of_its_original(game_string: str, seed: int) -> None:
    state = load_game(game_string).new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(1, 200)):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    before = (list(state.log), state.scores(), json.dumps(state.view_for(0).to_json()))
    copy = state.clone()
    while not copy.is_terminal():
        copy.apply_action(rng.choice(copy.legal_actions()))
    after = (list(state.log), state.scores(), json.dumps(state.view_for(0).to_json()))
    assert before == after


@settings(max_examples=25, deadline=None)
@given(game_string=priffe_strings(), seed=st.integers(0, 2**32 - 1))
def test_records_round_trip_and_tampering_is_caught(game_string: str, seed: int) -> None:
    game = load_game(game_string)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    record = record_from_state(state)
    result = verify_record(record)
    assert result.ok, result.problem
    assert result.scores == state.scores()
    assert result.complete
    deal_index = replace_a_card_play(record, rng)  # a card its seat was not dealt
    tampered = verify_record(record)
    assert not tampered.ok
    assert f"deal {deal_index + 1}" in tampered.problem
