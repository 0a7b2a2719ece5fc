"""bots/runner/cgroups.py: how the runner finds its control groups, from the texts the
kernel gives (/proc/self/mountinfo, /proc/self/cgroup) as they look on the hosts the
league runs on. The groups themselves are proven in the sandbox by
tests/bots/test_sandbox_memory.py."""

from __future__ import annotations

from pathlib import Path

from bots.runner.cgroups import cgroup_mounts_parse, group_directory, own_groups_parse

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
