"""The sandbox an uploaded bot runs in: bubblewrap, a user of its own, rlimits, seccomp.

Why this module is long: the layers (bubblewrap, a user of its own, rlimits, seccomp, the
cgroup, the clean-up) each stop what the others miss; kept together, their order and
interplay can be read and audited in one place.

Layers, outermost first (docs/bot-protocol.md, "The sandbox", says what each stops):

1. **A dedicated unprivileged user.** When the runner is root, each running bot gets a
   system user of its own from a pool (``klbot0``, ``klbot1``, ...; created on first use
   with ``useradd --system``, idempotently, and held with a lock file while the bot
   runs), so UNIX permissions protect the host and ``RLIMIT_NPROC`` counts only that
   bot's processes. ``setpriv`` switches to it (no groups, no capabilities,
   no_new_privs) and runs ``bwrap`` as that user. Not root: the bot runs as the runner's user.
2. **bubblewrap namespaces.** ``bwrap --unshare-all --unshare-user --disable-userns``:
   its own user, mount, PID, network (only a loopback of its own: nothing to reach),
   IPC, UTS and cgroup namespaces, no new user namespaces inside, ``--new-session``,
   ``--die-with-parent``, ``--cap-drop ALL``, a cleared environment. Its options reach it
   through a pipe (``--args FD``): bubblewrap's init is PID 1 in the sandbox, and its
   command line (``/proc/1/cmdline``) then shows no host path. The file system
   holds only what the interpreter needs, read-only (the interpreter, its standard
   library, the shared libraries), ``/proc`` and a minimal ``/dev`` of its own, the bot's
   files read-only at /bot, the league's launcher, helper module and rules engine
   read-only at /kl, what the bot's runtime adds (bots.runner.runtimes), and
   a private, size-capped ``/tmp``; the root and ``/dev`` are remounted read-only. No
   /etc, no project tree, no settings, secret key or database, no other bot's files.
3. **A control group per seat** (bots.runner.cgroups), as root where the host has a
   memory controller (cgroup v2, else v1): one memory limit for everything the seat
   holds (all its processes, memfd, its /tmp) and a process limit, enforced by the
   kernel, whose OOM kill stays inside the seat. Its processes enter the group before
   the bot's first line runs.
4. **rlimits**, set by the launcher before the bot's first line runs (bots.runner.launcher):
   address space, CPU seconds, processes, open files, file size, no core dumps, no
   POSIX message queues, and an ``oom_score_adj`` that makes the bot the first victim.
5. **seccomp**: the filter of bots.runner.seccomp, loaded by bwrap (``--seccomp FD``):
   no sockets at all, no ptrace, mounts, namespaces, keyrings, BPF, io_uring, System V
   IPC, ...; ``memfd_create`` only where the seat's control group counts it.
6. **Ending**: the runner kills what runs inside bwrap first (its PID 1 there, whose
   death takes the whole PID namespace along), so that bwrap reaps it and exits, and
   reaps bwrap (bots.runner.process). As root it then makes sure no process of the
   seat's user is left, reaps the bwrap PID 1s it was handed as an orphans' reaper
   (``user_processes``), and removes the seat's control group before the user goes
   back to the pool.
"""

from __future__ import annotations

import atexit
import compileall
import contextlib
import fcntl
import functools
import json
import logging
import os
import pwd
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil

from bots.bundle import BotBundle, bot_bundle_extract
from bots.runner.cgroups import CgroupError, SeatCgroup, cgroup_host
from bots.runner.process import LaunchSpec
from bots.runner.runtimes import runtime_launch
from bots.runner.seccomp import SeccompUnsupportedError, filter_program
from bots.runtimes import DEFAULT_RUNTIME, runtime_get

logger = logging.getLogger(__name__)

