"""A bot's code as uploaded: one file (``.py``, ``.js``, ``.jar`` or a Linux executable), or
a ``.zip`` with its runtime's entry file (``main.py``, ``main``, ``main.js``, ``bot.jar``)
at its top.

``bot_bundle_check`` is the structure check every upload passes before anything runs it
(the API, the web page and the command line all use it): it settles the bot's runtime
(chosen by the uploader, or recognised from the files: bots.runtimes) and checks the entry
file for it (an x86-64 ELF executable, a jar with a Main-Class, UTF-8 source);
``bot_bundle_extract`` writes a checked bundle into a folder as the entry file and its
siblings. A zip is read member by
member with the sizes counted as they are read, never trusting its headers, and never
with ``extractall``. Whatever would fail when the bot is laid out for a match (a name the
file system refuses, a file where a folder must be, an encrypted member) is refused here,
at upload, with a message naming the member.
"""

from __future__ import annotations

import hashlib
import io
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from bots.runtimes import (
    DEFAULT_RUNTIME,
    RUNTIMES,
    entry_problem,
    is_elf,
    runtime_get,
    runtime_recognise,
)

MIB = 1024 * 1024
MAX_BOT_MIB = 1
"""The largest upload, a .py file or a .zip as uploaded, in MiB: the one limit every
message and page states (``MAX_BOT_SIZE``)."""
MAX_BOT_BYTES = MAX_BOT_MIB * MIB
MAX_BOT_SIZE = f"{MAX_BOT_MIB} MiB"
MAX_UNPACKED_MIB = 8
"""The most a .zip may unpack to, all members together, in MiB."""
MAX_UNPACKED_BYTES = MAX_UNPACKED_MIB * MIB
MAX_MEMBERS = 256
MAX_NAME_BYTES = 255
"""The longest file or folder name, in bytes of UTF-8: the file systems' NAME_MAX."""
MAX_PATH_BYTES = 1024
"""The longest path of a member inside the bot's folder, in bytes of UTF-8: well inside
PATH_MAX (4096) wherever the folder itself is."""
MAX_FILENAME_LENGTH = 200
"""The longest name of the uploaded file itself, in characters (as it is stored)."""
MAIN = "main.py"
BundleKind = Literal["py", "zip", "js", "jar", "elf"]
SINGLE_FILE_ENTRY: dict[str, str] = {
    "py": "main.py",
    "js": "main.js",
    "jar": "bot.jar",
    "elf": "main",
}
"""The name a bot uploaded as one file gets in its folder, by kind."""
KIND_BY_SUFFIX: dict[str, BundleKind] = {".py": "py", ".zip": "zip", ".js": "js", ".jar": "jar"}
ENTRY_FILES = ", ".join(f"{runtime.entry} ({runtime.name})" for runtime in RUNTIMES.values())


def bot_too_large_message(name: str, size: int) -> str:
    """The one message for an upload over the limit: the API, the web page and the
    command line say it alike."""
    return f"{name} is {size:,} bytes; a bot may be at most {MAX_BOT_SIZE}"


class BotBundleError(ValueError):
    """An upload that is not a bot we can run; the message says why, for its author."""


@dataclass(frozen=True, slots=True)
class BotBundle:
    filename: str
    kind: BundleKind
    data: bytes = b""
    runtime: str = DEFAULT_RUNTIME
    """What runs it (bots.runtimes): chosen at upload or recognised from its files."""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def label(self) -> str:
        return self.filename


def _name_problem(name: str) -> str | None:
    """What is wrong with a file name or a zip member's name, None if nothing: control
    and other unprintable characters (NUL, newlines, escapes, direction overrides)."""
    for character in name:
        if not character.isprintable():
            return f"names may not contain control characters (U+{ord(character):04X})"
    return None


