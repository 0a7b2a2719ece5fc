"""league.domain.public_events: a match's new events as its socket tells them to anyone."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.chance import Chance
from engine.game import State
from engine.record import record_from_state
from engine.timeline import record_timeline
from engine.variants import load_game
from league.domain.public_events import EVENTS_MAX, PublicEvents


def played_out(game: str, seed: int, batch: int = 1) -> tuple[State[Any], list[dict[str, Any]]]:
    """A game played to its end by random legal moves, its events told every ``batch``
    actions; the state at the end and every event told."""
    state = load_game(game).new_initial_state(seed=seed)
    public = PublicEvents(state)
    told: list[dict[str, Any]] = []
    rng = random.Random(seed)
    moves = 0
    while not state.is_terminal():
        state.apply_action(rng.choice(list(state.legal_actions())))
        moves += 1
        if moves % batch == 0 or state.is_terminal():
            events = public.since(state)
            assert events is not None
            told += events
    return state, told


@pytest.mark.parametrize("batch", [1, 3])
def test_every_event_after_the_first_deal_is_told_once_in_order(batch: int) -> None:
    state, told = played_out("kingen", seed=5, batch=batch)
    first = told[0]["index"]
    assert [e["index"] for e in told] == list(range(first, len(state.log)))
    for event in told:
        entry = state.log[event["index"]]
        if isinstance(entry, Chance):
            assert event == {"index": event["index"], "chance": entry.kind}  # no card dealt
        else:
            assert event["seat"] == entry >> 10
            assert event["action"] == state.game.action_to_string(entry & 1023)


def test_the_winner_of_each_trick_is_the_replay_timelines() -> None:
    """The same rule as the replay viewer's: the spectator's view after the event."""
    state, told = played_out("kingen", seed=8, batch=4)
    timeline = record_timeline(record_from_state(state))
    steps = [step for deal in timeline["deals"] for step in deal]
    winners_of_timeline = [step["won"] for step in steps if "won" in step]
    winners_told = [event["won"] for event in told if "won" in event]
    assert len(winners_told) == 13 * len(state.deal_scores)
    assert winners_told == winners_of_timeline[-len(winners_told) :]


def test_a_private_action_is_told_without_its_card() -> None:
    """Kung och Adel's tribute and its return go face down: the verb, never the card (the
    rule engine.record.redact_record applies to a running match's record)."""
    _, told = played_out("kung_och_adel", seed=2)
    private = [e for e in told if e.get("action", "").split(" ")[0] in ("tribute", "return")]
    assert private
    assert all(e["action"] in ("tribute", "return") for e in private)
    assert any(e.get("action", "").startswith("play ") for e in told)


def test_more_events_than_a_message_carries_are_not_told_and_the_next_ones_are() -> None:
    state = load_game("kingen").new_initial_state(seed=1)
    public = PublicEvents(state)
    rng = random.Random(1)
    for _ in range(EVENTS_MAX + 1):
        state.apply_action(rng.choice(list(state.legal_actions())))
    assert public.since(state) is None
    assert public.position == len(state.log)
    state.apply_action(rng.choice(list(state.legal_actions())))
    events = public.since(state)
    assert events is not None
    assert [e["index"] for e in events] == [len(state.log) - 1]
