"""bots/runner/cgroups.py: how the runner finds its control groups, from the texts the
kernel gives (/proc/self/mountinfo, /proc/self/cgroup) as they look on the hosts the
league runs on. The groups themselves are proven in the sandbox by
tests/bots/test_sandbox_memory.py."""

from __future__ import annotations

from pathlib import Path

from bots.runner.cgroups import (
    CgroupHost,
    SeatCgroup,
    cgroup_mounts_parse,
    cgroup_v1_bases,
    group_directory,
    own_groups_parse,
)

V2_HOST = """\
22 1 0:21 / /sys rw,relatime shared:7 - sysfs sysfs rw
25 22 0:22 / /sys/fs/cgroup rw,relatime shared:8 - cgroup2 cgroup2 rw,nsdelegate
"""
V1_DOCKER = """\
612 590 0:55 / /sys/fs/cgroup ro,relatime - tmpfs tmpfs rw,mode=755
620 612 0:32 /docker/0a1b2c /sys/fs/cgroup/memory ro,relatime master:15 - cgroup cgroup rw,memory
621 612 0:36 /docker/0a1b2c /sys/fs/cgroup/pids ro,relatime master:19 - cgroup cgroup rw,pids
622 612 0:29 /docker/0a1b2c /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct
"""


def test_a_v2_host() -> None:
    (mount,) = cgroup_mounts_parse(V2_HOST)
    assert mount.fstype == "cgroup2"
    assert mount.point == Path("/sys/fs/cgroup")
    assert mount.root == "/"
    own = own_groups_parse("0::/system.slice/king-league-worker.service\n")
    assert own == {"": "/system.slice/king-league-worker.service"}


def test_a_v1_container_sees_its_own_group_as_the_mount(tmp_path: Path) -> None:
    mounts = cgroup_mounts_parse(V1_DOCKER)
    assert [sorted(m.options) for m in mounts] == [
        ["memory", "rw"],
        ["pids", "rw"],
        ["cpu", "cpuacct", "rw"],
    ]
    own = own_groups_parse("12:memory:/docker/0a1b2c\n11:pids:/docker/0a1b2c\n3:cpu,cpuacct:/x\n")
    assert own["memory"] == own["pids"] == "/docker/0a1b2c"
    assert own["cpuacct"] == "/x"
    # the group /docker/0a1b2c is the mount itself; a child of it is below the mount point
    memory = mounts[0]
    root = tmp_path / "memory"
    (root / "king-league").mkdir(parents=True)
    local = type(memory)(memory.root, root, memory.fstype, memory.options)
    assert group_directory(local, "/docker/0a1b2c") == root
    assert group_directory(local, "/docker/0a1b2c/king-league") == root / "king-league"
    assert group_directory(local, "/docker/other") is None
    assert group_directory(local, "/docker/0a1b2c/missing") is None


# ---------------------------------------------------------------- cgroup v1: nested seats

V1_HOST = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
"""A cgroup v1 host (systemd's hybrid layout) seen from the whole hierarchy."""
V1_HOST_WORKER = """\
9:name=systemd:/system.slice/king-league-worker.service
8:pids:/system.slice/king-league-worker.service
4:memory:/system.slice/king-league-worker.service
0::/system.slice/king-league-worker.service
"""


def test_v1_seats_nest_under_the_workers_own_group() -> None:
    """A worker in a systemd unit of a v1 host: the seats' groups go under the unit's own
    memory and pids groups, not at the hierarchy's root, so a memory limit set on the
    unit bounds its bots too."""
    bases = cgroup_v1_bases(cgroup_mounts_parse(V1_HOST), own_groups_parse(V1_HOST_WORKER))
    assert bases == (
        Path("/sys/fs/cgroup/memory/system.slice/king-league-worker.service/king-league"),
        Path("/sys/fs/cgroup/pids/system.slice/king-league-worker.service/king-league"),
    )


def test_v1_in_a_container_the_seats_go_under_the_mounted_group() -> None:
    """Docker on v1 mounts the container's own group at the mount point: the seats go
    below it, whatever its name in the whole hierarchy."""
    own = own_groups_parse("12:memory:/docker/0a1b2c\n11:pids:/docker/0a1b2c/sub\n")
    bases = cgroup_v1_bases(cgroup_mounts_parse(V1_DOCKER), own)
    assert bases == (
        Path("/sys/fs/cgroup/memory/king-league"),
        Path("/sys/fs/cgroup/pids/sub/king-league"),
    )


def test_v1_at_the_root_group_the_seats_are_at_the_root() -> None:
    own = own_groups_parse("8:pids:/\n4:memory:/\n")
    bases = cgroup_v1_bases(cgroup_mounts_parse(V1_HOST), own)
    assert bases == (
        Path("/sys/fs/cgroup/memory/king-league"),
        Path("/sys/fs/cgroup/pids/king-league"),
    )


