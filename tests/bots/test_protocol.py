"""Messages of the bot protocol: built by the runner, parsed from the bot."""

from __future__ import annotations

import json

import pytest

from bots.protocol import (
    MAX_LINE_BYTES,
    PROTOCOL_VERSION,
    Answer,
    ProtocolError,
    TimeControl,
    encode,
    end_message,
    hello_message,
    parse_answer,
    parse_ready,
    request_message,
)
from engine import load_game


def test_messages_are_one_line_of_ascii_json() -> None:
    game = load_game("kingen")
    state = game.new_initial_state(seed=4)
    view = state.view_for(state.current_seat).to_json()
    line = encode(
        request_message(request_id=3, view=view, legal=view["legal"], move_ms=1000, bank_ms=50)
    )
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    line.decode("ascii")
    message = json.loads(line)
    assert message["type"] == "request"
    assert message["id"] == 3
    assert message["legal"] == view["legal"]
    assert message["time"] == {"move_ms": 1000, "bank_ms": 50}


def test_hello_and_end() -> None:
    hello = hello_message(seat=2, seats=4, game="kingen", time_control=TimeControl(500, 0, 900))
    assert hello == {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "seat": 2,
        "seats": 4,
        "game": "kingen",
        "time": {"move_ms": 500, "bank_ms": 0, "startup_ms": 900},
    }
    assert end_message(scores=[1, -1], outcome="ok") == {
        "type": "end",
        "scores": [1, -1],
        "outcome": "ok",
    }


def test_answers() -> None:
    assert parse_answer(b'{"action": "play QS"}') == Answer("play QS", None)
    assert parse_answer(b'{"id": 4, "action": "pass", "debug": "x"}') == Answer("pass", 4)
    assert parse_ready(b'{"type": "ready", "name": "mine"}')["name"] == "mine"


@pytest.mark.parametrize(
    "line",
    [
        b"",
        b"play QS",
        b'{"action": "play QS"',
        b'["play QS"]',
        b'{"action": null}',
        b'{"action": "play QS", "id": "4"}',
        b'{"action": "play QS", "id": true}',
        b"\xff\xfe",
        b"[" * 100_000,
        b'{"action": "' + b"x" * MAX_LINE_BYTES + b'"}',
    ],
)
def test_malformed_answers(line: bytes) -> None:
    with pytest.raises(ProtocolError):
        parse_answer(line)


def test_ready_must_say_ready() -> None:
    with pytest.raises(ProtocolError):
        parse_ready(b'{"type": "hello"}')


@pytest.mark.parametrize("arguments", [(0, 0, 1), (1, -1, 1), (1, 0, 0), (1.5, 0, 1), (True, 0, 1)])
def test_time_control_is_checked(arguments: tuple[int, int, int]) -> None:
    with pytest.raises(ValueError, match="ms"):
        TimeControl(*arguments)
