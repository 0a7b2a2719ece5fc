"""engine.timeline: the public facts of a record, step by step, for every family."""

from __future__ import annotations

import pytest

from engine.record import redact_record
from engine.timeline import PUBLIC_EXTRAS, record_timeline
from engine.variants import load_game
from web.samples import SAMPLE_GAMES, record_cut, sample_record

PUBLIC_FACTS = {
    "phase",
    "to_act",
    "contract",
    "trump",
    "dealer",
    "tricks_won",
    "hand_sizes",
    "scores",
    "tricks",
    *PUBLIC_EXTRAS,
}


@pytest.mark.parametrize("game", SAMPLE_GAMES)
def test_one_step_per_event_public_facts_only_and_every_trick_won(game: str) -> None:
    record = sample_record(game, 4)
    timeline = record_timeline(record)
    assert "error" not in timeline
    assert len(timeline["prelude"]) == len(record["prelude"])
    assert [len(steps) for steps in timeline["deals"]] == [
        len(d["actions"]) for d in record["deals"]
    ]
    for deal, steps in zip(record["deals"], timeline["deals"], strict=True):
        plays = sum(1 for e in deal["actions"] if e.get("action", "").startswith("play "))
        seats_with_cards = sum(1 for cards in deal["actions"][0]["cards"] if cards)
        wins = [step["won"] for step in steps if "won" in step]
        # Every trick is won by a seat, and a trick is one card from each seat with cards
        # (a deal may end early in some variants, never in the middle of a trick).
        assert len(wins) == plays // seats_with_cards
        assert all(0 <= seat < len(record["seats"]) for seat in wins)
        for step in steps:
            assert set(step) <= {"set", "won", "transfer", "explain"}
            assert set(step.get("set", {})) <= PUBLIC_FACTS
    # The running totals at the end are the record's scores.
    totals: dict[str, object] = {}
    for steps in [timeline["prelude"], *timeline["deals"]]:
        for step in steps:
            totals.update(step.get("set", {}))
    assert totals["scores"] == record["scores"]


def test_bids_and_choices_are_explained_and_card_plays_are_not() -> None:
    record = sample_record("priffe", 4)
    timeline = record_timeline(record)
    game = load_game(record["game"])
    for deal, steps in zip(record["deals"], timeline["deals"], strict=True):
        for event, step in zip(deal["actions"], steps, strict=True):
            action = event.get("action")
            if action is None or action.startswith("play "):
                assert "explain" not in step
            else:
                assert step["explain"] == game.action_explanation(game.parse_action(action))


def test_tribute_moves_a_card_between_two_seats() -> None:
    timeline = record_timeline(sample_record("kung_och_adel", 4))
    transfers = [
        step["transfer"] for steps in timeline["deals"] for step in steps if "transfer" in step
    ]
    assert transfers
    assert all(len(t) == 2 and t[0] != t[1] for t in transfers)


def test_a_running_game_and_a_record_that_does_not_replay() -> None:
    record = sample_record("kingen", 4)
    running = record_timeline(record_cut(record, 30))
    assert len(running["deals"]) == 1
    assert len(running["deals"][0]) == 30
    # A redacted record cannot be replayed: the viewer gets the problem, not a crash.
    problem = record_timeline(redact_record(record, None))
    assert set(problem) == {"version", "error"}
    assert record_timeline("{not json")["error"]
