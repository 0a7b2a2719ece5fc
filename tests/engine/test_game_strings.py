"""Game strings: parsing, validation with clear messages, canonical form."""

from __future__ import annotations

import pytest

from engine import InvalidGameError, load_game


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("kingen", "kingen"),
        ("kingen()", "kingen"),
        (" kingen ( players = 4 ) ", "kingen"),
        ("kingen(rules=iwwa)", "kingen(rules=iwwa)"),
        ("kingen(players=5,k_hearts_points=4)", "kingen(k_hearts_points=4,players=5)"),
        ("kingen(players=3,k_hearts_points=4)", "kingen(players=3)"),
        ("kingen(batches=4-4-5)", "kingen"),
        ("kingen(batches=3-2-2-2-2-2)", "kingen(batches=3-2-2-2-2-2)"),
        ("kingen(rules=iwwa,trump_mode=dealer_choice)", "kingen(rules=iwwa)"),
        ("kingen(rules=iwwa,trump_mode=last_card)", "kingen(rules=iwwa,trump_mode=last_card)"),
        ("kingen(heart_lead_ban=false)", "kingen"),
        ("dubbelkingen", "dubbelkingen"),
        ("dubbelkingen(rules=basic)", "dubbelkingen(rules=basic)"),
    ],
)
def test_canonical_strings(text: str, canonical: str) -> None:
    game = load_game(text)
    assert str(game) == canonical
    assert str(load_game(canonical)) == canonical
    assert load_game(canonical) == game


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty game string"),
        ("hearts", "unknown game 'hearts'"),
        ("kingen(colour=red)", "unknown option 'colour'"),
        ("kingen(players=6)", "option players: 6 is above the maximum 5"),
        ("kingen(players=four)", "option players: expected a whole number, got 'four'"),
        (
            "kingen(heart_lead_ban=maybe)",
            "option heart_lead_ban: expected true or false, got 'maybe'",
        ),
        (
            "kingen(trump_mode=auction)",
            "option trump_mode: expected one of last_card, dealer_choice, offer_tricks",
        ),
        ("kingen(rules=bridge)", "unknown preset 'bridge'"),
        (
            "kingen(batches=4-4-4)",
            "option batches: 4-4-4 deals 12 cards each, but 4 players hold 13",
        ),
        ("kingen(k_hearts_points=3)", "the king of hearts is worth 4 or 5"),
        (
            "kingen(negative_order=tricks/hearts)",
            "must list each of the six negative contracts once",
        ),
        ("kingen(negative_order=tricks/bridge)", "'bridge' is not one of"),
        ("kingen(players=4,players=5)", "option 'players' given twice"),
        ("kingen(players)", "bad option 'players': expected key=value"),
        ("kingen(players=4", "missing ')'"),
        ("dubbelkingen(players=5)", "Dubbelkingen is played by 4 players"),
    ],
)
def test_bad_game_strings_are_named(text: str, message: str) -> None:
    with pytest.raises(InvalidGameError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_game(text)
