"""Uploaded bots that attack: each is contained, recorded with the right outcome, and the
match finishes with the other seats' results intact. Everything runs in the real sandbox
(bubblewrap, a sandbox user, rlimits, seccomp); no network traffic leaves this machine's
loopback. Skipped without bubblewrap, failed under CI=true (tests/servers.py). Each test
runs twice: the bots started in their sandbox as before, then forked by a spawner in it
(``bot_starts``).
"""

from __future__ import annotations

import ast
import os
import socket
import uuid
from pathlib import Path

import pytest

from bots.bundle import BotBundle
from bots.match import BotSpec
from bots.protocol import TimeControl
from bots.runner import cgroups
from bots.runner.process import BotProcess
from bots.runner.sandbox import (
    SANDBOX_USER_PREFIX,
    BotFiles,
    Limits,
    launch_spec,
    running_as_root,
    sandbox_user_acquire,
    sandbox_user_lock,
    user_processes,
)
from bots.runner.spawner import spawner_pool
from bots.seats import Outcome
from tests.bots.botcode import assert_others_intact, log_lines, match_against_builtins

pytestmark = [pytest.mark.sandbox, pytest.mark.usefixtures("bot_starts")]

PROJECT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).with_name("hostile")


def _host_processes_with(marker: str) -> list[int]:
    pids = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as cmdline:
                if marker.encode() in cmdline.read():
                    pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def _no_sandbox_user_processes_left() -> None:
    """No process runs as a sandbox user that no runner holds. A runner gives a user back
    only once none of its processes is left, so a process of a free user escaped. A user
    some runner holds is passed over: its bot may be playing, for another process of the
    suite (tests/parallel_processes.py). The user's lock is held while its processes are
    looked at, so no runner takes it meanwhile."""
    if not running_as_root():
        return
    import pwd

    for entry in pwd.getpwall():
        if not entry.pw_name.startswith(SANDBOX_USER_PREFIX):
            continue
        fd = sandbox_user_lock(entry.pw_name)
        if fd is None:
            continue
        try:
            assert user_processes(entry.pw_uid) == [], entry.pw_name
        finally:
            os.close(fd)


# ---------------------------------------------------------------- network


def test_no_socket_of_any_family() -> None:
    body = """
import socket
for family, kind in [
    (socket.AF_INET, socket.SOCK_STREAM),
    (socket.AF_INET, socket.SOCK_DGRAM),
    (socket.AF_INET6, socket.SOCK_STREAM),
    (socket.AF_UNIX, socket.SOCK_STREAM),
    (socket.AF_NETLINK, socket.SOCK_RAW),
    (socket.AF_PACKET, socket.SOCK_RAW),
]:
    try:
        socket.socket(family, kind)
        report("LEAK", f"socket {family} {kind}")
    except OSError as exc:
        report("BLOCKED", f"socket {int(family)}: {exc.errno}")
try:
    socket.socketpair()
    report("LEAK", "socketpair")
except OSError as exc:
    report("BLOCKED", f"socketpair: {exc.errno}")
"""
    result = match_against_builtins(body)
    assert log_lines(result, "LEAK") == []
    blocked = log_lines(result, "BLOCKED")
    assert len(blocked) == 7
    assert all(line.endswith(": 1") for line in blocked)  # EPERM from the seccomp filter
    assert result.seats[0].outcome is Outcome.OK
    assert_others_intact(result)


@pytest.mark.parametrize("port", [6379, 5432])
def test_no_connection_to_local_servers(port: int) -> None:
    body = f"""
import socket
try:
    connection = socket.create_connection(("127.0.0.1", {port}), timeout=1)
    report("LEAK", "connected to {port}")
except OSError as exc:
    report("BLOCKED", f"{{type(exc).__name__}} {{exc.errno}}")
"""
    result = match_against_builtins(body)
    assert log_lines(result, "LEAK") == []
    assert log_lines(result, "BLOCKED") == ["PermissionError 1"]
    assert_others_intact(result)


def test_the_network_namespace_alone_blocks_local_servers() -> None:
    """Without the seccomp filter a socket can be made, and still reaches nothing: the
    sandbox's network namespace has only a loopback of its own."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    code = f"""
import os, socket, sys
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=1)
    print("LEAK connected")
except OSError as exc:
    print("BLOCKED", type(exc).__name__)
