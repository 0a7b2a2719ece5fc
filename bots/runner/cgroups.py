"""One control group per seat: the kernel bounds the memory and the processes of a bot.

The rlimits of bots.runner.launcher bound each process on its own; a bot with several
processes, or with memory no address space shows (a memfd written with ``write``, the
pages of its tmpfs), goes past them. A seat's control group counts all of it: every
process the bot starts, anonymous memory, memfd and tmpfs pages (charged to the group
that touched them), and the kernel memory they use. Above the seat's limit the kernel
reclaims what it can and then OOM-kills inside the group, never outside it: the bot that
exceeds its memory is the one that fails, not the runner, PostgreSQL or a neighbour.

Detected at run time, once per process (``cgroup_host``):

- **cgroup v2** (preferred): the unified hierarchy with the ``memory`` controller
  available in the runner's own group. Seat groups live in ``OWN/king-league/SEAT``;
  the runner's group gets ``+memory +pids`` in its ``cgroup.subtree_control``. A v2
  group with processes cannot hand controllers to children (the "no internal
  processes" rule), so when that write fails with EBUSY (a container's root group, a
  systemd service with ``Delegate=yes``) the processes of the runner's group are first
  moved into a leaf ``OWN/king-league-runner``, as container engines do themselves.
  Limits: ``memory.max``, ``memory.swap.max`` 0, ``memory.oom.group`` 1 (an OOM kill
  takes the whole seat), ``pids.max``; an OOM kill shows in ``memory.events``.
- **cgroup v1**: the ``memory`` hierarchy (and ``pids`` if mounted), seat groups in
  ``OWN/king-league/SEAT`` under the runner's own group of each hierarchy (its line in
  /proc/self/cgroup, found under the mount: ``cgroup_v1_bases``), as on v2, so a limit
  set on the service's group bounds its bots too (v1's memory accounting is hierarchical:
  ``memory.use_hierarchy``, always on since Linux 5.11). Limits: ``memory.limit_in_bytes`` and
  ``memory.memsw.limit_in_bytes`` (no swap beyond it), ``pids.max``; an OOM kill shows
  as ``oom_kill`` in ``memory.oom_control``.
- **none**: no writable hierarchy with a memory controller, not root, or
  ``KING_LEAGUE_CGROUPS=off``. ``cgroup_unavailable_reason`` says why; the sandbox then
  runs with its per-process limits alone (docs/bot-protocol.md says what that leaves).

A seat's processes enter its group before any of the bot's code runs:
``SeatCgroup.enter_command`` puts a ``/bin/sh`` step in front of the sandbox's command
that writes its own pid into the group's ``cgroup.procs`` and then ``exec``s the rest
(same pid), so setpriv, bubblewrap and the bot inherit the group. ``SeatCgroup.remove``
kills whatever is left in it and removes the group.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import itertools
import logging
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

SWITCH_VARIABLE = "KING_LEAGUE_CGROUPS"
"""``off`` turns the seat groups off (the runner then relies on rlimits alone)."""
GROUP_NAME = "king-league"
"""The group that holds the seats' groups."""
RUNNER_LEAF = "king-league-runner"
"""cgroup v2: where the runner's own processes move so that its group can delegate."""
MOUNTINFO = Path("/proc/self/mountinfo")
OWN_CGROUPS = Path("/proc/self/cgroup")

_ENTER_SCRIPT = (
    'while [ "$1" != -- ]; do echo $$ >"$1" || exit 125; shift; done; shift; unset PWD; exec "$@"'
)
"""Write this shell's pid into each file up to ``--``, then become the rest of the line
(with the environment it was given: the shell's own PWD is dropped)."""

_seat_numbers = itertools.count(1)


class CgroupError(OSError):
    """A seat's control group could not be made or set up."""


@dataclass(frozen=True)
class CgroupHost:
    """Where this machine's seat groups are made."""

    version: int
    """1 or 2."""
    memory_base: Path
    """The ``king-league`` group (v2: of the unified hierarchy; v1: of ``memory``)."""
    pids_base: Path | None = None
    """cgroup v1 only: the ``king-league`` group of the ``pids`` hierarchy, if mounted."""

    def describe(self) -> str:
        if self.version == 2:
            return f"cgroup v2 at {self.memory_base}"
        pids = f", pids at {self.pids_base}" if self.pids_base is not None else ""
        return f"cgroup v1, memory at {self.memory_base}{pids}"


@dataclass(frozen=True)
class CgroupMount:
    root: str
    """The path, inside its hierarchy, of the group mounted here."""
    point: Path
    fstype: str
    options: frozenset[str]


