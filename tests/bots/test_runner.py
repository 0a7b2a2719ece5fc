"""The runner and its fault policy, with real bot processes (outside the sandbox, so these
run everywhere; tests/bots/test_sandbox_security.py runs bots in the sandbox)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bots.bundle import bot_bundle_from_path
from bots.match import BotSpec, match_play
from bots.protocol import MAX_LINE_BYTES, PROTOCOL_VERSION, TimeControl
from bots.runner.process import exit_wait, kill_and_reap
from bots.runner.seat import Transcript
from bots.seats import MAX_STRIKES, Outcome
from bots.seats import _builtin_factories as builtin_factories
from engine.record import verify_record
from tests.bots.botcode import FAST, assert_others_intact, log_lines, match_against_builtins

EXAMPLES = Path(__file__).resolve().parents[2] / "bots" / "examples"


def test_example_bots_play_a_whole_match() -> None:
    specs = [
        BotSpec.uploaded(bot_bundle_from_path(EXAMPLES / "random_bot.py")),
        BotSpec.uploaded(bot_bundle_from_path(EXAMPLES / "ducking_bot.py")),
        BotSpec.builtin("greedy"),
        BotSpec.builtin("random"),
    ]
    result = match_play("kingen", specs, seed=11, sandbox=False)
    assert [r.outcome for r in result.seats] == [Outcome.OK] * 4
    assert [r.decisions for r in result.seats] == [result.decisions // 4] * 4
    verification = verify_record(result.record)
    assert verification.ok, verification.problem
    assert verification.scores == result.scores
    events = [e for deal in result.record["deals"] for e in deal["actions"] if "seat" in e]
    assert len(events) == result.decisions
    assert all(isinstance(e["ms"], float | int) for e in events)
    assert [s["name"] for s in result.record["seats"]] == [
        "random_bot.py",
        "ducking_bot.py",
        "builtin:greedy",
        "builtin:random",
    ]


def test_same_seed_same_game_for_builtins() -> None:
    specs = [BotSpec.builtin(n) for n in ("greedy", "random", "greedy", "random")]
    first = match_play("kingen", specs, seed=5)
    second = match_play("kingen", specs, seed=5)
    assert first.record["deals"][0]["actions"][0] == second.record["deals"][0]["actions"][0]
    assert first.scores == second.scores


def test_transcript_hello_ready_requests_end() -> None:
    transcripts: dict[int, Transcript] = {}
    result = match_against_builtins("", sandbox=False, transcripts=transcripts)
    lines = transcripts[0]
    hello = json.loads(lines[0][1])
    assert lines[0][0] == "runner"
    assert hello == {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "seat": 0,
        "seats": 4,
        "game": "kingen",
        "time": FAST.to_json(),
    }
    assert lines[1] == ("bot", b'{"type": "ready"}')
    request = json.loads(lines[2][1])
    assert request["type"] == "request"
    assert request["id"] == 1
    assert request["legal"] == request["view"]["legal"]
    assert request["view"]["seat"] == 0
    assert request["time"] == {"move_ms": FAST.move_ms, "bank_ms": FAST.bank_ms}
    end = json.loads(lines[-1][1])
    assert end == {"type": "end", "scores": result.scores, "outcome": "ok"}
    assert log_lines(result, "END") == [json.dumps(result.scores)]


def test_late_answer_is_a_timeout_then_dropped() -> None:
    body = """
import time
def hook(number, request):
    if number == 1:
        time.sleep(0.75)  # 250 ms too late; dropped before request 2 (read within 500 ms)
    return None
"""
    control = TimeControl(move_ms=500, bank_ms=0, startup_ms=5000)
    result = match_against_builtins(body, sandbox=False, time_control=control)
    report = result.seats[0]
    assert report.outcome is Outcome.TIMEOUT
    assert report.strikes == 1
    assert report.replaced_at is None
    fault = report.faults[0]
    assert fault.decision == 1
    assert fault.cause is Outcome.TIMEOUT
    first_request = result.record["deals"][0]["actions"]
    seat0 = next(e for e in first_request if e.get("seat") == 0)
    assert seat0["action"] == fault.fallback
    assert result.record["meta"]["faults"][0]["cause"] == "timeout"
    assert_others_intact(result)


def test_time_bank_absorbs_one_slow_answer_but_not_two() -> None:
    body = """
