"""A bot's code as uploaded: one ``.py`` file, or a ``.zip`` with ``main.py`` at its top.

``bot_bundle_check`` is the structure check every upload passes before anything runs it
(the command line uses it too); ``bot_bundle_extract`` writes a checked bundle into a
folder as ``main.py`` and its siblings. A zip is read member by member with the sizes
counted as they are read, never trusting its headers, and never with ``extractall``.
"""

from __future__ import annotations

import hashlib
import io
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

MAX_BOT_BYTES = 1024 * 1024
"""The largest upload: a .py file or a .zip, as uploaded."""
MAX_UNPACKED_BYTES = 8 * 1024 * 1024
"""The most a .zip may unpack to, all members together."""
MAX_MEMBERS = 256
MAIN = "main.py"


class BotBundleError(ValueError):
    """An upload that is not a bot we can run; the message says why, for its author."""


@dataclass(frozen=True, slots=True)
class BotBundle:
    filename: str
    kind: Literal["py", "zip"]
    data: bytes = b""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def label(self) -> str:
        return self.filename


def _member_path(name: str) -> PurePosixPath | None:
    """The safe relative path of a zip member, None for a folder entry; else an error."""
    if "\\" in name or "\x00" in name:
        raise BotBundleError(f"{name!r}: member names may not contain backslashes or NUL")
    if name.startswith("/"):
        raise BotBundleError(f"{name!r}: absolute paths are not allowed in the zip")
    path = PurePosixPath(name)
    if any(part == ".." for part in path.parts):
        raise BotBundleError(f"{name!r}: '..' is not allowed in the zip's paths")
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
    declared = 0
    for info in infos:
        path = _member_path(info.filename)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise BotBundleError(f"{info.filename!r}: symbolic links are not allowed in the zip")
        if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise BotBundleError(f"{info.filename!r}: only files and folders are allowed")
        if path is None:
            continue
        if path in seen:
            raise BotBundleError(f"{info.filename!r}: appears twice in the zip")
        seen.add(path)
        declared += info.file_size
        if declared > MAX_UNPACKED_BYTES:
            raise BotBundleError(f"the zip unpacks to more than {MAX_UNPACKED_BYTES} bytes")
        members.append((info, path))
    if PurePosixPath(MAIN) not in seen:
        raise BotBundleError(f"the zip has no {MAIN} at its top level")
    return members


def bot_bundle_check(filename: str, data: bytes) -> BotBundle:
    """A BotBundle for an upload, or BotBundleError saying what is wrong with it."""
    name = PurePosixPath(filename.replace("\\", "/")).name
    if len(data) > MAX_BOT_BYTES:
        raise BotBundleError(f"{name}: {len(data)} bytes; a bot may be at most {MAX_BOT_BYTES}")
    if not data:
        raise BotBundleError(f"{name}: the file is empty")
    lower = name.lower()
    if lower.endswith(".py"):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise BotBundleError(f"{name}: a .py bot must be UTF-8 text") from None
        return BotBundle(name, "py", data)
    if lower.endswith(".zip"):
        bundle = BotBundle(name, "zip", data)
        _zip_members(data)
        _unpacked(bundle)  # reads every member: a corrupt or lying zip fails here
        return bundle
    raise BotBundleError(f"{name}: a bot is a .py file or a .zip with {MAIN}")


def bot_bundle_from_path(path: str | Path) -> BotBundle:
    """Read and check a bot file; BotBundleError (one line) if it cannot be used."""
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > MAX_BOT_BYTES:
            raise BotBundleError(f"{file}: {size} bytes; a bot may be at most {MAX_BOT_BYTES}")
        data = file.read_bytes()
    except IsADirectoryError:
        raise BotBundleError(f"{file}: is a folder, not a .py or .zip bot") from None
    except OSError as exc:
        raise BotBundleError(f"{file}: {exc.strerror or exc}") from None
    return bot_bundle_check(file.name, data)


def _unpacked(bundle: BotBundle) -> dict[PurePosixPath, bytes]:
    if bundle.kind == "py":
        return {PurePosixPath(MAIN): bundle.data}
    files: dict[PurePosixPath, bytes] = {}
    total = 0
    with zipfile.ZipFile(io.BytesIO(bundle.data)) as archive:
        for info, path in _zip_members(bundle.data):
            try:
                with archive.open(info) as member:
                    content = member.read(MAX_UNPACKED_BYTES - total + 1)
            except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError) as exc:
                raise BotBundleError(f"{info.filename!r}: cannot be read: {exc}") from None
            total += len(content)
            if total > MAX_UNPACKED_BYTES:
                raise BotBundleError(f"the zip unpacks to more than {MAX_UNPACKED_BYTES} bytes")
            files[path] = content
    return files


def bot_bundle_extract(bundle: BotBundle, destination: Path) -> None:
    """Write the bot's files under ``destination`` (an empty folder): readable by all,
    writable by none but the owner."""
    for path, content in _unpacked(bundle).items():
        target = destination.joinpath(*path.parts)
        try:
            for folder in reversed(path.parents):
                directory = destination.joinpath(*folder.parts)
                if not directory.is_dir():
                    directory.mkdir(mode=0o755)
                    directory.chmod(0o755)
            target.write_bytes(content)
            target.chmod(0o644)
        except OSError as exc:
            raise BotBundleError(f"{path}: cannot be unpacked: {exc.strerror or exc}") from None
