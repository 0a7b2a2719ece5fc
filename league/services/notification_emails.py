"""Mailing a person's notices (docs/web.md, *Notifications*): by the ``notification_email_send``
task, sent through the outbox when a notice that is to be mailed is written, and by the
``notification_emails_send_due`` pass that beat runs every minute for any notice still due
(one held back to be grouped, a lost task, a mail server that was down).

A person's notices go together: each send looks at all the person's notices still due and
mails them in one mail once one of them is ready (league.domain.mail_grouping: at once,
but a correspondence game at most once an hour; a digest every three hours at most); a
notice the person has read meanwhile (they moved) is not mailed at all.

A notice is mailed at most once: the send happens under the person's row lock, and
``emailed_at`` is set in the transaction that holds it, so two tasks at once (a duplicate
delivery, the task and the pass) send one mail; a send that fails leaves the notices due,
and the next pass tries again. The one gap left is a crash between the mail server's
acceptance and the commit: that mail may go twice (at least once, never lost).
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import Max
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext, ngettext

from league.display_settings import language_of
from league.domain.mail_grouping import DueNotice, mail_plan, mail_text
from league.models import AccountSettings, Notification, NotificationKind, TimeControl
from league.services.notifications import email_mode_of

logger = logging.getLogger(__name__)

PASS_BATCH = 200
"""The most people one pass mails."""


def absolute_url(path: str) -> str:
    """``path`` on the site as people reach it (the SITE_URL setting)."""
    if path.startswith(("http://", "https://")):
        return path
    return str(settings.SITE_URL).rstrip("/") + "/" + path.lstrip("/")


def notifications_email(notices: list[Notification], to: str) -> EmailMessage:
    """One mail of a person's notices, in their language (league.domain.mail_grouping's
    ``mail_text``): each notice's text with its absolute link, and how to change the mails."""
    kinds = list(dict.fromkeys(NotificationKind(n.kind) for n in notices))
    with translation.override(language_of(user_id=notices[0].user_id)):
        subject, body = mail_text(
            notices=[(n.text, absolute_url(n.url) if n.url else "") for n in notices],
            kind_labels=[str(kind.label) for kind in kinds],
            settings_url=absolute_url(reverse("web:notification-settings")),
            notifications_url=absolute_url(reverse("web:notifications")),
            gettext=gettext,
            ngettext=ngettext,
        )
    return EmailMessage(subject, body, settings.DEFAULT_FROM_EMAIL, [to])


def notification_email_send(*, notification_id: int, now: datetime | None = None) -> bool:
    """Mail the person of a notice their notices that are due, if one is ready
    (``person_notices_mail``); True if a mail was sent."""
    user_id = (
        Notification.objects.filter(pk=notification_id, email_due=True, emailed_at__isnull=True)
        .values_list("user_id", flat=True)
        .first()
    )
    if user_id is None:
        return False
    return person_notices_mail(user_id=user_id, now=now)


def person_notices_mail(*, user_id: int, now: datetime | None = None) -> bool:
    """Mail the person, in one mail, every notice of theirs still due, once one of them is
    ready (league.domain.mail_grouping); True if a mail was sent. Idempotent: a person
    another sender holds at this moment is left alone; a notice the person read meanwhile
    or no longer wants by mail, or a person without a confirmed address, is not due any more. A
    failed send raises after rolling back, so the notices stay due for the next pass."""
    now = now or timezone.now()
    with transaction.atomic():
        person = (
            get_user_model()
            .objects.select_for_update(skip_locked=True)
            .filter(pk=user_id)
            .only("pk", "email")
            .first()
        )
        if person is None:
            return False
        due = list(
            Notification.objects.filter(user_id=user_id, email_due=True, emailed_at__isnull=True)
            .select_related("match__tournament")
            .order_by("created_at", "id")
        )
        modes = {kind: email_mode_of(user_id=user_id, kind=kind) for kind in {n.kind for n in due}}
        last_mail_of_match = dict(
            Notification.objects.filter(
                user_id=user_id,
                match_id__in={n.match_id for n in due if n.match_id is not None},
                emailed_at__isnull=False,
            )
            .values("match_id")
            .annotate(last=Max("emailed_at"))
            .values_list("match_id", "last")
        )
        address = (getattr(person, "email", "") or "").strip()
        if (
            address
            and not AccountSettings.objects.filter(
                user_id=user_id, verified_email__iexact=address
            ).exists()
        ):
            address = ""  # one its person has not confirmed may be anyone's: never mailed
        chosen, dropped = mail_plan(
            [
                DueNotice(
                    id=n.pk,
                    mode=modes[n.kind],
                    created_at=n.created_at,
                    match_id=n.match_id,
                    correspondence=n.match is not None
                    and n.match.tournament.time_control == TimeControl.CORRESPONDENCE,
                    read=n.read_at is not None,
                )
                for n in due
            ],
            address=bool(address),
            last_mail_of_match=last_mail_of_match,
            now=now,
        )
        Notification.objects.filter(pk__in=dropped).update(email_due=False)
        if not chosen:
            return False
        by_id = {n.pk: n for n in due}
        notifications_email([by_id[pk] for pk in chosen], address).send(fail_silently=False)
        Notification.objects.filter(pk__in=chosen).update(email_due=False, emailed_at=now)
    return True


def notification_emails_send_due(*, now: datetime | None = None) -> int:
    """Mail each person with notices still due the ones that are ready (with the others
    due, in one mail each), up to PASS_BATCH people; how many mails were sent. A failed
    send is logged and the pass goes on: that person's notices stay due for the next one."""
    now = now or timezone.now()
    people = (
        Notification.objects.filter(email_due=True, emailed_at__isnull=True, created_at__lte=now)
        .values_list("user_id", flat=True)
        .distinct()
        .order_by("user_id")
    )
    sent = 0
    for user_id in list(people[:PASS_BATCH]):
        try:
            sent += person_notices_mail(user_id=user_id, now=now)
        except Exception:  # the mail server; the notices stay due
            logger.warning("person %s: the mail was not sent", user_id, exc_info=True)
    return sent