def _member_path(name: str) -> PurePosixPath | None:
    """The safe relative path of a zip member, None for a folder entry; else an error."""
    problem = _name_problem(name)
    if problem is not None:
        raise BotBundleError(f"{name!r}: {problem}")
    if "\\" in name:
        raise BotBundleError(f"{name!r}: member names may not contain backslashes")
    if name.startswith("/"):
        raise BotBundleError(f"{name!r}: absolute paths are not allowed in the zip")
    path = PurePosixPath(name)
    if any(part == ".." for part in path.parts):
        raise BotBundleError(f"{name!r}: '..' is not allowed in the zip's paths")
    for part in path.parts:
        if len(part.encode()) > MAX_NAME_BYTES:
            raise BotBundleError(
                f"{name[:60]!r}...: a name in the path is {len(part.encode())} bytes;"
                f" at most {MAX_NAME_BYTES}"
            )
    if len(str(path).encode()) > MAX_PATH_BYTES:
        raise BotBundleError(
            f"{name[:60]!r}...: the path is {len(str(path).encode())} bytes; at most"
            f" {MAX_PATH_BYTES}"
        )
    if name.endswith("/"):
        return None
    if not path.parts or path.parts[0].endswith(":"):
        raise BotBundleError(f"{name!r}: not a relative path")
    return path