BOT_PYTHON = "/usr/bin/python3"
"""The interpreter bots run on: the system's (Debian's python3), stdlib only."""
SANDBOX_USER_PREFIX = "klbot"
SANDBOX_USER_POOL = 32
"""At most this many sandboxed bots run at once on a machine (one user each)."""
SANDBOX_LOCK_DIR = Path("/run/king-league-sandbox")
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) "
    "and the system Python (apt-get install python3)"
)
LIB_FILES = {
    "launcher.py": Path(__file__).with_name("launcher.py"),
    "fork_server.py": Path(__file__).with_name("fork_server.py"),
    "kingbot.py": Path(__file__).parent.parent / "sdk" / "kingbot.py",
}
"""What the sandbox sees at /kl: the launcher, the fork server (bots.runner.spawner) and the
helper module for bot authors."""
ENGINE_DIR = Path(__file__).resolve().parents[2] / "engine"
"""The rules engine (pure Python, the standard library only), copied to /kl/engine so that
a Python bot may ``import engine``: the version the league runs (engine/__init__.py)."""
FORK_SERVER_PIPES = "/spawn"
"""Where a fork server sees the folder of its children's FIFOs (bots.runner.spawner)."""


class SandboxUnavailableError(RuntimeError):
    """Uploaded bots cannot run here: the message says what to install."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one bot's processes (each process; ``processes`` per user;
    ``memory`` for the whole seat)."""

    memory: int = 1024 * 1024 * 1024
    """Memory of the whole seat: all its processes, memfd, its /tmp, the kernel's memory
    for them (its control group's limit, where the host has one)."""
    address_space: int = 1024 * 1024 * 1024
    cpu_seconds: int = 600
    processes: int = 12
    """Processes and threads of the seat's user, bubblewrap's two included."""
    open_files: int = 64
    file_size: int = 16 * 1024 * 1024
    tmp_size: int = 16 * 1024 * 1024
    """Size of the private /tmp (a tmpfs)."""
    nice: int = 10
    """Scheduling priority: a bot that spins yields to the runner and the other seats."""
    oom_score_adj: int = 1000
    """When memory runs out, the kernel kills a bot's process before anything else."""

    @classmethod
    def for_runtime(cls, name: str) -> Limits:
        """The limits of a seat whose bot runs on ``name`` (bots.runtimes' profiles)."""
        profile = runtime_get(name).profile
        return cls(
            memory=profile.memory,
            address_space=profile.address_space,
            processes=profile.processes,
            open_files=profile.open_files,
        )

    def launcher_arguments(self, *, sandboxed: bool) -> list[str]:
        arguments = [
            f"as={self.address_space}",
            f"cpu={self.cpu_seconds}",
            f"nofile={self.open_files}",
            f"fsize={self.file_size}",
            "core=0",
            "memlock=0",
            f"nice={self.nice}",
        ]
        if sandboxed:
            arguments += [
                f"nproc={self.processes}",
                "msgqueue=0",
                f"oom={self.oom_score_adj}",
            ]
        return arguments


# ---------------------------------------------------------------- availability


@dataclass(frozen=True)
class PythonLayout:
    """What of the host the sandboxed interpreter needs, all bound read-only."""

    executable: str
    """The interpreter's real file."""
    directories: tuple[str, ...]
    """Bound at the same path: the standard library and the shared libraries."""
    symlinks: tuple[tuple[str, str], ...]
    """(target, link) pairs: /lib -> usr/lib and the like, for the dynamic loader."""


_LAYOUT_PROBE = (
    "import json, sys, sysconfig; "
    "print(json.dumps({'stdlib': sysconfig.get_paths()['stdlib'], "
    "'platstdlib': sysconfig.get_paths()['platstdlib'], "
    "'multiarch': sysconfig.get_config_var('MULTIARCH') or '', "
    "'libdir': sysconfig.get_config_var('LIBDIR') or ''}))"
)


@functools.cache
def python_layout() -> PythonLayout:
    """Ask the bots' interpreter where its files are (once per process)."""
    if not os.path.exists(BOT_PYTHON):
        raise SandboxUnavailableError(f"{BOT_PYTHON} is missing: {INSTALL_HINT}")
    try:
        probe = subprocess.run(
            [BOT_PYTHON, "-E", "-s", "-S", "-c", _LAYOUT_PROBE],
            capture_output=True,
            timeout=30,
            check=True,
            env={"PATH": "/usr/bin:/bin"},
        )
        paths = json.loads(probe.stdout)
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        raise SandboxUnavailableError(f"{BOT_PYTHON} does not run: {exc}") from None
    directories: list[str] = []

    def add(path: str) -> None:
        real = os.path.realpath(path)
        if real and os.path.isdir(real) and real not in directories:
            directories.append(real)

    add(paths["stdlib"])
    add(paths["platstdlib"])
    if paths["multiarch"]:
        add(f"/usr/lib/{paths['multiarch']}")
    add(paths["libdir"])
    if os.path.isdir("/usr/lib64"):
        add("/usr/lib64")
    # the dynamic loader is looked up through /lib64 or /lib (symlinks to /usr on merged-/usr)
    symlinks = []
    for link in ("/lib", "/lib64"):
        if os.path.islink(link):
            symlinks.append((os.readlink(link), link))
        elif os.path.isdir(link):
            add(link)
    return PythonLayout(os.path.realpath(BOT_PYTHON), tuple(directories), tuple(symlinks))


