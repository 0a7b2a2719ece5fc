"""How each runtime (bots.runtimes) starts inside the sandbox, and whether it is installed.

Every bot starts the same way: the launcher (bots.runner.launcher, on the system's python3)
lowers the limits, then runs a Python bot's ``main.py`` itself, or ``exec``s the runtime
of any other bot in the same process (``exec=`` arguments), so the limits hold for it and
for whatever it starts. What a runtime adds to the sandbox, all read-only:

- ``python-numpy``: the numpy folder made by ``scripts/runtimes-install``
  (``$KING_LEAGUE_PYTHON_NUMPY``, default /opt/king-league/python-numpy) at
  /opt/python-numpy, put on ``sys.path`` after the bot's own folder; OpenBLAS and OpenMP
  told to use one thread;
- ``native``: nothing (the bot's ``main`` runs with the C library and the shared
  libraries the Python interpreter already needs);
- ``node``: the ``node`` executable at /usr/bin/node (its shared libraries are those of
  the system's library folder, bound already), with V8's heap and worker threads capped;
- ``java``: the Java home (``java`` on the PATH, symbolic links resolved) at its own
  path, and the folders under /etc its configuration links point into
  (/etc/java-17-openjdk), with the heap, the code cache and the class space capped and
  the serial collector (one GC thread); its seccomp filter lets ``socketpair(AF_UNIX)``
  through, which java.nio needs to read any file (no other socket).

Nothing else of the host: no /etc beyond that, no network (bots.runner.sandbox).
"""

from __future__ import annotations

import functools
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from bots.runtimes import RUNTIMES, runtime_get

NUMPY_VARIABLE = "KING_LEAGUE_PYTHON_NUMPY"
NUMPY_DEFAULT_DIR = "/opt/king-league/python-numpy"
NUMPY_SANDBOX_DIR = "/opt/python-numpy"
NODE_SANDBOX_PATH = "/usr/bin/node"
JAVA_HEAP_MIB = 512
NODE_HEAP_MIB = 512
INSTALL_SCRIPT = "scripts/runtimes-install"
FORK_SERVER_RUNTIMES = ("python", "python-numpy")
"""The runtimes whose bots a spawner forks from an interpreter started once
(bots.runner.spawner). Not Node.js nor the JVM: neither survives a fork once started (their
threads are not copied), and their bots start as before (their start-up: docs/benchmarks.md,
"Bot runtimes"; no fork-based start of them was measured);
nor ``native``, whose program is the bot's own."""

INSTALL_HINTS = {
    "python": "apt-get install python3",
    "python-numpy": f"run {INSTALL_SCRIPT} python-numpy as root (pip installs numpy into"
    f" ${NUMPY_VARIABLE}, default {NUMPY_DEFAULT_DIR})",
    "native": "nothing to install",
    "node": f"apt-get install nodejs (or {INSTALL_SCRIPT} node)",
    "java": f"apt-get install default-jre-headless (or {INSTALL_SCRIPT} java)",
}


@dataclass(frozen=True)
class RuntimeLaunch:
    """What a runtime adds to the launcher's command and to the sandbox."""

    binds: tuple[tuple[str, str], ...] = ()
    """(host path, path in the sandbox), bound read-only."""
    env: tuple[tuple[str, str], ...] = ()
    launcher_arguments: tuple[str, ...] = ()
    """``path=DIR`` (added to a Python bot's sys.path) and ``exec=ARG`` (the command the
    launcher becomes, one argument each)."""
    unix_socketpair: bool = False
    """The seccomp filter lets ``socketpair(AF_UNIX)`` through (bots.runner.seccomp)."""


def numpy_dir() -> str:
    return os.environ.get(NUMPY_VARIABLE, "").strip() or NUMPY_DEFAULT_DIR


def node_executable() -> str | None:
    found = shutil.which("node") or shutil.which("nodejs")
    return os.path.realpath(found) if found else None


def java_home() -> str | None:
    """The Java home of ``java`` on the PATH (its real folder), None if there is none."""
    found = shutil.which("java")
    if found is None:
        return None
    home = Path(os.path.realpath(found)).parent.parent
    return str(home) if (home / "lib").is_dir() else None


