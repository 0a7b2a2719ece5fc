"""What a bot sends or withholds costs only its own seat, in the CLI and the league alike.

Hostile bots (tests/bots/hostile/): answers the decoder refuses (an integer of 5000 digits,
nesting 30,000 deep, bytes that are not UTF-8) are that seat's protocol_error; a bot that
never answers ``hello`` does not make the seat after it fail its start; a bot that closes
its stdout is a crash at once. Each runs without the sandbox, in it, and in it forked by
a spawner (the sandbox differs: bubblewrap's own processes hold the bot's standard
streams; a spawned bot's are FIFOs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from django.contrib.auth.models import User

import pytest

from bots.bundle import bot_bundle_from_path
from bots.match import BotSpec, PlayedMatch, match_play
from bots.models import Bot, BotFault, BotVersion
from bots.protocol import TimeControl
from bots.runner.process import BotProcess, LaunchSpec
from bots.seats import MAX_STRIKES, Outcome
from bots.services import bot_create, bot_version_store
from engine.record import verify_record
from league.models import MatchResult as StoredResult
from league.models import MatchSeat
from league.services.competitors import competitor_builtin, competitor_for_bot_version
from league.services.matches import match_run
from league.services.tables import table_open
from tests.bots.botcode import FAST, assert_others_intact, spawners_on

PROJECT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).resolve().parent / "hostile"
RANDOM_BOT = PROJECT / "bots" / "examples" / "random_bot.py"
MALFORMED = ["answer_huge_integer.py", "answer_deep_nesting.py", "answer_invalid_utf8.py"]
SPAWNED = "spawned"
"""In the sandbox, forked by a spawner (bots.runner.spawner)."""
SANDBOXES = [
    pytest.param(False, id="unsandboxed"),
    pytest.param(True, id="sandboxed", marks=pytest.mark.sandbox),
    pytest.param(SPAWNED, id="spawned", marks=pytest.mark.sandbox),
]
QUICK_START = TimeControl(move_ms=300, bank_ms=1000, startup_ms=1500)
"""A silent bot's start-up allowance, short so that its init failure costs little."""


def hostile(name: str) -> BotSpec:
    return BotSpec.uploaded(bot_bundle_from_path(HOSTILE / name))


def _play(specs: list[BotSpec], *, sandbox: bool | str, control: TimeControl = FAST) -> PlayedMatch:
    specs = specs + [BotSpec.builtin("greedy")] * (4 - len(specs))
    if sandbox == SPAWNED:
        with spawners_on():
            return match_play("kingen", specs, seed=3, sandbox=True, time_control=control)
    return match_play("kingen", specs, seed=3, sandbox=bool(sandbox), time_control=control)


# ---------------------------------------------------------------- answers no decoder takes


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("bot", MALFORMED)
def test_an_answer_the_decoder_refuses_is_that_seats_protocol_error(
    bot: str, sandbox: bool | str
) -> None:
    result = _play([hostile(bot)], sandbox=sandbox)
    seat = result.seats[0]
    assert seat.outcome is Outcome.PROTOCOL_ERROR, seat.faults
    assert seat.strikes == MAX_STRIKES
    assert [f.cause for f in seat.faults] == [Outcome.PROTOCOL_ERROR] * MAX_STRIKES
    assert all("not JSON" in f.message for f in seat.faults), seat.faults
    assert seat.replaced_at == MAX_STRIKES + 1
    assert_others_intact(result)


