"""The runtimes an uploaded bot may use, and what each one asks of an upload.

A bot runs on one runtime, chosen at upload or recognised from its files
(``runtime_recognise``): the runtime names the file the bot starts from (its *entry*),
the check that file must pass at upload (``entry_problem``) and the sandbox profile it
runs with (memory, processes and threads, the start-up allowance: ``RuntimeProfile``).
How each runtime is started inside the sandbox is bots.runner.runtimes'.

| runtime | entry | what runs it |
|---|---|---|
| ``python`` | ``main.py`` | Debian's python3, the standard library only |
| ``python-numpy`` | ``main.py`` | the same python3 with numpy (pinned) from a folder of its own |
| ``native`` | ``main`` | a Linux x86-64 ELF executable, itself |
| ``node`` | ``main.js`` | Node.js (Debian's ``nodejs``) |
| ``java`` | ``bot.jar`` | the Java runtime (Debian's ``default-jre-headless``) |

This module is pure (the standard library alone): the upload check (bots.bundle), the
runner and the docs read the same table.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True)
class RuntimeProfile:
    """One runtime's sandbox limits (docs/bot-protocol.md, "Runtimes", states them)."""

    memory: int
    """Memory of the whole seat: its control group's limit where the host has one."""
    address_space: int
    """Each process's address space (RLIMIT_AS). A virtual machine reserves far more
    address space than it uses (the JVM's heap, code cache and class space; V8's cage),
    so theirs is larger; the seat's memory limit still bounds what is used."""
    processes: int
    """Processes and threads of the seat (bubblewrap's two included): the JVM and Node
    start threads of their own."""
    startup_extra_ms: int
    """Added to the time control's start-up allowance: a virtual machine's own start."""
    open_files: int = 64
    """Open files of each process: Node's worker threads and the JVM hold more."""

    @property
    def memory_without_cgroups(self) -> int:
        """The most a seat's processes may hold together where no control group bounds
        the seat: each process's address space times the processes (threads share one)."""
        return self.processes * self.address_space

    def memory_without_cgroups_text(self) -> str:
        """That bound as docs/bot-protocol.md states it: ``24 x 16 GiB``."""
        return f"{self.processes} x {self.address_space / (1024 * MIB):g} GiB"


@dataclass(frozen=True)
class Runtime:
    name: str
    entry: str
    """The file the bot starts from, at the top of its files."""
    single_suffix: str
    """The suffix of a bot uploaded as that one file (``""``: recognised by content)."""
    profile: RuntimeProfile
    summary: str
    check: Callable[[bytes], str | None]
    """What is wrong with the entry file's content (said after its name); None if nothing."""


def runtime_get(name: str) -> Runtime:
    """The runtime ``name``; ValueError naming the known ones."""
    runtime = RUNTIMES.get(name)
    if runtime is None:
        raise ValueError(f"unknown runtime {name!r} (known: {', '.join(RUNTIME_NAMES)})")
    return runtime


# ---------------------------------------------------------------- recognising


_IMPORTS_NUMPY = re.compile(rb"^[ \t]*(?:import[ \t]+numpy|from[ \t]+numpy[ \t.])", re.MULTILINE)


def python_uses_numpy(sources: list[bytes]) -> bool:
    """Whether any of these Python files imports numpy at the start of a line."""
    return any(_IMPORTS_NUMPY.search(source) for source in sources)


def is_elf(data: bytes) -> bool:
    return data[:4] == b"\x7fELF"


def runtime_recognise(files: dict[str, bytes]) -> str | None:
    """The runtime a bot's top-level files call for (name -> content; Python files
    anywhere), or None when no entry file is there; ValueError when several are."""
    found = []
    if "main.py" in files:
        python = [content for name, content in files.items() if name.endswith(".py")]
        found.append("python-numpy" if python_uses_numpy(python) else "python")
    if "main" in files:
        found.append("native")
    if "main.js" in files:
        found.append("node")
    if "bot.jar" in files:
        found.append("java")
    if len(found) > 1:
        entries = ", ".join(RUNTIMES[name].entry for name in found)
        raise ValueError(
            f"the bot has several entry files ({entries}): keep one, or choose the runtime"
            f" ({', '.join(RUNTIME_NAMES)})"
        )
    return found[0] if found else None


# ---------------------------------------------------------------- entry checks

ELF_CLASS_64 = 2
ELF_DATA_LITTLE = 1
ELF_MACHINE_X86_64 = 62
ELF_TYPE_EXECUTABLE = 2
ELF_TYPE_SHARED = 3
"""ET_DYN: a shared library, or a position-independent executable (a PIE: it then asks
for a loader, PT_INTERP, or is a static PIE, marked DF_1_PIE in its dynamic section)."""
PT_DYNAMIC = 2
PT_INTERP = 3
DT_NULL = 0
DT_FLAGS_1 = 0x6FFFFFFB
DF_1_PIE = 0x08000000
SANDBOX_LOADER = "/lib64/ld-linux-x86-64.so.2"
"""The one dynamic loader the sandbox has (a native bot linked against the C library)."""
ELF_MACHINES = {3: "i386 (32-bit x86)", 40: "ARM (32-bit)", 183: "AArch64 (arm64)", 243: "RISC-V"}
SHARED_LIBRARY_PROBLEM = (
    "is a shared library (gcc -shared), not an executable; build an executable"
    " (gcc -static, or Rust's crt-static)"
)


