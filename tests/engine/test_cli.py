"""The engine's command line as a user meets it: exit codes and one-line errors."""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import json
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import load_game
from engine.__main__ import main
from engine.record import record_from_state

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_play_then_verify_then_show(tmp_path: Path) -> None:
    out = tmp_path / "game.json"
    played = run(
        "play",
        "kingen(rules=iwwa)",
        "--seed",
        "9",
        "--bots",
        "random,greedy,greedy,greedy",
        "--out",
        str(out),
    )
    assert played.returncode == 0, played.stderr
    summary = json.loads(played.stdout)
    verified = run("verify", str(out))
    assert verified.returncode == 0, verified.stderr
    result = json.loads(verified.stdout)
    assert result == {"ok": True, "deals": 10, "complete": True, "scores": summary["scores"]}
    shown = run("show", str(out))
    assert shown.returncode == 0
    assert "trick 13:" in shown.stdout
    assert "Final scores (complete)" in shown.stdout


def test_play_writes_the_record_to_standard_output() -> None:
    played = run("play", "dubbelkingen", "--seed", "1")
    assert played.returncode == 0
    assert json.loads(played.stdout)["game"] == "dubbelkingen"


def test_verify_names_the_deal_the_action_and_the_rule(tmp_path: Path) -> None:
    record = json.loads(run("play", "kingen", "--seed", "2").stdout)
    actions = record["deals"][0]["actions"]
    first_play = next(i for i, a in enumerate(actions) if "action" in a)
    leader_cards = actions[0]["cards"][actions[first_play]["seat"]]
    actions[first_play + 1]["action"] = (
        f"play {leader_cards[0]}"  # a card the next seat does not hold
    )
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    result = run("verify", str(path))
    assert result.returncode == 1
    assert result.stderr.startswith(f"deal 1, event {first_play + 2} (seat ")
    assert "you do not hold" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_verify_rejects_a_wrong_score(tmp_path: Path) -> None:
    record = json.loads(run("play", "kingen", "--seed", "3").stdout)
    record["deals"][2]["scores"][0] += 1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    result = run("verify", str(path))
    assert result.returncode == 1
    assert result.stderr.startswith("deal 3: recorded scores")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not JSON"),
        (
            '{"format": "king-league-record", "version": 1, "seats": [], "deals": []}',
            "missing field 'game'",
        ),
        (
            '{"format": "king-league-record", "version": 1, "game": "whist",'
            ' "seats": [], "deals": []}',
            "unknown game 'whist'",
        ),
        (
            '{"format": "king-league-record", "version": 7, "game": "kingen",'
            ' "seats": [], "deals": []}',
            "unsupported record version 7",
        ),
        ("[1, 2]", "a record must be a JSON object"),
    ],
)
def test_verify_exits_2_on_what_is_not_a_record(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(content)
    result = run("verify", str(path))
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_verify_exits_2_on_a_card_dealt_twice(tmp_path: Path) -> None:
    record = json.loads(run("play", "kingen", "--seed", "4").stdout)
    cards = record["deals"][0]["actions"][0]["cards"]
    cards[1][0] = cards[0][0]
    path = tmp_path / "twice.json"
    path.write_text(json.dumps(record))
    result = run("verify", str(path))
    assert result.returncode == 2
    assert "is dealt twice" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("play", "kingen(players=9)", "--seed", "1"), "option players: 9 is above the maximum 5"),
        (
            ("play", "kingen", "--seed", "1", "--bots", "random,greedy"),
            "kingen has 4 seats, 2 players given",
        ),
        (("play", "kingen", "--seed", "1", "--bots", "oracle"), "unknown player 'oracle'"),
        (("verify", "/nonexistent/record.json"), "No such file or directory"),
        (("play", "kingen"), "usage error"),
    ],
)
def test_bad_input_is_one_line_with_exit_2(args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


# --- input the reader must refuse in one line (exit 2), never with a traceback -------------

VALID_HEAD = '{"format": "king-league-record", "version": 1, "game": "kingen", '


def assert_one_line_exit_2(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr[-500:])
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr[-500:]
    assert message in result.stderr


@pytest.mark.parametrize("command", ["verify", "show"])
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "not JSON: nested too deeply"),
        (VALID_HEAD + '"meta": ' + "[" * 5_000 + "]" * 5_000 + "}", "nested too deeply"),
        ('{"format": "king-league-record", "version": ' + "7" * 5_000 + "}", "digits"),
        (VALID_HEAD + '"seats": [], "deals": [], "meta": {"x": ' + "9" * 4_400 + "}}", "digits"),
        (VALID_HEAD + '"seats": [{}, {}, {}, {}], "deals": [], "scores": [NaN]}', "NaN"),
        (VALID_HEAD + '"seats": [{}, {}, {}, {}], "deals": [], "x": Infinity}', "Infinity"),
        (VALID_HEAD + '"seats": [{}, {}, {}, {}], "deals": [], "x": -Infinity}', "-Infinity"),
        (VALID_HEAD + '"seats": [{}, {}, {}, {}], "deals": [], "x": 1e999}', "too large"),
        (VALID_HEAD + '"seats": ["Ann", "Bob", "Cy", "Di"], "deals": []}', "seat 0: must be"),
        (VALID_HEAD + '"seats": [{}, {}, null, {}], "deals": []}', "seat 2: must be an object"),
        (VALID_HEAD + '"seats": [{"name": 3}, {}, {}, {}], "deals": []}', "'name' must be"),
        (
            '{"format": "king-league-record", "version": [[[[1]]]]}',
            "unsupported record version a list",
        ),
    ],
)
def test_what_json_cannot_hold_safely_is_exit_2_in_one_line(
    tmp_path: Path, command: str, content: str, message: str
) -> None:
    path = tmp_path / "x.json"
    path.write_text(content)
    assert_one_line_exit_2(run(command, str(path)), message)


