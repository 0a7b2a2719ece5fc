"""The structure check of uploads: a .py, or a .zip with main.py and safe members."""

from __future__ import annotations

import io
import stat
import tempfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.bundle import (
    MAX_BOT_BYTES,
    MAX_BOT_SIZE,
    MAX_NAME_BYTES,
    MAX_PATH_BYTES,
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
        ("bot.py", b"x" * (MAX_BOT_BYTES + 1), f"at most {MAX_BOT_SIZE}"),
        ("bot.py", b"\xff\xfe bad", "UTF-8"),
        ("bot.zip", b"not a zip", "not a valid zip"),
        ("bot.zip", _zip({"helper.py": b"x"}), "no main.py"),
        ("bot.zip", _zip({"sub/main.py": b"x"}), "no main.py"),
        ("bot.zip", _zip({"main.py": b"x", "../evil.py": b"x"}), "'..'"),
        ("bot.zip", _zip({"main.py": b"x", "a/../../evil.py": b"x"}), "'..'"),
        ("bot.zip", _zip({"main.py": b"x", "/etc/cron.d/evil": b"x"}), "absolute"),
        ("bot.zip", _zip({"main.py": b"x", "a\\b.py": b"x"}), "backslash"),
        # a file and a folder of the same name: it cannot be laid out for a match
        ("bot.zip", _zip({"main.py": b"x", "foo": b"1", "foo/bar.py": b"2"}), "needs a folder"),
        ("bot.zip", _zip({"main.py": b"x", "foo/bar.py": b"2", "foo": b"1"}), "needs a folder"),
        ("bot.zip", _zip({"main.py": b"x", "foo/": b"", "foo": b"1"}), "needs a folder"),
        ("bot.zip", _zip({"main.py/x.py": b"1", "main.py": b"x"}), "needs a folder"),
        # names the file system refuses: a name over NAME_MAX, a path far over PATH_MAX
        ("bot.zip", _zip({"main.py": b"x", "a" * 253 + ".py": b"1"}), "at most 255"),
        ("bot.zip", _zip({"main.py": b"x", "é" * 130 + ".py": b"1"}), "at most 255"),
        ("bot.zip", _zip({"main.py": b"x", ("d" * 200 + "/") * 6 + "x.py": b"1"}), "path is"),
        ("bot.zip", _zip({"main.py": b"x", ("d/" * 2100) + "x.py": b"1"}), "path is"),
        # control characters in members' names
        ("bot.zip", _zip({"main.py": b"x", "\x1b[31mred.py": b"1"}), "U\\+001B"),
        ("bot.zip", _zip({"main.py": b"x", "two\nlines.py": b"1"}), "U\\+000A"),
        ("bot.zip", _zip({"main.py": b"x", "right\u202eyp.txt": b"1"}), "U\\+202E"),
        # and in the uploaded file's own name
        ("bad\x00name.py", b"pass\n", "U\\+0000"),
        ("bad\x07name.py", b"pass\n", "U\\+0007"),
        ("bad\tname.zip", _zip({"main.py": b"x"}), "U\\+0009"),
        ("a" * 201 + ".py", b"pass\n", "too long"),
        ("é" * 130 + ".py", b"pass\n", "too long"),
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


def _with_header_bytes(data: bytes, old: bytes, new: bytes) -> bytes:
    """The zip with a member's name rewritten in place (local header and central
    directory alike), for what zipfile will not write."""
    assert len(old) == len(new)
    assert data.count(old) == 2
    return data.replace(old, new)


def test_a_member_name_with_nul_is_refused_though_zipfile_cuts_it_there() -> None:
    data = _with_header_bytes(_zip({"main.py": b"x", "evil#.py": b"1"}), b"evil#", b"evil\x00")
    with pytest.raises(BotBundleError, match="U\\+0000"):
        bot_bundle_check("bot.zip", data)


def _encrypted(data: bytes) -> bytes:
    """The zip with the encryption flag (bit 0) set on its first member, as a zip
    written with a password has it in the local header and the central directory."""
    out = bytearray(data)
    local = out.find(b"PK\x03\x04")
    central = out.find(b"PK\x01\x02")
    out[local + 6] |= 0x1
    out[central + 8] |= 0x1
    return bytes(out)


def test_an_encrypted_member_is_refused_at_upload() -> None:
    data = _encrypted(_zip({"main.py": b"print('hi')\n"}))
    with zipfile.ZipFile(io.BytesIO(data)) as archive, pytest.raises(RuntimeError):
        archive.read("main.py")  # what a match would have met: zipfile wants a password
    with pytest.raises(BotBundleError, match="encrypted"):
        bot_bundle_check("bot.zip", data)


def test_names_at_the_limits_are_accepted_and_lay_out(tmp_path: Path) -> None:
    longest_name = "a" * (MAX_NAME_BYTES - 3) + ".py"
    deep = "/".join(["d" * 100] * 9) + "/" + "x" * 100  # 1009 bytes
    assert len(deep.encode()) <= MAX_PATH_BYTES
    data = _zip({"main.py": b"x", longest_name: b"1", deep: b"2", "é.py": b"3"})
    bot_bundle_extract(bot_bundle_check("bot.zip", data), tmp_path)
    assert (tmp_path / longest_name).read_bytes() == b"1"
    assert (tmp_path / deep).read_bytes() == b"2"


NAME_PARTS = st.sampled_from(["a", "b", "main.py", "x" * 254, "é" * 128, "d", "."])


@pytest.mark.filterwarnings("ignore:Duplicate name")  # the zip holds what it is given
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    members=st.lists(
        st.lists(NAME_PARTS, min_size=1, max_size=12).map("/".join), min_size=1, max_size=6
    ),
    folder_entries=st.lists(st.lists(NAME_PARTS, min_size=1, max_size=3).map("/".join)),
)
def test_what_the_check_accepts_lays_out_on_disk(
    members: list[str], folder_entries: list[str]
) -> None:
    """The check and the layout agree: a zip the check accepts is laid out without an
    error, so a bot never fails at run time for a zip it was allowed to upload."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", b"x")
        for folder in folder_entries:
            archive.writestr(zipfile.ZipInfo(folder + "/"), b"")
        for name in members:
            archive.writestr(name, b"1")
    try:
        bundle = bot_bundle_check("bot.zip", buffer.getvalue())
    except BotBundleError:
        return
    with tempfile.TemporaryDirectory() as folder:
        bot_bundle_extract(bundle, Path(folder))


def test_the_command_line_refuses_such_a_zip_before_the_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bots.__main__ import EXIT_BAD_INPUT, main

    bot = tmp_path / "clash.zip"
    bot.write_bytes(_zip({"main.py": b"x", "foo": b"1", "foo/bar.py": b"2"}))
    greedy = "builtin:greedy"
    assert main(["match", "kingen", str(bot), greedy, greedy, greedy, "--no-sandbox"]) == (
        EXIT_BAD_INPUT
    )
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert "'foo': is a file, and 'foo/bar.py' needs a folder of that name" in error
