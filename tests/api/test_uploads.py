"""A bot upload that could not run is refused at upload, with a message and nothing stored,
by the API and by the web page alike (PostgreSQL: its columns have the limits that
matter); and the one size limit is stated the same way, from the one constant, by the
API, the web page and the docs."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

import pytest

from bots.bundle import MAX_BOT_BYTES, MAX_BOT_SIZE, bot_too_large_message
from bots.models import Bot, BotVersion
from bots.services import bot_create
from tests.league.builders import user_create

PASSWORD = "a long password 1"
DOCS = Path(__file__).resolve().parents[2] / "docs"


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def _encrypted(data: bytes) -> bytes:
    """The zip with its first member marked encrypted (bit 0 of the flags, in the local
    header and the central directory), as a zip written with a password has it."""
    out = bytearray(data)
    out[out.find(b"PK\x03\x04") + 6] |= 0x1
    out[out.find(b"PK\x01\x02") + 8] |= 0x1
    return bytes(out)


MAIN = b"import kingbot\n"
REFUSED = [
    ("locked.zip", _encrypted(_zip({"main.py": MAIN})), "'main.py': is encrypted"),
    (
        "clash.zip",
        _zip({"main.py": MAIN, "foo": b"1", "foo/bar.py": b"2"}),
        "'foo': is a file, and 'foo/bar.py' needs a folder of that name",
    ),
    ("long.zip", _zip({"main.py": MAIN, "a" * 300 + ".py": b"1"}), "bytes; at most 255"),
    ("deep.zip", _zip({"main.py": MAIN, "d/" * 600 + "x.py": b"1"}), "bytes; at most 1024"),
    ("escape.zip", _zip({"main.py": MAIN, "\x1b[2J.py": b"1"}), "control characters (U+001B)"),
    ("b" * 240 + ".py", MAIN, "the file name is too long"),
    ("big.py", b"#" * (MAX_BOT_BYTES + 1), f"a bot may be at most {MAX_BOT_SIZE}"),
]


def _owner_and_bot() -> tuple[Any, Bot]:
    ann = user_create("ann")
    return ann, bot_create(owner=ann, name="Rando", families=["kingen"])


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize(("filename", "data", "words"), REFUSED, ids=[r[0][:12] for r in REFUSED])
def test_the_api_refuses_an_upload_that_could_not_run(
    filename: str, data: bytes, words: str
) -> None:
    ann, bot = _owner_and_bot()
    api = APIClient()
    api.force_authenticate(ann)
    response = api.post(
        f"/api/bots/{bot.pk}/versions/",
        {"file": SimpleUploadedFile(filename, data)},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    assert words in response.json()["detail"]
    assert not BotVersion.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize(("filename", "data", "words"), REFUSED, ids=[r[0][:12] for r in REFUSED])
def test_the_web_page_refuses_it_with_the_same_message(
    filename: str, data: bytes, words: str
) -> None:
    ann, bot = _owner_and_bot()
    browser = Client()
    browser.force_login(ann)
    page = browser.post(
        f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile(filename, data)}, follow=True
    )
    assert page.status_code == 200
    shown = [str(message) for message in page.context["messages"]]
    assert len(shown) == 1
    assert shown[0].startswith("Upload refused: ")
    assert words in shown[0]
    assert not BotVersion.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_size_limit_is_stated_alike_everywhere() -> None:
    ann, bot = _owner_and_bot()
    too_large = SimpleUploadedFile("big.py", b"#" * (MAX_BOT_BYTES + 1))
    expected = bot_too_large_message("big.py", MAX_BOT_BYTES + 1)
    assert expected.endswith(f"at most {MAX_BOT_SIZE}")
    assert MAX_BOT_SIZE.endswith(" MiB")

    api = APIClient()
    api.force_authenticate(ann)
    refused = api.post(f"/api/bots/{bot.pk}/versions/", {"file": too_large}, format="multipart")
    assert refused.json()["detail"] == f"file: {expected}"

    browser = Client()
    browser.force_login(ann)
    too_large.seek(0)
    page = browser.post(f"/bots/{bot.pk}/upload/", {"file": too_large}, follow=True)
    assert [str(m) for m in page.context["messages"]] == [f"Upload refused: {expected}"]
    assert f"at most {MAX_BOT_SIZE}" in page.content.decode()  # the form's own help

    for doc in ("api.md", "bot-protocol.md"):
        text = (DOCS / doc).read_text()
        stated = re.findall(r"at most (\d+(?:\.\d+)? ?[KMG]i?B) as uploaded", text)
        assert stated, doc
        assert set(stated) == {MAX_BOT_SIZE}, (doc, stated)


@pytest.mark.postgres
@pytest.mark.django_db
def test_an_upload_within_the_limits_is_stored() -> None:
    ann, bot = _owner_and_bot()
    api = APIClient()
    api.force_authenticate(ann)
    data = _zip({"main.py": MAIN, "lib/helper.py": b"X = 1\n", "a" * 251 + ".py": b"1"})
    response = api.post(
        f"/api/bots/{bot.pk}/versions/",
        {"file": SimpleUploadedFile("bot.zip", data)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    assert BotVersion.objects.get().size == len(data)
