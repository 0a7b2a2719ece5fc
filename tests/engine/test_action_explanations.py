"""Every action a person can see is explained in plain words (``Game.action_explanation``):
the table shows it beside a bid or a choice, the replay beside what was chosen."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import CHANCE, FAMILIES, load_game
from engine.game import Game

ACTION_CODES = range(1024)
"""Every action code a family may use (codes stay below 1024: engine/game.py)."""

GAMES = sorted(
    {example for family in FAMILIES.values() for example in family.example_games()}
    | {
        "kingen(trump_mode=offer_tricks)",
        "kingen(trump_mode=dealer_choice,players=3)",
        "dubbelkingen",
        "king(k_hearts_nominates_dealer=true)",
        "king(down_payment=capped)",
        "kung_och_adel(rules=riddare)",
        "priffe(informational_only_means=suit_contract)",
    }
)


def _actions(game: Game[Any]) -> dict[int, str]:
    """Every action code the game can name, with its string."""
    named = {}
    for code in ACTION_CODES:
        try:
            named[code] = game.action_to_string(code)
        except ValueError:
            continue
    return named


@pytest.mark.parametrize("game_string", GAMES)
def test_every_kind_of_action_but_a_card_play_is_explained(game_string: str) -> None:
    game = load_game(game_string)
    verbs_explained: set[str] = set()
    for code, text in _actions(game).items():
        explanation = game.action_explanation(code)
        verb = text.split(" ", 1)[0]
        if verb == "play":
            assert explanation == "", text  # the card says it all
            continue
        assert explanation, f"{game_string}: {text!r} has no explanation"
        assert explanation[0].isupper(), explanation
        assert explanation.endswith("."), explanation
        assert "_" not in explanation, explanation  # words for people, not option names
        verbs_explained.add(verb)
    # Every verb the family labels (but card play) is among those explained.
    assert set(game.action_labels()) - {"play"} <= verbs_explained | {"pass", "accept", "reject"}


def test_a_card_passed_face_down_is_not_named() -> None:
    """Replays of running matches show explanations to everyone: a tribute stays secret."""
    game = load_game("kung_och_adel")
    for verb in ("tribute", "return"):
        for card in ("AS", "2C", "TH"):
            assert card not in game.action_explanation(game.parse_action(f"{verb} {card}"))


def test_an_unknown_code_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown action code"):
        load_game("kingen").action_explanation(1023)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_action_legal_in_random_games_is_explained(family: str) -> None:
    """The actions people really meet: two seeded random games of each example."""
    for game_string in FAMILIES[family].example_games():
        game = load_game(game_string)
        for seed in (1, 2):
            rng = random.Random(seed)
            state = game.new_initial_state(seed=seed)
            while not state.is_terminal():
                assert state.current_seat != CHANCE
                legal = list(state.legal_actions())
                for action in legal:
                    if action >= 52:
                        assert game.action_explanation(action), game.action_to_string(action)
                state.apply_action(rng.choice(legal))


@pytest.mark.parametrize(
    ("game_string", "action", "words"),
    [
        ("priffe", "bid noll", ["no trumps", "fewer tricks"]),
        ("priffe", "bid spel", ["no trumps", "most tricks"]),
        ("priffe", "bid misere", ["no trick at all", "15 points"]),
        ("priffe", "bid clubs", ["signal", "forced noll"]),
        ("priffe(informational_only_means=suit_contract)", "bid clubs", ["clubs are trumps"]),
        ("priffe", "bid hearts", ["hearts are trumps"]),
        ("kung_och_adel", "tribute AS", ["best cards", "trumps first"]),
        ("kung_och_adel", "return 2C", ["even one you were just given"]),
        ("kung_och_adel(rules=riddare)", "return 2C", ["before you see the tribute"]),
        ("kung_och_adel", "trump H", ["hearts trumps", "first 6 cards"]),
        ("king", "bid 2down", ["6 up", "down without trumps", "take 2 tricks"]),
        ("king", "bid 3up", ["+25", "give 3 tricks to the Beneficiary"]),
        ("king(rules=denexa)", "bid 5", ["dealer chooses up or down", "to the dealer"]),
        ("king", "pass", ["a pass is final"]),
        ("king(rules=denexa)", "pass", ["make no bid"]),
        ("king", "foil", ["100 for you", "75 for each"]),
        ("king", "ultimatum", ["8 up or down"]),
        ("king(rules=denexa)", "down", ["loses 75"]),
        ("dubbelkingen", "contract queens", ["Vrouwen", "2 points"]),
        ("dubbelkingen", "contract seventh_last", ["7th trick costs 2 points", "last trick 3"]),
        ("dubbelkingen", "trump S", ["spades trumps", "+1"]),
        ("kingen(players=3)", "contract king_of_hearts", ["4 points"]),
        ("kingen(k_hearts_points=4)", "contract seventh_last", ["7th trick costs 3 points"]),
        ("kingen(trump_mode=offer_tricks)", "offer 2", ["2 tricks", "pay the dealer 2 points"]),
        ("kingen(trump_mode=offer_tricks)", "reject", ["name trumps yourself"]),
    ],
)
def test_explanations_say_what_the_rules_say(
    game_string: str, action: str, words: list[str]
) -> None:
    game = load_game(game_string)
    explanation = game.action_explanation(game.parse_action(action))
    for word in words:
        assert word in explanation, (word, explanation)
