"""Competitors: a person's account or a bot version, one competitor each."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db import IntegrityError, transaction

from bots.models import BotVersion
from bots.services import BotServiceError, builtin_version_get_or_create
from league.errors import InvalidInputError, NotAllowedError
from league.models import Competitor

User = Account | AnonymousUser


def competitor_for_user(*, user: Account) -> Competitor:
    """The competitor of a person's account, created on first use."""
    competitor = Competitor.objects.filter(user_id=user.pk).first()
    if competitor is not None:
        return competitor
    try:
        with transaction.atomic():
            return Competitor.objects.create(user=user, name=user.get_username())
    except IntegrityError:
        return Competitor.objects.get(user_id=user.pk)


def competitor_for_bot_version(*, version: BotVersion) -> Competitor:
    """The competitor of a bot version, created on first use."""
    competitor = Competitor.objects.filter(bot_version=version).first()
    if competitor is not None:
        return competitor
    try:
        with transaction.atomic():
            return Competitor.objects.create(bot_version=version, name=version.label_for_league)
    except IntegrityError:
        return Competitor.objects.get(bot_version=version)


def competitor_builtin(
    *, name: str, options: dict[str, Any] | None = None, bot_name: str | None = None
) -> Competitor:
    """The competitor of a built-in bot (``builtin:NAME``), created on first use."""
    try:
        version = builtin_version_get_or_create(name=name, options=options, bot_name=bot_name)
    except BotServiceError as exc:
        raise InvalidInputError(str(exc)) from None
    return competitor_for_bot_version(version=version)


def competitor_create(
    *, actor: User, user_id: int | None = None, bot_version_id: int | None = None
) -> Competitor:
    """The competitor for the caller's own account, or for a bot version: its owner's
    (or anyone's, for a built-in bot), once it is active."""
    if not actor.is_authenticated:
        raise NotAllowedError("log in to create a competitor")
    assert isinstance(actor, Account)
    if (user_id is None) == (bot_version_id is None):
        raise InvalidInputError(
            "give exactly one of 'user' (your own account) or 'bot_version'",
            errors={"non_field_errors": ["exactly one of user, bot_version"]},
        )
    if user_id is not None:
        if user_id != actor.pk and not getattr(actor, "is_staff", False):
            raise NotAllowedError("you may only create the competitor of your own account")
        user = Account.objects.filter(pk=user_id).first()
        if user is None:
            raise InvalidInputError(f"user: no user {user_id}", errors={"user": ["no such user"]})
        return competitor_for_user(user=user)
    assert bot_version_id is not None
    version = BotVersion.objects.select_related("bot").filter(pk=bot_version_id).first()
    if version is None:
        raise InvalidInputError(
            f"bot_version: no bot version {bot_version_id}", errors={"bot_version": ["not found"]}
        )
    if version.bot.owner_id is not None and version.bot.owner_id != actor.pk:
        raise NotAllowedError("only the bot's owner may enter its versions")
    if version.status != BotVersion.Status.ACTIVE:
        raise InvalidInputError(
            f"bot_version: version {version.number} of {version.bot.name} is {version.status}, "
            "not active (it must pass its validation game first)"
        )
    return competitor_for_bot_version(version=version)
