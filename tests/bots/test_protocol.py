"""Messages of the bot protocol: built by the runner, parsed from the bot; the one reader
of a bot's bytes, fuzzed: it returns a message or a protocol fault, and never raises."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bots.protocol import (
    MAX_LINE_BYTES,
    PROTOCOL_VERSION,
    Answer,
    ProtocolError,
    ProtocolFault,
    TimeControl,
    encode,
    end_message,
    hello_message,
    parse_answer,
    parse_ready,
    read_answer,
    read_message,
    read_ready,
    request_message,
)
from bots.runner.process import BotLineTooLongError, LineBuffer
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
    marked = read_answer(b'{"id": 2, "action": "pass", "fallback": "choose() raised"}')
    assert marked == Answer("pass", 2, "choose() raised")
    assert read_answer(b'{"action": "pass", "fallback": 3}') == Answer("pass", None, "a number")


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
        # what the standard json module raised on, besides JSONDecodeError:
        b'{"action": "play QS", "id": ' + b"7" * 5000 + b"}",  # ValueError (int digits)
        b'{"action": "play QS", "x": ' + b"[" * 30_000 + b"]" * 30_000 + b"}",  # RecursionError
        b'{"action": "play QS\xff\xfe\xc0\x80"}',  # UnicodeDecodeError
        b'\xff\xfe{\x00"\x00a\x00"\x00:\x001\x00}\x00',  # UTF-16 taken for JSON by json
        b'{"action": "\\ud800"}',  # a lone surrogate: no string of it is stored anywhere
        b'{"action": "play\tQS"}',  # a raw control character in a string
        b'{"action": NaN}',
        b'{"action": "play QS", "id": 1e999}',
        b"\xef\xbb\xbf" + b'{"action": "play QS"}',  # a byte order mark
    ],
)
def test_malformed_answers(line: bytes) -> None:
    fault = read_answer(line)
    assert isinstance(fault, ProtocolFault), fault
    assert fault.problem
    with pytest.raises(ProtocolError):
        parse_answer(line)


def test_a_nul_escaped_in_json_is_an_answer_whose_text_is_the_bots() -> None:
    """``\\u0000`` is valid JSON: the reader accepts it; the action is then not legal, and
    the fault's message is made storable where faults are made (bots.seats)."""
    assert read_answer(b'{"action": "play \\u0000"}') == Answer("play \x00")


# ---------------------------------------------------------------- fuzzing the reader

FUZZ = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(FUZZ, max_examples=2000)
@given(st.binary(max_size=512))
@example(b"7" * 5000)
@example(b"[" * 5000)
@example(b'{"action": ' + b"[" * 2000 + b"]" * 2000 + b"}")
@example(b'{"action": "x", "id": 18446744073709551616}')
@example(b"\xed\xa0\x80")
@example(b"\x00")
def test_the_reader_returns_a_message_or_a_fault_for_any_bytes(line: bytes) -> None:
    for reader in (read_message, read_ready, read_answer):
        result = reader(line)
        assert isinstance(result, dict | Answer | ProtocolFault)
    answer = read_answer(line)
    if isinstance(answer, Answer):
        assert isinstance(answer.action, str)
        assert answer.request_id is None or type(answer.request_id) is int
        assert answer.fallback is None or isinstance(answer.fallback, str)


@FUZZ
@given(
    json_values,
    st.sampled_from([b"", b"x", b"}", b"\xff", b"\\", b"\x00", b"7" * 4400, b"[" * 1100]),
    st.integers(min_value=0, max_value=64),
)
def test_the_reader_survives_json_cut_or_spoiled_anywhere(
    value: object, spoiler: bytes, cut: int
) -> None:
    """Near-valid lines: JSON objects with a spoiler inserted at some point."""
    line = json.dumps({"action": "play QS", "id": 1, "x": value}).encode()
    cut = min(cut, len(line))
    spoiled = line[:cut] + spoiler + line[cut:]
    for candidate in (line, spoiled):
        result = read_answer(candidate)
        assert isinstance(result, Answer | ProtocolFault)


@FUZZ
@given(st.lists(st.binary(max_size=300), max_size=20), st.integers(min_value=1, max_value=400))
def test_the_line_buffer_cuts_any_stream_into_its_lines(chunks: list[bytes], limit: int) -> None:
    """However a stream comes in pieces, the lines taken are the stream's lines (until a
    line over the cap, after which the stream is not trusted)."""
    lines = LineBuffer(limit)
    taken: list[bytes] = []
    try:
        for chunk in chunks:
            lines.feed(chunk)
            while (line := lines.take()) is not None:
                taken.append(line)
    except BotLineTooLongError:
        stream_lines = b"".join(chunks).split(b"\n")
        assert any(len(line) > limit for line in stream_lines)
        return
    stream = b"".join(chunks)
    expected = stream.split(b"\n")[:-1]
    assert taken == expected
    assert all(len(line) <= limit for line in taken)


def test_ready_must_say_ready() -> None:
    with pytest.raises(ProtocolError):
        parse_ready(b'{"type": "hello"}')


@pytest.mark.parametrize("arguments", [(0, 0, 1), (1, -1, 1), (1, 0, 0), (1.5, 0, 1), (True, 0, 1)])
def test_time_control_is_checked(arguments: tuple[int, int, int]) -> None:
    with pytest.raises(ValueError, match="ms"):
        TimeControl(*arguments)
