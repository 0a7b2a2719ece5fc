"""A seat's memory is bounded as a whole, whatever the bot does: the hostile bots of
tests/bots/hostile/ attack in the real sandbox, and only their own seat pays.

The seat's control group (bots/runner/cgroups.py) bounds all its processes, memfd and
tmpfs pages together; the seccomp filter refuses System V IPC. The tests run with a small
seat limit so that each attack is cheap; each attack is itself bounded (2 GiB at most),
so even where a limit were missing it would end. A test that needs the control groups is
skipped where the host has none, and fails under CI=true (CI runs on a host that has them).
Each test runs twice: the bots started in their sandbox as before, then forked by a
spawner in it, with a control group of the child's own (``bot_starts``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bots.bundle import BotBundle
from bots.match import BotSpec, PlayedMatch, match_play
from bots.protocol import TimeControl
from bots.runner import cgroups
from bots.runner.sandbox import Limits
from bots.runner.spawner import spawner_pool
from bots.seats import Outcome
from tests.bots.botcode import assert_others_intact, log_lines
from tests.servers import running_under_ci

pytestmark = [pytest.mark.sandbox, pytest.mark.usefixtures("bot_starts")]

HOSTILE = Path(__file__).with_name("hostile")
MiB = 1024 * 1024
SEAT_MEMORY = 256 * MiB
"""The seat limit of these tests (the league's default is 1 GiB)."""
PATIENT = TimeControl(move_ms=1000, bank_ms=60_000, startup_ms=10_000)
"""An attack may take seconds: it must not end as a timeout."""


@pytest.fixture
def seat_cgroups() -> cgroups.CgroupHost:
    """The host's control groups for seats; skipped (failed under CI) where there are none."""
    host = cgroups.cgroup_host()
    if host is None:
        reason = f"no control groups for seats here: {cgroups.cgroup_unavailable_reason()}"
        if running_under_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    return host


@pytest.fixture
def without_cgroups(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner as on a host without control groups (``KING_LEAGUE_CGROUPS=off``)."""
    monkeypatch.setenv(cgroups.SWITCH_VARIABLE, "off")
    assert cgroups.cgroup_host() is None


def hostile_match(name: str, limits: Limits) -> PlayedMatch:
    """The hostile bot ``name`` at seat 0 against the built-in bots."""
    code = (HOSTILE / f"{name}.py").read_bytes()
    specs = [
        BotSpec.uploaded(BotBundle(f"{name}.py", "py", code)),
        BotSpec.builtin("greedy"),
        BotSpec.builtin("random"),
        BotSpec.builtin("greedy"),
    ]
    return match_play("kingen", specs, seed=3, time_control=PATIENT, limits=limits)


def seat_groups_of_this_process(host: cgroups.CgroupHost) -> list[str]:
    """The seat groups this process made that still exist (the idle spawners' stopped
    first, where they are on: bots.runner.spawner)."""
    spawners = spawner_pool()
    if spawners is not None:
        spawners.drain()
    marker = f"-{os.getpid()}-"
    found = []
    for base in (host.memory_base, host.pids_base):
        if base is not None and base.is_dir():
            found += [entry.name for entry in os.scandir(base) if marker in entry.name]
    return found


# ---------------------------------------------------------------- System V IPC


def test_system_v_shared_memory_is_refused() -> None:
    """Detached segments keep their pages outside every address space: shmget fails with
    EPERM (seccomp), with or without control groups, and the bot plays on."""
    result = hostile_match("shm_hoard", Limits(memory=SEAT_MEMORY))
    assert log_lines(result, "REFUSED") == ["shmget 1"], result.seats[0].log
    assert log_lines(result, "HELD") == []
    assert log_lines(result, "DONE") == ["0"]
    assert result.seats[0].outcome is Outcome.OK
    assert_others_intact(result)


# ---------------------------------------------------------------- memfd


def test_memfd_beyond_the_seat_limit_is_a_crash_with_a_memory_message(
    seat_cgroups: cgroups.CgroupHost,
) -> None:
    """memfd pages written with write() are in no address space; the seat's group counts
    them, and the kernel kills the bot at the seat's limit. Its seat alone pays."""
    result = hostile_match("memfd_hoard", Limits(memory=SEAT_MEMORY))
    report = result.seats[0]
    assert log_lines(result, "DONE") == [], report.log  # the hoard never completed
    assert report.outcome is Outcome.CRASH
    assert report.replaced_at == 1
    (fault,) = report.faults
    assert "memory limit exceeded (256 MiB per seat)" in fault.message
    assert_others_intact(result)
    assert seat_groups_of_this_process(seat_cgroups) == []


def test_memfd_is_refused_where_no_control_group_counts_it(without_cgroups: None) -> None:
    """Without a control group nothing would count memfd pages: memfd_create fails with
    EPERM, and the runner still plays the whole match."""
    result = hostile_match("memfd_hoard", Limits(memory=SEAT_MEMORY))
    assert log_lines(result, "REFUSED") == ["memfd_create 1"], result.seats[0].log
    assert log_lines(result, "DONE") == ["0"]
    assert result.seats[0].outcome is Outcome.OK
    assert_others_intact(result)


# ---------------------------------------------------------------- many processes


def test_processes_together_stay_under_the_seat_limit(seat_cgroups: cgroups.CgroupHost) -> None:
    """Twelve processes of 128 MiB each: each is far under its own address-space limit,
    together they are six times the seat's limit. The kernel lets only as many hold their
    block at once as fit in the seat (cgroup v1 kills the largest, v2 the whole seat);
    either way the seat ends as a crash saying so."""
    result = hostile_match("fork_hoard", Limits(memory=SEAT_MEMORY))
    report = result.seats[0]
    held = log_lines(result, "MIB")
    assert report.outcome is Outcome.CRASH, report.log
    assert "memory limit exceeded" in report.faults[0].message
    if seat_cgroups.version == 1:  # the bot lived on, its children killed one by one
        assert len(held) == 1, report.log
        assert int(held[0]) * MiB < SEAT_MEMORY, report.log
        (children,) = log_lines(result, "CHILDREN")
        assert int(children.split()[0]) * 128 * MiB > SEAT_MEMORY  # it did try
        assert "the kernel killed" in report.faults[0].message
    assert_others_intact(result)
    assert seat_groups_of_this_process(seat_cgroups) == []


def test_a_child_killed_for_memory_is_the_seats_memory_fault(
    seat_cgroups: cgroups.CgroupHost,
) -> None:
    """A child that allocates past the seat's limit while the bot plays on: cgroup v1
    kills the child alone, and the bot plays the match to its end; the seat still ends as
    a crash saying ``memory limit exceeded`` (read from ``memory.oom_control`` as the seat
    ends). cgroup v2 kills the whole seat (``memory.oom.group``), with the same message."""
    result = hostile_match("child_memory_bomb", Limits(memory=SEAT_MEMORY))
    report = result.seats[0]
    assert log_lines(result, "CHILD_DONE") == [], report.log
    assert report.outcome is Outcome.CRASH, report.log
    assert "memory limit exceeded (256 MiB per seat)" in report.faults[0].message
    if seat_cgroups.version == 1:
        assert log_lines(result, "CHILD") == ["9"], report.log  # SIGKILL, the child alone
        assert log_lines(result, "PLAYING_ON") == ["1"], report.log
        assert report.replaced_at is None  # it played every move itself
        (fault,) = report.faults
        assert "the kernel killed 1 of the bot's process" in fault.message
    assert_others_intact(result)
    assert seat_groups_of_this_process(seat_cgroups) == []


def test_a_bot_that_stays_under_the_seat_limit_has_no_memory_fault(
    seat_cgroups: cgroups.CgroupHost,
) -> None:
    """The same bot with a seat limit above what its child can take (each process's
    address space stops it first, with MemoryError): no kill, no fault."""
    limits = Limits(memory=4096 * MiB, address_space=256 * MiB)
    result = hostile_match("child_memory_bomb", limits)
    report = result.seats[0]
    assert len(log_lines(result, "CHILD_LIMIT")) == 1, report.log
    assert log_lines(result, "CHILD_EXIT") == ["0"], report.log
    assert report.outcome is Outcome.OK, report.faults
    assert report.faults == []


# ---------------------------------------------------------------- tmpfs


def test_tmpfs_pages_count_against_the_seat_limit(seat_cgroups: cgroups.CgroupHost) -> None:
    """The private /tmp is memory: with a /tmp larger than the seat's limit (the league's
    /tmp is 16 MiB, far under it), filling it ends at the seat's limit, not at its size."""
    result = hostile_match("tmpfs_filler", Limits(memory=64 * MiB, tmp_size=256 * MiB))
    report = result.seats[0]
    assert log_lines(result, "FILLED") == [], report.log
    assert report.outcome is Outcome.CRASH
    assert "memory limit exceeded (64 MiB per seat)" in report.faults[0].message
    assert_others_intact(result)


def test_tmpfs_is_capped_at_its_size() -> None:
    """The league's /tmp stops at its size (16 MiB) with ENOSPC, and the bot plays on."""
    result = hostile_match("tmpfs_filler", Limits(memory=SEAT_MEMORY))
    assert log_lines(result, "STOPPED") == ["28"], result.seats[0].log  # ENOSPC
    (filled,) = log_lines(result, "FILLED")
    assert int(filled) <= Limits().tmp_size // MiB
    assert result.seats[0].outcome is Outcome.OK
    assert_others_intact(result)


# ---------------------------------------------------------------- the groups themselves


def test_a_seat_group_is_made_with_its_limits_and_removed(
    seat_cgroups: cgroups.CgroupHost,
) -> None:
    group = cgroups.SeatCgroup.for_seat(seat_cgroups, "test", memory=96 * MiB, processes=5)
    try:
        memory_dir = group.directories[0]
        if seat_cgroups.version == 2:
            assert (memory_dir / "memory.max").read_text().strip() == str(96 * MiB)
            assert (memory_dir / "memory.oom.group").read_text().strip() == "1"
        else:
            assert (memory_dir / "memory.limit_in_bytes").read_text().strip() == str(96 * MiB)
        assert group.pids() == []
        assert group.oom_kills() == 0
        assert group.exit_explanation() is None
    finally:
        group.remove()
    assert not memory_dir.exists()
    assert seat_groups_of_this_process(seat_cgroups) == []


def test_seat_groups_are_under_this_processs_own_group(
    seat_cgroups: cgroups.CgroupHost,
) -> None:
    """The seats' groups nest under the runner's own group (v1 and v2 alike), so a limit
    set on the service's group (a container's, a systemd unit's) bounds its bots too."""
    own = cgroups.own_groups_parse(Path("/proc/self/cgroup").read_text())
    path = own["" if seat_cgroups.version == 2 else "memory"]
    path = path.removesuffix("/" + cgroups.RUNNER_LEAF).rstrip("/")
    mounts = cgroups.cgroup_mounts_parse(Path("/proc/self/mountinfo").read_text())
    if seat_cgroups.version == 2:
        mount = next(m for m in mounts if m.fstype == "cgroup2")
    else:
        mount = next(m for m in mounts if m.fstype == "cgroup" and "memory" in m.options)
    own_group = cgroups.group_path(mount, path or "/")
    assert own_group is not None
    assert seat_cgroups.memory_base == own_group / "king-league"
    assert seat_cgroups.memory_base.is_dir()


def test_the_switch_turns_the_groups_off(without_cgroups: None) -> None:
    reason = cgroups.cgroup_unavailable_reason()
    assert reason is not None
    assert cgroups.SWITCH_VARIABLE in reason


def test_the_sandbox_command_says_how_seat_memory_is_bounded(
    seat_cgroups: cgroups.CgroupHost,
) -> None:
    import subprocess
    import sys

    project = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [sys.executable, "-m", "bots", "sandbox"],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert (
        run.stdout.splitlines()[1] == f"seat memory: one limit per seat, {seat_cgroups.describe()}"
    )


def test_every_compose_service_runs_with_an_init() -> None:
    """docker-compose.yml: an init as every container's PID 1 reaps whatever is orphaned
    there (the worker is then not PID 1)."""
    import re

    lines = (Path(__file__).resolve().parents[2] / "docker-compose.yml").read_text().splitlines()
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    top_level = ""
    for line in lines:
        top = re.match(r"^([\w-]+):", line)
        service = re.match(r"^  ([\w-]+):$", line)
        if top:
            top_level = top.group(1)
            current = sections.setdefault(top_level, [])
        elif service and top_level == "services":
            current = sections.setdefault(service.group(1), [])
        else:
            current.append(line)
    assert "  init: true" in sections["x-league"]
    services = [name for name in sections if name not in ("x-league", "services", "volumes")]
    assert services
    assert {"postgres", "redis", "web", "worker", "ratings-worker", "beat"} <= set(services)
    for name in services:
        body = sections[name]
        assert "    <<: *league" in body or "    init: true" in body, name
