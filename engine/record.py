"""Game records: a whole game as versioned JSON, and its verification against the rules.

A record carries the game string, the seats, and for every deal its events in order:
chance events with the cards dealt (explicitly, so a record can be written by hand or
taken from a real table) and each player's action with its seat and time, then the
deal's scores. Events before the first deal (drawing the first dealer or the ranks) are
the ``prelude``. docs/record-format.md describes the format and docs/record.schema.json
is its JSON Schema.

``verify_record`` replays a record through the rules: it is how results are trusted.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.chance import Chance
from engine.errors import (
    IllegalActionError,
    InvalidChanceError,
    InvalidGameError,
    RecordError,
    ScoreEntryError,
)
from engine.game import CHANCE, Game, State
from engine.table_sheet import TableScores
from engine.variants import load_game

RECORD_FORMAT = "king-league-record"
TABLE_KIND = "table"
"""The ``kind`` of a record entered at a physical table: scores without moves."""
RECORD_VERSION = 1
MAX_RECORD_BYTES = 64 * 1024 * 1024
"""The largest record a reader accepts, in bytes (characters for text already decoded).
Longer input is refused before it is parsed. The longest games the engine plays
(1,000 deals of Kung och Adel) write records of a few megabytes."""


def record_from_state(
    state: State[Any],
    *,
    seats: Sequence[Mapping[str, Any]] | None = None,
    times: Mapping[int, float] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The record of a game so far (complete or not).

    ``seats`` describes who played each seat (default: ``{"name": "seat N"}``); ``times``
    maps an index of ``state.log`` to the milliseconds the action took; ``meta`` is kept
    as it is (tournament, match id, dates).
    """
    game = state.game
    n = game.num_seats
    if seats is None:
        seats = [{"name": f"seat {i}"} for i in range(n)]
    if len(seats) != n:
        raise ValueError(f"{game} has {n} seats, {len(seats)} described")
    prelude: list[dict[str, Any]] = []
    deals: list[dict[str, Any]] = []
    starts = state.deal_starts
    current = prelude
    for index, entry in enumerate(state.log):
        if len(deals) < len(starts) and starts[len(deals)] == index:
            deals.append({"deal": len(deals) + 1, "actions": []})
            current = deals[-1]["actions"]
        if isinstance(entry, Chance):
            current.append(entry.to_json())
            continue
        event: dict[str, Any] = {"seat": entry >> 10, "action": game.action_to_string(entry & 1023)}
        if times is not None and index in times:
            event["ms"] = round(times[index], 3)
        current.append(event)
    for number, scores in enumerate(state.deal_scores, start=1):
        deals[number - 1]["scores"] = list(scores)
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "game": str(game),
        "seats": [dict(s) for s in seats],
    }
    if state.seed is not None:
        record["seed"] = state.seed
    if meta:
        record["meta"] = dict(meta)
    record["prelude"] = prelude
    record["deals"] = deals
    record["complete"] = state.is_terminal()
    record["scores"] = state.scores()
    return record


def table_record(
    game: Game[Any],
    *,
    entry: Sequence[Mapping[str, Any]] | None,
    scored: TableScores,
    seats: Sequence[Mapping[str, Any]] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The record of a game played with real cards and entered at the table (``kind``
    ``table``: what the score sheet says for each deal, with the deal's scores, and no
    move); ``entry`` None: the game's totals alone were entered."""
    n = game.num_seats
    if seats is None:
        seats = [{"name": f"seat {i}"} for i in range(n)]
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "kind": TABLE_KIND,
        "game": str(game),
        "seats": [dict(seat) for seat in seats],
    }
    if meta:
        record["meta"] = dict(meta)
    if entry is None:
        record["totals_only"] = True
        record["deals"] = []
    else:
        record["deals"] = [
            {"deal": number, "entry": dict(deal), "scores": list(scores)}
            for number, (deal, scores) in enumerate(
                zip(entry, scored.deal_scores, strict=True), start=1
            )
        ]
    record["complete"] = scored.complete
    record["scores"] = list(scored.scores)
    return record