def _elf_flags_1(data: bytes, offset: int, size: int) -> int:
    """DT_FLAGS_1 of the dynamic section at ``offset`` (0 if it has none)."""
    end = min(offset + size, len(data))
    for entry in range(offset, end - 15, 16):
        tag, value = struct.unpack_from("<qQ", data, entry)
        if tag == DT_NULL:
            break
        if tag == DT_FLAGS_1:
            return int(value)
    return 0


def elf_problem(data: bytes) -> str | None:
    """What keeps ``data`` from running as a native bot here; None if nothing.

    Runnable: an executable (ET_EXEC), or a position-independent one (ET_DYN) that asks for
    the sandbox's loader or is a static PIE; a shared library is ET_DYN too, with neither."""
    if not is_elf(data):
        return "is not an ELF executable (build a Linux x86-64 executable)"
    if len(data) < 64:
        return "is a truncated ELF file"
    if data[4] != ELF_CLASS_64:
        return "is a 32-bit ELF file; build for x86-64 (64-bit)"
    if data[5] != ELF_DATA_LITTLE:
        return "is a big-endian ELF file; build for x86-64"
    e_type, e_machine = struct.unpack_from("<HH", data, 16)
    if e_machine != ELF_MACHINE_X86_64:
        machine = ELF_MACHINES.get(e_machine, f"machine {e_machine}")
        return f"is built for {machine}; the league runs Linux x86-64 executables"
    if e_type not in (ELF_TYPE_EXECUTABLE, ELF_TYPE_SHARED):
        return "is an ELF file that is not an executable (an object file?)"
    phoff = struct.unpack_from("<Q", data, 32)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    loader: str | None = None
    flags_1 = 0
    for index in range(phnum):
        start = phoff + index * phentsize
        if start + 56 > len(data):
            return "is a truncated ELF file (its program headers are cut off)"
        p_type = struct.unpack_from("<I", data, start)[0]
        if p_type not in (PT_INTERP, PT_DYNAMIC):
            continue
        offset, _, _, size = struct.unpack_from("<QQQQ", data, start + 8)
        if p_type == PT_DYNAMIC:
            flags_1 = _elf_flags_1(data, offset, size)
            continue
        loader = data[offset : offset + size].rstrip(b"\0").decode(errors="replace")
        if loader != SANDBOX_LOADER:
            return (
                f"asks for the dynamic loader {loader!r}, which the sandbox does not have;"
                " link it statically (gcc -static, or Rust's crt-static)"
            )
    if e_type == ELF_TYPE_SHARED and loader is None and not flags_1 & DF_1_PIE:
        return SHARED_LIBRARY_PROBLEM
    return None


_MAIN_CLASS = re.compile(r"^Main-Class:[ \t]*(\S+)[ \t]*$", re.MULTILINE | re.IGNORECASE)


def jar_problem(data: bytes) -> str | None:
    """What keeps ``data`` from running as a java bot (``java -jar``); None if nothing."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as jar:
            names = set(jar.namelist())
            if "META-INF/MANIFEST.MF" not in names:
                return "has no META-INF/MANIFEST.MF (build it with `jar --create --main-class`)"
            manifest = jar.read("META-INF/MANIFEST.MF").decode("utf-8", errors="replace")
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, RuntimeError) as exc:
        return f"is not a valid jar (a jar is a zip file): {exc}"
    # a manifest's long lines continue on the next line after a single space
    manifest = manifest.replace("\r\n", "\n").replace("\n ", "")
    found = _MAIN_CLASS.search(manifest)
    if found is None:
        return "has no Main-Class in its manifest (jar --create --main-class Main ...)"
    main_class = found.group(1)
    class_file = main_class.replace(".", "/") + ".class"
    if class_file not in names:
        return f"names Main-Class {main_class}, but {class_file} is not in the jar"
    return None


def text_problem(content: bytes) -> str | None:
    """A source file (main.py, main.js) must be UTF-8 text."""
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return "must be UTF-8 text"
    return None


def entry_problem(runtime: str, content: bytes) -> str | None:
    """What is wrong with the entry file of a ``runtime`` bot; None if nothing."""
    return runtime_get(runtime).check(content)


# ---------------------------------------------------------------- the table

_STANDARD = RuntimeProfile(
    memory=1024 * MIB, address_space=1024 * MIB, processes=12, startup_extra_ms=0
)

RUNTIMES: dict[str, Runtime] = {
    runtime.name: runtime
    for runtime in (
        Runtime(
            "python",
            "main.py",
            ".py",
            _STANDARD,
            "Python 3, the standard library only",
            text_problem,
        ),
        Runtime(
            "python-numpy",
            "main.py",
            ".py",
            RuntimeProfile(
                memory=1024 * MIB, address_space=1536 * MIB, processes=12, startup_extra_ms=1000
            ),
            "Python 3 with numpy",
            text_problem,
        ),
        Runtime(
            "native",
            "main",
            "",
            _STANDARD,
            "a Linux x86-64 ELF executable (C, C++, Rust, Go, ...), statically linked",
            elf_problem,
        ),
        Runtime(
            "node",
            "main.js",
            ".js",
            RuntimeProfile(
                memory=1024 * MIB,
                address_space=16 * 1024 * MIB,
                processes=24,
                startup_extra_ms=1000,
                open_files=256,
            ),
            "Node.js, the bot's own modules only",
            text_problem,
        ),
        Runtime(
            "java",
            "bot.jar",
            ".jar",
            RuntimeProfile(
                memory=1024 * MIB,
                address_space=4096 * MIB,
                processes=48,
                startup_extra_ms=5000,
                open_files=256,
            ),
            "Java, a jar with a Main-Class",
            jar_problem,
        ),
    )
}
DEFAULT_RUNTIME = "python"
RUNTIME_NAMES = tuple(RUNTIMES)