def test_v1_a_group_the_mount_does_not_show_means_no_seat_groups() -> None:
    """The process's memory group lies outside the group mounted here (another
    container's view): no seat groups, and the reason names both."""
    own = own_groups_parse("12:memory:/elsewhere\n11:pids:/elsewhere\n")
    reason = cgroup_v1_bases(cgroup_mounts_parse(V1_DOCKER), own)
    assert reason == (
        "this process's cgroup v1 memory group /elsewhere is not visible under "
        "/sys/fs/cgroup/memory"
    )


def test_v1_without_a_pids_hierarchy_only_memory() -> None:
    mounts = [m for m in cgroup_mounts_parse(V1_HOST) if "pids" not in m.options]
    bases = cgroup_v1_bases(mounts, own_groups_parse(V1_HOST_WORKER))
    assert bases == (
        Path("/sys/fs/cgroup/memory/system.slice/king-league-worker.service/king-league"),
        None,
    )
    assert cgroup_v1_bases(cgroup_mounts_parse(V2_HOST), {"": "/"}) == (
        "no cgroup v1 memory hierarchy is mounted"
    )


# ---------------------------------------------------------------- cgroup v1: OOM kills

V1_OOM_CONTROL_AFTER_KILLS = "oom_kill_disable 0\nunder_oom 0\noom_kill 4\n"
"""memory.oom_control of a seat group whose limit the kernel enforced four times by
killing a process (the largest) while the others lived on."""


def _fixture_group(tmp_path: Path, oom_control: str) -> SeatCgroup:
    directory = tmp_path / "seat"
    directory.mkdir()
    (directory / "memory.oom_control").write_text(oom_control)
    return SeatCgroup(CgroupHost(1, tmp_path), "seat", [directory], 256 * 1024 * 1024)


def test_v1_oom_kills_of_children_are_the_seats_memory_fault(tmp_path: Path) -> None:
    group = _fixture_group(tmp_path, V1_OOM_CONTROL_AFTER_KILLS)
    assert group.oom_kills() == 4
    assert group.memory_fault() == (
        "memory limit exceeded (256 MiB per seat): the kernel killed 4 of the bot's processes"
    )


def test_v1_no_oom_kill_no_memory_fault(tmp_path: Path) -> None:
    """A group that reached its limit and reclaimed (its failcnt grows) but killed
    nothing has no fault: only ``oom_kill`` counts."""
    group = _fixture_group(tmp_path, "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n")
    (tmp_path / "seat" / "memory.failcnt").write_text("1234\n")
    assert group.oom_kills() == 0
    assert group.memory_fault() is None
    assert group.exit_explanation() is None


def test_v2_oom_kills_are_read_from_memory_events(tmp_path: Path) -> None:
    """cgroup v2 (not live on a v1 host): ``oom_kill`` of the seat group's memory.events,
    not ``oom`` (the times the limit was hit) nor ``max``."""
    directory = tmp_path / "seat"
    directory.mkdir()
    (directory / "memory.events").write_text(
        "low 0\nhigh 0\nmax 57\noom 3\noom_kill 2\noom_group_kill 1\n"
    )
    group = SeatCgroup(CgroupHost(2, tmp_path), "seat", [directory], 64 * 1024 * 1024)
    assert group.oom_kills() == 2
    assert group.memory_fault() == (
        "memory limit exceeded (64 MiB per seat): the kernel killed 2 of the bot's processes"
    )


# ---------------------------------------------------------------- a group handed on


def test_a_group_is_handed_on_only_empty_and_uncharged(tmp_path: Path) -> None:
    group = _fixture_group(tmp_path, V1_OOM_CONTROL_AFTER_KILLS)
    directory = tmp_path / "seat"
    (directory / "cgroup.procs").write_text("4242\n")
    (directory / "memory.usage_in_bytes").write_text("4096\n")
    assert not group.reuse(slack=1024 * 1024)  # a process is still in it
    (directory / "cgroup.procs").write_text("")
    (directory / "memory.usage_in_bytes").write_text(f"{2 * 1024 * 1024}\n")
    assert not group.reuse(slack=1024 * 1024)  # memory still charged to it
    (directory / "memory.usage_in_bytes").write_text("4096\n")
    assert group.reuse(slack=1024 * 1024)


def test_a_group_handed_on_counts_its_new_occupants_oom_kills_only(tmp_path: Path) -> None:
    group = _fixture_group(tmp_path, V1_OOM_CONTROL_AFTER_KILLS)
    directory = tmp_path / "seat"
    (directory / "cgroup.procs").write_text("")
    (directory / "memory.usage_in_bytes").write_text("0\n")
    assert group.reuse(slack=1024 * 1024)
    assert group.oom_kills() == 0
    assert group.memory_fault() is None
    (directory / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 5\n")
    assert group.memory_fault() == (
        "memory limit exceeded (256 MiB per seat): the kernel killed 1 of the bot's process"
    )