interfaces = [l.split(":")[0].strip() for l in open("/proc/net/dev").read().splitlines()[2:]]
print("INTERFACES", ",".join(interfaces))
print("NAMES", ",".join(name for _, name in socket.if_nameindex()))
"""
    output = _run_in_sandbox(code, seccomp=False)
    listener.close()
    assert "LEAK" not in output
    assert "BLOCKED ConnectionRefusedError" in output
    assert "INTERFACES lo\n" in output
    assert "NAMES lo\n" in output


def test_no_network_interface_but_loopback() -> None:
    body = """
names = [l.split(":")[0].strip() for l in open("/proc/net/dev").read().splitlines()[2:]]
report("INTERFACES", ",".join(names))
for path in ("/sys/class/net", "/proc/net/route", "/proc/net/if_inet6"):
    try:
        report("FOUND", path + " " + repr(open(path).read()[:200]) if not os.path.isdir(path)
               else path + " " + ",".join(os.listdir(path)))
    except OSError as exc:
        report("BLOCKED", path)
import socket
try:
    report("NAMES", ",".join(name for _, name in socket.if_nameindex()))
except OSError as exc:
    report("BLOCKED", f"if_nameindex {exc.errno}")
"""
    result = match_against_builtins(body)
    assert log_lines(result, "INTERFACES") == ["lo"]
    assert "if_nameindex 1" in log_lines(result, "BLOCKED")
    for found in log_lines(result, "FOUND"):
        # a routing table of the sandbox's own namespace: empty, and nothing but lo
        assert "eth" not in found
        assert "ens" not in found
    assert_others_intact(result)


# ---------------------------------------------------------------- files


def test_no_project_files_secrets_database_or_passwd() -> None:
    targets = [
        PROJECT / "league" / "settings.py",
        PROJECT / "var" / "secret_key",
        PROJECT / "var" / "db.sqlite3",
        PROJECT / "pyproject.toml",
        PROJECT / "bots" / "runner" / "sandbox.py",
        Path("/etc/passwd"),
        Path("/etc/shadow"),
        Path("/root/.bash_history"),
    ]
    body = f"""
for path in {[str(t) for t in targets]!r}:
    try:
        with open(path, "rb") as f:
            f.read(1)
        report("LEAK", path)
    except OSError as exc:
        report("BLOCKED", f"{{path}} {{type(exc).__name__}}")
report("ROOT", ",".join(sorted(os.listdir("/"))))
report("ENV", ",".join(sorted(os.environ)))
report("UID", str(os.getuid()))
report("PIDS", ",".join(sorted(p for p in os.listdir("/proc") if p.isdigit())))
report("INIT_ENV", repr(open("/proc/1/environ").read()))
if os.path.isdir("/spawn"):
    try:
        report("SPAWN", ",".join(os.listdir("/spawn")))
    except OSError as exc:
        report("SPAWN", type(exc).__name__)
"""
    result = match_against_builtins(body)
    assert log_lines(result, "LEAK") == []
    assert len(log_lines(result, "BLOCKED")) == len(targets)
    (uid,) = log_lines(result, "UID")
    assert uid != "0"
    assert log_lines(result, "ENV") == ["HOME,LC_ALL,PATH,PWD"]
    if spawner_pool() is None:
        assert log_lines(result, "ROOT") == ["bot,dev,kl,lib,lib64,proc,tmp,usr"]
        # its own PID namespace: bubblewrap's init, the bot (and nothing of the host)
        assert log_lines(result, "PIDS") == ["1,2"]
    else:
        # forked by a spawner (bots.runner.spawner): its FIFOs' folder, which it cannot
        # list, and the fork server (PID 2) beside bubblewrap's init and the bot
        assert log_lines(result, "ROOT") == ["bot,dev,kl,lib,lib64,proc,spawn,tmp,usr"]
        assert log_lines(result, "SPAWN") == ["PermissionError"]
        (pids,) = log_lines(result, "PIDS")
        assert {"1", "2"} < set(pids.split(","))
        assert len(pids.split(",")) == 3
    # /proc/1 is bubblewrap's init inside the sandbox, started with nothing but PATH
    assert log_lines(result, "INIT_ENV") == ["'PATH=/usr/bin:/bin\\x00'"]
    assert_others_intact(result)


def test_bubblewraps_init_shows_no_host_path() -> None:
    """/proc/1 in the sandbox is bubblewrap's init: its command line (read by any bot)
    carries no host path, no bind and no other option of bubblewrap's, which reach it
    through a pipe (``bwrap --args FD``); only the bot's own command, in sandbox paths."""
    body = """
for path in ("/proc/1/cmdline", "/proc/1/task/1/cmdline"):
    with open(path, "rb") as f:
        report("CMDLINE", repr(f.read().split(b"\\0")))
"""
    result = match_against_builtins(body)
    lines = log_lines(result, "CMDLINE")
    assert len(lines) == 2, result.seats[0].log
    for line in lines:
        arguments = [argument.decode() for argument in ast.literal_eval(line)]
        assert arguments[1:3] == ["--args", arguments[2]], arguments  # bwrap, its pipe
        command = arguments[3:]
        assert command[:6] == ["/usr/bin/python3", "-E", "-s", "-S", "-B", "/kl/launcher.py"]
        for argument in command[6:]:  # a spawner's server has its FIFOs' folder too
            assert "/" not in argument or argument in ("/bot", "/kl", "serve=/spawn"), argument
        text = " ".join(arguments)
        for host in ("--ro-bind", "/dev/shm", "king-league", str(PROJECT), "/tmp", "/usr/lib"):
            assert host not in text, (host, arguments)
    assert_others_intact(result)