def dumps_record(record: Mapping[str, Any]) -> str:
    """JSON text of a record: one line per event, so that diffs of records read well."""
    lines = ["{"]
    items = list(record.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if key == "prelude":
            lines.append(f'  "prelude": {_event_list(value, 4)}{comma}')
        elif key == "deals":
            parts = []
            for deal in value:
                inner = ",\n".join(
                    f'      "{k}": {_event_list(v, 8) if k == "actions" else json.dumps(v)}'
                    for k, v in deal.items()
                )
                parts.append("    {\n" + inner + "\n    }")
            body = ",\n".join(parts)
            lines.append(f'  "deals": [\n{body}\n  ]{comma}' if parts else f'  "deals": []{comma}')
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _event_list(events: Sequence[Any], indent: int) -> str:
    if not events:
        return "[]"
    pad = " " * indent
    body = ",\n".join(pad + json.dumps(e, ensure_ascii=False) for e in events)
    return "[\n" + body + "\n" + " " * (indent - 2) + "]"


def redact_record(record: Mapping[str, Any], viewer: int | None = None) -> dict[str, Any]:
    """The record as it may be shown while its game is running: the cards dealt to the
    seats other than ``viewer`` (a seat, or None for a spectator) become ``null``, and
    private actions of other seats (such as Kung och Adel's face-down tribute) lose their
    card. Cards shown face up (draws, an exposed card) and all card play stay: they are
    public. The seed goes too, since it decides every deal. A redacted record says so
    (``"redacted": true``) and cannot be verified.
    """
    game = load_game(str(record["game"]))
    private_verbs: tuple[str, ...] = getattr(game, "private_action_verbs", ())

    def hide(event: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(event)
        if out.get("chance") == "deal":
            out["cards"] = [
                cards if seat == viewer else None for seat, cards in enumerate(out["cards"])
            ]
        elif "action" in out and out.get("seat") != viewer:
            verb = str(out["action"]).split(" ", 1)[0]
            if verb in private_verbs:
                out["action"] = verb
        return out

    redacted = {
        key: value for key, value in record.items() if key not in ("seed", "prelude", "deals")
    }
    redacted["redacted"] = True
    redacted["prelude"] = [hide(e) for e in record.get("prelude", [])]
    redacted["deals"] = [
        {**deal, "actions": [hide(e) for e in deal["actions"]]} for deal in record.get("deals", [])
    ]
    return redacted


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of replaying a record: ``ok``, or the first problem found."""

    ok: bool
    scores: list[int]
    deals: int
    complete: bool
    problem: str = ""
    state: State[Any] | None = field(default=None, repr=False, compare=False)


class _RecordMismatchError(Exception):
    """A record that is well formed but disagrees with the rules."""


def read_record(path: str) -> dict[str, Any]:
    """The record in the file ``path`` (``-``: standard input), its structure checked.

    The one way the command line reads a record: it returns a record or raises
    RecordError with one line naming the problem (a missing file, more than
    MAX_RECORD_BYTES, not UTF-8, not JSON, not a record). At most MAX_RECORD_BYTES + 1
    bytes are read, so an endless stream is refused too.
    """
    name = "standard input" if path == "-" else path
    try:
        if path == "-":
            data = _read_at_most(sys.stdin.buffer.fileno(), name)
        else:
            with open(path, "rb") as file:
                data = _read_at_most(file.fileno(), name)
    except OSError as exc:
        raise RecordError(f"{name}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{name}: not a text file (not UTF-8)") from None
    return parse_record(text)


def _read_at_most(descriptor: int, name: str) -> bytes:
    too_large = RecordError(
        f"{name}: larger than {MAX_RECORD_BYTES // 2**20} MiB, the most a record may be"
    )
    status = os.fstat(descriptor)
    if stat.S_ISREG(status.st_mode) and status.st_size > MAX_RECORD_BYTES:
        raise too_large
    chunks: list[bytes] = []
    left = MAX_RECORD_BYTES + 1
    while left > 0:
        chunk = os.read(descriptor, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    if left <= 0:
        raise too_large
    return b"".join(chunks)


def _refuse_constant(name: str) -> Any:
    raise RecordError(f"not JSON: {name} is not a number in JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise RecordError(f"not JSON: the number {_brief(text)} is too large")
    return value


def _loads(source: str | bytes) -> Any:
    """``json.loads`` for untrusted text: standard JSON only, RecordError for anything else."""
    if len(source) > MAX_RECORD_BYTES:
        raise RecordError(f"larger than {MAX_RECORD_BYTES // 2**20} MiB, the most a record may be")
    try:
        return json.loads(source, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecordError:
        raise
    except RecursionError:
        raise RecordError("not JSON: nested too deeply") from None
    except UnicodeDecodeError:
        raise RecordError("not JSON: not UTF-8") from None
    except json.JSONDecodeError as exc:
        raise RecordError(f"not JSON: {exc}") from None
    except ValueError:  # an integer beyond the interpreter's digit limit
        raise RecordError(
            f"not JSON: a number has more than {sys.get_int_max_str_digits()} digits"
        ) from None


def _brief(value: Any) -> str:
    """A value for a one-line message: short scalars as they are, containers by kind."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_record(source: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
    """Check a record's structure; RecordError naming the first problem otherwise.

    Text is read as standard JSON of at most MAX_RECORD_BYTES: ``NaN`` and ``Infinity``,
    numbers beyond a float or beyond the interpreter's digits limit and nesting deeper
    than it can parse are refused with a RecordError like anything else.
    """
    data = _loads(source) if isinstance(source, str | bytes) else dict(source)
    if not isinstance(data, dict):
        raise RecordError("a record must be a JSON object")
    if data.get("format") != RECORD_FORMAT:
        raise RecordError(f"'format' must be {RECORD_FORMAT!r}")
    if data.get("redacted"):
        raise RecordError(
            "a redacted record (of a game in progress) hides cards and cannot be verified"
        )
    if data.get("version") != RECORD_VERSION:
        raise RecordError(
            f"unsupported record version {_brief(data.get('version'))} "
            f"(this engine reads {RECORD_VERSION})"
        )
    for key, kind in (("game", str), ("seats", list), ("deals", list)):
        if key not in data:
            raise RecordError(f"missing field '{key}'")
        if not isinstance(data[key], kind):
            raise RecordError(f"'{key}' must be a {'string' if kind is str else 'list'}")
    for i, seat in enumerate(data["seats"]):
        if not isinstance(seat, dict):
            raise RecordError(f'seat {i}: must be an object such as {{"name": "Ann"}}')
        for key in ("name", "player"):
            if key in seat and not isinstance(seat[key], str):
                raise RecordError(f"seat {i}: '{key}' must be a string")
    if not isinstance(data.get("prelude", []), list):
        raise RecordError("'prelude' must be a list")
    kind = data.get("kind", "play")
    if kind not in ("play", TABLE_KIND):
        raise RecordError(f"'kind' must be 'play' or '{TABLE_KIND}', not {_brief(kind)}")
    if kind == TABLE_KIND:
        _parse_table_deals(data)
        return data
    for i, deal in enumerate(data["deals"], start=1):
        if not isinstance(deal, dict) or not isinstance(deal.get("actions"), list):
            raise RecordError(f"deal {i}: must be an object with an 'actions' list")
        if deal.get("deal", i) != i:
            raise RecordError(f"deal {i}: numbered {_brief(deal.get('deal'))}")
        if "scores" in deal and not _is_int_list(deal["scores"]):
            raise RecordError(f"deal {i}: 'scores' must be a list of whole numbers")
    if "scores" in data and not _is_int_list(data["scores"]):
        raise RecordError("'scores' must be a list of whole numbers")
    if not isinstance(data.get("complete", True), bool):
        raise RecordError("'complete' must be true or false")
    return data


def _parse_table_deals(data: dict[str, Any]) -> None:
    """The structure of a table record: each deal an object with an ``entry`` object and
    its ``scores``; final ``scores``; totals alone when ``totals_only``."""
    if not isinstance(data.get("totals_only", False), bool):
        raise RecordError("'totals_only' must be true or false")
    if data.get("totals_only") and data["deals"]:
        raise RecordError("a record of totals alone has no deals")
    for i, deal in enumerate(data["deals"], start=1):
        if not isinstance(deal, dict) or not isinstance(deal.get("entry"), dict):
            raise RecordError(f"deal {i}: must be an object with an 'entry' object")
        if deal.get("deal", i) != i:
            raise RecordError(f"deal {i}: numbered {_brief(deal.get('deal'))}")
        if not _is_int_list(deal.get("scores")):
            raise RecordError(f"deal {i}: 'scores' must be a list of whole numbers")
    if not _is_int_list(data.get("scores")):
        raise RecordError("a table record needs its final 'scores', a list of whole numbers")
    if not isinstance(data.get("complete", True), bool):
        raise RecordError("'complete' must be true or false")


def _verify_table(game: Game[Any], data: dict[str, Any]) -> Verification:
    """A table record checked as the score sheet is: the entry of every deal against the
    family's rules, the scores recorded against what the entry scores."""
    deals = data["deals"]
    try:
        if data.get("totals_only"):
            scored = game.table_totals(data["scores"])
        else:
            scored = game.table_scores([deal["entry"] for deal in deals])
    except ScoreEntryError as exc:
        return Verification(False, list(data["scores"]), len(deals), False, str(exc))
    for number, (deal, scores) in enumerate(zip(deals, scored.deal_scores, strict=True), 1):
        if deal["scores"] != list(scores):
            return Verification(
                False,
                list(scored.scores),
                len(deals),
                scored.complete,
                f"deal {number}: recorded scores {deal['scores']}, the entry gives {list(scores)}",
            )
    if data["scores"] != list(scored.scores):
        return Verification(
            False,
            list(scored.scores),
            len(deals),
            scored.complete,
            f"final scores {data['scores']} recorded, the entry gives {list(scored.scores)}",
        )
    return Verification(True, list(scored.scores), len(deals), scored.complete)


def _is_int_list(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    )


def verify_record(source: str | bytes | Mapping[str, Any]) -> Verification:
    """Replay a record through the rules.

    Returns a Verification: ``ok`` when every action is legal and every recorded score
    matches; otherwise ``problem`` names the deal, the event and the rule broken.
    Raises RecordError when the input is not a valid record at all (bad JSON, missing
    fields, unknown game, a card dealt twice).
    """
    data = parse_record(source)
    try:
        game = load_game(data["game"])
    except InvalidGameError as exc:
        raise RecordError(f"game: {exc}") from None
    if len(data["seats"]) != game.num_seats:
        raise RecordError(f"'seats' lists {len(data['seats'])} seats, {game} has {game.num_seats}")
    if data.get("kind") == TABLE_KIND:
        return _verify_table(game, data)
    state = game.new_initial_state(seed=None)
    try:
        _replay_events(game, state, data.get("prelude", []), "prelude")
        for number, deal in enumerate(data["deals"], start=1):
            if state.is_terminal():
                raise _RecordMismatchError(f"deal {number}: the game is already over")
            _replay_events(game, state, deal["actions"], f"deal {number}")
            if state.deal_number != number:
                raise _RecordMismatchError(
                    f"deal {number}: its events do not make up deal {number} "
                    f"(they end in deal {state.deal_number})"
                )
            if "scores" in deal:
                if len(state.deal_scores) < number:
                    raise _RecordMismatchError(f"deal {number}: has scores but is not finished")
                if deal["scores"] != state.deal_scores[number - 1]:
                    raise _RecordMismatchError(
                        f"deal {number}: recorded scores {deal['scores']}, "
                        f"the rules give {state.deal_scores[number - 1]}"
                    )
        complete = data.get("complete", True)
        if complete and not state.is_terminal():
            raise _RecordMismatchError("the record says the game is complete, but it is not over")
        if "scores" in data and data["scores"] != state.scores():
            raise _RecordMismatchError(
                f"final scores {data['scores']} recorded, the rules give {state.scores()}"
            )
    except _RecordMismatchError as exc:
        return Verification(
            False, state.scores(), len(state.deal_scores), state.is_terminal(), str(exc), state
        )
    return Verification(
        True, state.scores(), len(state.deal_scores), state.is_terminal(), "", state
    )


def replay_record(source: str | bytes | Mapping[str, Any]) -> State[Any]:
    """The state at the end of a valid record; RecordError if it does not verify."""
    result = verify_record(source)
    if not result.ok:
        raise RecordError(result.problem)
    if result.state is None:
        raise RecordError("a record entered at a table has scores but no moves to replay")
    return result.state


def state_before_event(
    source: str | bytes | Mapping[str, Any], deal: int, event: int
) -> tuple[State[Any], dict[str, Any] | None]:
    """The state of a record just before event ``event`` (from 1) of deal ``deal`` (from
    1), with that event (None when it is one past the deal's last recorded event, the
    position a running game waits at). RecordError naming the problem otherwise."""
    data = parse_record(source)
    try:
        game = load_game(data["game"])
    except InvalidGameError as exc:
        raise RecordError(f"game: {exc}") from None
    deals = data["deals"]
    if not 1 <= deal <= len(deals):
        raise RecordError(f"--deal {deal}: the record has deals 1 to {len(deals)}")
    actions = deals[deal - 1]["actions"]
    if not 1 <= event <= len(actions) + 1:
        raise RecordError(f"--event {event}: deal {deal} has events 1 to {len(actions)}")
    state = game.new_initial_state(seed=None)
    try:
        _replay_events(game, state, data.get("prelude", []), "prelude")
        for number in range(1, deal):
            _replay_events(game, state, deals[number - 1]["actions"], f"deal {number}")
        _replay_events(game, state, actions[: event - 1], f"deal {deal}")
    except _RecordMismatchError as exc:
        raise RecordError(str(exc)) from None
    chosen = actions[event - 1] if event <= len(actions) else None
    return state, chosen if isinstance(chosen, dict) else None


def replay_events_with(
    source: str | bytes | Mapping[str, Any],
    before: Callable[[State[Any], int, int, int], None],
) -> Game[Any]:
    """Replay a record from its events (not its seed), calling ``before(state, deal, event,
    action)`` before each seat's action is applied (deal and event from 1, as in
    ``state_before_event``; ``before`` only reads the state). The record's game;
    RecordError naming the problem if it does not replay."""
    data = parse_record(source)
    try:
        game = load_game(data["game"])
    except InvalidGameError as exc:
        raise RecordError(f"game: {exc}") from None
    state = game.new_initial_state(seed=None)
    try:
        _replay_events(game, state, data.get("prelude", []), "prelude")
        for number, deal in enumerate(data["deals"], start=1):
            for index, event in enumerate(deal["actions"], start=1):
                if isinstance(event, dict) and "seat" in event and state.current_seat >= 0:
                    text = event.get("action")
                    try:  # a bad action is refused by _replay_events, naming it
                        action = state.parse_action(text) if isinstance(text, str) else -1
                    except (IllegalActionError, ValueError):
                        action = -1
                    if action >= 0:
                        before(state, number, index, action)
                _replay_events(game, state, [event], f"deal {number}, from event {index}")
    except _RecordMismatchError as exc:
        raise RecordError(str(exc)) from None
    return game


def _replay_events(game: Game[Any], state: State[Any], events: list[Any], where: str) -> None:
    n = game.num_seats
    for index, event in enumerate(events, start=1):
        at = f"{where}, event {index}"
        if not isinstance(event, dict):
            raise RecordError(f"{at}: must be an object")
        if "chance" in event:
            try:
                chance = Chance.from_json(event, n)
            except InvalidChanceError as exc:
                raise RecordError(f"{at}: {exc}") from None
            if state.current_seat != CHANCE:
                raise _RecordMismatchError(
                    f"{at}: a chance event is not due (seat {state.current_seat} is to act)"
                )
            try:
                state.apply_chance(chance)
            except InvalidChanceError as exc:
                raise RecordError(f"{at}: {exc}") from None
            continue
        seat, text = event.get("seat"), event.get("action")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
            raise RecordError(f"{at}: 'seat' must be a seat from 0 to {n - 1}")
        if not isinstance(text, str):
            raise RecordError(f"{at}: 'action' must be a string")
        if "ms" in event and (
            not isinstance(event["ms"], int | float) or isinstance(event["ms"], bool)
        ):
            raise RecordError(f"{at}: 'ms' must be a number")
        try:
            state.apply_action(state.parse_action(text), seat=seat)
        except IllegalActionError as exc:
            raise _RecordMismatchError(f"{at} (seat {seat} {_brief(text)}): {exc.rule}") from None