@pytest.mark.parametrize("command", ["verify", "show"])
def test_a_file_over_the_size_cap_is_refused_unread(tmp_path: Path, command: str) -> None:
    from engine.record import MAX_RECORD_BYTES

    path = tmp_path / "huge.json"
    with path.open("wb") as file:
        file.truncate(MAX_RECORD_BYTES + 1)  # sparse: nothing is written
    result = run(command, str(path))
    assert_one_line_exit_2(result, f"larger than {MAX_RECORD_BYTES // 2**20} MiB")


def test_a_record_on_standard_input_is_verified_and_shown() -> None:
    record = run("play", "kingen", "--seed", "5").stdout

    def run_on_stdin(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "engine", command, "-"],
            input=record,
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )

    verified = run_on_stdin("verify")
    assert verified.returncode == 0, verified.stderr
    assert json.loads(verified.stdout)["ok"] is True
    shown = run_on_stdin("show")
    assert shown.returncode == 0, shown.stderr
    assert "Final scores (complete)" in shown.stdout


def test_an_endless_standard_input_is_refused_at_the_cap() -> None:
    with open("/dev/zero", "rb") as endless:
        result = subprocess.run(
            [sys.executable, "-m", "engine", "verify", "-"],
            stdin=endless,
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
    assert_one_line_exit_2(result, "standard input: larger than")


def test_an_action_string_with_a_newline_is_still_one_line(tmp_path: Path) -> None:
    record = json.loads(run("play", "kingen", "--seed", "2").stdout)
    actions = record["deals"][0]["actions"]
    first_play = next(i for i, a in enumerate(actions) if "action" in a)
    actions[first_play]["action"] = "play\nQS\nTraceback (most recent call last):"
    path = tmp_path / "newline.json"
    path.write_text(json.dumps(record))
    result = run("verify", str(path))
    assert result.returncode == 1
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(f"deal 1, event {first_play + 1} (seat ")


def test_show_stops_where_verification_stopped(tmp_path: Path) -> None:
    """A wrong score in deal 1 and rubbish after it: show prints deal 1, then the problem
    (it used to go on and fail on the unchecked rubbish with a traceback)."""
    record = json.loads(run("play", "kingen", "--seed", "3").stdout)
    record["deals"][0]["scores"][0] += 1
    record["deals"][1]["actions"][3] = {"no seat": True}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    result = run("show", str(path))
    assert result.returncode == 0, result.stderr
    assert "Deal 1" in result.stdout
    assert "Deal 2" not in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].startswith("NOT VERIFIED: deal 1: recorded")