def test_no_other_bots_files(tmp_path: Path) -> None:
    secret = f"VICTIM-{uuid.uuid4()}"
    victim_code = f"# {secret}\nimport json, sys\n" + (
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello': print(json.dumps({'type': 'ready'}), flush=True)\n"
        "    elif m['type'] == 'request': print(json.dumps({'action': m['legal'][0]}), "
        "flush=True)\n"
        "    elif m['type'] == 'end': break\n"
    )
    victim_path = tmp_path / "victim.py"
    victim_path.write_text(victim_code)
    body = f"""
import glob
paths = [{str(victim_path)!r}] + glob.glob("/tmp/king-league-bot-*/bot/main.py")
paths += glob.glob("/dev/shm/king-league-bot-*/bot/main.py")
paths += glob.glob("/tmp/*/bot/main.py")
# the other processes of the sandbox (a spawner's fork server is PID 2: the same version)
paths += [f"/proc/{{pid}}/root/bot/main.py" for pid in (2, 3) if pid != os.getpid()]
paths += ["/proc/4/cwd/main.py"]
for path in paths:
    try:
        text = open(path).read()
        report("LEAK" if {secret!r} in text else "OTHER", path)
    except OSError:
        report("BLOCKED", path)
own = open("/bot/main.py").read()
report("OWN", "ok" if "def play" in own else "missing")
"""
    victim = BotSpec.uploaded(BotBundle("victim.py", "py", victim_code.encode()))
    result = match_against_builtins(body, extra=[victim])
    assert log_lines(result, "LEAK") == []
    assert log_lines(result, "OTHER") == []
    assert log_lines(result, "OWN") == ["ok"]
    assert result.seats[1].outcome is Outcome.OK
    assert_others_intact(result)


def test_no_writes_outside_tmp_and_tmp_is_capped() -> None:
    body = """
for path in ("/evil", "/bot/evil", "/kl/kingbot.py", "/usr/evil", "/dev/evil",
             "/dev/shm/evil", "/lib/evil", "/proc/evil"):
    try:
        with open(path, "w") as f:
            f.write("x")
        report("LEAK", path)
    except OSError as exc:
        report("BLOCKED", path)
with open("/tmp/scratch", "w") as f:
    f.write("fine")
report("TMP", open("/tmp/scratch").read())
try:
    with open("/tmp/big", "wb") as f:
        for _ in range(64):
            f.write(b"x" * (1024 * 1024))
    report("LEAK", "64 MiB in /tmp")
except OSError as exc:
    report("CAPPED", type(exc).__name__)
"""
    result = match_against_builtins(body)
    assert log_lines(result, "LEAK") == []
    assert len(log_lines(result, "BLOCKED")) == 8
    assert log_lines(result, "TMP") == ["fine"]
    assert log_lines(result, "CAPPED") != []
    assert result.seats[0].outcome is Outcome.OK
    assert_others_intact(result)


# ---------------------------------------------------------------- syscalls


