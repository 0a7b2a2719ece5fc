"""An upload's validation game goes through the task outbox, in the upload's transaction
(league/services/bot_versions.py): a committed version always has its task waiting or sent,
a refused or rolled-back upload leaves neither version nor task."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth.models import User
from django.db import transaction

import pytest

from bots.models import BotVersion
from bots.services import BotServiceError, bot_create
from league.models import OutboxTask
from league.services.bot_versions import bot_version_submit

EXAMPLE_BOT = Path(__file__).resolve().parents[2] / "bots" / "examples" / "random_bot.py"
VALIDATE = "bots.tasks.bot_version_validate"


@pytest.fixture
def author() -> User:
    return User.objects.create_user("author", password="a long password 1")


@pytest.mark.django_db
def test_each_version_uploaded_has_its_validation_task_in_the_outbox(author: User) -> None:
    bot = bot_create(owner=author, name="rando", families=["kingen"])
    data = EXAMPLE_BOT.read_bytes()
    with transaction.atomic():  # what the outbox holds before the commit sends it
        first = bot_version_submit(owner=author, bot=bot, filename="rando.py", data=data)
        second = bot_version_submit(owner=author, bot=bot, filename="rando.py", data=data)
        rows = list(OutboxTask.objects.filter(task=VALIDATE).order_by("id"))

    assert [row.args for row in rows] == [[first.pk], [second.pk]]
    assert (first.status, second.status) == (BotVersion.Status.PENDING,) * 2


@pytest.mark.django_db
def test_a_refused_or_rolled_back_upload_leaves_no_version_and_no_task(author: User) -> None:
    bot = bot_create(owner=author, name="rando", families=["kingen"])
    with pytest.raises(BotServiceError, match="empty"):
        bot_version_submit(owner=author, bot=bot, filename="rando.py", data=b"")

    def request_that_fails_after_the_upload() -> None:
        with transaction.atomic():
            bot_version_submit(
                owner=author, bot=bot, filename="rando.py", data=EXAMPLE_BOT.read_bytes()
            )
            raise RuntimeError("the request failed after the upload")

    with pytest.raises(RuntimeError):
        request_that_fails_after_the_upload()

    assert not BotVersion.objects.filter(bot=bot).exists()
    assert not OutboxTask.objects.filter(task=VALIDATE).exists()
