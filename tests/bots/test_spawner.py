"""Spawners (bots.runner.spawner): a fork server per version in the seat's sandbox forks
each match's bot; nothing of one child reaches the next, one child's memory bomb does not
shorten the next child's limit, and a spawner whose child escaped a limit is replaced.

Real sandbox, real control groups; skipped where they are missing, failed under CI=true
(the ``sandbox`` mark and the ``seat_cgroups`` fixture)."""

from __future__ import annotations

import io
import re
import time
import zipfile
from collections.abc import Iterator

import pytest

from bots.bundle import BotBundle, bot_bundle_check
from bots.match import BotSpec, PlayedMatch, match_play
from bots.protocol import TimeControl
from bots.runner import cgroups
from bots.runner import spawner as spawner_module
from bots.runner.process import BotExitedError
from bots.runner.runtimes import runtime_unavailable_reason
from bots.runner.sandbox import Limits, user_processes
from bots.runner.spawner import (
    Spawner,
    SpawnerPool,
    spawner_pool,
    spawner_pool_close,
)
from bots.seats import Outcome
from tests.bots.botcode import assert_others_intact, bot_bundle, log_lines, spawners_on
from tests.servers import running_under_ci

pytestmark = pytest.mark.sandbox

MiB = 1024 * 1024
SEAT_MEMORY = 256 * MiB
PATIENT = TimeControl(move_ms=2000, bank_ms=60_000, startup_ms=20_000)
"""Scanning its own memory takes a bot a moment on a busy machine: not a timeout."""


@pytest.fixture
def spawners() -> Iterator[SpawnerPool]:
    """This process's spawners on (whatever ``KING_LEAGUE_SPAWNERS`` says), off after."""
    with spawners_on() as pool:
        yield pool


@pytest.fixture
def seat_cgroups() -> cgroups.CgroupHost:
    host = cgroups.cgroup_host()
    if host is None:
        reason = f"no control groups for seats here: {cgroups.cgroup_unavailable_reason()}"
        if running_under_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    return host


def against_builtins(bundle: BotBundle, *, seed: int, limits: Limits | None = None) -> PlayedMatch:
    specs = [BotSpec.uploaded(bundle)] + [BotSpec.builtin(name) for name in ("greedy", "random")]
    specs.append(BotSpec.builtin("greedy"))
    return match_play("kingen", specs, seed=seed, time_control=PATIENT, limits=limits)


# ---------------------------------------------------------------- the duplicate pair

# At its start the bot looks everywhere an earlier match could have left something (its
# memory, /tmp, /dev/shm, its environment, its files, other processes); at its first
# request it leaves its hand (the legal actions) in all of those places. The mark is
# "HAND:|" + the actions + "|END"; the prefix is built at run time, so that the bot's own
# code does not hold it.
DUPLICATE_PAIR = r"""
import mmap, re, subprocess
PREFIX = bytes([72, 65, 78, 68, 58, 124])
PATTERN = re.compile(re.escape(PREFIX) + rb"[a-z]+ [0-9A-Za-z]+(?:,[a-z]+ [0-9A-Za-z]+)*\|END")

def memory_marks():
    found = 0
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
        for line in maps:
            fields = line.split()
            if "r" not in fields[1] or (len(fields) > 5 and fields[5].startswith("[v")):
                continue
            start, end = (int(part, 16) for part in fields[0].split("-"))
            try:
                mem.seek(start)
                data = mem.read(end - start)
            except (OSError, OverflowError, ValueError):
                continue
            found += len(PATTERN.findall(data))
    return found

def files_under(top):
    found = []
    for folder, folders, names in os.walk(top):
        found += [os.path.join(folder, name) for name in names + folders]
    return found

def look():
    if memory_marks():
        report("FOUND", "memory")
    if files_under("/tmp"):
        report("FOUND", "tmp " + ",".join(files_under("/tmp")))
    if os.path.isdir("/dev/shm") and os.listdir("/dev/shm"):
        report("FOUND", "shm")
    if any(PREFIX.decode() in value for value in os.environ.values()):
        report("FOUND", "environment")
    if "mark" in os.listdir("/bot"):
        report("FOUND", "bot files")
    mine = ("1", "2", str(os.getpid()))
    others = [p for p in os.listdir("/proc") if p.isdigit() and p not in mine]
    if others:
        report("FOUND", "processes " + ",".join(others))

look()
KEPT = []

def hook(number, request):
    if number != 1:
        return None
    mark = PREFIX + ",".join(request["legal"]).encode() + b"|END"
    KEPT.append(mark * 64)
    shared = mmap.mmap(-1, 1 << 20, flags=mmap.MAP_SHARED)
    shared.write(mark)
    KEPT.append(shared)
    report("SELFCHECK", "found" if memory_marks() else "missing")
    wrote = []
    for path in ("/tmp/mark", "/dev/shm/mark", "/bot/mark", "/kl/mark", "/spawn/mark"):
        try:
            with open(path, "wb") as out:
                out.write(mark)
            wrote.append(path)
        except OSError:
            pass
    os.makedirs("/tmp/locked/deeper", exist_ok=True)
    with open("/tmp/locked/deeper/mark", "wb") as out:
        out.write(mark)
    os.chmod("/tmp/locked/deeper", 0)
    os.chmod("/tmp/locked", 0)
    os.symlink("/bot", "/tmp/link")
    os.environ["KL_MARK"] = mark.decode()
    for name in ("mem", "environ"):
        try:
            with open(f"/proc/2/{name}", "rb") as server:
                server.read(1)
            report("SERVER", f"{name} readable")
        except OSError:
            pass
    # a process of its own in a session of its own, holding the mark, that outlives it
    subprocess.Popen(["/usr/bin/python3", "-c", "import time; time.sleep(600)"],
                     start_new_session=True, env={"KL_MARK": mark.decode()})
    report("WROTE", ",".join(wrote))
    return None
"""


