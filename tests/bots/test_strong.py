"""The ``strong`` built-in bot: hidden-hand inference and sampling, legality,
determinism, views only, and tactics on hand-made positions.

Kept fast: searches use 2-8 sampled deals. Its strength against ``greedy`` is measured
by bench/strong_vs_greedy.py (docs/benchmarks.md), not here.
"""

from __future__ import annotations

import copy
import gc
import random
import types
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.builtin import BUILTIN_PLAYERS
from bots.builtin.strong import Playout, PlayoutView, StrongPlayer, greedy_policy
from engine import FAMILIES, PlayerView, State, load_game
from engine.cards import BIT, SUIT_MASKS, SUIT_OF, card_names, mask_of, parse_card
from engine.chance import DEAL, FIRST_DEALER, Chance
from engine.hidden_hands import (
    HandConstraints,
    HandSampler,
    _Deal,
    deck_of,
    hand_constraints,
    next_seats,
)
from engine.players import RandomPlayer

GAME_STRINGS = [
    "kingen",
    "kingen(rules=iwwa)",
    "kingen(players=3,rules=iwwa)",
    "kingen(players=5)",
    "kingen(trump_mode=dealer_choice,must_trump=true,undertrump_policy=must_trump_anyway)",
    "kingen(trump_mode=dealer_choice,must_overtrump=true,undertrump_policy=no_undertrump)",
    "dubbelkingen",
    "king",
    "king(rules=denexa)",
    "king(k_hearts_forced=on_void_or_cannot_win,heart_lead_rule=after_broken,must_trump=true)",
    "kung_och_adel",
    "kung_och_adel(rules=riddare)",
    "priffe",
    "priffe(players=3)",
]
GAMES = [g for g in GAME_STRINGS if g.partition("(")[0] in FAMILIES]


def fast_strong(seed: int = 0, samples: int = 3) -> StrongPlayer:
    return StrongPlayer(seed, time_budget_ms=None, samples=samples)


def play_to_decision(
    game_string: str, seed: int, skip: int, *, card_play: bool = True
) -> tuple[State[Any], PlayerView]:
    """A random position: random legal play from ``seed``, at least ``skip`` actions, then
    on to a decision (a card-play decision with a choice when ``card_play``)."""
    game = load_game(game_string)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    actions = 0
    while True:
        if state.is_terminal():  # a short game: go on in another one
            state = game.new_initial_state(seed=seed + 1000 + actions)
            continue
        seat = state.acting_seat()
        view = state.view_for(seat)
        wanted = view.phase == "play" and len(view.legal) > 1 if card_play else True
        if actions >= skip and wanted:
            return state, view
        state.apply_action(rng.choice(view.legal), seat=seat)
        actions += 1


def voids_shown(view: PlayerView) -> list[int]:
    """Suits each seat showed it is void in by not following (an independent count)."""
    nxt = next_seats(view)
    void = [0] * view.num_seats
    tricks = [(t.leader, t.cards) for t in view.tricks] + [(view.leader, view.trick)]
    for leader, cards in tricks:
        seat = leader
        for c in cards:
            if SUIT_OF[c] != SUIT_OF[cards[0]]:
                void[seat] |= SUIT_MASKS[SUIT_OF[cards[0]]]
            seat = nxt[seat]
    return void


# ---------------------------------------------------------------- hidden hands


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game_string=st.sampled_from(GAMES),
    seed=st.integers(0, 10_000),
    skip=st.integers(0, 560),
)
def test_inference_holds_for_the_real_hands(game_string: str, seed: int, skip: int) -> None:
    """What the bot infers is true: every seat really holds its known cards and none of
    its excluded ones (inference is exact, never a guess)."""
    state, view = play_to_decision(game_string, seed, skip)
    constraints = hand_constraints(view)
    hands: list[int] = state.hands  # type: ignore[attr-defined]
    for seat in range(view.num_seats):
        assert constraints.known[seat] & ~hands[seat] == 0, f"seat {seat} known"
        wrong = constraints.excluded[seat] & hands[seat]
        assert not wrong, f"seat {seat} holds excluded {card_names(wrong)}"
    assert constraints.sizes == view.hand_sizes


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game_string=st.sampled_from(GAMES),
    seed=st.integers(0, 10_000),
    skip=st.integers(0, 560),
    sample_seed=st.integers(0, 2**32),
)
def test_sampled_hands_are_consistent_with_the_view(
    game_string: str, seed: int, skip: int, sample_seed: int
) -> None:
    _, view = play_to_decision(game_string, seed, skip)
    sampler = HandSampler(view)
    constraints = sampler.constraints
    voids = voids_shown(view)
    deck = deck_of(view.game)
    rng = random.Random(sample_seed)
    for _ in range(5):
        hands = sampler.sample(rng)
        assert hands[view.seat] == view.hand
        union = 0
        for seat, hand in enumerate(hands):
            assert hand.bit_count() == view.hand_sizes[seat]
            assert not hand & union, "a card dealt twice"
            assert not hand & view.played, "a card already played"
            assert not hand & voids[seat], "a card of a suit the seat showed void in"
            assert not hand & constraints.excluded[seat]
            assert hand & constraints.known[seat] == constraints.known[seat]
            union |= hand
        assert union == deck & ~view.played
        # The engine accepts the deal as a search state.
        search = view.game.new_search_state(view, hands)
        assert search.current_seat == view.to_act


