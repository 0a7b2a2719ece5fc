"""The bot protocol: one JSON object per line over the bot's stdin and stdout.

docs/bot-protocol.md is the page for bot authors; this module builds the runner's messages
and checks the bot's answers. Version 1:

    runner -> bot  {"type": "hello", "protocol": 1, "seat": 2, "seats": 4, "game": "kingen",
                    "time": {"move_ms": 1000, "bank_ms": 10000, "startup_ms": 5000}}
    bot -> runner  {"type": "ready"}
    runner -> bot  {"type": "request", "id": 1, "view": {...}, "legal": ["play 2C", ...],
                    "time": {"move_ms": 1000, "bank_ms": 10000}}
    bot -> runner  {"action": "play 2C"}
    ...
    runner -> bot  {"type": "end", "scores": [...], "outcome": "ok"}

An answer is one line of at most ``MAX_LINE_BYTES`` bytes; anything else is a protocol
error. Unknown keys are ignored both ways, so later versions can add fields. Every line of
a bot is decoded by ``read_message``, which returns a message or a ``ProtocolFault`` and
never raises, whatever the bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 64 * 1024
"""The longest answer line a bot may send, newline excluded."""

_ENCODER = json.JSONEncoder(separators=(",", ":"))


class ProtocolError(ValueError):
    """A bot's line that is not a valid message of the protocol (``parse_*`` raise it; the
    runner uses ``read_*``, which return a ProtocolFault instead)."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """How long a bot may think, measured on the runner's side.

    Each answer may take ``move_ms``; time beyond that is taken from the bank, which
    starts at ``bank_ms`` and is never refilled. Start-up (the ``hello`` to ``ready``
    exchange) has its own, larger allowance ``startup_ms``.
    """

    move_ms: int = 1000
    bank_ms: int = 10_000
    startup_ms: int = 5000

    def __post_init__(self) -> None:
        for name in ("move_ms", "bank_ms", "startup_ms"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a whole number of milliseconds, at least 0")
        if self.move_ms == 0 or self.startup_ms == 0:
            raise ValueError("move_ms and startup_ms must be at least 1")

    def to_json(self) -> dict[str, int]:
        return {"move_ms": self.move_ms, "bank_ms": self.bank_ms, "startup_ms": self.startup_ms}


@dataclass(frozen=True, slots=True)
class Answer:
    """A bot's answer to a request: the action string, and the request id if it gave one."""

    action: str
    request_id: int | None = None
    fallback: str | None = None
    """Set by a helper (bots/sdk/kingbot.py) that played this action because the bot's own
    code failed at this decision: why (the text is the bot's, not to be trusted)."""


@dataclass(frozen=True, slots=True)
class ProtocolFault:
    """What makes a bot's line not a valid message of the protocol."""

    problem: str


def encode(message: dict[str, Any]) -> bytes:
    """One message as a line of compact JSON (ASCII only), newline included.

    orjson writes a request about ten times faster than the standard library (1 µs
    against 16 µs for a 1 KB view: a fifth of the runner's cost per move); the rare
    message with non-ASCII text goes through the standard encoder, which escapes it.
    """
    data = orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS)
    if data.isascii():
        return data + b"\n"
    return (_ENCODER.encode(message) + "\n").encode("ascii")


def hello_message(*, seat: int, seats: int, game: str, time_control: TimeControl) -> dict[str, Any]:
    return {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "seat": seat,
        "seats": seats,
        "game": game,
        "time": time_control.to_json(),
    }


def request_message(
    *,
    request_id: int,
    view: dict[str, Any],
    legal: list[str],
    move_ms: int,
    bank_ms: int,
) -> dict[str, Any]:
    """A decision: the seat's view (``PlayerView.to_json()``), its legal actions, its time."""
    return {
        "type": "request",
        "id": request_id,
        "view": view,
        "legal": legal,
        "time": {"move_ms": move_ms, "bank_ms": bank_ms},
    }


def end_message(*, scores: list[int], outcome: str) -> dict[str, Any]:
    """The end of the match: every seat's final score and this seat's outcome."""
    return {"type": "end", "scores": scores, "outcome": outcome}


def read_message(line: bytes) -> dict[str, Any] | ProtocolFault:
    """The one reader of a bot's line: a JSON object, or the fault that makes it none.

    It never raises: whatever bytes a bot sends (a number of thousands of digits, nesting
    a thousand deep, invalid UTF-8, a lone surrogate, a raw control character, a line too
    long, a JSON value that is not an object) are that seat's protocol fault, and nothing
    the decoder may raise on them can end the match. orjson decodes strictly (RFC 8259,
    UTF-8 only, nesting at most 1024 deep) and about ten times faster than ``json``.
    """
    if len(line) > MAX_LINE_BYTES:
        return ProtocolFault(f"line longer than {MAX_LINE_BYTES} bytes")
    try:
        data = orjson.loads(line)
    except Exception as exc:  # any failure to decode the bot's bytes is the bot's fault
        return ProtocolFault(f"not JSON: {_first_line(str(exc)) or type(exc).__name__}")
    if not isinstance(data, dict):
        return ProtocolFault(f"expected a JSON object, got {json_kind(data)}")
    return data


def read_ready(line: bytes) -> dict[str, Any] | ProtocolFault:
    """The bot's answer to ``hello``: ``{"type": "ready"}`` (other keys are ignored)."""
    data = read_message(line)
    if isinstance(data, ProtocolFault):
        return data
    if data.get("type") != "ready":
        return ProtocolFault('expected {"type": "ready"} in answer to hello')
    return data


def read_answer(line: bytes) -> Answer | ProtocolFault:
    """The bot's answer to a request: ``{"action": "play QS"}``, optionally with ``"id"``
    and with ``"fallback"`` (a string: why the action is not the bot's own choice)."""
    data = read_message(line)
    if isinstance(data, ProtocolFault):
        return data
    action = data.get("action")
    if not isinstance(action, str):
        return ProtocolFault('expected {"action": "<an action string>"}')
    request_id = data.get("id")
    if request_id is not None and (not isinstance(request_id, int) or isinstance(request_id, bool)):
        return ProtocolFault('"id", if given, must be the request\'s id (a whole number)')
    fallback = data.get("fallback")
    if fallback is not None and not isinstance(fallback, str):
        fallback = json_kind(fallback)
    return Answer(action, request_id, fallback)


def parse_ready(line: bytes) -> dict[str, Any]:
    """``read_ready`` that raises ProtocolError instead of returning the fault."""
    data = read_ready(line)
    if isinstance(data, ProtocolFault):
        raise ProtocolError(data.problem)
    return data


def parse_answer(line: bytes) -> Answer:
    """``read_answer`` that raises ProtocolError instead of returning the fault."""
    answer = read_answer(line)
    if isinstance(answer, ProtocolFault):
        raise ProtocolError(answer.problem)
    return answer


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0][:200]


def json_kind(value: object) -> str:
    """How a decoded JSON value is named in a message (never the value itself): the API's
    field errors say it the same way."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