@functools.cache
def seccomp_program(*, allow_memfd: bool = False, allow_unix_socketpair: bool = False) -> bytes:
    return filter_program(allow_memfd=allow_memfd, allow_unix_socketpair=allow_unix_socketpair)


def _bwrap() -> str | None:
    """bubblewrap's path: ``$KING_LEAGUE_BWRAP`` if set, else ``bwrap`` on the PATH."""
    configured = os.environ.get("KING_LEAGUE_BWRAP", "").strip()
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("bwrap") or (
        "/usr/bin/bwrap" if os.access("/usr/bin/bwrap", os.X_OK) else None
    )


@functools.cache
def sandbox_unavailable_reason() -> str | None:
    """None when uploaded bots can run in the sandbox here; else why not and what to do.

    Checks that bubblewrap and the system Python are installed, that a sandbox actually
    starts (user namespaces may be disabled), and that the seccomp filter exists for this
    architecture. Cached for the life of the process.
    """
    if _bwrap() is None:
        return f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"
    try:
        seccomp_program()
        python_layout()
        with BotFiles.for_code(b"import sys\nsys.stdout.write('ok')\n") as files:
            user = sandbox_user_acquire()
            try:
                spec = launch_spec(files, sandboxed=True, user=user, limits=Limits())
                try:
                    result = subprocess.run(
                        spec.argv,
                        capture_output=True,
                        timeout=30,
                        env=spec.env,
                        cwd=spec.cwd,
                        pass_fds=spec.pass_fds,
                        user=spec.uid,
                        group=spec.gid,
                        extra_groups=[] if spec.uid is not None else None,
                    )
                finally:
                    for fd in spec.pass_fds:
                        os.close(fd)
            finally:
                if user is not None:
                    user.release()
    except (SandboxUnavailableError, SeccompUnsupportedError) as exc:
        return str(exc)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"the sandbox does not start: {exc}"
    if result.returncode != 0 or result.stdout != b"ok":
        detail = result.stderr.decode(errors="replace").strip().splitlines()
        first = detail[0] if detail else f"exit status {result.returncode}"
        return (
            f"the sandbox does not start ({first}); user namespaces may be disabled "
            "(sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0)"
        )
    return None


def sandbox_require() -> None:
    """Raise SandboxUnavailableError (saying what to install) unless the sandbox works."""
    reason = sandbox_unavailable_reason()
    if reason is not None:
        raise SandboxUnavailableError(f"uploaded bots cannot run here: {reason}")


# ---------------------------------------------------------------- users


