"""python -m bots: one line and exit 2 on bad input, JSON and a record on success."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.record import verify_record

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "bots" / "examples"


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bots", *args],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        env={**os.environ, **(env or {})},
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "nosuchgame", "builtin:random"] * 1, "unknown game"),
        (["match", "kingen(bogus=1)", *["builtin:random"] * 4], "bogus"),
        (["match", "kingen", "builtin:random"], "4 seats"),
        (["match", "kingen", *["builtin:random"] * 5], "4 seats"),
        (["match", "kingen", "builtin:nobody", *["builtin:random"] * 3], "known: builtin:"),
        (["match", "kingen", "missing.py", *["builtin:random"] * 3], "No such file"),
        (["match", "kingen", "README.md", *["builtin:random"] * 3], "a .py file or a .zip"),
        (["match", "kingen", *["builtin:random"] * 4, "--seed", "x"], "usage error"),
        (["match", "kingen", *["builtin:random"] * 4, "--move-ms", "0"], "at least 1"),
        (["match", "kingen", *["builtin:random"] * 4, "--out", "/nonexistent/r.json"], "folder"),
        (["fly"], "usage error"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = _run(*args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_builtin_match_prints_scores_and_outcomes_and_writes_the_record(tmp_path: Path) -> None:
    out = tmp_path / "record.json"
    result = _run(
        "match", "kingen", "builtin:greedy", "builtin:random", "builtin:greedy", "builtin:random",
        "--seed", "9", "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["seed"] == 9
    assert [s["outcome"] for s in summary["seats"]] == ["ok"] * 4
    record = out.read_text()
    verification = verify_record(record)
    assert verification.ok
    assert verification.scores == [s["score"] for s in summary["seats"]]


def test_example_bots_without_the_sandbox() -> None:
    result = _run(
        "match", "kingen", str(EXAMPLES / "random_bot.py"), str(EXAMPLES / "ducking_bot.py"),
        "builtin:greedy", "builtin:greedy", "--seed", "2", "--no-sandbox",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    seats = json.loads(result.stdout)["seats"]
    assert [s["outcome"] for s in seats] == ["ok"] * 4
    assert [s["kind"] for s in seats] == ["uploaded", "uploaded", "builtin", "builtin"]


@pytest.mark.sandbox
def test_example_bots_in_the_sandbox(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = _run(
        "match", "kingen(rules=iwwa)", str(EXAMPLES / "random_bot.py"),
        str(EXAMPLES / "ducking_bot.py"), "builtin:greedy", "builtin:random",
        "--seed", "4", "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert [s["outcome"] for s in json.loads(result.stdout)["seats"]] == ["ok"] * 4
    assert verify_record(out.read_text()).ok


def test_without_bubblewrap_uploaded_bots_are_refused_and_builtins_still_play() -> None:
    no_bwrap = {"KING_LEAGUE_BWRAP": "/nonexistent/bwrap"}
    refused = _run(
        "match", "kingen", str(EXAMPLES / "random_bot.py"), *["builtin:random"] * 3,
        env=no_bwrap,
    )  # fmt: skip
    assert refused.returncode == 3
    assert "apt-get install bubblewrap" in refused.stderr
    assert refused.stderr.count("\n") == 1
    builtins = _run("match", "kingen", *["builtin:random"] * 4, env=no_bwrap)
    assert builtins.returncode == 0, builtins.stderr
    status = _run("sandbox", env=no_bwrap)
    assert status.returncode == 3
    assert "bubblewrap" in status.stderr


@pytest.mark.sandbox
def test_sandbox_status() -> None:
    result = _run("sandbox")
    assert result.returncode == 0, result.stderr
    assert "works" in result.stdout


@pytest.mark.parametrize("example", ["random_bot.py", "ducking_bot.py"])
def test_example_bots_run_by_hand(example: str) -> None:
    """What docs/bot-protocol.md shows: pipe a hello and a request into the bot."""
    hello = {"type": "hello", "protocol": 1, "seat": 1, "seats": 4, "game": "kingen", "time": {}}
    legal = ["play 2C", "play 9C"]
    request = {
        "type": "request",
        "id": 1,
        "view": {"seat": 1, "hand": ["2C", "9C", "AH"], "trick": ["5C"], "trump": None,
                 "hand_sizes": [2, 3, 3, 3]},
        "legal": legal,
        "time": {"move_ms": 1000, "bank_ms": 0},
    }  # fmt: skip
    stdin = json.dumps(hello) + "\n" + json.dumps(request) + "\n"
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / example)],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(PROJECT / "bots" / "sdk")},
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    ready, answer = (json.loads(line) for line in result.stdout.splitlines())
    assert ready == {"type": "ready"}
    assert answer["action"] in legal
    if example == "ducking_bot.py":
        assert answer["action"] == "play 2C"  # the highest card that does not win the 5C


@pytest.mark.sandbox
def test_sandbox_setup_creates_the_users_idempotently() -> None:
    import pwd

    from bots.runner.sandbox import running_as_root

    if not running_as_root():
        pytest.skip("creating system users needs root")
    for _ in range(2):
        result = _run("sandbox", "--setup")
        assert result.returncode == 0, result.stderr
        assert result.stdout.count(": present") == 4
    for index in range(4):
        entry = pwd.getpwnam(f"klbot{index}")
        assert entry.pw_uid != 0
        assert entry.pw_shell.endswith("nologin")
