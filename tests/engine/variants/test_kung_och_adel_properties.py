"""Property tests: random legal play of every Kung och Adel option keeps the invariants."""

from __future__ import annotations

import itertools
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CHANCE, load_game
from engine.cards import card_name, cards_of
from engine.players import make_player
from engine.record import record_from_state, verify_record
from engine.variants.kung_och_adel import (
    QUOTAS,
    RANK_NAMES,
    KungOchAdelState,
    updated_order,
)

RANK_UPDATES = ("made_then_failed_inverted", "by_margin")


@st.composite
def game_strings(draw: st.DrawFn) -> str:
    options = {
        "trump_choice_after_cards": draw(st.sampled_from(["6", "13"])),
        "tribute_mode": draw(st.sampled_from(["sequential", "simultaneous"])),
        "rank_update": draw(st.sampled_from(RANK_UPDATES)),
        "deal_start": draw(st.sampled_from(["left_of_dealer", "dealer"])),
        "first_leader_chooser": draw(st.sampled_from(["monarch", "eldest"])),
        "deals": str(draw(st.integers(1, 3))),
        "rank_points": draw(st.sampled_from(["3-2-1-0", "1-0-0-0", "5-3-1-1"])),
    }
    redeal = draw(st.sampled_from([None, "true", "false"]))
    if redeal is not None:
        options["allow_redeal_if_no_court"] = redeal
    if draw(st.booleans()):
        options["rules"] = "riddare"
    return f"kung_och_adel({','.join(f'{k}={v}' for k, v in options.items())})"


def names(mask: int) -> list[str]:
    return [card_name(c) for c in cards_of(mask)]


def check_view(state: KungOchAdelState, seat: int) -> None:
    """A seat's view holds its own cards and its own exchange's cards, nothing else."""
    view = state.view_for(seat)
    assert view.hand == state.hands[seat]
    for other in range(4):
        if other != seat:
            assert not view.hand & state.hands[other]
    private: dict[str, Any] = view.private
    for key, masks in (
        ("tribute_given", state.tribute_given),
        ("tribute_received", state.tribute_received),
        ("return_given", state.return_given),
        ("return_received", state.return_received),
    ):
        assert private.get(key, []) == names(masks[seat])
    if not state.exchange:
        assert not private
        return
    pair = next({s.giver, s.receiver} for s in state.exchange if seat in (s.giver, s.receiver))
    others = [s for s in range(4) if s not in pair]
    other_cards = 0
    for s in others:
        other_cards |= state.tribute_given[s] | state.return_given[s]
    seen = [c for cards in private.values() for c in cards]
    assert not set(seen) & set(names(other_cards)), "another exchange's cards are not shown"
    if state.phase in ("tribute", "return"):
        assert view.played == 0, "cards set aside are not shown as played"
        # A return is seen by its receiver only once it is given (in their hand).
        assert state.return_received[seat] & view.hand == state.return_received[seat]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_string=game_strings(), seed=st.integers(0, 2**32 - 1))
def test_random_play_keeps_every_invariant(game_string: str, seed: int) -> None:
    game = load_game(game_string)
    assert str(load_game(str(game))) == str(game)  # the canonical string is stable
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, KungOchAdelState)
    rng = random.Random(seed)
    points = game.rules.rank_points
    deals_checked = 0
    while not state.is_terminal():
        assert state.current_seat != CHANCE
        legal = state.legal_actions()
        assert legal, "the legal set is never empty"
        if state.phase == "play" and not state.completed and not state.trick:
            assert [h.bit_count() for h in state.hands] == [13] * 4, "13 cards after tribute"
        for seat in range(4):
            check_view(state, seat)
        ranks_before = list(state.ranks)
        deal_before = len(state.deal_scores)
        state.apply_action(rng.choice(legal))
        if len(state.deal_scores) > deal_before:
            deals_checked += 1
            tricks = state.trick_history[-1]
            assert sum(tricks) == 13
            assert sorted(state.ranks) == [0, 1, 2, 3], "the new ranks are a permutation"
            assert state.deal_scores[-1] == [points[r] for r in state.ranks]
            made_exactly = all(tricks[s] == QUOTAS[ranks_before[s]] for s in range(4))
            assert (state.ranks == ranks_before) or not made_exactly
    assert deals_checked == game.deal_count == len(state.deal_scores)
    assert sum(state.scores()) == sum(points) * game.deal_count
    assert len(state.rank_history) == game.deal_count + 1
    plays: dict[int, list[int]] = {}
    for deal_number, seat, action in state.history:
        if seat != CHANCE and isinstance(action, int) and action < 52:
            plays.setdefault(deal_number, []).append(action)
    assert sorted(plays) == list(range(1, game.deal_count + 1))
    for cards in plays.values():
        assert sorted(cards) == list(range(52)), "every card is played once in every deal"


