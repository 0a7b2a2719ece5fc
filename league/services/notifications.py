"""A person's notices: written in the caller's transaction, shown in the site, mailed by a
task when the person asked for that kind by email (docs/web.md, *Notifications*).

Live pushes to open pages (a match's moves, a league's progress) are league.live_updates;
this module is what a person is told, kept until they read it. What the notices about a
match say is league.services.match_notices; sending the emails is
league.services.notification_emails.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from league.domain.mail_grouping import (
    DIGEST,
    EMAIL_MODES,
    IMMEDIATE,
    OFF,
    email_mode,
    preference_problem,
)
from league.errors import InvalidInputError, NotAllowedError, NotFoundError
from league.live_updates import person_updated
from league.models import Match, Notification, NotificationKind, NotificationPreference
from league.selectors.notifications import EMAIL_BY_DEFAULT
from league.services.task_outbox import task_enqueue
from league.task_names import NOTIFICATION_EMAIL_SEND


def email_mode_of(*, user_id: int, kind: str) -> str:
    """How ``kind`` is mailed to the person (league.domain.mail_grouping's IMMEDIATE,
    DIGEST or OFF): their choice, else the kind's default (at once, or off)."""
    chosen = (
        NotificationPreference.objects.filter(user_id=user_id, kind=kind)
        .values_list("email", "digest")
        .first()
    )
    if chosen is None:
        return IMMEDIATE if kind in EMAIL_BY_DEFAULT else OFF
    return email_mode(email=chosen[0], digest=chosen[1])


def email_wanted(*, user_id: int, kind: str) -> bool:
    """Whether ``kind`` is mailed to the person (at once or in a digest)."""
    return email_mode_of(user_id=user_id, kind=kind) != OFF


def notify(
    *,
    user: AbstractBaseUser | int,
    kind: NotificationKind,
    key: str,
    text: str,
    url: str = "",
    match: Match | int | None = None,
    email: bool = True,
) -> Notification | None:
    """Tell a person something, once per ``key`` (a second call with the same key writes
    nothing and returns None). Runs in the caller's transaction, so a notice is kept
    exactly when what it tells of is. It is mailed if the person wants that kind by email
    (``email_wanted``) unless ``email`` is False (a live player is at the table): the
    email task is sent through the outbox, with the notice."""
    user_id = user if isinstance(user, int) else int(user.pk)
    match_id = match if isinstance(match, int) or match is None else match.pk
    if Notification.objects.filter(user_id=user_id, key=key[:120]).exists():
        return None
    try:
        with transaction.atomic():  # a savepoint: a concurrent twin must not spoil the caller
            notice = Notification.objects.create(
                user_id=user_id,
                kind=kind,
                key=key[:120],
                text=text[:400],
                url=url[:300],
                match_id=match_id,
                email_due=email and email_wanted(user_id=user_id, kind=kind),
            )
    except IntegrityError:
        return None
    if notice.email_due:
        task_enqueue(NOTIFICATION_EMAIL_SEND, notice.pk)
    person_updated(user_id)
    return notice


def _person_id(user: AbstractBaseUser | AnonymousUser) -> int:
    if not user.is_authenticated:
        raise NotAllowedError(_("log in to see your notifications"))
    return int(user.pk)


@transaction.atomic
def notification_read(
    *, user: AbstractBaseUser | AnonymousUser, notification_id: int, now: datetime | None = None
) -> Notification:
    """Mark one of the person's notices read (reading it again changes nothing).
    NotFoundError for a notice that is not theirs: another's notices are not even named."""
    user_id = _person_id(user)
    notice = (
        Notification.objects.select_for_update().filter(pk=notification_id, user_id=user_id).first()
    )
    if notice is None:
        raise NotFoundError(
            _("you have no notification %(notification_id)s") % {"notification_id": notification_id}
        )
    if notice.read_at is None:
        notice.read_at = now or timezone.now()
        notice.save(update_fields=["read_at"])
        person_updated(user_id)
    return notice


@transaction.atomic
def notifications_read_all(
    *, user: AbstractBaseUser | AnonymousUser, now: datetime | None = None
) -> int:
    """Mark all the person's notices read; how many were unread."""
    user_id = _person_id(user)
    count = Notification.objects.filter(user_id=user_id, read_at__isnull=True).update(
        read_at=now or timezone.now()
    )
    if count:
        person_updated(user_id)
    return count


def match_notices_done(*, user_id: int, match_id: int, kinds: Iterable[str], now: datetime) -> int:
    """Mark read the person's unread notices of ``kinds`` about a match (they moved there:
    the your-move and deadline notices are answered), in the caller's transaction."""
    count = Notification.objects.filter(
        user_id=user_id, match_id=match_id, kind__in=list(kinds), read_at__isnull=True
    ).update(read_at=now)
    if count:
        person_updated(user_id)
    return count


@transaction.atomic
def notification_preferences_set(
    *,
    user: AbstractBaseUser | AnonymousUser,
    email: Mapping[str, bool] | None = None,
    modes: Mapping[str, str] | None = None,
) -> None:
    """Set whether each named kind of notice is mailed to the person (``email``: on or
    off, a digest staying a digest) or how (``modes``: ``immediate``, ``digest`` or
    ``off``); kinds not named keep their setting. InvalidInputError naming an unknown kind
    or mode; nothing is written then."""
    user_id = _person_id(user)
    email = dict(email or {})
    modes = dict(modes or {})
    problem = preference_problem(kinds=NotificationKind.values, email=email, modes=modes)
    if problem is not None and problem[0] == "kind":
        raise InvalidInputError(
            _("email: unknown kind %(repr)s; the kinds are ") % {"repr": repr(problem[1])}
            + ", ".join(NotificationKind.values),
            errors={"email": [f"unknown kind {problem[1]!r}"]},
        )
    if problem is not None:
        raise InvalidInputError(
            _("mode: for %(kind)s choose immediate, digest or off") % {"kind": problem[1]},
            errors={"mode": [f"{problem[1]}: one of {', '.join(EMAIL_MODES)}"]},
        )
    for kind, wanted in email.items():
        NotificationPreference.objects.update_or_create(
            user_id=user_id, kind=kind, defaults={"email": bool(wanted)}
        )
    for kind, mode in modes.items():
        NotificationPreference.objects.update_or_create(
            user_id=user_id, kind=kind, defaults={"email": mode != OFF, "digest": mode == DIGEST}
        )
        email[kind] = mode != OFF
    if not all(email.values()):
        # A notice whose mail is not sent yet follows the new choice.
        Notification.objects.filter(
            user_id=user_id,
            kind__in=[kind for kind, wanted in email.items() if not wanted],
            email_due=True,
            emailed_at__isnull=True,
        ).update(email_due=False)