def _zip_members(data: bytes) -> list[tuple[zipfile.ZipInfo, PurePosixPath]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise BotBundleError(f"not a valid zip file: {exc}") from None
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise BotBundleError(f"the zip has {len(infos)} members; at most {MAX_MEMBERS}")
    members: list[tuple[zipfile.ZipInfo, PurePosixPath]] = []
    seen: set[PurePosixPath] = set()
    folders: dict[PurePosixPath, str] = {}  # every folder a member needs, and who needs it
    declared = 0
    for info in infos:
        # zipfile cuts a name at its first NUL; the name as stored is orig_filename
        path = _member_path(info.orig_filename)
        if info.flag_bits & 0x1:
            raise BotBundleError(
                f"{info.filename!r}: is encrypted; upload a zip without a password"
            )
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise BotBundleError(f"{info.filename!r}: symbolic links are not allowed in the zip")
        if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise BotBundleError(f"{info.filename!r}: only files and folders are allowed")
        if path is None:  # a folder entry: it needs itself and its parents
            folder = PurePosixPath(info.filename)
            for needed in (folder, *folder.parents):
                folders.setdefault(needed, info.filename)
            continue
        if path in seen:
            raise BotBundleError(f"{info.filename!r}: appears twice in the zip")
        seen.add(path)
        for needed in path.parents:
            folders.setdefault(needed, info.filename)
        declared += info.file_size
        if declared > MAX_UNPACKED_BYTES:
            raise BotBundleError(f"the zip unpacks to more than {MAX_UNPACKED_MIB} MiB")
        members.append((info, path))
    clashes = sorted(seen & folders.keys())
    if clashes:
        raise BotBundleError(
            f"{str(clashes[0])!r}: is a file, and {folders[clashes[0]]!r} needs a folder"
            " of that name"
        )
    if not any(len(path.parts) == 1 and str(path) in SINGLE_FILE_ENTRY.values() for path in seen):
        raise BotBundleError(
            f"the zip has no {MAIN} at its top level, nor another runtime's entry file"
            f" ({ENTRY_FILES})"
        )
    return members


def bundle_kind(filename: str, data: bytes) -> BundleKind | None:
    """What sort of upload ``filename`` is: by its suffix, else an ELF executable by its
    first bytes; None when neither."""
    for suffix, kind in KIND_BY_SUFFIX.items():
        if filename.lower().endswith(suffix):
            return kind
    return "elf" if is_elf(data) else None


def bot_bundle_check(filename: str, data: bytes, runtime: str | None = None) -> BotBundle:
    """A BotBundle for an upload, or BotBundleError saying what is wrong with it.

    ``runtime`` is the uploader's choice (bots.runtimes); None or "" recognises it from
    the files: ``main.py`` is python (python-numpy when a Python file imports numpy),
    ``main`` native, ``main.js`` node, ``bot.jar`` java."""
    name = PurePosixPath(filename.replace("\\", "/")).name
    problem = _name_problem(name)
    if problem is not None:
        raise BotBundleError(f"{name!r}: {problem}")
    if len(name) > MAX_FILENAME_LENGTH or len(name.encode()) > MAX_NAME_BYTES:
        raise BotBundleError(
            f"{name[:60]!r}...: the file name is too long (at most {MAX_FILENAME_LENGTH}"
            f" characters and {MAX_NAME_BYTES} bytes)"
        )
    if len(data) > MAX_BOT_BYTES:
        raise BotBundleError(bot_too_large_message(name, len(data)))
    if not data:
        raise BotBundleError(f"{name}: the file is empty")
    if runtime:
        try:
            runtime_get(runtime)
        except ValueError as exc:
            raise BotBundleError(f"runtime: {exc}") from None
    kind = bundle_kind(name, data)
    if kind is None:
        raise BotBundleError(
            f"{name}: a bot is a .py file or a .zip with its entry file ({ENTRY_FILES}),"
            " or one .js or .jar file, or a Linux x86-64 executable"
        )
    bundle = BotBundle(name, kind, data)
    if kind == "zip":
        _zip_members(data)
    files = _unpacked(bundle)  # reads every member: a corrupt or lying zip fails here
    top = {str(path): content for path, content in files.items() if len(path.parts) == 1}
    python_files = {str(path): content for path, content in files.items() if path.suffix == ".py"}
    try:
        chosen = runtime or runtime_recognise({**python_files, **top})
    except ValueError as exc:
        raise BotBundleError(f"{name}: {exc}") from None
    if chosen is None:  # pragma: no cover - _zip_members and the kinds make sure of one
        raise BotBundleError(f"{name}: no entry file ({ENTRY_FILES})")
    entry = runtime_get(chosen).entry
    where = "the zip" if kind == "zip" else name
    if entry not in top:
        raise BotBundleError(
            f"{where} has no {entry} at its top level, which the {chosen} runtime starts from"
        )
    problem = entry_problem(chosen, top[entry])
    if problem is not None:
        shown = name if kind != "zip" else entry
        raise BotBundleError(f"{shown}: {problem}")
    return BotBundle(name, kind, data, chosen)


def bot_bundle_from_path(path: str | Path, runtime: str | None = None) -> BotBundle:
    """Read and check a bot file; BotBundleError (one line) if it cannot be used."""
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > MAX_BOT_BYTES:
            raise BotBundleError(bot_too_large_message(str(file), size))
        data = file.read_bytes()
    except IsADirectoryError:
        raise BotBundleError(
            f"{file}: is a folder, not a bot file (.py, .zip, .js, .jar, executable)"
        ) from None
    except OSError as exc:
        raise BotBundleError(f"{file}: {exc.strerror or exc}") from None
    return bot_bundle_check(file.name, data, runtime)


def _unpacked(bundle: BotBundle) -> dict[PurePosixPath, bytes]:
    if bundle.kind != "zip":
        return {PurePosixPath(SINGLE_FILE_ENTRY[bundle.kind]): bundle.data}
    files: dict[PurePosixPath, bytes] = {}
    total = 0
    with zipfile.ZipFile(io.BytesIO(bundle.data)) as archive:
        for info, path in _zip_members(bundle.data):
            try:
                with archive.open(info) as member:
                    content = member.read(MAX_UNPACKED_BYTES - total + 1)
            except (
                zipfile.BadZipFile,
                OSError,
                ValueError,
                NotImplementedError,
                RuntimeError,  # zipfile's word for a member it cannot decrypt
            ) as exc:
                raise BotBundleError(f"{info.filename!r}: cannot be read: {exc}") from None
            total += len(content)
            if total > MAX_UNPACKED_BYTES:
                raise BotBundleError(f"the zip unpacks to more than {MAX_UNPACKED_MIB} MiB")
            files[path] = content
    return files


def bot_bundle_extract(bundle: BotBundle, destination: Path) -> None:
    """Write the bot's files under ``destination`` (an empty folder): readable by all,
    writable by none but the owner; a native bot's ``main`` executable too."""
    executable = PurePosixPath("main") if bundle.runtime == "native" else None
    for path, content in _unpacked(bundle).items():
        target = destination.joinpath(*path.parts)
        try:
            for folder in reversed(path.parents):
                directory = destination.joinpath(*folder.parts)
                if not directory.is_dir():
                    directory.mkdir(mode=0o755)
                    directory.chmod(0o755)
            target.write_bytes(content)
            target.chmod(0o755 if path == executable else 0o644)
        except OSError as exc:
            raise BotBundleError(f"{path}: cannot be unpacked: {exc.strerror or exc}") from None