@settings(max_examples=25, deadline=None)
@given(game_string=game_strings(), seed=st.integers(0, 2**32 - 1))
def test_greedy_play_reaches_the_end_and_the_record_verifies(game_string: str, seed: int) -> None:
    game = load_game(game_string)
    state = game.new_initial_state(seed=seed)
    players = [make_player("greedy", seed + seat) for seat in range(4)]
    while not state.is_terminal():
        seat = state.current_seat
        state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)
    record = record_from_state(state)
    result = verify_record(record)
    assert result.ok, result.problem
    assert result.scores == state.scores()
    # Tamper with one deal's recorded scores: the replay must disagree.
    record["deals"][-1]["scores"][0] += 1
    tampered = verify_record(record)
    assert not tampered.ok
    assert f"deal {len(record['deals'])}: recorded scores" in tampered.problem


@settings(max_examples=25, deadline=None)
@given(game_string=game_strings(), seed=st.integers(0, 2**32 - 1))
def test_records_round_trip_and_a_foreign_card_is_caught(game_string: str, seed: int) -> None:
    game = load_game(game_string)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    record = record_from_state(state)
    assert record["prelude"][0]["chance"] == "draw"
    result = verify_record(record)
    assert result.ok, result.problem
    assert result.complete
    deal_index = rng.randrange(len(record["deals"]))
    actions = record["deals"][deal_index]["actions"]
    plays = [i for i, a in enumerate(actions) if a.get("action", "").startswith("play")]
    index = plays[-1]  # the last card of the deal: the player holds only one card
    seat = actions[index]["seat"]
    held = actions[index]["action"][5:]
    foreign = next(c for c in ("2C", "3C", "AS", "KH") if c != held)
    actions[index] = {"seat": seat, "action": f"play {foreign}"}
    tampered = verify_record(record)
    assert not tampered.ok
    assert f"deal {deal_index + 1}" in tampered.problem


@st.composite
def trick_counts(draw: st.DrawFn) -> list[int]:
    """Tricks of the four seats in one deal: any four counts summing to 13."""
    cuts = sorted(draw(st.lists(st.integers(0, 13), min_size=3, max_size=3)))
    return [cuts[0], cuts[1] - cuts[0], cuts[2] - cuts[1], 13 - cuts[2]]


@settings(max_examples=60, deadline=None)
@given(
    order=st.permutations(range(4)),
    tricks=trick_counts(),
    rule=st.sampled_from(RANK_UPDATES),
)
def test_the_rank_update_is_a_permutation_that_keeps_made_quotas_in_order(
    order: list[int], tricks: list[int], rule: str
) -> None:
    new = updated_order(order, tricks, rule)
    assert sorted(new) == [0, 1, 2, 3]
    quota = {seat: QUOTAS[rank] for rank, seat in enumerate(order)}
    if rule == "made_then_failed_inverted":
        made = [seat for seat in order if tricks[seat] >= quota[seat]]
        failed = [seat for seat in order if tricks[seat] < quota[seat]]
        assert new == made + failed[::-1]
    else:
        margins = [tricks[seat] - quota[seat] for seat in new]
        assert margins == sorted(margins, reverse=True)
        for a, b in itertools.pairwise(new):
            if tricks[a] - quota[a] == tricks[b] - quota[b]:
                assert order.index(a) < order.index(b), "equal margins keep their old order"
    exact = all(tricks[seat] == quota[seat] for seat in order)
    if exact:
        assert new == list(order)
    else:  # quotas sum to 13: someone failed and someone made more than their quota
        assert any(tricks[s] < quota[s] for s in order)
        assert any(tricks[s] > quota[s] for s in order)


@settings(max_examples=25, deadline=None)
@given(order=st.permutations(range(4)), rule=st.sampled_from(RANK_UPDATES))
def test_when_every_seat_makes_exactly_its_quota_ranks_do_not_change(
    order: list[int], rule: str
) -> None:
    tricks = [0] * 4
    for rank, seat in enumerate(order):
        tricks[seat] = QUOTAS[rank]
    assert updated_order(order, tricks, rule) == list(order)


@settings(max_examples=30, deadline=None)
@given(game_string=game_strings(), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 80))
def test_a_clone_is_independent(game_string: str, seed: int, steps: int) -> None:
    game = load_game(game_string)
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, KungOchAdelState)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    if state.is_terminal():
        return
    snapshot = (state.view_for(0).to_json(), list(state.log), list(state.hands))
    twin = state.clone()
    while not twin.is_terminal():
        twin.apply_action(rng.choice(twin.legal_actions()))
    assert (state.view_for(0).to_json(), list(state.log), list(state.hands)) == snapshot
    ranks = state.view_for(0).public["ranks"]
    assert ranks is None or sorted(ranks) == sorted(RANK_NAMES)
