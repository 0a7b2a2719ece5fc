"""Mailing a person's notices (docs/web.md, *Notifications*): by the ``notification_email_send``
task, sent through the outbox when a notice that is to be mailed is written, and by the
``notification_emails_send_due`` pass that beat runs every minute for any notice still due
(a lost task, a mail server that was down).

A notice is mailed at most once: the send happens under the notice's row lock, and
``emailed_at`` is set in the transaction that holds it, so two tasks for one notice (a
duplicate delivery, the task and the pass at once) send one mail; a send that fails leaves
the notice due, and the next pass tries again. The one gap left is a crash between the mail
server's acceptance and the commit: that mail may go twice (at least once, never lost).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext

from league.display_settings import language_of
from league.models import AccountSettings, Notification, NotificationKind
from league.services.notifications import email_wanted

logger = logging.getLogger(__name__)

DUE_AFTER_SECONDS = 60.0
"""The periodic pass leaves a notice this young to its own task (sent at once on commit)."""
PASS_BATCH = 200
"""The most notices one pass sends."""


def absolute_url(path: str) -> str:
    """``path`` on the site as people reach it (the SITE_URL setting)."""
    if path.startswith(("http://", "https://")):
        return path
    return str(settings.SITE_URL).rstrip("/") + "/" + path.lstrip("/")


def notification_email(notice: Notification, to: str) -> EmailMessage:
    """The mail of a notice, in the person's language: a plain subject, the notice's text,
    its absolute link and a footer saying how to change which events mail the person."""
    kind = NotificationKind(notice.kind)
    with translation.override(language_of(user_id=notice.user_id)):
        subject = gettext("%(kind)s · King League") % {"kind": kind.label}
        lines = [notice.text, ""]
        if notice.url:
            lines += [absolute_url(notice.url), ""]
        settings_url = absolute_url(reverse("web:notification-settings"))
        lines += [
            "--",
            gettext('You receive this mail because your settings mail you "%(kind)s".')
            % {"kind": kind.label},
            gettext("Choose which events mail you: %(url)s") % {"url": settings_url},
            gettext("All your notifications: %(url)s")
            % {"url": absolute_url(reverse("web:notifications"))},
        ]
    return EmailMessage(
        subject=subject,
        body="\n".join(lines),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
    )


def notification_email_send(*, notification_id: int, now: datetime | None = None) -> bool:
    """Mail one notice if it is still due; True if a mail was sent. Idempotent: a notice
    mailed already, or locked by another sender at this moment, is left alone. A failed
    send raises after rolling back, so the notice stays due for the next pass."""
    with transaction.atomic():
        notice = (
            Notification.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("user")
            .filter(pk=notification_id, email_due=True, emailed_at__isnull=True)
            .first()
        )
        if notice is None:
            return False
        address = notice.user.email.strip()
        verified = (
            bool(address)
            and AccountSettings.objects.filter(
                user_id=notice.user_id, verified_email__iexact=address
            ).exists()
        )
        if not verified or not email_wanted(user_id=notice.user_id, kind=notice.kind):
            # Nowhere to send it (no address, or one its person has not confirmed: it may
            # be anyone's), or the person changed their mind: not due any more.
            notice.email_due = False
            notice.save(update_fields=["email_due"])
            return False
        notification_email(notice, address).send(fail_silently=False)
        notice.email_due = False
        notice.emailed_at = now or timezone.now()
        notice.save(update_fields=["email_due", "emailed_at"])
    return True


def notification_emails_send_due(*, now: datetime | None = None) -> int:
    """Mail the notices still due (older than DUE_AFTER_SECONDS: a younger one's own task
    is on its way), oldest first, up to PASS_BATCH; how many were sent. A failed send is
    logged and the pass goes on: that notice stays due for the next one."""
    now = now or timezone.now()
    due = Notification.objects.filter(
        email_due=True,
        emailed_at__isnull=True,
        created_at__lte=now - timedelta(seconds=DUE_AFTER_SECONDS),
    ).order_by("created_at", "id")
    sent = 0
    for notification_id in list(due.values_list("id", flat=True)[:PASS_BATCH]):
        try:
            sent += notification_email_send(notification_id=notification_id, now=now)
        except Exception:  # the mail server; the notice stays due
            logger.warning("notice %s: the mail was not sent", notification_id, exc_info=True)
    return sent