# --- arbitrary input: exit 0, 1 or 2 and at most one line on stderr, never a traceback ------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.integers(-1, 5)
    | st.sampled_from(["play QS", "play 2C", "trump H", "pass", "deal", "first_dealer"])
    | st.sampled_from(["kingen", "kingen(rules=iwwa)", "priffe", "king", "AS", "TD", "7H"]),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)


@functools.cache
def small_record() -> dict[str, Any]:
    """A running Kingen game a few tricks in: every kind of field, and quick to replay."""
    state = load_game("kingen(rules=iwwa)").new_initial_state(seed=11)
    for _ in range(30):
        state.apply_action(state.legal_actions()[0])
    return record_from_state(state)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths(inner, (*prefix, index))
    return found


RAW_JSON = "\u0000raw"
"""Put in place of a value, then replaced in the text by one of RAW_FRAGMENTS."""
RAW_FRAGMENTS = ("9" * 5_000, "[" * 3_000 + "]" * 3_000, "NaN", "-Infinity", "1e999", "-0")


@st.composite
def damaged_records(draw: st.DrawFn) -> bytes:
    """A real record with a few parts (shallow ones as often as deep ones) replaced by any
    JSON or by text json.dumps cannot write, or deleted; maybe cut short."""
    record: Any = copy.deepcopy(small_record())
    for _ in range(draw(st.integers(1, 3))):
        depth = draw(st.integers(1, 6))
        candidates = [p for p in paths(record)[1:] if len(p) <= depth]
        candidates.sort(key=lambda p: zlib.crc32(repr(p).encode()))  # no bias to the first
        if not candidates:
            break
        where = draw(st.sampled_from(candidates))
        parent = record
        for step in where[:-1]:
            parent = parent[step]
        choice = draw(st.sampled_from(["tweak", "tweak", "delete", "json", "json", "raw"]))
        value = parent[where[-1]]
        if choice == "tweak" and isinstance(value, int) and not isinstance(value, bool):
            parent[where[-1]] = value + draw(st.sampled_from([1, -1]))  # a seat, a score
        elif choice == "tweak" and isinstance(value, str):  # another card, another action
            parent[where[-1]] = value[:-2] + draw(st.sampled_from(["2C", "QS", "AH", "TD"]))
        elif choice == "delete" and isinstance(parent, dict):
            del parent[where[-1]]
        else:
            parent[where[-1]] = RAW_JSON if choice == "raw" else draw(json_values)
    text = json.dumps(record).replace(json.dumps(RAW_JSON), draw(st.sampled_from(RAW_FRAGMENTS)))
    if draw(st.integers(0, 4)) == 0:
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.sampled_from(["", "\n", "\u2028", "}"]))
    return text.encode("utf-8", "surrogatepass")


any_input = st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda value: json.dumps(value).encode()),
    *[damaged_records()] * 6,  # most examples: a real record, damaged
)


def run_in_process(command: str, content: bytes, folder: Path) -> tuple[int, str]:
    path = folder / "input.json"
    path.write_bytes(content)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([command, str(path)])
    return code, err.getvalue()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=any_input, command=st.sampled_from(["verify", "show"]))
def test_any_input_gives_an_exit_code_and_at_most_one_line(content: bytes, command: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        code, err = run_in_process(command, content, Path(folder))
    assert code in (0, 1, 2)
    assert len(err.splitlines()) == (0 if code == 0 else 1), err


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=any_input, command=st.sampled_from(["verify", "show"]))
def test_any_input_through_the_command_line_is_never_a_traceback(
    content: bytes, command: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "input.json"
        path.write_bytes(content)
        result = run(command, str(path))
    assert result.returncode in (0, 1, 2)
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == (0 if result.returncode == 0 else 1)
