"""The sentences a ladder and a table say from the domain's facts (league.words.ladder_messages,
league.words.table_notices), in English and in Swedish."""

from __future__ import annotations

from django.utils import translation

import pytest

from league.domain.ladder_results import ChallengeProblem, Failures
from league.words.ladder_messages import challenge_problem_words, suspension_words
from league.words.seats import seat_in_words
from league.words.table_notices import action_in_words, card_in_words, moved_for_you_words

FAULTS = [{"match": 1, "outcome": "crash"}, {"match": 2, "outcome": "crash"}]


def test_a_suspension_names_the_causes_and_the_matches() -> None:
    words = suspension_words(name="bot v2", ladder="Kingen ladder", failures=Failures(2, FAULTS))
    assert words == (
        "bot v2 left the Kingen ladder after 2 matches in a row with a crash (matches #1, #2); "
        "read its logs, then resume it or upload a new version."
    )
    with translation.override("sv"):
        swedish = suspension_words(name="bot v2", ladder="Kingen", failures=Failures(2, FAULTS))
    assert swedish.startswith("bot v2 har tagits bort från Kingen efter 2 partier i rad")


def test_each_refused_challenge_says_why() -> None:
    said = [
        challenge_problem_words(ChallengeProblem("opponent_count", needed=3, given=2)),
        challenge_problem_words(ChallengeProblem("not_a_bot", competitor=5)),
        challenge_problem_words(ChallengeProblem("not_allowed", name="closed")),
    ]
    assert said == [
        "the game needs 3 opponents, not 2",
        "competitor 5 is not a bot",
        "the owner of closed does not allow challenges",
    ]
    with translation.override("sv"):
        swedish = challenge_problem_words(ChallengeProblem("not_allowed", name="closed"))
    assert swedish == "ägaren till closed tillåter inga utmaningar"


def test_a_move_played_for_a_person_is_said_with_its_card_and_strike() -> None:
    moved = {"action": "play 2C", "strike": 1, "strikes_allowed": 2, "forfeit": False}
    assert moved_for_you_words(moved, move_seconds=120) == (
        "No move within 2 min: the two of clubs was played for you (strike 1 of 2)."
    )
    last = {"action": "play KC", "strike": 2, "strikes_allowed": 2, "forfeit": True}
    assert moved_for_you_words(last, move_seconds=45) == (
        "No move within 45 s: the king of clubs was played for you (strike 2 of 2); a bot "
        "plays your seat for the rest of the game."
    )
    with translation.override("nl"):
        dutch = moved_for_you_words(last, move_seconds=7200)
    assert dutch == (
        "Geen zet binnen 2 u: de klaveren heer werd voor je gespeeld (gemiste termijn 2 van 2); "
        "een bot speelt je plaats voor de rest van het spel."
    )


@pytest.mark.parametrize(
    ("language", "card", "contract"),
    [
        ("en", "the eight of clubs", "contract kings jacks"),
        ("nl", "de klaveren acht", "Heer & Zot"),
        ("sv", "klöver åtta", "Kungar & knektar"),
    ],
)
def test_a_card_and_a_contract_are_named_in_words(language: str, card: str, contract: str) -> None:
    """``play 8C`` is said as card players say it, never as the code or the engine's label
    (``play 8C (play a card)``); a contract by its name in the game's words."""
    with translation.override(language):
        assert action_in_words("play 8C") == card
        assert card_in_words("TH").split()[-1] != "TH"
        named = action_in_words("contract kings_jacks")
    assert contract in named, named
    assert "kings_jacks" not in named


@pytest.mark.parametrize(
    ("language", "four", "three"),
    [
        ("en", ["North", "East", "South", "West"], ["North", "East", "West"]),
        ("nl", ["Noord", "Oost", "Zuid", "West"], ["Noord", "Oost", "West"]),
        ("sv", ["Nord", "Öst", "Syd", "Väst"], ["Nord", "Öst", "Väst"]),
    ],
)
def test_seats_are_compass_points_as_the_club_cards_print_them(
    language: str, four: list[str], three: list[str]
) -> None:
    """Seat 0 is North, then clockwise (engine.table_sheet.compass_names, the table cards')."""
    with translation.override(language):
        assert [seat_in_words(s, 4) for s in range(4)] == four
        assert [seat_in_words(s, 3) for s in range(3)] == three
        assert seat_in_words(6, 7) not in ("", "6")
