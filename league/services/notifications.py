"""A person's notices: written in the caller's transaction, shown in the site, mailed by a
task when the person asked for that kind by email (docs/web.md, *Notifications*).

Live pushes to open pages (a match's moves, a league's progress) are league.live_updates;
this module is what a person is told, kept until they read it.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from league.models import Match, Notification, NotificationKind, NotificationPreference

EMAIL_BY_DEFAULT: frozenset[str] = frozenset(
    {
        NotificationKind.YOUR_MOVE,
        NotificationKind.DEADLINE_NEAR,
        NotificationKind.MOVED_FOR_YOU,
        NotificationKind.INVITED,
    }
)
"""The kinds mailed to a person who has not chosen otherwise: the ones that cost a game
if missed, and invitations."""


def email_wanted(*, user_id: int, kind: str) -> bool:
    """Whether ``kind`` is mailed to the person: their choice, else the kind's default."""
    chosen = (
        NotificationPreference.objects.filter(user_id=user_id, kind=kind)
        .values_list("email", flat=True)
        .first()
    )
    return kind in EMAIL_BY_DEFAULT if chosen is None else bool(chosen)


def notify(
    *,
    user: AbstractBaseUser | int,
    kind: NotificationKind,
    key: str,
    text: str,
    url: str = "",
    match: Match | int | None = None,
) -> Notification | None:
    """Tell a person something, once per ``key`` (a second call with the same key writes
    nothing and returns None). Runs in the caller's transaction, so a notice is kept
    exactly when what it tells of is."""
    user_id = user if isinstance(user, int) else int(user.pk)
    match_id = match if isinstance(match, int) or match is None else match.pk
    if Notification.objects.filter(user_id=user_id, key=key).exists():
        return None
    try:
        with transaction.atomic():  # a savepoint: a concurrent twin must not spoil the caller
            return Notification.objects.create(
                user_id=user_id,
                kind=kind,
                key=key[:120],
                text=text[:400],
                url=url[:300],
                match_id=match_id,
                email_due=email_wanted(user_id=user_id, kind=kind),
            )
    except IntegrityError:
        return None