def cgroup_mounts_parse(mountinfo: str) -> list[CgroupMount]:
    """The cgroup mounts in the text of /proc/self/mountinfo."""
    mounts = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if "-" not in fields or len(fields) < 10:
            continue
        separator = fields.index("-")
        fstype = fields[separator + 1]
        if fstype not in ("cgroup", "cgroup2"):
            continue
        point = fields[4].replace("\\040", " ")
        options = fields[separator + 3].split(",") if len(fields) > separator + 3 else []
        mounts.append(CgroupMount(fields[3], Path(point), fstype, frozenset(options)))
    return mounts


def own_groups_parse(text: str) -> dict[str, str]:
    """A process's group by controller (``""`` for the v2 hierarchy), from the text of
    /proc/PID/cgroup."""
    paths: dict[str, str] = {}
    for line in text.splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _mounts() -> list[CgroupMount]:
    try:
        return cgroup_mounts_parse(MOUNTINFO.read_text())
    except OSError:
        return []


def _own_paths() -> dict[str, str]:
    try:
        return own_groups_parse(OWN_CGROUPS.read_text())
    except OSError:
        return {}


def group_path(mount: CgroupMount, path: str) -> Path | None:
    """Where group ``path`` (as /proc/PID/cgroup names it) is under ``mount``, or None
    when the mount does not show it (``path`` is outside the group mounted there)."""
    if not path.startswith("/"):
        return None
    root = mount.root.rstrip("/")
    if path != root and not path.startswith(root + "/"):
        return None
    return mount.point / path[len(root) :].lstrip("/")


def group_directory(mount: CgroupMount, path: str) -> Path | None:
    """The directory of group ``path`` under ``mount``, if the mount shows it."""
    directory = group_path(mount, path)
    return directory if directory is not None and directory.is_dir() else None


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """An exclusive lock on a group's directory (runners of one machine set up in turn)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _write(path: Path, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


def _controllers(path: Path) -> set[str]:
    try:
        return set(path.read_text().split())
    except OSError:
        return set()


def _delegate(group: Path, wanted: list[str]) -> None:
    """Enable ``wanted`` controllers for ``group``'s children (cgroup v2), moving the
    group's own processes into its ``RUNNER_LEAF`` first if the kernel refuses while
    they are there."""
    missing = [
        name for name in wanted if name not in _controllers(group / "cgroup.subtree_control")
    ]
    if not missing:
        return
    change = " ".join(f"+{name}" for name in missing)
    try:
        _write(group / "cgroup.subtree_control", change)
        return
    except OSError as exc:
        if exc.errno != errno.EBUSY:
            raise
    leaf = group / RUNNER_LEAF
    leaf.mkdir(exist_ok=True)
    for _ in range(100):  # processes may fork while they are moved
        pids = (group / "cgroup.procs").read_text().split()
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(OSError):  # gone, or not movable: the write below says
                _write(leaf / "cgroup.procs", pid)
    _write(group / "cgroup.subtree_control", change)


def _v2_host(mounts: list[CgroupMount], own: dict[str, str]) -> tuple[CgroupHost | None, str]:
    mount = next((m for m in mounts if m.fstype == "cgroup2"), None)
    if mount is None or "" not in own:
        return None, "no cgroup v2 hierarchy is mounted"
    group = group_directory(mount, own[""])
    if group is None:
        return None, f"this process's cgroup v2 group {own['']} is not visible under {mount.point}"
    if group.name == RUNNER_LEAF:
        group = group.parent
    available = _controllers(group / "cgroup.controllers")
    if "memory" not in available:
        shown = " ".join(sorted(available)) or "none"
        return None, (
            f"cgroup v2 at {mount.point}: the memory controller is not available to "
            f"{group} (controllers: {shown})"
        )
    wanted = ["memory"] + (["pids"] if "pids" in available else [])
    try:
        with _locked(group):
            _delegate(group, wanted)
            base = group / GROUP_NAME
            base.mkdir(exist_ok=True)
            _delegate(base, wanted)
    except OSError as exc:
        return None, f"cgroup v2 at {group}: cannot delegate {'+'.join(wanted)}: {exc}"
    return CgroupHost(2, base), ""


def cgroup_v1_bases(
    mounts: list[CgroupMount], own: dict[str, str]
) -> tuple[Path, Path | None] | str:
    """cgroup v1: where the seats' groups go (the ``king-league`` group under this
    process's own ``memory`` group, and under its own ``pids`` group if that hierarchy is
    mounted), or why there is no such place. Pure: the mounts of /proc/self/mountinfo and
    the groups of /proc/self/cgroup, so a limit set on the service's own group (a
    container's, a systemd unit's) bounds its bots too."""
    memory = next((m for m in mounts if m.fstype == "cgroup" and "memory" in m.options), None)
    if memory is None:
        return "no cgroup v1 memory hierarchy is mounted"
    memory_group = group_path(memory, own.get("memory", ""))
    if memory_group is None:
        return (
            f"this process's cgroup v1 memory group {own.get('memory', '(none)')} is not "
            f"visible under {memory.point}"
        )
    pids_base: Path | None = None
    pids = next((m for m in mounts if m.fstype == "cgroup" and "pids" in m.options), None)
    if pids is not None:
        pids_group = group_path(pids, own.get("pids", ""))
        if pids_group is not None:
            pids_base = pids_group / GROUP_NAME
    return memory_group / GROUP_NAME, pids_base


def _v1_host(mounts: list[CgroupMount], own: dict[str, str]) -> tuple[CgroupHost | None, str]:
    bases = cgroup_v1_bases(mounts, own)
    if isinstance(bases, str):
        return None, bases
    base, pids_base = bases
    try:
        base.mkdir(exist_ok=True)
    except OSError as exc:
        return None, f"cgroup v1 memory hierarchy at {base.parent}: {exc}"
    if pids_base is not None:
        try:
            pids_base.mkdir(exist_ok=True)
        except OSError:
            pids_base = None
    return CgroupHost(1, base, pids_base), ""


def _detect() -> tuple[CgroupHost | None, str]:
    if os.environ.get(SWITCH_VARIABLE, "").strip().lower() in ("off", "0", "false", "no"):
        return None, f"turned off ({SWITCH_VARIABLE}=off)"
    if os.geteuid() != 0:
        return None, "the runner is not root (seat groups are made by a root runner)"
    mounts = _mounts()
    own = _own_paths()
    host, v2_reason = _v2_host(mounts, own)
    if host is None:
        host, v1_reason = _v1_host(mounts, own)
        if host is None:
            return None, f"{v2_reason}; {v1_reason}"
    try:
        probe = SeatCgroup.create(host, f"probe-{os.getpid()}", memory=64 << 20, processes=4)
    except OSError as exc:
        return None, f"{host.describe()}: a seat group cannot be set up: {exc}"
    probe.remove()
    seat_groups_sweep(host)
    return host, ""


@functools.cache
def _detected(switch: str) -> tuple[CgroupHost | None, str]:
    del switch  # the cache's key: tests turn the groups off and on again
    return _detect()


def cgroup_host() -> CgroupHost | None:
    """Where seat groups are made on this machine, or None (``cgroup_unavailable_reason``
    says why). Detected once per process (per value of ``KING_LEAGUE_CGROUPS``)."""
    return _detected(os.environ.get(SWITCH_VARIABLE, ""))[0]


def cgroup_unavailable_reason() -> str | None:
    """None when seats get control groups here; else why not."""
    host, reason = _detected(os.environ.get(SWITCH_VARIABLE, ""))
    return None if host is not None else reason


def cgroup_status() -> str:
    """One line for operators (``python -m bots sandbox``): how a seat's memory is bounded."""
    host, reason = _detected(os.environ.get(SWITCH_VARIABLE, ""))
    if host is not None:
        return f"seat memory: one limit per seat, {host.describe()}"
    return f"seat memory: per-process limits only, no control groups ({reason})"


