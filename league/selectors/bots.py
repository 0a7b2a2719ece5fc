"""The reads of bots and their versions (lists, one bot, one version, its validation report
and its latest faults), and who may read a bot's and a seat's private data.

A bot's private data (its versions' validation logs, its faults' messages and the stderr
kept with them, which holds tracebacks with the bot's own source lines) is read through
``can_read_bot_private`` only: its owner and staff see it, everyone else sees outcomes and
fault kinds (``bot_report_public``, ``fault_public``, ``record_for_viewer``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from bots.models import Bot, BotFault, BotVersion
from league.errors import NotFoundError
from league.models import Competitor, MatchSeat

User = Account | AnonymousUser


def can_read_bot_private(*, user: User, bot: Bot) -> bool:
    """The one rule for a bot's private data: its owner and staff. A built-in bot belongs to
    nobody, so only staff see its faults' messages and tracebacks."""
    if not user.is_authenticated:
        return False
    if getattr(user, "is_staff", False):
        return True
    return bot.owner_id is not None and bot.owner_id == user.pk


def can_read_competitor_private(*, user: User, competitor: Competitor) -> bool:
    """A seat's fault messages: the bot's (``can_read_bot_private``), or for a person's seat
    that person's and staff's."""
    version = competitor.bot_version
    if version is not None:
        return can_read_bot_private(user=user, bot=version.bot)
    if not user.is_authenticated:
        return False
    return bool(getattr(user, "is_staff", False)) or competitor.user_id == user.pk


PUBLIC_FAULT_FIELDS = ("seat", "cause", "decision", "deal", "fallback")
"""What anyone sees of a fault: where it happened, its kind and the action played instead
(the replay shows that action anyway); never its message."""


PUBLIC_REPORT_FIELDS = ("structure", "game", "outcome", "scores")
"""What anyone sees of a version's validation report besides the version's status."""


def fault_public(fault: dict[str, Any]) -> dict[str, Any]:
    return {key: fault[key] for key in PUBLIC_FAULT_FIELDS if key in fault}


def bot_report_public(report: dict[str, Any]) -> dict[str, Any]:
    """A validation report without the bot's log, its faults' messages or the problem's
    text (which may quote the bot)."""
    public = {key: report[key] for key in PUBLIC_REPORT_FIELDS if key in report}
    faults = report.get("faults")
    if isinstance(faults, list):
        public["faults"] = [fault_public(f) for f in faults if isinstance(f, dict)]
    return public


def record_for_viewer(
    *, record: dict[str, Any], seats: Iterable[MatchSeat], user: User
) -> dict[str, Any]:
    """A game record as ``user`` may see it: the faults in ``meta.faults`` keep their
    messages only for the seats whose private data ``user`` may read."""
    meta = record.get("meta")
    faults = meta.get("faults") if isinstance(meta, dict) else None
    if not isinstance(meta, dict) or not isinstance(faults, list) or not faults:
        return record
    readable = {
        s.seat for s in seats if can_read_competitor_private(user=user, competitor=s.competitor)
    }
    shown = [
        f if f.get("seat") in readable else fault_public(f) for f in faults if isinstance(f, dict)
    ]
    return {**record, "meta": {**meta, "faults": shown}}


def bot_version_report_for(*, user: User, version: BotVersion) -> dict[str, Any]:
    report = dict(version.report or {})
    return report if can_read_bot_private(user=user, bot=version.bot) else bot_report_public(report)


def bot_list() -> QuerySet[Bot]:
    return (
        Bot.objects.select_related("owner")
        .prefetch_related("families")
        .order_by("kind", "name", "id")
    )


def bot_get(*, bot_id: int, with_versions: bool = False) -> Bot:
    """The bot, with its owner (and, ``with_versions``, its versions and their
    competitors); NotFoundError if there is none."""
    bots = Bot.objects.select_related("owner").prefetch_related("families")
    if with_versions:
        bots = bots.prefetch_related("versions__competitor")
    bot = bots.filter(pk=bot_id).first()
    if bot is None:
        raise NotFoundError(_("no bot %(bot_id)s") % {"bot_id": bot_id})
    return bot


def bots_without_family(*, user: User) -> list[Bot]:
    """The person's uploaded bots of no game family (stored before families were
    required): they play no ladder until a family is named, so their owner is asked to."""
    if not user.is_authenticated:
        return []
    return list(
        Bot.objects.filter(
            owner_id=user.pk, kind=Bot.Kind.UPLOADED, families__isnull=True
        ).order_by("name", "id")
    )


def bot_version_list(*, bot: Bot) -> QuerySet[BotVersion]:
    return bot.versions.select_related("bot", "competitor").order_by("number")


def bot_version_get(*, version_id: int) -> BotVersion:
    version = BotVersion.objects.select_related("bot", "competitor").filter(pk=version_id).first()
    if version is None:
        raise NotFoundError(_("no bot version %(version_id)s") % {"version_id": version_id})
    return version


BOT_VERSION_FAULTS_SHOWN = 50


def bot_version_faults_for(*, version: BotVersion, user: User) -> list[BotFault]:
    """A version's latest faults, newest first; their messages are None for anyone who may
    not read the bot's private data (``can_read_bot_private``). The faults are not saved."""
    faults = list(version.faults.order_by("-created_at", "-id")[:BOT_VERSION_FAULTS_SHOWN])
    if not can_read_bot_private(user=user, bot=version.bot):
        for fault in faults:
            fault.message = None  # type: ignore[assignment]
    return faults