def test_a_second_match_from_the_same_spawner_finds_nothing_of_the_first(
    spawners: SpawnerPool,
) -> None:
    bundle = bot_bundle(DUPLICATE_PAIR)
    first = against_builtins(bundle, seed=11)
    (spawner,) = spawners.idle()
    second = against_builtins(bundle, seed=11)
    # the same spawner forked both children (else this proves nothing)
    assert spawners.idle() == [spawner]
    assert spawner.children >= 2  # (and perhaps the next, forked ahead)
    assert spawners.started == 1
    # the first child did leave its hand behind where it could, and its scanner sees it
    assert log_lines(first, "SELFCHECK") == ["found"], first.seats[0].log
    assert log_lines(first, "WROTE") == ["/tmp/mark"]
    assert log_lines(first, "SERVER") == []  # the fork server is not dumpable
    assert log_lines(first, "FOUND") == []
    assert log_lines(second, "FOUND") == [], second.seats[0].log
    assert log_lines(second, "SELFCHECK") == ["found"]
    for result in (first, second):
        assert result.seats[0].outcome is Outcome.OK, result.seats[0].faults
        assert_others_intact(result)


# ---------------------------------------------------------------- memory


MEMORY_EATER = """
import sys
line = sys.stdin.readline()
blocks = []
target = 400 if "bomb" in line else 200
for _ in range(target // 8):
    blocks.append(bytearray(8 * 1024 * 1024))  # touched: zeroed by the kernel on write
    blocks[-1][::4096] = b"x" * (8 * 1024 * 1024 // 4096)
print("ALLOCATED", len(blocks) * 8, flush=True)
sys.stdin.readline()
"""


def test_a_memory_bomb_in_one_child_leaves_the_next_its_whole_limit(
    seat_cgroups: cgroups.CgroupHost,
) -> None:
    bundle = BotBundle("main.py", "py", MEMORY_EATER.encode())
    limits = Limits(memory=SEAT_MEMORY)
    spawner = Spawner(bundle, limits, home=lambda spawner: None)
    try:
        bomb = spawner.spawn()
        bomb.send(b"bomb\n", time.perf_counter() + 5)
        with pytest.raises(BotExitedError, match=r"memory limit exceeded \(256 MiB per seat\)"):
            bomb.receive(time.perf_counter() + 60)
        bomb.stop()
        assert spawner.retired  # the pool would replace it: its child escaped a limit
        # the same fork server's next child still gets 200 of its 256 MiB
        after = spawner.spawn()
        after.send(b"eat\n", time.perf_counter() + 5)
        assert after.receive(time.perf_counter() + 60) == b"ALLOCATED 200"
        after.stop()
    finally:
        spawner.stop()