def test_no_ptrace_mount_unshare_keyctl_bpf() -> None:
    body = """
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
calls = {
    "ptrace": lambda: libc.ptrace(0, 0, None, None),                 # PTRACE_TRACEME
    "mount": lambda: libc.mount(b"none", b"/tmp", b"tmpfs", 0, None),
    "unshare-user": lambda: libc.unshare(0x10000000),
    "unshare-net": lambda: libc.unshare(0x40000000),
    "keyctl": lambda: libc.syscall(250, 0, 0, 0, 0, 0),
    "bpf": lambda: libc.syscall(321, 0, 0, 0),
    "io_uring_setup": lambda: libc.syscall(425, 1, None),
    "chroot": lambda: libc.chroot(b"/tmp"),
}
import platform
for name, call in calls.items():
    if platform.machine() != "x86_64" and name in ("keyctl", "bpf", "io_uring_setup"):
        continue
    ctypes.set_errno(0)
    result = call()
    if result == -1:
        report("BLOCKED", f"{name} {ctypes.get_errno()}")
    else:
        report("LEAK", f"{name} returned {result}")
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
report("FORK", "ok")
import threading
thread = threading.Thread(target=lambda: None)
thread.start()
thread.join()
report("THREAD", "ok")
"""
    result = match_against_builtins(body)
    assert log_lines(result, "LEAK") == []
    blocked = dict(line.split() for line in log_lines(result, "BLOCKED"))
    assert blocked["ptrace"] == "1"
    assert blocked["mount"] == "1"
    assert blocked["unshare-user"] == "1"
    assert blocked["chroot"] == "1"
    # what a bot legitimately does still works
    assert log_lines(result, "FORK") == ["ok"]
    assert log_lines(result, "THREAD") == ["ok"]
    assert_others_intact(result)


def test_no_system_v_ipc() -> None:
    """Shared memory, semaphores and message queues of System V all fail with EPERM (a
    detached shared memory segment keeps its pages outside every address space;
    tests/bots/test_sandbox_memory.py plays a bot that tries to hoard with it)."""
    body = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
calls = {
    "shmget": lambda: libc.shmget(0, 4096, 0o1600),
    "semget": lambda: libc.semget(0, 1, 0o1600),
    "msgget": lambda: libc.msgget(0, 0o1600),
    "shmctl": lambda: libc.shmctl(0, 2, None),   # IPC_STAT
    "semctl": lambda: libc.semctl(0, 0, 2),      # IPC_STAT
    "msgctl": lambda: libc.msgctl(0, 2, None),   # IPC_STAT
}
for name, call in calls.items():
    ctypes.set_errno(0)
    result = call()
    if result == -1:
        report("BLOCKED", f"{name} {ctypes.get_errno()}")
    else:
        report("LEAK", f"{name} returned {result}")
"""
    result = match_against_builtins(body)
    assert log_lines(result, "LEAK") == []
    blocked = dict(line.split() for line in log_lines(result, "BLOCKED"))
    assert blocked == dict.fromkeys(
        ["shmget", "semget", "msgget", "shmctl", "semctl", "msgctl"], "1"
    )
    assert result.seats[0].outcome is Outcome.OK
    assert_others_intact(result)


# ---------------------------------------------------------------- resources


def test_fork_bomb_is_contained() -> None:
    body = """
import time
def bomb():
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.01)
children = 0
for _ in range(200):
    try:
        pid = os.fork()
    except OSError as exc:
        report("LIMIT", f"after {children} children: {exc.errno}")
        break
    if pid == 0:
        bomb()
    children += 1
"""
    result = match_against_builtins(body)
    limit = log_lines(result, "LIMIT")
    assert limit, result.seats[0].log
    assert int(limit[0].split()[1]) < Limits().processes
    assert_others_intact(result)
    _no_sandbox_user_processes_left()


def test_allocating_4_gb_fails_and_the_crash_is_recorded() -> None:
    body = """
def hook(number, request):
    if number == 2:
        hoard = bytearray(4 * 1024 ** 3)
        report("LEAK", str(len(hoard)))
    return None
"""
    result = match_against_builtins(body)
    report = result.seats[0]
    assert log_lines(result, "LEAK") == []
    assert report.outcome is Outcome.CRASH
    assert "MemoryError" in report.log
    assert report.replaced_at == 2
    assert_others_intact(result)


def test_spinning_forever_times_out_and_is_handed_over() -> None:
    body = """