@pytest.mark.parametrize(
    "sandbox",
    [
        pytest.param("--no-sandbox", id="unsandboxed"),
        pytest.param("--sandbox", id="sandboxed", marks=pytest.mark.sandbox),
    ],
)
def test_the_cli_plays_malformed_answers_to_the_end(sandbox: str, tmp_path: Path) -> None:
    """``python -m bots match``: three seats answering what no decoder takes; the match
    ends, each of them a protocol_error, the fourth seat ok, exit 0 and a record."""
    out = tmp_path / "record.json"
    done = subprocess.run(
        [
            sys.executable, "-m", "bots", "match", "kingen",
            *(str(HOSTILE / name) for name in MALFORMED), str(RANDOM_BOT),
            "--seed", "5", "--move-ms", "300", "--bank-ms", "1000", "--out", str(out), sandbox,
        ],
        capture_output=True, text=True, cwd=PROJECT, env=dict(os.environ), timeout=300,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seats = json.loads(done.stdout)["seats"]
    assert [s["outcome"] for s in seats] == ["protocol_error"] * 3 + ["ok"]
    assert [s["strikes"] for s in seats] == [MAX_STRIKES] * 3 + [0]
    assert verify_record(out.read_text()).ok


# ---------------------------------------------------------------- a silent seat at the start


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_seat_silent_at_hello_costs_the_seat_after_it_nothing(sandbox: bool | str) -> None:
    """The ready of seat 1 is in its pipe while the runner waits for seat 0: it counts."""
    specs = [hostile("hello_never_answered.py"), BotSpec.uploaded(bot_bundle_from_path(RANDOM_BOT))]
    result = _play(specs, sandbox=sandbox, control=QUICK_START)
    silent, ready = result.seats[0], result.seats[1]
    assert silent.outcome is Outcome.INIT_FAILURE
    assert "no ready line within 1500 ms" in silent.faults[0].message
    assert ready.outcome is Outcome.OK, ready.faults
    assert_others_intact(result)


def test_a_line_already_in_the_pipe_is_read_before_the_timeout_verdict(tmp_path: Path) -> None:
    """The deadline has passed, but the answer arrived before the runner looked: not late."""
    written = tmp_path / "written"
    script = (
        "import pathlib, sys; sys.stdout.write('early\\n'); sys.stdout.flush(); "
        f"pathlib.Path({str(written)!r}).touch(); sys.stdin.read()"
    )
    process = BotProcess(LaunchSpec([sys.executable, "-c", script], dict(os.environ)))
    process.start()
    try:
        while not written.exists():  # the line is in the pipe once the file exists
            assert process.running, "the process ended before it wrote"
            time.sleep(0.01)
        assert process.receive(time.perf_counter() - 1.0) == b"early"
    finally:
        process.stop()


# ---------------------------------------------------------------- a closed stdout


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_bot_that_closes_its_stdout_is_a_crash_at_once(sandbox: bool | str) -> None:
    result = _play([hostile("stdout_closed_at_first_request.py")], sandbox=sandbox)
    seat = result.seats[0]
    assert seat.outcome is Outcome.CRASH, seat.faults
    assert [(f.cause, f.decision) for f in seat.faults] == [(Outcome.CRASH, 1)]
    assert "closed its output" in seat.faults[0].message
    assert seat.strikes == 0
    assert seat.replaced_at == 1
    assert_others_intact(result)


# ---------------------------------------------------------------- in the league's runner


def _uploaded_competitor_ids(owner: User, names: list[str]) -> list[int]:
    """Each hostile bot as an active version of its own (its validation skipped: it would
    be rejected) and the competitor playing it."""
    ids = []
    for name in names:
        bot: Bot = bot_create(owner=owner, name=name.removesuffix(".py"), families=["kingen"])
        version = bot_version_store(
            owner=owner, bot=bot, filename=name, data=(HOSTILE / name).read_bytes()
        )
        BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.ACTIVE)
        version.refresh_from_db()
        ids.append(competitor_for_bot_version(version=version).pk)
    return ids


@pytest.mark.sandbox
@pytest.mark.django_db
def test_a_league_match_with_malformed_answers_finishes_with_their_protocol_errors() -> None:
    owner = User.objects.create_user("mallory", password="a long password 1")
    seats = [*_uploaded_competitor_ids(owner, MALFORMED), competitor_builtin(name="greedy").pk]
    match = table_open(actor=owner, game="kingen", seats=seats)

    stats = match_run(match_id=match.pk, worker="test")

    assert stats.outcome == "finished"
    result = StoredResult.objects.get(match=match)
    assert result.outcomes == ["protocol_error"] * 3 + ["ok"]
    assert verify_record(result.record).ok
    rows = MatchSeat.objects.filter(match=match).order_by("seat")
    assert [len(row.faults) for row in rows] == [MAX_STRIKES] * 3 + [0]
    assert BotFault.objects.filter(match_id=match.pk).count() == 3 * MAX_STRIKES


@pytest.mark.sandbox
@pytest.mark.django_db
def test_in_the_league_a_seat_silent_at_hello_costs_the_next_seat_nothing() -> None:
    owner = User.objects.create_user("mallory", password="a long password 1")
    (silent,) = _uploaded_competitor_ids(owner, ["hello_never_answered.py"])
    bot = bot_create(owner=owner, name="rando", families=["kingen"])
    version = bot_version_store(
        owner=owner, bot=bot, filename="random_bot.py", data=RANDOM_BOT.read_bytes()
    )
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.ACTIVE)
    ready = competitor_for_bot_version(version=version).pk
    greedy = competitor_builtin(name="greedy").pk
    match = table_open(actor=owner, game="kingen", seats=[silent, ready, greedy, greedy])

    assert match_run(match_id=match.pk, worker="test").outcome == "finished"

    result = StoredResult.objects.get(match=match)
    assert result.outcomes == ["init_failure", "ok", "ok", "ok"]
