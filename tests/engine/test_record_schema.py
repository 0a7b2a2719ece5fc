"""Records written by the engine validate against the published JSON Schema."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import FAMILIES, RecordError, load_game
from engine.game import spectator_view
from engine.record import record_from_state, redact_record, verify_record

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "docs" / "record.schema.json").read_text()
)


def test_the_schema_itself_is_valid() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_complete_and_partial_records_validate(family: str) -> None:
    game = load_game(family)
    state = game.new_initial_state(seed=3)
    rng = random.Random(3)
    for _ in range(40):
        state.apply_action(rng.choice(state.legal_actions()))
    jsonschema.validate(record_from_state(state), SCHEMA)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    record = record_from_state(state, times=dict.fromkeys(range(len(state.log)), 0.5))
    jsonschema.validate(record, SCHEMA)
    assert record["complete"] is True


def test_the_schema_rejects_a_malformed_event() -> None:
    record = record_from_state(load_game("kingen").new_initial_state(seed=1))
    record["deals"][0]["actions"].append({"seat": 1, "card": "QS"})
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(record, SCHEMA)


def _running_kung_och_adel() -> tuple[dict[str, Any], Any]:
    state = load_game("kung_och_adel").new_initial_state(seed=2)
    rng = random.Random(2)
    while state.phase != "play":
        state.apply_action(rng.choice(state.legal_actions()))
    return record_from_state(state), state


def test_a_redacted_record_hides_other_hands_and_private_tribute() -> None:
    record, _ = _running_kung_och_adel()
    for viewer in (None, 0, 2):
        shown = redact_record(record, viewer)
        jsonschema.validate(shown, SCHEMA)
        text = json.dumps(shown)
        for seat in range(4):
            deal = next(e for e in shown["deals"][0]["actions"] if e.get("chance") == "deal")
            assert (deal["cards"][seat] is None) == (seat != viewer)
        tributes = [
            e
            for e in shown["deals"][0]["actions"]
            if e.get("action", "").startswith(("tribute", "return"))
        ]
        assert tributes
        for event in tributes:
            assert (event["action"] in ("tribute", "return")) == (event["seat"] != viewer)
        assert '"redacted": true' in text
    with pytest.raises(RecordError, match="redacted record"):
        verify_record(redact_record(record, None))


@settings(max_examples=60, deadline=None)
@given(
    family=st.sampled_from(sorted(FAMILIES)),
    seed=st.integers(10**12, 2**63 - 1),  # long enough to search the text for
    actions=st.integers(0, 80),
    viewer=st.sampled_from([None, 0, 1, 2]),
)
def test_a_redacted_record_never_has_the_seed(
    family: str, seed: int, actions: int, viewer: int | None
) -> None:
    """redact_record drops the seed itself (it decides every deal), so no caller can
    forget to: whatever the game, the point reached and the viewer."""
    state = load_game(family).new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(actions):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    record = record_from_state(state)
    assert record["seed"] == seed
    shown = redact_record(record, viewer)
    assert "seed" not in shown
    assert str(seed) not in json.dumps(shown)
    assert record["seed"] == seed  # the caller's record is left alone


def test_spectator_view_holds_no_hand() -> None:
    _, state = _running_kung_och_adel()
    view = spectator_view(state.view_for(state.current_seat))
    assert view.hand == 0
    assert view.legal == ()
    assert view.private == {}
    assert view.to_json()["hand"] == []
