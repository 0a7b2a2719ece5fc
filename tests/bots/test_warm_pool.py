"""The warm pool (bots.runner.warm): sandboxes started ahead of their match, one fresh
process per match, never handed to another version, all stopped when the pool closes."""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bots.match import BotSpec, PlayedMatch, match_play
from bots.runner.affinity import worker_cpu_pin
from bots.runner.sandbox import Limits, user_processes
from bots.runner.warm import WarmPool, warm_pool, warm_pool_close, warm_pool_enable
from bots.seats import Outcome
from tests.bots.botcode import FAST, bot_bundle

pytestmark = pytest.mark.sandbox

# Each bot says who it is, a token of its own process, and what its /tmp held at its start;
# then it leaves a mark there (a sandbox that served an earlier match would show it).
IDENTIFY = """
import os as _os
TOKEN = _os.urandom(8).hex()
report("WHO", f"{NAME} token={TOKEN} tmp={sorted(_os.listdir('/tmp'))}")
open(f"/tmp/mark-{NAME}", "w").close()
"""


def identified(name: str) -> BotSpec:
    code = f"NAME = {name!r}\n" + IDENTIFY
    return BotSpec.uploaded(bot_bundle(code, name=f"{name}.py"))


def seats_said(result: PlayedMatch) -> list[str]:
    lines = []
    for report in result.seats:
        found = re.search(r"WHO (.*)", report.log)
        assert found is not None, report.log
        lines.append(found.group(1))
    return lines


def waiting_uids(pool: WarmPool) -> set[int]:
    pool.janitor.drain()
    return {bot.user.uid for bots in pool._waiting.values() for bot in bots if bot.user is not None}


def close_and_check(pool: WarmPool) -> None:
    """Close the pool: no process of the users its waiting bots held is left."""
    uids = waiting_uids(pool)
    warm_pool_close()
    assert warm_pool() is None
    if os.geteuid() == 0:
        assert uids
        assert user_processes(uids) == []


@pytest.fixture
def pool() -> Iterator[WarmPool]:
    started = warm_pool_enable(size=8)
    try:
        yield started
    finally:
        close_and_check(started)


def play(specs: list[BotSpec], seed: int) -> PlayedMatch:
    result = match_play("kingen", specs, seed=seed, time_control=FAST)
    assert all(report.outcome is Outcome.OK for report in result.seats), result.to_json()
    return result


def wait_for_waiting(pool: WarmPool, count: int) -> None:
    pool.janitor.drain()  # the refill runs in the pool's thread
    assert len(pool) == count


def test_every_match_gets_fresh_processes_that_saw_no_other_match(pool: WarmPool) -> None:
    tokens: set[str] = set()
    for seed in range(3):
        if seed:  # the refill started during the match before has finished
            wait_for_waiting(pool, 4)
        said = seats_said(play([identified("alpha")] * 4, seed))
        for line in said:
            assert line.startswith("alpha ")
            assert line.endswith("tmp=[]")  # the /tmp of no earlier match
        tokens.update(line.split()[1] for line in said)
    assert len(tokens) == 12  # twelve seats, twelve processes
    assert pool.hits == 8  # the second and third matches took warm processes
    assert pool.misses == 4
    wait_for_waiting(pool, 4)


def test_a_warm_process_is_never_handed_to_another_version(pool: WarmPool) -> None:
    play([identified("alpha")] * 4, 1)
    wait_for_waiting(pool, 4)  # four alphas wait now
    said = seats_said(play([identified("beta")] * 4, 2))
    assert all(line.startswith("beta ") for line in said)
    assert pool.hits == 0
    # the same files with other limits are another key too
    alpha = identified("alpha").bundle
    assert alpha is not None
    assert pool.take(alpha, Limits(memory=512 * 1024 * 1024)) is None
    assert pool.hits == 0


def test_a_warm_bot_that_died_while_waiting_is_replaced_by_a_fresh_start(
    pool: WarmPool,
) -> None:
    once = BotSpec.uploaded(bot_bundle("", name="plain.py"))
    play([once] * 4, 1)
    wait_for_waiting(pool, 4)
    for bots in pool._waiting.values():
        for bot in bots:
            assert bot.process.pid is not None
            os.killpg(bot.process.pid, signal.SIGKILL)  # bubblewrap, and with it its sandbox
    deadline = time.monotonic() + 10
    while any(bot.process.running for bots in pool._waiting.values() for bot in bots):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    play([once] * 4, 2)  # dead waiting bots are not handed out: fresh starts play
    assert pool.hits == 0


def test_a_hostile_bot_that_spawns_before_its_hello_is_stopped_with_the_pool() -> None:
    spawner = BotSpec.uploaded(
        bot_bundle(
            "import subprocess, sys\n"
            "subprocess.Popen([sys.executable, '-c', 'import time\\nwhile True: time.sleep(1)'])\n",
            name="spawner.py",
        )
    )
    started = warm_pool_enable(size=8)
    try:
        play([spawner] * 4, 1)
        wait_for_waiting(started, 4)  # four spawners wait, each with its child
        if os.geteuid() == 0:
            assert len(user_processes(waiting_uids(started))) >= 8
    finally:
        close_and_check(started)


CPUS_BOT = """
import os

def hook(number, request):
    if number == 1:  # after hello: a warm bot has been handed to its match by now
        report("WHO", str(sorted(os.sched_getaffinity(0))))
    return None
"""


def test_a_pinned_worker_process_plays_its_bots_on_its_cpu_warm_ones_too(tmp_path: Path) -> None:
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: nothing to choose")
    before = os.sched_getaffinity(0)
    pid = os.fork()
    if pid == 0:  # the child pins itself (as a worker process does) and plays two matches
        code = 1
        try:
            cpu = worker_cpu_pin(tmp_path)
            pool = warm_pool_enable(size=8)
            spec = BotSpec.uploaded(bot_bundle(CPUS_BOT, name="cpus.py"))
            said = []
            for seed in (1, 2):  # started in the match, then started ahead
                pool.janitor.drain()  # the second waits for the refill the first started
                said += seats_said(match_play("kingen", [spec] * 4, seed=seed, time_control=FAST))
            code = 0 if said == [str([cpu])] * 8 and pool.hits == 4 else 2
            warm_pool_close()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert os.sched_getaffinity(0) == before