def test_a_childs_group_goes_to_the_next_child_only_empty_with_its_memory_given_back(
    seat_cgroups: cgroups.CgroupHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child that held 200 of its 256 MiB and ended leaves its control group empty and
    its memory given back: the next child of the spawner gets that group, alone in it,
    with the whole limit; a group still charged with more than the slack is removed."""
    bundle = BotBundle("main.py", "py", MEMORY_EATER.encode())
    spawner = Spawner(bundle, Limits(memory=SEAT_MEMORY), home=lambda spawner: None)
    try:
        first = spawner.spawn()
        first.send(b"eat\n", time.perf_counter() + 5)
        assert first.receive(time.perf_counter() + 60) == b"ALLOCATED 200"
        group = first.cgroup
        assert group is not None
        first.stop()
        second = spawner.spawn()
        assert second.cgroup is group  # the same group, handed on
        assert group.pids() == [second.host_pid]  # nothing of the first child in it
        second.send(b"eat\n", time.perf_counter() + 5)
        assert second.receive(time.perf_counter() + 60) == b"ALLOCATED 200"
        assert group.oom_kills() == 0
        second.stop()
        # a group still charged with more than the slack (any charge, here) is removed
        monkeypatch.setattr(spawner_module, "GROUP_SLACK", -1)
        third = spawner.spawn()
        assert third.cgroup is group
        directories = list(group.directories)
        third.stop()
        assert not any(directory.exists() for directory in directories)
        fourth = spawner.spawn()
        assert fourth.cgroup is not None
        assert fourth.cgroup is not group
        fourth.stop()
    finally:
        spawner.stop()


OOM_AT_FIRST_REQUEST = """
def hook(number, request):
    blocks = []
    while True:
        blocks.append(bytearray(16 * 1024 * 1024))
        blocks[-1][::4096] = b"x" * (16 * 1024 * 1024 // 4096)
"""


def test_a_spawner_whose_child_escaped_a_limit_is_replaced(
    seat_cgroups: cgroups.CgroupHost, spawners: SpawnerPool
) -> None:
    bundle = bot_bundle(OOM_AT_FIRST_REQUEST)
    limits = Limits(memory=SEAT_MEMORY)
    first = against_builtins(bundle, seed=5, limits=limits)
    assert first.seats[0].outcome is Outcome.CRASH
    assert "memory limit exceeded" in first.seats[0].faults[0].message
    assert spawners.idle() == []
    assert spawners.replaced == 1
    second = against_builtins(bundle, seed=5, limits=limits)
    assert second.seats[0].outcome is Outcome.CRASH
    assert spawners.started == 2  # a fresh spawner served the second match


def test_a_spawned_bot_plays_like_a_started_one(spawners: SpawnerPool) -> None:
    """The same bot, spawned and started as before: the same outcome, scores and record."""
    bundle = bot_bundle("")
    spawned = against_builtins(bundle, seed=2)
    assert spawners.started == 1
    spawner_pool_close()
    assert spawner_pool() is None
    started = against_builtins(bundle, seed=2)
    assert spawned.scores == started.scores
    assert actions(spawned) == actions(started)
    assert [seat.outcome for seat in spawned.seats] == [seat.outcome for seat in started.seats]


OWN_KINGBOT_MAIN = b"""import json, sys, kingbot
own = getattr(kingbot, "SHIPPED_WITH_THE_BOT", False)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "request":
        print(json.dumps({"action": message["legal"][0] if own else "no"}), flush=True)
    else:
        break
"""


def test_a_bot_that_ships_its_own_kingbot_imports_its_own(spawners: SpawnerPool) -> None:
    """The server has the league's kingbot imported; a child of a bot that ships a
    kingbot.py imports the bot's copy, as a fresh interpreter would, in every child (were
    it the league's copy, every answer would be "no": illegal)."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle_zip:
        bundle_zip.writestr("main.py", OWN_KINGBOT_MAIN)
        bundle_zip.writestr("kingbot.py", "SHIPPED_WITH_THE_BOT = True\n")
    bundle = bot_bundle_check("own-kingbot.zip", archive.getvalue())
    for seed in (6, 7):
        result = against_builtins(bundle, seed=seed)
        assert result.seats[0].outcome is Outcome.OK, result.seats[0].faults
    assert spawners.started == 1  # both children of one spawner


def actions(result: PlayedMatch) -> list[str]:
    """The moves of a match's record in order (its timings left out)."""
    return re.findall(r"'action': '([^']*)'", repr(result.record))


def test_only_the_runtimes_that_fork_get_a_spawner() -> None:
    pool = SpawnerPool(size=4)
    node_bot = BotBundle("main.js", "js", b"process.exit(0)\n", runtime="node")
    assert pool.child_start(node_bot, Limits.for_runtime("node")) is None
    assert pool.started == 0
    pool.close()


def test_a_spawner_is_used_by_nobody_after_the_pool_closes(spawners: SpawnerPool) -> None:
    result = against_builtins(bot_bundle(""), seed=3)
    assert result.seats[0].outcome is Outcome.OK
    (spawner,) = spawners.idle()
    uid = spawner.user.uid if spawner.user is not None else None
    spawners.close()
    assert spawners.idle() == []
    assert spawner.process is None
    if uid is not None:
        assert user_processes({uid}) == []
    assert spawners.child_start(bot_bundle(""), Limits()) is None


NUMPY_DRAW = b"""import sys, numpy
sys.stdin.readline()
print(numpy.random.randint(0, 10**9), flush=True)
"""


def test_numpy_children_draw_their_own_random_numbers() -> None:
    """numpy is imported by the python-numpy server; each child reseeds its generator (a
    fresh start would draw from its own entropy too)."""
    reason = runtime_unavailable_reason("python-numpy")
    if reason is not None:
        if running_under_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    bundle = BotBundle("main.py", "py", NUMPY_DRAW, runtime="python-numpy")
    spawner = Spawner(bundle, Limits.for_runtime("python-numpy"), home=lambda spawner: None)
    draws = []
    try:
        for _ in range(3):
            child = spawner.spawn()
            child.send(b"draw\n", time.perf_counter() + 10)
            draws.append(child.receive(time.perf_counter() + 30))
            child.stop()
        assert not spawner.retired
    finally:
        spawner.stop()
    assert len(set(draws)) == 3, draws
