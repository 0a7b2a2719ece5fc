"""Kingen's rules of card play against SPEC 3.6's reference algorithm, transcribed here
line by line (independently of engine/variants/kingen.py), for every combination of the
trump obligations and in every kind of position: void in the suit led or not, trumps led
or not, trumps held or not, a trump already in the trick or not, a higher trump held or
not.

Positions come from whole games of random legal play; at every card-play decision the
engine's legal cards must be exactly the algorithm's, and one card outside them (if any)
must be refused.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import IllegalActionError, load_game
from engine.game import TrickTakingState

# Cards are suit * 13 + rank (docs/engine.md): suits clubs, diamonds, hearts, spades;
# ranks 0..12 for 2..A.
HEARTS = 2
JACK, QUEEN, KING = 9, 10, 11
PENALTY_CONTRACTS = ("hearts", "kings_jacks", "queens", "king_of_hearts")


def suit(card: int) -> int:
    return card // 13


def rank(card: int) -> int:
    return card % 13


def is_penalty(card: int, contract: str) -> bool:
    """SPEC 3.6: NO_HEARTS any heart; KINGS_JACKS any K or J; QUEENS any Q; NO_KING_HEARTS K♥."""
    if contract == "hearts":
        return suit(card) == HEARTS
    if contract == "kings_jacks":
        return rank(card) in (KING, JACK)
    if contract == "queens":
        return rank(card) == QUEEN
    if contract == "king_of_hearts":
        return card == HEARTS * 13 + KING
    return False


def spec_legal(
    hand: list[int], trick: list[int], contract: str, trump: int, rules: Any
) -> set[int]:
    """SPEC 3.6's ``legal(hand, trick, contract)``, each IWWA rule behind its own flag."""
    if not trick:
        if contract in ("hearts", "king_of_hearts") and rules.heart_lead_ban:
            nh = [c for c in hand if suit(c) != HEARTS]
            return set(nh if nh else hand)
        return set(hand)
    led = suit(trick[0])
    same = [c for c in hand if suit(c) == led]
    if same:
        if contract in PENALTY_CONTRACTS and rules.must_follow_with_penalty_when_safe:
            top = max(rank(c) for c in trick if suit(c) == led)
            safe = [c for c in same if is_penalty(c, contract) and rank(c) < top]
            if safe:
                return set(safe)
        if contract == "trumps" and led == trump and rules.must_beat_trump_lead:
            highest = max(rank(c) for c in trick if suit(c) == trump)
            hi = [c for c in same if rank(c) > highest]
            if hi:
                return set(hi)
        return set(same)
    # void in the suit led
    trumps = [c for c in hand if suit(c) == trump]
    if contract == "trumps" and trumps:
        if any(suit(c) == trump for c in trick) and led != trump:
            highest = max(rank(c) for c in trick if suit(c) == trump)
            hi = [t for t in trumps if rank(t) > highest]
            if hi and rules.must_overtrump:
                return set(hi)
            # per undertrump_policy (SPEC 3.6, obligation 4)
            if rules.undertrump_policy == "must_trump_anyway":
                return set(trumps)
            if rules.undertrump_policy == "no_undertrump":
                others = [c for c in hand if suit(c) != trump]
                return set(others if others else hand)
            return set(hand)  # free
        return set(trumps) if rules.must_trump else set(hand)
    if contract in PENALTY_CONTRACTS and rules.must_discard_penalty:
        p = [c for c in hand if is_penalty(c, contract)]
        if p:
            return set(p)
    return set(hand)


def situation(hand: list[int], trick: list[int], trump: int) -> tuple[bool, ...]:
    """(void in the suit led, trumps led, trumps held, trump in the trick, higher held)."""
    led = suit(trick[0])
    trumps = [c for c in hand if suit(c) == trump]
    in_trick = [rank(c) for c in trick if suit(c) == trump]
    higher = bool(in_trick) and any(rank(c) > max(in_trick) for c in trumps)
    void = not any(suit(c) == led for c in hand)
    return (void, led == trump, bool(trumps), bool(in_trick), higher)


def reachable_situations() -> set[tuple[bool, ...]]:
    found: set[tuple[bool, ...]] = set()
    for void, trump_led, held, in_trick, higher in itertools.product([False, True], repeat=5):
        if trump_led and not in_trick:  # the led card is a trump
            continue
        if higher and not (held and in_trick):
            continue
        if trump_led and held != (not void):  # following trumps means holding them
            continue
        found.add((void, trump_led, held, in_trick, higher))
    return found