def test_sampler_keeps_a_constrained_deal_possible() -> None:
    """Voids that make a careless deal run into a dead end: the slacks prevent it."""
    spades, hearts, clubs = SUIT_MASKS[3], SUIT_MASKS[2], SUIT_MASKS[0]
    pool = spades | hearts | (clubs & 0b111)  # 13 + 13 + 3 cards
    constraints = HandConstraints(
        seat=0,
        sizes=(0, 13, 13, 3),
        known=(0, 0, 0, 0),
        excluded=(0, hearts | clubs, spades | clubs, 0),
        pool=pool,
    )
    deal = _Deal(constraints)
    assert deal.feasible
    rng = random.Random(1)
    for _ in range(200):
        hands = deal.sample(rng)
        assert hands[1] == spades
        assert hands[2] == hearts
        assert hands[3] == clubs & 0b111


def test_sampler_is_uniform_without_constraints() -> None:
    pool = mask_of(range(6))
    constraints = HandConstraints(0, (0, 3, 3), (0, 0, 0), (0, 0, 0), pool)
    deal = _Deal(constraints)
    rng = random.Random(2)
    counts: dict[int, int] = {}
    for _ in range(4000):
        hands = deal.sample(rng)
        counts[hands[1]] = counts.get(hands[1], 0) + 1
    assert len(counts) == 20  # C(6, 3) ways, each about 200 times
    assert min(counts.values()) > 120


# ---------------------------------------------------------------- the bot


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game_string=st.sampled_from(GAMES),
    seed=st.integers(0, 10_000),
    skip=st.integers(0, 560),
)
def test_strong_always_returns_a_legal_action(game_string: str, seed: int, skip: int) -> None:
    state, view = play_to_decision(game_string, seed, skip, card_play=False)
    action = fast_strong(seed, samples=2).choose(view)
    assert action in view.legal
    state.apply_action(action, seat=view.seat)


@pytest.mark.parametrize("game_string", GAMES)
def test_strong_plays_whole_deals_legally(game_string: str) -> None:
    """A table of strong bots through the engine's checks (apply_action raises on an
    illegal card) until a deal is over."""
    game = load_game(game_string)
    state = game.new_initial_state(seed=3)
    players = [fast_strong(s, samples=2) for s in range(game.num_seats)]
    while not state.deal_scores and not state.is_terminal():
        seat = state.acting_seat()
        state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)


@pytest.mark.parametrize("game_string", GAMES)
def test_strong_is_deterministic_with_a_seed_and_a_sample_count(game_string: str) -> None:
    for skip in (9, 30):
        _, view = play_to_decision(game_string, 7 + skip, skip)
        first = fast_strong(seed=5, samples=6)
        second = fast_strong(seed=5, samples=6)
        choice = first.choose(view)
        assert first.last_samples == 6
        assert second.choose(view) == choice
        assert first.choose(view) == choice  # the same view, the same card, whatever came before


@pytest.mark.parametrize("game_string", GAMES)
def test_strong_needs_only_the_view(game_string: str) -> None:
    """The bot gets a PlayerView, which references no State, and decides the same from a
    deep copy of it after the state it came from is gone."""
    state, view = play_to_decision(game_string, 11, 17)
    assert not _reachable_states(view)
    choice = fast_strong(1, samples=4).choose(view)
    del state
    gc.collect()
    assert fast_strong(1, samples=4).choose(copy.deepcopy(view)) == choice


def _reachable_states(root: object) -> list[object]:
    """State objects reachable from ``root`` through data (not classes, modules, code)."""
    seen: set[int] = set()
    found: list[object] = []
    stack = [root]
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, skip):
            continue
        seen.add(id(obj))
        if isinstance(obj, State):
            found.append(obj)
        stack.extend(gc.get_referents(obj))
    return found