@dataclass
class SandboxUser:
    """A pool user, held (by a lock file) while one bot runs as it."""

    name: str
    uid: int
    gid: int
    lock_fd: int
    cgroup: SeatCgroup | None = None
    """The control group of the seat this user plays (made by ``launch_spec``)."""

    def release(self) -> None:
        """Kill whatever still runs as this user, remove its seat's control group, then
        give it back to the pool (at the end of ``sandbox_users_released_together`` when
        inside one)."""
        if self.lock_fd < 0:
            return
        deferred = getattr(_release_batch, "users", None)
        if deferred is not None:
            deferred.append(self)
            return
        self._release_now()

    def _release_now(self) -> None:
        try:
            user_processes_kill({self.uid})
            self.cgroup_remove()
        finally:
            self._unlock()

    def memory_fault(self) -> str | None:
        """The seat's "memory limit exceeded", if its control group saw an OOM kill (asked
        before ``release``, which removes the group)."""
        return self.cgroup.memory_fault() if self.cgroup is not None else None

    def cgroup_remove(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None

    def _unlock(self) -> None:
        if self.lock_fd >= 0:
            os.close(self.lock_fd)
            self.lock_fd = -1


_release_batch = threading.local()


@contextlib.contextmanager
def sandbox_users_released_together() -> Iterator[None]:
    """Release the users freed inside this block together, with one look at /proc
    (a match closes its four seats at once)."""
    if getattr(_release_batch, "users", None) is not None:
        yield
        return
    users: list[SandboxUser] = []
    _release_batch.users = users
    try:
        yield
    finally:
        _release_batch.users = None
        if users:
            deferral = _release_deferral
            if deferral is not None and deferral[0] == os.getpid():
                deferral[1](functools.partial(_users_release, users))
            else:
                _users_release(users)


def _users_release(users: list[SandboxUser]) -> None:
    """Kill what is left of ``users``' processes (one look at /proc), remove their seats'
    control groups, then give them back to the pool."""
    try:
        user_processes_kill({user.uid for user in users})
        for user in users:
            user.cgroup_remove()
    finally:
        for user in users:
            user._unlock()


_release_deferral: tuple[int, Callable[[Callable[[], None]], None]] | None = None


def sandbox_release_defer(submit: Callable[[Callable[[], None]], None] | None) -> None:
    """Hand the releases of ``sandbox_users_released_together`` to ``submit`` (a worker's
    background thread, bots.runner.warm) instead of doing them before returning; None:
    release at once again. The users stay locked until their release is done, so nothing
    changes but when the look at /proc and the control groups' removal happen. Applies to
    this process only (not to a child forked from it)."""
    global _release_deferral
    _release_deferral = None if submit is None else (os.getpid(), submit)


def running_as_root() -> bool:
    return os.geteuid() == 0


def sandbox_user_name(index: int) -> str:
    return f"{SANDBOX_USER_PREFIX}{index}"


def sandbox_user_ensure(name: str) -> pwd.struct_passwd:
    """The system user ``name``, created if missing (as root; idempotent, race-safe)."""
    for attempt in range(20):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
        useradd = shutil.which("useradd") or "/usr/sbin/useradd"
        result = subprocess.run(
            [
                useradd,
                "--system",
                "--no-create-home",
                "--home-dir",
                "/nonexistent",
                "--shell",
                "/usr/sbin/nologin",
                "--user-group",
                "--comment",
                "King League bot sandbox",
                name,
            ],
            capture_output=True,
            check=False,
        )
        # 9: the user exists (another process made it); 10: /etc/passwd is locked, retry
        if result.returncode not in (0, 9, 10):
            message = result.stderr.decode(errors="replace").strip()
            raise SandboxUnavailableError(f"cannot create the sandbox user {name}: {message}")
        if result.returncode == 10:
            time.sleep(0.05 * (attempt + 1))
    return pwd.getpwnam(name)


def sandbox_users_setup(count: int = 4) -> list[str]:
    """Create the first ``count`` pool users (``python -m bots sandbox --setup``)."""
    if not running_as_root():
        raise SandboxUnavailableError("creating the sandbox users needs root")
    return [sandbox_user_ensure(sandbox_user_name(i)).pw_name for i in range(count)]


def sandbox_lock_dir() -> Path:
    """Where the runner's lock files are (the pool users', the CPUs')."""
    try:
        SANDBOX_LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
        return SANDBOX_LOCK_DIR
    except OSError:
        fallback = Path(tempfile.gettempdir()) / f"king-league-sandbox-{os.geteuid()}"
        fallback.mkdir(mode=0o700, exist_ok=True)
        return fallback


def sandbox_user_lock(name: str) -> int | None:
    """The pool user ``name``'s lock, taken (its file descriptor: closing it gives the user
    back), or None while a runner, in any process, holds it."""
    lock = sandbox_lock_dir() / f"{name}.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def sandbox_user_acquire() -> SandboxUser | None:
    """A free pool user, created if need be, or None when not running as root."""
    if not running_as_root():
        return None
    for index in range(SANDBOX_USER_POOL):
        name = sandbox_user_name(index)
        fd = sandbox_user_lock(name)
        if fd is None:
            continue
        try:
            entry = sandbox_user_ensure(name)
        except BaseException:
            os.close(fd)
            raise
        # a runner that died took its bots along (--die-with-parent), and every release
        # waits until none of the user's processes is left: the user is free
        return SandboxUser(name, entry.pw_uid, entry.pw_gid, fd)
    raise SandboxUnavailableError(
        f"all {SANDBOX_USER_POOL} sandbox users are busy: too many bots run at once"
    )


def user_processes(uids: int | set[int], *, reap: bool = False) -> list[int]:
    """Pids of the live (not zombie) processes whose real or effective user is one of
    ``uids``; with ``reap``, the dead ones this process adopted are reaped on the way.

    psutil reads each process's users from /proc/PID/status: the owner of /proc/PID is
    not enough, as a process that makes itself non-dumpable shows as root's there. A look
    for a user with no process left (a release's usual case) took 3.6 ms among 106
    processes against 2.6 ms for the hand-written scan it replaced (``bench.numerics``).

    Adopted: bubblewrap's outer process exits as soon as its PID 1 inside reports the
    bot's exit, without reaping that PID 1, which the kernel then gives to the nearest
    child subreaper or to PID 1. Where that is this process (a worker that is its
    container's PID 1), nobody else would ever reap it."""
    wanted = {uids} if isinstance(uids, int) else uids
    me = os.getpid()
    pids = []
    # the users alone first (one file a process, as fast as reading /proc by hand); the
    # state and parent only of the few processes that match
    for process in psutil.process_iter(["uids"]):
        users = process.info["uids"]
        if users is None or (users.real not in wanted and users.effective not in wanted):
            continue
        try:
            with process.oneshot():
                dead = process.status() in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
                adopted = process.ppid() == me
        except (psutil.NoSuchProcess, psutil.AccessDenied):  # gone (or hidden) meanwhile
            continue
        if dead:
            # it holds nothing any more; reaped here if this process adopted it
            if reap and adopted:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(process.pid, os.WNOHANG)
            continue
        pids.append(process.pid)
    return pids


def user_processes_kill(uids: set[int], timeout: float = 2.0) -> None:
    """SIGKILL every process of ``uids`` and wait (up to ``timeout``) until none is left;
    reap those of them this process adopted (``user_processes``)."""
    uids = uids - {0, os.geteuid()}
    if not uids:
        return
    deadline = time.monotonic() + timeout
    while True:
        pids = user_processes(uids, reap=True)
        if not pids or time.monotonic() > deadline:
            return
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)