@functools.cache
def java_config_dirs(home: str) -> tuple[str, ...]:
    """The folders under /etc that the Java home's symbolic links point into (Debian keeps
    the JVM's configuration, jvm.cfg among it, in /etc/java-NN-openjdk)."""
    found: list[str] = []
    for directory, _, names in os.walk(home):
        for name in names:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                continue
            target = os.path.realpath(path)
            parts = Path(target).parts
            if len(parts) > 3 and parts[1] == "etc":
                top = os.path.join("/", parts[1], parts[2])
                if top not in found and os.path.isdir(top):
                    found.append(top)
    return tuple(found)


def runtime_unavailable_reason(name: str) -> str | None:
    """None when bots of runtime ``name`` can run here; else what to install."""
    runtime_get(name)
    hint = INSTALL_HINTS[name]
    if name == "python-numpy":
        directory = numpy_dir()
        if not os.path.isfile(os.path.join(directory, "numpy", "__init__.py")):
            return f"numpy is not installed in {directory}: {hint}"
    elif name == "node":
        if node_executable() is None:
            return f"node is not installed: {hint}"
    elif name == "java" and java_home() is None:
        return f"java is not installed: {hint}"
    return None


def runtimes_status() -> list[tuple[str, str | None]]:
    """Each runtime and why it cannot run here (None: it can)."""
    return [(name, runtime_unavailable_reason(name)) for name in RUNTIMES]


def runtime_launch(name: str, *, bot_dir: str, sandboxed: bool) -> RuntimeLaunch:
    """What starts a bot of runtime ``name`` whose files are at ``bot_dir`` (/bot in the
    sandbox). Call ``runtime_unavailable_reason`` first: a missing runtime fails here."""
    if name == "python":
        return RuntimeLaunch()
    if name == "python-numpy":
        host = numpy_dir()
        inside = NUMPY_SANDBOX_DIR if sandboxed else host
        return RuntimeLaunch(
            binds=((host, NUMPY_SANDBOX_DIR),) if sandboxed else (),
            env=(("OPENBLAS_NUM_THREADS", "1"), ("OMP_NUM_THREADS", "1")),
            launcher_arguments=(f"path={inside}",),
        )
    if name == "native":
        return RuntimeLaunch(launcher_arguments=(f"exec={bot_dir}/main",))
    if name == "node":
        node = node_executable()
        assert node is not None, "runtime_unavailable_reason first"
        program = NODE_SANDBOX_PATH if sandboxed else node
        command: tuple[str, ...] = (
            program,
            f"--max-old-space-size={NODE_HEAP_MIB}",
            "--v8-pool-size=1",
            f"{bot_dir}/main.js",
        )
        return RuntimeLaunch(
            binds=((node, NODE_SANDBOX_PATH),) if sandboxed else (),
            env=(("UV_THREADPOOL_SIZE", "2"),),
            launcher_arguments=tuple(f"exec={part}" for part in command),
        )
    if name == "java":
        home = java_home()
        assert home is not None, "runtime_unavailable_reason first"
        binds = ((home, home), *((path, path) for path in java_config_dirs(home)))
        java_command = (
            f"{home}/bin/java",
            "-XX:+UseSerialGC",
            f"-Xmx{JAVA_HEAP_MIB}m",
            "-Xss1m",
            "-XX:ReservedCodeCacheSize=64m",
            "-XX:MaxMetaspaceSize=128m",
            "-XX:CompressedClassSpaceSize=64m",
            "-XX:-UsePerfData",
            "-XX:+DisplayVMOutputToStderr",  # the JVM's own messages off the protocol's stdout
            "-Xlog:disable",
            "-Xlog:all=warning:stderr",
            "-Xshare:auto",
            "-Djava.io.tmpdir=/tmp",
            "-jar",
            f"{bot_dir}/bot.jar",
        )
        return RuntimeLaunch(
            binds=binds if sandboxed else (),
            env=(("MALLOC_ARENA_MAX", "2"),),
            launcher_arguments=tuple(f"exec={part}" for part in java_command),
            unix_socketpair=True,  # java.nio's file channels make one at start
        )
    raise ValueError(f"unknown runtime {name!r}")  # pragma: no cover - runtime_get above
