"""The sandbox holds in every runtime: the hostile bots of tests/bots/hostile/runtimes/
(native, Node.js, Java; python-numpy here too) attack in real matches in the real sandbox,
and only their own seat pays.

- a native bot's raw system calls: sockets, ptrace, namespaces, mounts, BPF, io_uring,
  keyrings, kexec all fail with EPERM; the i386 call gate (``int 0x80``) and an x32
  syscall kill the process (SIGSYS), and the seat ends as a crash saying so;
- memory, process and thread bombs in each runtime end at the runtime's limits;
- Node and the JVM reach no network (TCP to PostgreSQL's and Redis's ports, UDP, DNS) and
  none of the host's files, write nowhere but /tmp, and start no shell.

Each attack is bounded, so even a missing limit would end it. Skipped without the sandbox
or a runtime, failed under CI=true (tests/bots/kits.py).
"""

from __future__ import annotations

import errno
import re

import pytest

from bots.bundle import BotBundle
from bots.match import BotSpec, PlayedMatch, match_play
from bots.protocol import TimeControl
from bots.runner import cgroups
from bots.runner.sandbox import Limits
from bots.runtimes import RUNTIMES
from bots.seats import Outcome
from tests.bots import kits
from tests.bots.botcode import assert_others_intact, log_lines
from tests.bots.test_sandbox_security import _no_sandbox_user_processes_left
from tests.servers import running_under_ci

pytestmark = pytest.mark.sandbox

HOSTILE = kits.HOSTILE
PATIENT = TimeControl(move_ms=1000, bank_ms=60_000, startup_ms=10_000)
"""An attack may take a second or two: it must not end as a timeout."""


def _native(mode: str) -> BotBundle:
    executable = kits.c_executable(
        HOSTILE, "hostile.c", str(kits.EXAMPLES / "native" / "c" / "kingbot.c")
    )
    return kits.bundle("hostile.zip", {"main": executable, "mode": mode.encode()})


def _node(mode: str) -> BotBundle:
    kits.require_runtime("node")
    return kits.bundle(
        "hostile.zip",
        {
            "main.js": (HOSTILE / "hostile.js").read_bytes(),
            "kingbot.js": (kits.EXAMPLES / "node" / "kingbot.js").read_bytes(),
            "mode": mode.encode(),
        },
    )


def _java(mode: str) -> BotBundle:
    kits.require_runtime("java")
    jar = kits.jar(HOSTILE, HOSTILE / "Main.java", kits.EXAMPLES / "java" / "src" / "KingBot.java")
    return kits.bundle("hostile.zip", {"bot.jar": jar, "mode": mode.encode()})


def _attack(bundle: BotBundle, limits: Limits | None = None) -> PlayedMatch:
    specs = [BotSpec.uploaded(bundle)] + [
        BotSpec.builtin(name) for name in ("greedy", "random", "greedy")
    ]
    result = match_play("kingen", specs, seed=1, time_control=PATIENT, limits=limits)
    assert_others_intact(result)
    _no_sandbox_user_processes_left()
    return result


# ---------------------------------------------------------------- native: raw system calls


def test_a_native_bots_raw_system_calls_fail() -> None:
    result = _attack(_native("calls"))
    blocked = dict(line.rsplit(" ", 1) for line in log_lines(result, "BLOCKED"))
    assert log_lines(result, "LEAK") == []
    expected = [
        "socket", "socketpair", "ptrace", "ptrace_attach", "unshare", "mount", "bpf",
        "io_uring_setup", "keyctl", "kexec_load", "clone_newnet", "connect",
    ]  # fmt: skip
    assert sorted(blocked) == sorted(expected), result.seats[0].log
    assert set(blocked.values()) == {str(errno.EPERM)}
    assert result.seats[0].outcome is Outcome.OK  # refused calls, and it played on


@pytest.mark.parametrize("gate", ["int80", "x32"])
def test_the_32_bit_call_gate_and_the_x32_abi_kill_the_bot(gate: str) -> None:
    result = _attack(_native(gate))
    report = result.seats[0]
    assert log_lines(result, "BEFORE") == [f"{gate} 0"]
    assert log_lines(result, "AFTER") == []
    assert report.outcome is Outcome.CRASH
    assert "killed by SIGSYS: a system call the sandbox forbids" in report.faults[0].message
    assert report.replaced_at == 1


def test_a_native_bot_sees_none_of_the_hosts_files() -> None:
    result = _attack(_native("files"))
    assert log_lines(result, "LEAK") == [], result.seats[0].log
    blocked = dict(line.rsplit(" ", 1) for line in log_lines(result, "BLOCKED"))
    assert blocked["/etc/passwd"] == str(errno.ENOENT)
    assert blocked["/work"] == str(errno.ENOENT)
    assert blocked["write /bot"] == str(errno.EROFS)
    assert blocked["write /usr"] == str(errno.EROFS)


# ---------------------------------------------------------------- bombs


def _last_number(lines: list[str]) -> int:
    return int(re.findall(r"\d+", lines[-1])[0])


def test_a_native_memory_bomb_ends_at_the_seat_limit() -> None:
    result = _attack(_native("memory"))
    held = log_lines(result, "HELD")
    limit = Limits.for_runtime("native")
    assert held
    assert log_lines(result, "DONE") == []
    assert _last_number(held) * 1024 * 1024 <= limit.memory
    report = result.seats[0]
    if report.outcome is Outcome.CRASH:  # the seat's control group killed it
        assert "memory limit exceeded" in report.faults[0].message
    else:  # malloc failed at the address-space limit, and it played on
        assert log_lines(result, "LIMIT")