# ---------------------------------------------------------------- files and command


@functools.cache
def staging_dir(*, executable: bool = False) -> str | None:
    """Where bots' files are laid out: /dev/shm (memory: creating and removing them costs
    microseconds, not the milliseconds of a busy disk) when it is a writable sticky
    folder, else the default temporary folder. ``executable``: a native bot's files,
    which must not be on a ``noexec`` mount (Docker mounts /dev/shm so)."""
    shm = "/dev/shm"
    try:
        mode = os.stat(shm).st_mode
        noexec = bool(os.statvfs(shm).f_flag & os.ST_NOEXEC)
    except OSError:
        return None
    if executable and noexec:
        return None
    if stat.S_ISDIR(mode) and mode & stat.S_ISVTX and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return None


_lib_dir: Path | None = None


def shared_lib_dir() -> Path:
    """The launcher and kingbot.py, copied once per process into a folder every sandbox
    user can read (the project tree need not be readable by them); removed at exit."""
    global _lib_dir
    if _lib_dir is not None and all((_lib_dir / name).is_file() for name in LIB_FILES):
        return _lib_dir
    directory = Path(tempfile.mkdtemp(prefix="king-league-kl-", dir=staging_dir()))
    directory.chmod(0o755)
    for name, source in LIB_FILES.items():
        target = directory / name
        shutil.copyfile(source, target)
        target.chmod(0o644)
    _engine_copy(directory / "engine")
    atexit.register(shutil.rmtree, directory, True)
    _lib_dir = directory
    return directory