def seat_groups_sweep(host: CgroupHost) -> None:
    """Remove the empty seat groups left by runners that died (their pid is in the name)."""
    for base in (host.memory_base, host.pids_base):
        if base is None:
            continue
        with contextlib.suppress(OSError):
            for entry in os.scandir(base):
                parts = entry.name.split("-")
                if not entry.is_dir() or len(parts) < 3 or not parts[-2].isdigit():
                    continue
                if Path(f"/proc/{parts[-2]}").exists():
                    continue
                with contextlib.suppress(OSError):
                    os.rmdir(entry.path)


def _read_counter(path: Path, name: str) -> int:
    """The value of ``name`` in a flat-keyed file (memory.events, memory.oom_control)."""
    try:
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == name:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


class SeatCgroup:
    """The control group of one seat: made before the bot starts, removed after it."""

    def __init__(self, host: CgroupHost, name: str, directories: list[Path], memory: int) -> None:
        self.host = host
        self.name = name
        self.directories = directories
        """The seat's group in each hierarchy; the first one is the memory group."""
        self.memory = memory
        self._oom_kills_at_removal = 0
        self._oom_kills_before = 0
        """The group's OOM kills before its present occupant entered (``reuse``)."""

    @classmethod
    def create(cls, host: CgroupHost, name: str, *, memory: int, processes: int) -> SeatCgroup:
        """Make the group ``name`` with at most ``memory`` bytes (no swap) and
        ``processes`` processes and threads; CgroupError if the kernel refuses."""
        made: list[Path] = []
        group = cls(host, name, made, memory)
        try:
            memory_dir = host.memory_base / name
            memory_dir.mkdir()
            made.append(memory_dir)
            if host.version == 2:
                _write(memory_dir / "memory.max", str(memory))
                if (memory_dir / "memory.swap.max").exists():
                    _write(memory_dir / "memory.swap.max", "0")
                if (memory_dir / "memory.oom.group").exists():
                    _write(memory_dir / "memory.oom.group", "1")
                if (memory_dir / "pids.max").exists():
                    _write(memory_dir / "pids.max", str(processes))
            else:
                _write(memory_dir / "memory.limit_in_bytes", str(memory))
                if (memory_dir / "memory.memsw.limit_in_bytes").exists():
                    _write(memory_dir / "memory.memsw.limit_in_bytes", str(memory))
                if host.pids_base is not None:
                    pids_dir = host.pids_base / name
                    pids_dir.mkdir()
                    made.append(pids_dir)
                    _write(pids_dir / "pids.max", str(processes))
        except OSError as exc:
            group.remove()
            raise CgroupError(exc.errno, f"cannot set up the seat group {name}: {exc}") from None
        return group

    @classmethod
    def for_seat(cls, host: CgroupHost, label: str, *, memory: int, processes: int) -> SeatCgroup:
        """A new group named after ``label`` (the sandbox user), this process and a count."""
        name = f"{label}-{os.getpid()}-{next(_seat_numbers)}"
        return cls.create(host, name, memory=memory, processes=processes)

    def enter_command(self, argv: list[str]) -> list[str]:
        """``argv`` preceded by the step that moves its process into this group."""
        procs = [str(directory / "cgroup.procs") for directory in self.directories]
        return ["/bin/sh", "-c", _ENTER_SCRIPT, "sh", *procs, "--", *argv]

    def pids(self) -> list[int]:
        """The processes in the group now."""
        if not self.directories:
            return []
        try:
            text = (self.directories[0] / "cgroup.procs").read_text()
        except OSError:
            return []
        return [int(pid) for pid in text.split()]

    def oom_kills(self) -> int:
        """How many processes of the seat the kernel killed for its memory limit (since
        its present occupant entered, for a group handed on by ``reuse``)."""
        if not self.directories:
            return self._oom_kills_at_removal
        return self._oom_kills_counted() - self._oom_kills_before

    def _oom_kills_counted(self) -> int:
        directory = self.directories[0]
        if self.host.version == 2:
            return _read_counter(directory / "memory.events", "oom_kill")
        return _read_counter(directory / "memory.oom_control", "oom_kill")

    def charged(self) -> int:
        """Bytes of memory charged to the group now."""
        name = "memory.current" if self.host.version == 2 else "memory.usage_in_bytes"
        try:
            return int((self.directories[0] / name).read_text())
        except (OSError, ValueError, IndexError):
            return self.memory

    def reuse(self, slack: int) -> bool:
        """Ready the group for a next occupant, if no process is left in it and at most
        ``slack`` bytes are still charged to it (the occupant then finds its whole limit
        but those): its OOM kills are counted from now. False: the group must go."""
        if not self.directories or self.pids() or self.charged() > slack:
            return False
        self._oom_kills_before = self._oom_kills_counted()
        return True

    def exit_explanation(self) -> str | None:
        """Why the bot's processes ended, if the group knows: its memory limit."""
        if self.oom_kills() > 0:
            return f"memory limit exceeded ({self.memory // (1024 * 1024)} MiB per seat)"
        return None

    def memory_fault(self) -> str | None:
        """What to tell of the seat's memory once it ends, when the kernel OOM-killed any
        of its processes: cgroup v1 kills one process (the largest), not the seat, so a bot
        whose child was killed may play on to the end and would otherwise end ``ok``."""
        kills = self.oom_kills()
        if kills == 0:
            return None
        processes = "process" if kills == 1 else "processes"
        return f"{self.exit_explanation()}: the kernel killed {kills} of the bot's {processes}"

    def kill(self, spare: int | None = None) -> None:
        """SIGKILL every process in the group (but ``spare``), until none is left."""
        if not self.directories:
            return
        kill_file = self.directories[0] / "cgroup.kill"
        if spare is None and self.host.version == 2 and kill_file.exists():
            with contextlib.suppress(OSError):
                _write(kill_file, "1")
        for _ in range(100):
            pids = [pid for pid in self.pids() if pid != spare]
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.002)

    def remove(self, timeout: float = 2.0) -> None:
        """Kill what is left in the group and remove it (a group that stays busy past
        ``timeout`` is left, logged, and swept by a later runner)."""
        deadline = time.monotonic() + timeout
        self.kill()
        self._oom_kills_at_removal = self.oom_kills()
        for directory in reversed(self.directories):
            while True:
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        logger.warning("the seat group %s stays: %s", directory, exc)
                        break
                    self.kill()
                    time.sleep(0.005)
        self.directories = []