def hook(number, request):
    while True:
        pass
"""
    result = match_against_builtins(body)
    report = result.seats[0]
    assert report.outcome is Outcome.TIMEOUT
    assert report.strikes == 3
    assert report.replaced_at == 4
    assert_others_intact(result)
    _no_sandbox_user_processes_left()


def test_printing_100_mb_is_a_protocol_error() -> None:
    body = """
def hook(number, request):
    chunk = "x" * (1024 * 1024)
    for _ in range(100):
        sys.stdout.write(chunk)
    sys.stdout.flush()
"""
    result = match_against_builtins(body)
    report = result.seats[0]
    assert report.outcome is Outcome.PROTOCOL_ERROR
    assert report.replaced_at == 1
    assert "longer than" in report.faults[0].message
    assert_others_intact(result)


def test_printing_100_mb_to_stderr_is_kept_capped() -> None:
    body = """
def hook(number, request):
    if number == 1:
        chunk = "e" * (1024 * 1024)
        for _ in range(100):
            sys.stderr.write(chunk)
        sys.stderr.write("\\nDONE\\n")
        sys.stderr.flush()
    return None
"""
    result = match_against_builtins(body)
    report = result.seats[0]
    assert report.outcome in (Outcome.OK, Outcome.TIMEOUT)
    assert len(report.log) < 70_000
    assert "bytes dropped" in report.log
    assert_others_intact(result)


def test_sleeping_past_the_deadline_is_a_timeout() -> None:
    body = """
import time
def hook(number, request):
    if number == 1:
        time.sleep(0.75)   # 500 ms per move, no bank: 250 ms too late
    return None
"""
    control = TimeControl(move_ms=500, bank_ms=0, startup_ms=5000)
    result = match_against_builtins(body, time_control=control)
    report = result.seats[0]
    assert report.outcome is Outcome.TIMEOUT
    assert report.strikes == 1
    assert report.replaced_at is None
    assert_others_intact(result)


def test_malformed_json_is_a_protocol_error() -> None:
    body = """
def hook(number, request):
    if number <= 2:
        return '{"action": "play'
    return None
"""
    result = match_against_builtins(body)
    report = result.seats[0]
    assert report.outcome is Outcome.PROTOCOL_ERROR
    assert report.strikes == 2
    assert [f.fallback is not None for f in report.faults] == [True, True]
    assert_others_intact(result)


def test_no_child_process_survives_the_match() -> None:
    marker = f"king-league-leftover-{uuid.uuid4()}"
    body = f"""
pid = os.fork()
if pid == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/usr/bin/python3", ["python3", "-c", "import time; time.sleep(600)",
                                      {marker!r}])
    os._exit(0)
os.waitpid(pid, 0)
report("SPAWNED", "ok")
"""
    result = match_against_builtins(body)
    assert log_lines(result, "SPAWNED") == ["ok"]
    assert result.seats[0].outcome is Outcome.OK
    assert _host_processes_with(marker) == []
    assert_others_intact(result)
    _no_sandbox_user_processes_left()


def test_a_killed_runner_takes_its_bots_along(tmp_path: Path) -> None:
    """bubblewrap's --die-with-parent: the whole sandbox dies with the process that
    started it, even when that process is killed and cleans nothing up."""
    import subprocess
    import sys
    import time

    marker = f"king-league-orphan-{uuid.uuid4()}"
    script = tmp_path / "runner.py"
    script.write_text(
        f"""