@pytest.mark.parametrize("bomb", ["fork", "threads"])
def test_native_process_and_thread_bombs_end_at_the_limit(bomb: str) -> None:
    result = _attack(_native(bomb))
    limit = log_lines(result, "LIMIT")
    assert limit, result.seats[0].log
    assert _last_number(limit) < RUNTIMES["native"].profile.processes
    assert result.seats[0].outcome is Outcome.OK


def test_a_node_memory_bomb_ends_at_the_seat_limit() -> None:
    if cgroups.cgroup_host() is None:
        reason = f"no control groups for seats here: {cgroups.cgroup_unavailable_reason()}"
        if running_under_ci():
            pytest.fail(reason)
        pytest.skip(reason)  # Node's buffers are bounded by the seat's group alone
    seat_memory = 256 * 1024 * 1024
    limits = Limits.for_runtime("node")
    limits = Limits(
        memory=seat_memory,
        address_space=limits.address_space,
        processes=limits.processes,
        open_files=limits.open_files,
    )
    result = _attack(_node("memory"), limits)
    report = result.seats[0]
    assert log_lines(result, "DONE") == []
    assert _last_number(log_lines(result, "HELD")) * 1024 * 1024 <= seat_memory
    assert report.outcome is Outcome.CRASH
    assert "memory limit exceeded (256 MiB per seat)" in report.faults[0].message


def test_a_node_thread_bomb_ends_below_the_limit() -> None:
    result = _attack(_node("threads"))
    seen = [int(count) for count in log_lines(result, "THREADS")]
    assert seen, result.seats[0].log
    assert max(seen) < RUNTIMES["node"].profile.processes
    assert log_lines(result, "DONE") == []


def test_a_node_bot_may_open_its_256_files() -> None:
    """Node's profile allows 256 open files (its worker threads and libuv hold some): a
    bot opens 200 and more, and the 257th descriptor of its process is refused (EMFILE)."""
    assert Limits.for_runtime("node").open_files == 256
    result = _attack(_node("open_files"))
    (opened,) = log_lines(result, "OPENED")
    assert 200 <= int(opened) < 256, result.seats[0].log
    assert log_lines(result, "LIMIT") == [f"{opened} EMFILE"]
    assert log_lines(result, "DONE") == []
    assert result.seats[0].outcome is Outcome.OK


def test_a_java_memory_bomb_ends_at_its_heap() -> None:
    result = _attack(_java("memory"))
    limit = log_lines(result, "LIMIT")
    assert limit, result.seats[0].log
    assert "OutOfMemoryError: Java heap space" in limit[0]
    assert _last_number(limit) <= 512
    assert result.seats[0].outcome is Outcome.OK  # caught, and it played on


def test_a_java_thread_bomb_ends_below_the_limit() -> None:
    result = _attack(_java("threads"))
    limit = log_lines(result, "LIMIT")
    assert limit, result.seats[0].log
    assert "unable to create native thread" in limit[0]
    assert _last_number(limit) < RUNTIMES["java"].profile.processes
    assert result.seats[0].outcome is Outcome.OK  # the JVM's warnings went to stderr


def test_a_numpy_memory_bomb_raises_memory_error() -> None:
    kits.require_runtime("python-numpy")
    code = b"""import numpy as np
import kingbot

def choose(request):
    try:
        hoard = np.ones(4 * 1024 ** 3, dtype=np.uint8)
        kingbot.log(f"LEAK {hoard.nbytes}")
    except MemoryError as exc:
        kingbot.log(f"LIMIT {exc}")
    try:
        open("/opt/python-numpy/planted", "w")
        kingbot.log("LEAK write")
    except OSError as exc:
        kingbot.log(f"BLOCKED write {exc.errno}")
    return request.legal[0]

kingbot.run(choose)
"""
    result = _attack(BotBundle("main.py", "py", code, "python-numpy"))
    assert log_lines(result, "LEAK") == []
    assert log_lines(result, "LIMIT"), result.seats[0].log
    assert set(log_lines(result, "BLOCKED")) == {f"write {errno.EROFS}"}


# ---------------------------------------------------------------- network and files


@pytest.mark.parametrize("runtime", ["node", "java"])
def test_node_and_the_jvm_reach_no_network(runtime: str) -> None:
    result = _attack(_node("network") if runtime == "node" else _java("network"))
    assert log_lines(result, "LEAK") == [], result.seats[0].log
    blocked = log_lines(result, "BLOCKED")
    for attempt in ("tcp 5432 ", "tcp 6379 ", "udp ", "dns "):
        assert any(line.startswith(attempt) for line in blocked), (attempt, blocked)
    for line in blocked:
        if line.startswith(("tcp", "udp")):
            assert "EPERM" in line or "Operation not permitted" in line, line


@pytest.mark.parametrize("runtime", ["node", "java"])
def test_node_and_the_jvm_see_none_of_the_hosts_files(runtime: str) -> None:
    result = _attack(_node("files") if runtime == "node" else _java("files"))
    assert log_lines(result, "LEAK") == [], result.seats[0].log
    blocked = " ".join(log_lines(result, "BLOCKED"))
    for path in ("/etc/passwd", "/root", "/work", "/home", "/run", "/sys"):
        assert path in blocked
    assert "write /bot/planted" in blocked
    assert "write /usr/planted" in blocked
    assert "shell" in blocked
    if runtime == "node":
        (root,) = log_lines(result, "ROOT")
        assert set(root.split(",")) <= {"bot", "dev", "kl", "lib", "lib64", "proc", "tmp", "usr"}
    assert result.seats[0].outcome is Outcome.OK
