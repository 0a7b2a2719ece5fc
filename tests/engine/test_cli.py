"""The engine's command line as a user meets it: exit codes and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