import time
def hook(number, request):
    if number == 1:
        time.sleep(0.6)   # 200 ms over the move's 400: the bank keeps 400 of its 600 ms
    if number == 2:
        time.sleep(1.0)   # 600 ms over the move's 400: more than the 400 ms left
    return None
"""
    control = TimeControl(move_ms=400, bank_ms=600, startup_ms=5000)
    result = match_against_builtins(body, sandbox=False, time_control=control)
    report = result.seats[0]
    assert [f.decision for f in report.faults] == [2]
    assert report.outcome is Outcome.TIMEOUT
    assert_others_intact(result)


@pytest.mark.parametrize(
    ("answer", "cause"),
    [
        ('"{not json"', Outcome.PROTOCOL_ERROR),
        ('"[1, 2]"', Outcome.PROTOCOL_ERROR),
        ('json.dumps({"move": "play 2C"})', Outcome.PROTOCOL_ERROR),
        ('json.dumps({"action": 7})', Outcome.PROTOCOL_ERROR),
        ('json.dumps({"action": "play ZZ"})', Outcome.ILLEGAL_ACTION),
        ('json.dumps({"action": "dance"})', Outcome.ILLEGAL_ACTION),
        ('json.dumps({"action": request["legal"][-1], "id": 99})', Outcome.PROTOCOL_ERROR),
    ],
)
def test_bad_answer_plays_the_fallback_and_counts_a_strike(answer: str, cause: Outcome) -> None:
    body = f"""
def hook(number, request):
    if number == 1:
        return {answer}
    return None
"""
    result = match_against_builtins(body, sandbox=False)
    report = result.seats[0]
    assert report.outcome is cause
    assert report.strikes == 1
    assert report.replaced_at is None
    assert report.faults[0].fallback is not None
    assert_others_intact(result)


def test_an_action_that_is_not_legal_now_is_illegal() -> None:
    body = """
def hook(number, request):
    hand = ["play " + c for c in request["view"]["hand"]]
    illegal = [a for a in hand if a not in request["legal"]]
    if illegal:
        report("TRIED", illegal[0])
        return json.dumps({"action": illegal[0]})
    return None
"""
    result = match_against_builtins(body, sandbox=False)
    report = result.seats[0]
    assert log_lines(result, "TRIED")  # some hand held a card it could not play
    assert report.faults[0].cause is Outcome.ILLEGAL_ACTION
    assert report.strikes == MAX_STRIKES
    assert report.replaced_at is not None
    assert_others_intact(result)


def test_three_strikes_hand_the_seat_to_greedy() -> None:
    body = """
def hook(number, request):
    return json.dumps({"action": "play ZZ"})
"""
    result = match_against_builtins(body, sandbox=False)
    report = result.seats[0]
    assert report.outcome is Outcome.ILLEGAL_ACTION
    assert report.strikes == MAX_STRIKES
    assert [f.decision for f in report.faults] == [1, 2, 3]
    assert report.replaced_at == MAX_STRIKES + 1
    assert result.record["seats"][0]["replaced_at"] == MAX_STRIKES + 1
    assert_others_intact(result)


def test_a_crash_hands_the_seat_over_and_keeps_the_traceback() -> None:
    body = """
def hook(number, request):
    if number == 5:
        raise ValueError("boom at five")
    return None
"""
    result = match_against_builtins(body, sandbox=False)
    report = result.seats[0]
    assert report.outcome is Outcome.CRASH
    assert report.replaced_at == 5
    assert report.strikes == 0
    assert "ValueError: boom at five" in report.log
    assert "exit status 1" in report.faults[0].message
    assert_others_intact(result)


def test_no_ready_in_time_is_an_init_failure() -> None:
    body = """
import time
time.sleep(5)
"""
    control = TimeControl(move_ms=300, bank_ms=0, startup_ms=300)
    result = match_against_builtins(body, sandbox=False, time_control=control)
    report = result.seats[0]
    assert report.outcome is Outcome.INIT_FAILURE
    assert report.replaced_at == 1
    assert report.decisions > 0
    assert_others_intact(result)


def test_a_bot_that_does_not_start_is_an_init_failure() -> None:
    result = match_against_builtins("def broken(:", sandbox=False)
    report = result.seats[0]
    assert report.outcome is Outcome.INIT_FAILURE
    assert "SyntaxError" in report.log
    assert_others_intact(result)


def test_a_wrong_ready_is_an_init_failure() -> None:
    body = """