def _engine_copy(target: Path) -> None:
    """The engine's modules at ``target``, readable by every sandbox user, compiled once
    here (a bot's interpreter runs with -B and a read-only /kl: it could not cache them)."""
    shutil.copytree(
        ENGINE_DIR,
        target,
        ignore=shutil.ignore_patterns(
            "__pycache__", "*.toml", "*.md", "pettingzoo_env.py", "setup.py", "viewer", "build"
        ),
    )
    compileall.compile_dir(target, quiet=1, workers=1)
    for folder, _folders, files in os.walk(target):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)


class BotFiles:
    """A bot's files laid out for one run: ``ROOT/bot`` (its code), readable by the
    sandbox user and removed by ``cleanup``, and the shared ``lib_dir`` (the launcher and
    kingbot.py)."""

    def __init__(self, root: Path, runtime: str = DEFAULT_RUNTIME) -> None:
        self.root = root
        self.bot_dir = root / "bot"
        self.lib_dir = shared_lib_dir()
        self.runtime = runtime
        """What runs the bot (bots.runtimes)."""

    @classmethod
    def for_bundle(cls, bundle: BotBundle) -> BotFiles:
        staging = staging_dir(executable=bundle.runtime == "native")
        files = cls(Path(tempfile.mkdtemp(prefix="king-league-bot-", dir=staging)), bundle.runtime)
        try:
            files.root.chmod(0o711)
            files.bot_dir.mkdir(mode=0o755)
            files.bot_dir.chmod(0o755)
            bot_bundle_extract(bundle, files.bot_dir)
        except BaseException:
            files.cleanup()
            raise
        return files

    @classmethod
    def for_code(cls, code: bytes) -> BotFiles:
        return cls.for_bundle(BotBundle("main.py", "py", code))

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> BotFiles:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.cleanup()


def _seccomp_fd(*, allow_memfd: bool, allow_unix_socketpair: bool) -> int:
    program = seccomp_program(allow_memfd=allow_memfd, allow_unix_socketpair=allow_unix_socketpair)
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, program)  # far below a pipe's capacity
    finally:
        os.close(write_fd)
    return read_fd


def _options_fd(options: list[str]) -> int:
    """A pipe holding ``options`` for ``bwrap --args FD`` (each ended by a NUL)."""
    data = b"".join(option.encode() + b"\0" for option in options)
    read_fd, write_fd = os.pipe()
    try:
        if len(data) > 60 * 1024:  # a few KiB as a rule; never block on a full pipe
            fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, len(data))
        os.write(write_fd, data)
    finally:
        os.close(write_fd)
    return read_fd