def check_game(game_string: str, seed: int) -> set[tuple[bool, ...]]:
    """Play a whole game at random; compare every card-play decision with spec_legal.
    Returns the situations met in trump deals."""
    game = load_game(game_string)
    rules = game.rules
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, TrickTakingState)
    rng = random.Random(seed)
    met: set[tuple[bool, ...]] = set()
    while not state.is_terminal():
        legal = state.legal_actions()
        if state.phase == "play":
            view = state.view_for(state.current_seat)  # what the seat knows, nothing more
            hand = [c for c in range(52) if view.hand >> c & 1]
            trick = list(view.trick)
            contract = view.public["contract"]
            expected = spec_legal(hand, trick, contract, view.trump, rules)
            where = f"{game_string} seed {seed}: {contract}, hand {hand}, trick {trick}"
            assert set(legal) == expected, where
            refused = sorted(set(hand) - expected)
            if refused:
                with pytest.raises(IllegalActionError):
                    state.clone().apply_action(rng.choice(refused))
            if contract == "trumps" and trick:
                met.add(situation(hand, trick, view.trump))
        state.apply_action(rng.choice(legal))
    return met


TRUMP_FLAGS = list(
    itertools.product(
        ["false", "true"],  # must_trump
        ["false", "true"],  # must_overtrump
        ["must_trump_anyway", "free", "no_undertrump"],
        ["false", "true"],  # must_beat_trump_lead
    )
)


@pytest.mark.parametrize(("must_trump", "must_overtrump", "policy", "beat_lead"), TRUMP_FLAGS)
def test_every_combination_of_trump_obligations_follows_the_algorithm(
    must_trump: str, must_overtrump: str, policy: str, beat_lead: str
) -> None:
    """Seeded games of each combination until every kind of position has been met."""
    game_string = (
        f"kingen(trump_mode=dealer_choice,must_trump={must_trump},"
        f"must_overtrump={must_overtrump},undertrump_policy={policy},"
        f"must_beat_trump_lead={beat_lead})"
    )
    wanted = reachable_situations()
    met: set[tuple[bool, ...]] = set()
    for seed in range(60):
        met |= check_game(game_string, seed)
        if met >= wanted:
            break
    assert met == wanted, f"never met: {sorted(wanted - met)}"


@st.composite
def kingen_strings(draw: st.DrawFn) -> str:
    family = draw(st.sampled_from(["kingen", "dubbelkingen"]))
    options = {
        name: draw(st.sampled_from(["true", "false"]))
        for name in (
            "heart_lead_ban",
            "must_discard_penalty",
            "must_follow_with_penalty_when_safe",
            "must_beat_trump_lead",
            "must_trump",
            "must_overtrump",
        )
    }
    options["undertrump_policy"] = draw(
        st.sampled_from(["must_trump_anyway", "free", "no_undertrump"])
    )
    if family == "kingen":
        options["players"] = str(draw(st.sampled_from([3, 4, 5])))
        options["trump_mode"] = draw(
            st.sampled_from(["last_card", "dealer_choice", "offer_tricks"])
        )
        if draw(st.booleans()):
            options["rules"] = "iwwa"
    return f"{family}({','.join(f'{k}={v}' for k, v in options.items())})"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_string=kingen_strings(), seed=st.integers(0, 2**32 - 1))
def test_any_rules_and_any_game_follow_the_algorithm(game_string: str, seed: int) -> None:
    """Every option of play, with 3 to 5 players and Dubbelkingen's chosen contracts."""
    check_game(game_string, seed)


def test_the_transcription_has_the_source_examples() -> None:
    """The transcription itself gives SPEC 3.6's ♦10 example and SPEC 3.10 examples 6-7."""
    d = {name: 13 + r for r, name in enumerate("23456789TJQKA")}
    s = {name: 39 + r for r, name in enumerate("23456789TJQKA")}
    c4, h9 = 2, 26 + 7
    hand = [d["8"], d["5"], c4, h9]
    trick = [s["A"], d["T"]]

    class Rules:
        heart_lead_ban = must_discard_penalty = must_follow_with_penalty_when_safe = False
        must_beat_trump_lead = must_trump = must_overtrump = True
        undertrump_policy = "must_trump_anyway"

    rules = Rules()
    assert spec_legal(hand, trick, "trumps", 1, rules) == {d["8"], d["5"]}
    rules.undertrump_policy = "free"
    assert spec_legal(hand, trick, "trumps", 1, rules) == set(hand)
    rules.undertrump_policy = "no_undertrump"
    assert spec_legal(hand, trick, "trumps", 1, rules) == {c4, h9}
    assert spec_legal([d["J"], d["5"], c4], trick, "trumps", 1, rules) == {d["J"]}
    assert spec_legal([d["Q"], d["3"]], [d["J"]], "trumps", 1, rules) == {d["Q"]}
    assert spec_legal([d["3"], d["2"]], [d["J"]], "trumps", 1, rules) == {d["3"], d["2"]}