@pytest.mark.parametrize("game_string", GAMES)
def test_playout_views_match_the_engine_views(game_string: str) -> None:
    """The mutable views of a playout show what the search state's own views show."""
    _, view = play_to_decision(game_string, 21, 12)
    hands = HandSampler(view).sample(random.Random(0))
    state = view.game.new_search_state(view, hands)
    policy = greedy_policy(view)
    checked = 0

    def checking_policy(seen: PlayerView, rng: random.Random) -> int:
        nonlocal checked
        raw: object = seen
        assert isinstance(raw, PlayoutView)  # the playout's own mutable view
        truth = state.view_for(seen.seat)
        for name in (
            "seat",
            "to_act",
            "phase",
            "hand",
            "hand_sizes",
            "leader",
            "trick",
            "tricks",
            "tricks_won",
            "played",
            "legal",
            "trump",
            "contract",
            "deal_number",
            "dealer",
        ):
            assert getattr(seen, name) == getattr(truth, name), name
        assert seen.num_seats == truth.num_seats
        # Public facts are the root view's, which come from the real game (a search
        # state restores only what card play needs); the only one that changes during
        # card play is Priffe's exposed träkarl hand.
        if "trakarl" in seen.public:
            assert seen.public["trakarl"] == truth.public["trakarl"]
        checked += 1
        return policy(seen, rng)

    Playout(view, checking_policy, random.Random(0)).run(state)
    assert state.is_terminal()
    assert checked > 0


def test_builtin_registry() -> None:
    assert set(BUILTIN_PLAYERS) == {"random", "greedy", "strong", "solver"}
    _, view = play_to_decision("kingen", 4, 10)
    for name, factory in BUILTIN_PLAYERS.items():
        player = factory(9)
        assert player.choose(view) in view.legal, name
    assert isinstance(BUILTIN_PLAYERS["strong"](9), StrongPlayer)
    assert isinstance(BUILTIN_PLAYERS["random"](9), RandomPlayer)


def test_time_budget_is_an_upper_bound() -> None:
    _, view = play_to_decision("kingen", 5, 3)
    player = StrongPlayer(0, time_budget_ms=0.0, samples=1000)
    assert player.choose(view) in view.legal
    assert player.last_samples == 1  # the clock ran out after the first deal


# ---------------------------------------------------------------- hand-made positions


def cards(text: str) -> int:
    return mask_of(parse_card(c) for c in text.split())


def fill(hands: list[int], size: int = 13) -> tuple[int, ...]:
    """Deal the cards no hand holds yet, in order, to the hands short of ``size`` cards."""
    rest = [c for c in range(52) if not any(BIT[c] & h for h in hands)]
    out = list(hands)
    for seat in range(len(out)):
        while out[seat].bit_count() < size:
            out[seat] |= BIT[rest.pop(0)]
    return tuple(out)


def dealt_state(game_string: str, dealer: int, hands: tuple[int, ...]) -> State[Any]:
    state = load_game(game_string).new_initial_state()
    state.apply_chance(Chance(FIRST_DEALER, seat=dealer))
    state.apply_chance(Chance(DEAL, hands))
    return state


def play(state: State[Any], *names: str) -> None:
    for name in names:
        state.apply_action(state.parse_action("play " + name), seat=state.current_seat)


def test_ducks_the_trick_in_the_no_tricks_contract() -> None:
    """Kingen's first deal (no tricks): last to a club trick won by the K, holding the A
    and the 2 of clubs, it plays the 2."""
    hands = fill(
        [
            cards("AC 2C 3D 4D 5D 6D 7D 3H 4H 5H 6H 7H 8H"),
            cards("KC"),
            cards("QC"),
            cards("JC"),
        ]
    )
    state = dealt_state("kingen", dealer=0, hands=hands)
    play(state, "KC", "QC", "JC")
    view = state.view_for(0)
    assert set(view.legal) == {parse_card("AC"), parse_card("2C")}
    assert fast_strong(0, samples=8).choose(view) == parse_card("2C")


def test_ruffs_to_win_the_trick_in_trumps() -> None:
    """Dubbelkingen, the dealer names spades: last to a club trick, void in clubs, with
    the 2 of spades as its only trump (every other spade is behind it), it ruffs."""
    hands = fill(
        [
            cards("2S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"),
            cards("AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C"),
            0,
            0,
        ]
    )
    assert hands[2] == SUIT_MASKS[1]  # all the diamonds; seat 3: AH and 3S..AS
    state = dealt_state("dubbelkingen(rules=basic)", dealer=0, hands=hands)
    state.apply_action(state.parse_action("trump S"), seat=0)
    play(state, "AC", "2D", "AH")
    view = state.view_for(0)
    assert len(view.legal) == 13
    assert fast_strong(0, samples=8).choose(view) == parse_card("2S")