def launch_spec(
    files: BotFiles,
    *,
    sandboxed: bool,
    user: SandboxUser | None,
    limits: Limits,
    seccomp: bool = True,
    fork_server_pipes: Path | None = None,
) -> LaunchSpec:
    """The command that starts a bot: in the sandbox, or (``sandboxed=False``, for an
    author's own trials) as a plain process with the same launcher and rlimits.

    In the sandbox the spec holds pipes among ``pass_fds`` (the seccomp filter and
    bubblewrap's options, ``--args``); the caller closes them once the process has
    started. ``seccomp=False`` leaves the filter out, for the tests that prove each layer
    on its own. With a ``user`` (as root) on a host with control groups, the seat gets
    one (``user.cgroup``, removed by ``user.release()``), entered before bubblewrap
    starts. ``fork_server_pipes``: the command runs the fork server of
    bots.runner.spawner instead of the bot, that folder of the worker's (where it makes
    each child's FIFOs) bound read-only at ``FORK_SERVER_PIPES``."""
    if not sandboxed:
        python = BOT_PYTHON if os.path.exists(BOT_PYTHON) else _host_python()
        runtime = runtime_launch(files.runtime, bot_dir=str(files.bot_dir), sandboxed=False)
        argv = [
            python,
            "-E",
            "-s",
            "-S",
            "-B",
            str(files.lib_dir / "launcher.py"),
            str(files.bot_dir),
            str(files.lib_dir),
            *limits.launcher_arguments(sandboxed=False),
            *runtime.launcher_arguments,
        ]
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": str(files.root)}
        env.update(runtime.env)
        return LaunchSpec(
            argv, env, cwd=str(files.bot_dir), description="no sandbox", stdio_fds=True
        )
    bwrap = _bwrap()
    if bwrap is None:
        raise SandboxUnavailableError(f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}")
    layout = python_layout()
    runtime = runtime_launch(files.runtime, bot_dir="/bot", sandboxed=True)
    cgroup = _seat_cgroup(user, limits)
    argv = [
        bwrap,
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin",
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "LC_ALL",
        "C.UTF-8",
        "--hostname",
        "bot",
        "--ro-bind",
        layout.executable,
        "/usr/bin/python3",
    ]
    for directory in layout.directories:
        argv += ["--ro-bind", directory, directory]
    for target, link in layout.symlinks:
        argv += ["--symlink", target, link]
    for source, inside in runtime.binds:
        argv += ["--ro-bind", source, inside]
    for name, value in runtime.env:
        argv += ["--setenv", name, value]
    argv += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(limits.tmp_size),
        "--tmpfs",
        "/tmp",
        "--ro-bind",
        str(files.lib_dir),
        "/kl",
        "--ro-bind",
        str(files.bot_dir),
        "/bot",
    ]
    if fork_server_pipes is not None:
        argv += ["--ro-bind", str(fork_server_pipes), FORK_SERVER_PIPES]
    argv += [
        "--remount-ro",
        "/dev",
        "--remount-ro",
        "/",
        "--chdir",
        "/bot",
    ]
    pass_fds: tuple[int, ...] = ()
    if seccomp:
        # memfd pages are counted only by a control group: without one, no memfd
        seccomp_fd = _seccomp_fd(
            allow_memfd=cgroup is not None, allow_unix_socketpair=runtime.unix_socketpair
        )
        pass_fds = (seccomp_fd,)
        argv += ["--seccomp", str(seccomp_fd)]
    # bubblewrap's options (the host's paths among them) through a pipe, not its command
    # line: its PID 1 in the sandbox is bubblewrap itself, whose /proc/1/cmdline the bot
    # can read; it then shows the bot's command alone
    options_fd = _options_fd(argv[1:])
    pass_fds += (options_fd,)
    argv = [argv[0], "--args", str(options_fd)]
    argv += [
        "/usr/bin/python3",
        "-E",
        "-s",
        "-S",
        "-B",
        "/kl/launcher.py",
        "/bot",
        "/kl",
        *limits.launcher_arguments(sandboxed=True),
        *runtime.launcher_arguments,
    ]
    if fork_server_pipes is not None:
        argv.append(f"serve={FORK_SERVER_PIPES}")
    if user is not None:
        # setpriv rather than Popen(user=...): Python must then fork() the whole runner
        # instead of vfork()ing it, which costs tens of ms in a large worker process
        argv = [
            _setpriv(),
            f"--reuid={user.uid}",
            f"--regid={user.gid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--no-new-privs",
            "--",
            *argv,
        ]
    if cgroup is not None:
        argv = cgroup.enter_command(argv)
    return LaunchSpec(
        argv,
        {"PATH": "/usr/bin:/bin"},
        cwd="/",
        pass_fds=pass_fds,
        description=f"sandbox as {user.name if user is not None else os.getuid()}",
        stdio_fds=True,  # bubblewrap keeps its own stdin/stdout open: see LaunchSpec
        explain_exit=cgroup.exit_explanation if cgroup is not None else None,
    )


def _seat_cgroup(user: SandboxUser | None, limits: Limits) -> SeatCgroup | None:
    """A new control group for the seat ``user`` plays (kept on the user and removed by
    its release), or None where this host has none (docs/bot-protocol.md says what then
    holds) or the runner is not root."""
    if user is None:
        return None
    user.cgroup_remove()
    host = cgroup_host()
    if host is None:
        return None
    try:
        user.cgroup = SeatCgroup.for_seat(
            host, user.name, memory=limits.memory, processes=limits.processes
        )
    except CgroupError as exc:
        logger.warning("%s plays without a control group: %s", user.name, exc)
        return None
    return user.cgroup


def _setpriv() -> str:
    path = shutil.which("setpriv") or "/usr/bin/setpriv"
    if not os.access(path, os.X_OK):
        raise SandboxUnavailableError("setpriv is missing: apt-get install util-linux")
    return path


def _host_python() -> str:
    import sys

    return sys.executable
