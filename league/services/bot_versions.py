"""Uploading a bot version: stored by the bots app, its validation game sent through the
task outbox in the same transaction, so a committed upload always gets its game, even when
the broker is down at that moment (league/services/task_outbox.py)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from bots.models import Bot, BotVersion
from bots.services import bot_version_store
from league.services.task_outbox import task_enqueue
from league.task_names import BOT_VERSION_VALIDATE


def bot_version_submit(
    *, owner: User, bot: Bot, filename: str, data: bytes, runtime: str | None = None
) -> BotVersion:
    """Store ``data`` as ``bot``'s next version (pending) and queue its validation game;
    ``runtime`` is the uploader's choice, None to recognise it from the files (bots.runtimes).

    Raises bots.services.BotServiceError, naming the problem, for an upload refused."""
    with transaction.atomic():
        version = bot_version_store(
            owner=owner, bot=bot, filename=filename, data=data, runtime=runtime
        )
        task_enqueue(BOT_VERSION_VALIDATE, version.pk)
    return version
