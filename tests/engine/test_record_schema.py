"""Records written by the engine validate against the published JSON Schema."""

from __future__ import annotations

import json
import random
from pathlib import Path

import jsonschema
import pytest

from engine import FAMILIES, load_game
from engine.record import record_from_state

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "record.schema.json").read_text())


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
    record = record_from_state(state, times={i: 0.5 for i in range(len(state.log))})
    jsonschema.validate(record, SCHEMA)
    assert record["complete"] is True


def test_the_schema_rejects_a_malformed_event() -> None:
    record = record_from_state(load_game("kingen").new_initial_state(seed=1))
    record["deals"][0]["actions"].append({"seat": 1, "card": "QS"})
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(record, SCHEMA)