sys.stdin.readline()
print("hi there")
sys.stdout.flush()
"""
    result = match_against_builtins(body, sandbox=False)
    assert result.seats[0].outcome is Outcome.INIT_FAILURE
    assert "hello" in result.seats[0].faults[0].message
    assert_others_intact(result)


def test_an_answer_longer_than_the_cap_ends_the_bot() -> None:
    body = f"""
def hook(number, request):
    return "x" * {MAX_LINE_BYTES + 10}
"""
    result = match_against_builtins(body, sandbox=False)
    report = result.seats[0]
    assert report.outcome is Outcome.PROTOCOL_ERROR
    assert report.replaced_at == 1
    assert_others_intact(result)


def test_stderr_is_kept_capped() -> None:
    body = """
def hook(number, request):
    if number == 1:
        sys.stderr.write("first line\\n" + "e" * 5_000_000 + "\\nlast words\\n")
        sys.stderr.flush()
    return None
"""
    result = match_against_builtins(body, sandbox=False)
    report = result.seats[0]
    assert report.outcome is Outcome.OK
    assert report.log.startswith("first line")
    assert "bytes dropped" in report.log
    assert "last words" in report.log
    assert len(report.log) < 70_000
    assert_others_intact(result)


def test_a_builtin_that_raises_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def __init__(self, seed: int | None) -> None:
            self.seed = seed

        def choose(self, view: object) -> int:
            raise RuntimeError("broken built-in")

    factories = {**builtin_factories(), "broken": Broken}
    monkeypatch.setattr("bots.seats._builtin_factories", lambda: factories)
    specs = [BotSpec.builtin(n) for n in ("broken", "greedy", "greedy", "greedy")]
    result = match_play("kingen", specs, seed=2)
    report = result.seats[0]
    assert report.outcome is Outcome.CRASH
    assert report.replaced_at == 1
    assert "RuntimeError: broken built-in" in report.log
    assert_others_intact(result)


def test_every_family_plays_with_an_uploaded_bot() -> None:
    from engine import FAMILIES

    for family in FAMILIES:
        result = match_against_builtins("", sandbox=False, game=family, seed=3)
        assert result.seats[0].outcome is Outcome.OK, (family, result.seats[0].faults)
        assert_others_intact(result)


def test_answers_kingbot_played_for_failing_code_are_counted_not_faulted() -> None:
    """kingbot marks the answers it played because ``choose`` failed: the seat counts them
    (a validation game rejects a version whose code failed at every decision), and the
    match goes on without a fault."""
    hostile = Path(__file__).resolve().parent / "hostile"
    specs = [
        BotSpec.uploaded(bot_bundle_from_path(hostile / "kingbot_choose_always_raises.py")),
        BotSpec.uploaded(bot_bundle_from_path(hostile / "kingbot_choose_fails_once.py")),
        BotSpec.uploaded(bot_bundle_from_path(EXAMPLES / "ducking_bot.py")),
        BotSpec.builtin("greedy"),
    ]
    result = match_play("kingen", specs, seed=8, sandbox=False, time_control=FAST)
    always, once, ducking, greedy = result.seats
    assert [s.outcome for s in result.seats] == [Outcome.OK] * 4
    assert always.fallbacks == always.decisions > 0
    assert always.fallback_reasons[0].startswith("choose() raised ValueError: no strategy")
    assert once.fallbacks == 1
    assert "not a legal action" in once.fallback_reasons[0]
    assert (ducking.fallbacks, greedy.fallbacks) == (0, 0)
    assert result.to_json()["seats"][0]["fallbacks"] == always.decisions


def test_exit_wait_wakes_at_the_exit_reaps_and_gives_up_at_its_timeout() -> None:
    # a process that exits after 20 ms: woken by the exit, reaped (its return code read)
    quick = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.02)"])
    try:
        assert exit_wait(quick, 10.0)
        assert quick.returncode == 0
    finally:
        kill_and_reap(quick)
    # one that does not exit: False after the timeout, still running, then killed and reaped
    stuck = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert not exit_wait(stuck, 0.05)
        assert stuck.poll() is None
    finally:
        kill_and_reap(stuck)
    assert stuck.returncode is not None
    assert exit_wait(stuck, 0.0)  # an exited process: at once
