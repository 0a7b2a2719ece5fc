"""The structure check of uploads: a .py, or a .zip with main.py and safe members."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path

import pytest

from bots.bundle import (
    MAX_BOT_BYTES,
    MAX_UNPACKED_BYTES,
    BotBundleError,
    bot_bundle_check,
    bot_bundle_extract,
    bot_bundle_from_path,
)


def _zip(members: dict[str, bytes], *, symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
        if symlink is not None:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def test_a_py_file() -> None:
    bundle = bot_bundle_check("uploads/My Bot.py", b"print('hi')\n")
    assert bundle.kind == "py"
    assert bundle.filename == "My Bot.py"
    assert len(bundle.sha256) == 64


def test_a_zip_with_main_and_modules(tmp_path: Path) -> None:
    data = _zip({"main.py": b"import helper\n", "helper.py": b"X = 1\n", "data/w.txt": b"7"})
    bundle = bot_bundle_check("bot.zip", data)
    assert bundle.kind == "zip"
    bot_bundle_extract(bundle, tmp_path)
    assert (tmp_path / "main.py").read_bytes() == b"import helper\n"
    assert (tmp_path / "data" / "w.txt").read_text() == "7"
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "main.py").stat().st_mode) == 0o644


@pytest.mark.parametrize(
    ("filename", "data", "message"),
    [
        ("bot.txt", b"x", "a .py file or a .zip"),
        ("bot.py", b"", "empty"),
        ("bot.py", b"x" * (MAX_BOT_BYTES + 1), "at most"),
        ("bot.py", b"\xff\xfe bad", "UTF-8"),
        ("bot.zip", b"not a zip", "not a valid zip"),
        ("bot.zip", _zip({"helper.py": b"x"}), "no main.py"),
        ("bot.zip", _zip({"sub/main.py": b"x"}), "no main.py"),
        ("bot.zip", _zip({"main.py": b"x", "../evil.py": b"x"}), "'..'"),
        ("bot.zip", _zip({"main.py": b"x", "a/../../evil.py": b"x"}), "'..'"),
        ("bot.zip", _zip({"main.py": b"x", "/etc/cron.d/evil": b"x"}), "absolute"),
        ("bot.zip", _zip({"main.py": b"x", "a\\b.py": b"x"}), "backslash"),
        ("bot.zip", _zip({"main.py": b"x"}, symlink="link"), "symbolic link"),
        ("bot.zip", _zip({"main.py": b"0" * (MAX_UNPACKED_BYTES + 1)}), "unpacks to more"),
    ],
)
def test_refused(filename: str, data: bytes, message: str) -> None:
    with pytest.raises(BotBundleError, match=message):
        bot_bundle_check(filename, data)


def test_a_zip_bomb_is_refused_even_when_its_headers_lie() -> None:
    data = bytearray(_zip({"main.py": b"0" * (MAX_UNPACKED_BYTES + 1000)}))
    # rewrite the declared sizes (local header and central directory) to 10 bytes
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.find(signature)
        data[at + offset : at + offset + 4] = (10).to_bytes(4, "little")
    with pytest.raises(BotBundleError):
        bot_bundle_check("bomb.zip", bytes(data))


def test_from_path(tmp_path: Path) -> None:
    with pytest.raises(BotBundleError, match="No such file"):
        bot_bundle_from_path(tmp_path / "missing.py")
    with pytest.raises(BotBundleError, match="folder"):
        bot_bundle_from_path(tmp_path)
    path = tmp_path / "ok.py"
    path.write_text("pass\n")
    assert bot_bundle_from_path(path).data == b"pass\n"
