"""The starter kits (bots/examples/<runtime>/) and the hostile bots of every runtime, built
for the tests from source with the machine's compilers, once per test session.

A compiler or runtime that is missing skips the test that needs it, with the reason and
what to install, except under CI=true, where .ci/run installs them (scripts/runtimes-install)
and a missing one fails the test.
"""

from __future__ import annotations

import atexit
import functools
import io
import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest

from bots.bundle import BotBundle, bot_bundle_check
from bots.runner.runtimes import runtime_unavailable_reason
from tests.servers import running_under_ci

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "bots" / "examples"
HOSTILE = Path(__file__).with_name("hostile") / "runtimes"

TOOLS = {
    "gcc": "apt-get install gcc libc6-dev",
    "cargo": "rustup (https://rustup.rs) or apt-get install cargo",
    "javac": "apt-get install default-jdk-headless",
    "jar": "apt-get install default-jdk-headless",
    "make": "apt-get install make",
    "node": "apt-get install nodejs",
}


def missing(reason: str) -> None:
    """Skip the test with ``reason``, or fail it under CI=true (CI installs everything)."""
    if running_under_ci():
        pytest.fail(f"CI must provide this: {reason}")
    pytest.skip(reason)


def require_tool(name: str) -> str:
    path = shutil.which(name) or (
        str(Path.home() / ".cargo" / "bin" / name)
        if (Path.home() / ".cargo" / "bin" / name).exists()
        else None
    )
    if path is None:
        missing(f"{name} is not installed: {TOOLS[name]}")
    assert path is not None
    return path


def require_runtime(runtime: str) -> None:
    reason = runtime_unavailable_reason(runtime)
    if reason is not None:
        missing(reason)


@functools.cache
def _scratch() -> Path:
    directory = Path(tempfile.mkdtemp(prefix="king-league-kits-"))
    atexit.register(shutil.rmtree, directory, True)
    return directory


def _run(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    result = subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, timeout=300, env=env, check=False
    )
    assert result.returncode == 0, f"{' '.join(argv)}: {result.stdout}\n{result.stderr}"


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def bundle(name: str, files: dict[str, bytes], runtime: str | None = None) -> BotBundle:
    """A checked bundle (the upload's check) of ``files`` zipped as ``name``."""
    return bot_bundle_check(name, zipped(files), runtime)


# ---------------------------------------------------------------- builds


@functools.cache
def c_executable(source_dir: Path, *sources: str, static: bool = True) -> bytes:
    """An x86-64 executable from C ``sources`` in ``source_dir`` (gcc, -static unless
    ``static`` is False: then linked against the system's C library)."""
    gcc = require_tool("gcc")
    out = _scratch() / f"c-{abs(hash((source_dir, sources, static)))}"
    _run(
        [
            gcc,
            "-O2",
            "-std=gnu11",
            *(["-static"] if static else []),
            "-s",
            f"-I{EXAMPLES / 'native' / 'c'}",
            "-o",
            str(out),
            *(str(source_dir / source) for source in sources),
        ]
    )
    return out.read_bytes()


@functools.cache
def c_kit() -> bytes:
    """The C starter kit, built with its own Makefile into a folder that does not exist
    yet (the Makefile makes it); its ``main``."""
    require_tool("gcc")
    out = _scratch() / "c-kit" / "out"
    assert not out.parent.exists()
    _run(["make", "-s", "-C", str(EXAMPLES / "native" / "c"), f"OUT={out}", "zip"])
    assert (out / "bot.zip").is_file()
    return (out / "main").read_bytes()


@functools.cache
def rust_kit() -> bytes:
    """The Rust starter kit, built with its build.sh (cargo, offline); its ``main``."""
    cargo = require_tool("cargo")
    out = _scratch() / "rust-kit"
    env = {**os.environ, "PATH": f"{Path(cargo).parent}:{os.environ.get('PATH', '')}"}
    _run([str(EXAMPLES / "native" / "rust" / "build.sh"), str(out)], env=env)
    assert (out / "bot.zip").is_file()
    return (out / "main").read_bytes()


@functools.cache
def jar(source_dir: Path, *sources: Path) -> bytes:
    """A jar (Main-Class: Main) compiled from ``sources`` in ``source_dir``."""
    javac, jar_tool = require_tool("javac"), require_tool("jar")
    out = _scratch() / f"java-{abs(hash((source_dir, sources)))}"
    classes = out / "classes"
    classes.mkdir(parents=True)
    _run(
        [
            javac,
            "--release",
            "17",
            "-encoding",
            "UTF-8",
            "-d",
            str(classes),
            *(str(source) for source in sources),
        ]
    )
    _run(
        [
            jar_tool,
            "--create",
            "--file",
            str(out / "bot.jar"),
            "--main-class",
            "Main",
            "-C",
            str(classes),
            ".",
        ]
    )
    return (out / "bot.jar").read_bytes()


def java_kit() -> bytes:
    """The Java starter kit, built with its build.sh; its bot.jar."""
    require_tool("javac")
    return _java_kit_built()


@functools.cache
def _java_kit_built() -> bytes:
    out = _scratch() / "java-kit"
    _run([str(EXAMPLES / "java" / "build.sh"), str(out)])
    return (out / "bot.jar").read_bytes()


def node_kit() -> dict[str, bytes]:
    folder = EXAMPLES / "node"
    return {name: (folder / name).read_bytes() for name in ("main.js", "kingbot.js")}
