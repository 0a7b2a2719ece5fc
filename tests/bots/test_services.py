"""Bots in the database: creation, uploads, immutable versions, validation, faults."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

import pytest

from bots.models import Bot, BotFault, BotVersion
from bots.runner import sandbox
from bots.services import (
    BotServiceError,
    bot_create,
    bot_version_bundle,
    bot_version_store,
    bot_version_validate,
)
from tests.bots.botcode import PLAYER

GOOD_BOT = (PLAYER + "\nplay()\n").encode()
CRASHING_BOT = (
    PLAYER + "\ndef hook(number, request):\n    raise RuntimeError('oops')\nplay()\n"
).encode()


@pytest.fixture
def author() -> User:
    return User.objects.create_user("author", password="x")


def _upload(bot: Bot, author: User, filename: str, data: bytes) -> BotVersion:
    return bot_version_store(owner=author, bot=bot, filename=filename, data=data)


@pytest.mark.django_db
def test_bot_create_checks_family_and_name(author: User) -> None:
    bot = bot_create(owner=author, name="ducker", families=["kingen"])
    assert (bot.kind, bot.family_names, bot.owner) == (Bot.Kind.UPLOADED, ["kingen"], author)
    with pytest.raises(BotServiceError, match="unknown game family"):
        bot_create(owner=author, name="other", families=["poker"])
    with pytest.raises(BotServiceError, match="already"):
        bot_create(owner=author, name="ducker", families=["king"])


@pytest.mark.django_db
def test_an_upload_is_stored_as_the_next_version_pending(author: User) -> None:
    bot = bot_create(owner=author, name="ducker", families=["kingen"])
    first = _upload(bot, author, "ducker.py", GOOD_BOT)
    second = _upload(bot, author, "ducker.py", GOOD_BOT)
    assert (first.number, second.number) == (1, 2)
    assert first.status == BotVersion.Status.PENDING
    assert first.size == len(GOOD_BOT)
    assert len(first.sha256) == 64
    assert bot_version_bundle(first).data == GOOD_BOT


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("filename", "data", "message"),
    [
        ("bot.exe", b"MZ", "a .py file or a .zip"),
        ("bot.zip", b"not a zip", "not a valid zip"),
        ("bot.py", b"", "empty"),
    ],
)
def test_a_bad_upload_stores_nothing(
    author: User, filename: str, data: bytes, message: str
) -> None:
    bot = bot_create(owner=author, name="b", families=["kingen"])
    with pytest.raises(BotServiceError, match=message):
        _upload(bot, author, filename, data)
    assert not BotVersion.objects.exists()


@pytest.mark.django_db
def test_only_the_owner_uploads(author: User) -> None:
    bot = bot_create(owner=author, name="b", families=["kingen"])
    stranger = User.objects.create_user("stranger", password="x")
    with pytest.raises(BotServiceError, match="owner"):
        _upload(bot, stranger, "b.py", GOOD_BOT)


@pytest.mark.django_db
def test_a_stored_version_is_immutable(author: User) -> None:
    bot = bot_create(owner=author, name="b", families=["kingen"])
    version = _upload(bot, author, "b.py", GOOD_BOT)
    version.code = b"print('changed')"
    with pytest.raises(ValueError, match="immutable"):
        version.save()
    with pytest.raises(ValueError, match="immutable"):
        version.save(update_fields=["code"])
    version.status = BotVersion.Status.REJECTED
    version.save(update_fields=["status"])  # its validation may change, once
    version.refresh_from_db()
    assert bytes(version.code) == GOOD_BOT


@pytest.mark.django_db
@pytest.mark.sandbox
def test_a_good_bot_becomes_active(author: User) -> None:
    bot = bot_create(owner=author, name="good", families=["kingen"])
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("main.py", "import player\nplayer.play()\n")
        bundle.writestr("player.py", PLAYER)
    version = _upload(bot, author, "good.zip", archive.getvalue())
    validated = bot_version_validate(version_id=version.pk)
    assert validated is not None
    assert validated.status == BotVersion.Status.ACTIVE, validated.report
    assert validated.report["outcome"] == "ok"
    assert validated.validated_at is not None
    assert not BotFault.objects.exists()
    again = bot_version_validate(version_id=version.pk)  # a redelivered task
    assert again is not None
    assert again.validated_at == validated.validated_at


@pytest.mark.django_db
@pytest.mark.sandbox
def test_a_crashing_bot_is_rejected_with_its_fault_and_log(author: User) -> None:
    bot = bot_create(owner=author, name="crasher", families=["dubbelkingen"])
    version = _upload(bot, author, "crasher.py", CRASHING_BOT)
    validated = bot_version_validate(version_id=version.pk)
    assert validated is not None
    assert validated.status == BotVersion.Status.REJECTED
    assert validated.report["outcome"] == "crash"
    (fault,) = BotFault.objects.filter(version=version)
    assert fault.cause == "crash"
    assert fault.match_id is None
    assert "RuntimeError: oops" in fault.log


@pytest.mark.django_db
def test_without_the_sandbox_a_version_stays_pending(
    author: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = bot_create(owner=author, name="b", families=["kingen"])
    version = _upload(bot, author, "b.py", GOOD_BOT)
    monkeypatch.setenv("KING_LEAGUE_BWRAP", "/nonexistent/bwrap")
    sandbox.sandbox_unavailable_reason.cache_clear()
    try:
        validated = bot_version_validate(version_id=version.pk)
    finally:
        sandbox.sandbox_unavailable_reason.cache_clear()
    assert validated is not None
    assert validated.status == BotVersion.Status.PENDING
    assert "apt-get install bubblewrap" in validated.report["problem"]
    assert not BotFault.objects.exists()


# ---------------------------------------------------------------- code the helper played for

HOSTILE = Path(__file__).resolve().parent / "hostile"


@pytest.mark.django_db
@pytest.mark.sandbox
def test_a_version_whose_code_failed_at_every_decision_is_rejected_and_says_why(
    author: User,
) -> None:
    """kingbot played every move for code that raised each time: the game itself had no
    fault, but the version is not reported as active; the API, the report and the bot's
    page say why."""
    bot = bot_create(owner=author, name="raiser", families=["kingen"])
    data = (HOSTILE / "kingbot_choose_always_raises.py").read_bytes()
    version = _upload(bot, author, "raiser.py", data)

    validated = bot_version_validate(version_id=version.pk)

    assert validated is not None
    assert validated.report["outcome"] == "ok"  # no fault in the game itself
    assert validated.status == BotVersion.Status.REJECTED
    decisions = validated.report["fallbacks"]["decisions"]
    assert decisions > 0
    assert validated.validation_fallbacks == decisions
    problem = validated.report["problem"]
    assert f"failed at every one of its {decisions} decisions" in problem
    assert "ValueError: no strategy for" in problem
    api = APIClient()
    api.force_authenticate(author)
    detail = api.get(f"/api/bot-versions/{version.pk}/").json()
    assert (detail["status"], detail["validation_fallbacks"]) == ("rejected", decisions)
    assert detail["report"]["problem"] == problem
    client = Client()
    client.force_login(author)
    page = client.get(reverse("web:bot", args=[bot.pk])).content.decode()
    assert f"failed at every one of its {decisions} decisions" in page


@pytest.mark.django_db
@pytest.mark.sandbox
def test_a_version_whose_code_failed_once_is_active_and_its_report_says_so(
    author: User,
) -> None:
    bot = bot_create(owner=author, name="once", families=["kingen"])
    data = (HOSTILE / "kingbot_choose_fails_once.py").read_bytes()
    version = _upload(bot, author, "once.py", data)

    validated = bot_version_validate(version_id=version.pk)

    assert validated is not None
    assert validated.status == BotVersion.Status.ACTIVE, validated.report
    assert validated.validation_fallbacks == 1
    decisions = validated.report["fallbacks"]["decisions"]
    assert "kingbot played 1 of the" in validated.report["problem"]
    assert f"of the {decisions} decisions" in validated.report["problem"]
    assert "not a legal action" in validated.report["fallbacks"]["reasons"][0]


@pytest.mark.django_db
@pytest.mark.sandbox
def test_a_version_that_decides_for_itself_has_no_fallbacks(author: User) -> None:
    bot = bot_create(owner=author, name="self", families=["kingen"])
    version = _upload(bot, author, "self.py", GOOD_BOT)
    validated = bot_version_validate(version_id=version.pk)
    assert validated is not None
    assert validated.status == BotVersion.Status.ACTIVE
    assert validated.validation_fallbacks == 0
    assert "problem" not in validated.report
