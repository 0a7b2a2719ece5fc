"""Reads of a person's notices and their email choices (docs/web.md, *Notifications*).
A person reads their own notices only: every read here takes the person, never an id of
someone else.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from league.domain.mail_grouping import IMMEDIATE, OFF, email_mode
from league.errors import NotAllowedError
from league.models import Notification, NotificationKind, NotificationPreference

NOTICES_SHOWN = 50
"""How many notices a page of the list holds."""

EMAIL_BY_DEFAULT: frozenset[str] = frozenset(
    {
        NotificationKind.YOUR_MOVE,
        NotificationKind.DEADLINE_NEAR,
        NotificationKind.MOVED_FOR_YOU,
        NotificationKind.INVITED,
        NotificationKind.BOT_SUSPENDED,
    }
)
"""The kinds mailed to a person who has not chosen otherwise: the ones that cost a game
if missed (a bot taken off a ladder too), and invitations (league.services.notifications
mails by it)."""

Person = AbstractBaseUser | AnonymousUser


def _person_id(user: Person) -> int:
    if not user.is_authenticated:
        raise NotAllowedError(_("log in to see your notifications"))
    return int(user.pk)


def notifications_of(*, user: Person, limit: int = NOTICES_SHOWN) -> QuerySet[Notification]:
    """The person's newest ``limit`` notices, newest first."""
    notices = Notification.objects.filter(user_id=_person_id(user))
    return notices.order_by("-created_at", "-id")[:limit]


def notification_preferences_of(*, user: Person) -> list[dict[str, Any]]:
    """Every kind of notice with whether and how it is mailed to the person (``mode``:
    immediate, digest or off): their choice, else the kind's default (``chosen`` says
    which)."""
    chosen = {
        kind: email_mode(email=email, digest=digest)
        for kind, email, digest in NotificationPreference.objects.filter(
            user_id=_person_id(user)
        ).values_list("kind", "email", "digest")
    }
    rows = []
    for kind in NotificationKind:
        default = IMMEDIATE if kind.value in EMAIL_BY_DEFAULT else OFF
        mode = chosen.get(kind.value, default)
        rows.append(
            {
                "kind": kind.value,
                "description": kind.label,
                "email": mode != OFF,
                "mode": mode,
                "email_by_default": kind.value in EMAIL_BY_DEFAULT,
                "chosen": kind.value in chosen,
            }
        )
    return rows