import sys, time
sys.path.insert(0, {str(PROJECT)!r})
from bots.runner.process import BotProcess
from bots.runner.sandbox import BotFiles, Limits, launch_spec, sandbox_user_acquire
code = b"import os, time\\nif os.fork() == 0:\\n    os.execv('/usr/bin/python3', "
code += b"['python3', '-c', 'import time; time.sleep(600)', {marker!r}])\\ntime.sleep(600)\\n"
files = BotFiles.for_code(code)
user = sandbox_user_acquire()
spec = launch_spec(files, sandboxed=True, user=user, limits=Limits())
BotProcess(spec).start()
print("started", flush=True)
time.sleep(600)
"""
    )
    runner = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert runner.stdout is not None
        assert runner.stdout.readline() == "started\n"
        deadline = time.monotonic() + 10
        while not _host_processes_with(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _host_processes_with(marker), "the bot's child never started"
    finally:
        runner.kill()
        runner.wait()
    deadline = time.monotonic() + 5
    while _host_processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _host_processes_with(marker) == []
    # its seat's control group (where there is one) is empty, and the next runner's sweep
    # removes it
    host = cgroups.cgroup_host()
    if host is not None:
        (group,) = [p for p in host.memory_base.iterdir() if f"-{runner.pid}-" in p.name]
        procs = group / "cgroup.procs"
        deadline = time.monotonic() + 5  # the sandbox's other processes may still be exiting
        while procs.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert procs.read_text() == ""
        cgroups.seat_groups_sweep(host)
        assert not group.exists()


_TWENTY_MATCHES = """
import ctypes, json, os, sys
sys.path.insert(0, {project!r})
# a child subreaper: every orphan of the sandboxes comes here, as to a container's PID 1
# that is not an init (a worker run as the container's command), which never reaps it
assert ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
from bots.bundle import bot_bundle_from_path
from bots.match import BotSpec, match_play
from bots.protocol import TimeControl

lingerer = BotSpec.uploaded(bot_bundle_from_path({lingerer!r}))
player = BotSpec.uploaded(bot_bundle_from_path({player!r}))
control = TimeControl(move_ms=300, bank_ms=1000, startup_ms=5000)
outcomes = []
for seed in range(20):
    specs = [lingerer, player, BotSpec.builtin("greedy"), BotSpec.builtin("random")]
    result = match_play("kingen", specs, seed=seed, time_control=control)
    outcomes.append([seat.outcome.value for seat in result.seats])
# the spawners (KING_LEAGUE_SPAWNERS, bots.runner.spawner) wait for the next match: stopped
from bots.runner.spawner import spawner_pool_close
spawner_pool_close()

def descendants(pid):
    found = []
    for task in os.listdir(f"/proc/{{pid}}/task"):
        for child in open(f"/proc/{{pid}}/task/{{task}}/children").read().split():
            stat = open(f"/proc/{{child}}/stat").read()
            found.append(stat[: stat.index(")") + 3])
            found += descendants(int(child))
    return found

print(json.dumps({{"outcomes": outcomes, "left": descendants(os.getpid())}}))
"""


@pytest.mark.slow
def test_twenty_matches_leave_no_process_and_no_zombie(tmp_path: Path) -> None:
    """Twenty sandboxed matches in one runner process, each with a bot that ignores ``end``
    and leaves a grandchild in a session of its own, so that the runner kills its sandbox.
    The runner is a child subreaper, like a worker that is its container's PID 1: what the
    sandboxes leave behind (bubblewrap's PID 1 if bubblewrap did not reap it, any escaped
    process) would be adopted by it. Afterwards nothing is left: no live process, no zombie."""
    import json
    import subprocess
    import sys

    script = tmp_path / "twenty_matches.py"
    script.write_text(
        _TWENTY_MATCHES.format(
            project=str(PROJECT),
            lingerer=str(HOSTILE / "lingerer.py"),
            player=str(PROJECT / "bots" / "examples" / "random_bot.py"),
        )
    )
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=600, check=False
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.splitlines()[-1])
    assert len(report["outcomes"]) == 20
    assert all(outcomes == ["ok"] * 4 for outcomes in report["outcomes"]), report["outcomes"]
    assert report["left"] == []
    _no_sandbox_user_processes_left()


# ---------------------------------------------------------------- helpers


def _run_in_sandbox(code: str, *, seccomp: bool = True) -> str:
    """Run ``code`` as a bot's main.py in the sandbox and return its stdout."""
    import time

    files = BotFiles.for_code(code.encode())
    user = sandbox_user_acquire()
    try:
        spec = launch_spec(files, sandboxed=True, user=user, limits=Limits(), seccomp=seccomp)
        process = BotProcess(spec)
        process.start()
        for fd in spec.pass_fds:
            os.close(fd)
        lines = []
        deadline = time.perf_counter() + 20
        try:
            while True:
                lines.append(process.receive(deadline).decode())
        except Exception:  # the end of its output
            pass
        process.stop()
        return "\n".join(lines) + "\n" + process.stderr.text()
    finally:
        if user is not None:
            user.release()
        files.cleanup()
