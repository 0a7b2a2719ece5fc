"""What a person is told, and which kinds they want."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from league.models.matches import Match


class NotificationKind(models.TextChoices):
    """What a person is told about (docs/web.md, *Notifications*)."""

    YOUR_MOVE = "your_move", _("A game awaits your move")
    DEADLINE_NEAR = "deadline_near", _("A deadline is near")
    MOVED_FOR_YOU = "moved_for_you", _("A move was played for you on timeout")
    INVITED = "invited", _("You were invited")
    ROUND_STARTED = "round_started", _("A round started")
    LEAGUE_FINISHED = "league_finished", _("A league finished")
    BOT_SUSPENDED = "bot_suspended", _("Your bot left a ladder after crashing")


class Notification(models.Model):
    """One thing a person is told, in the site and (by their choice) by email.

    ``key`` makes a notice idempotent: a second notice with the same key for the same
    person is not written (a retried task, two sweeps at once)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=20, choices=NotificationKind.choices)
    key = models.CharField(max_length=120)
    text = models.CharField(max_length=400)
    url = models.CharField(max_length=300, blank=True)
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    read_at = models.DateTimeField(null=True, blank=True)
    email_due = models.BooleanField(
        default=False, help_text="The person asked for this kind by email; not sent yet."
    )
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = (
            models.UniqueConstraint(fields=["user", "key"], name="notification_once_per_key"),
            models.CheckConstraint(
                name="notification_kind_valid",
                condition=Q(kind__in=[k.value for k in NotificationKind]),
            ),
        )
        indexes = (
            models.Index(
                fields=["user", "created_at"],
                condition=Q(read_at__isnull=True),
                name="notification_unread",
            ),
            models.Index(
                fields=["created_at"], condition=Q(email_due=True), name="notification_email_due"
            ),
        )

    def __str__(self) -> str:
        return f"{self.user}: {self.text[:60]}"


class EmailMode(models.TextChoices):
    """How a kind of notice comes by email: each at once (a game's notices grouped,
    league.services.notification_emails), gathered in a digest, or not at all."""

    IMMEDIATE = "immediate", _("At once")
    DIGEST = "digest", _("In a digest")
    OFF = "off", _("Not by email")


class NotificationPreference(models.Model):
    """A person's choice of whether a kind of notice also comes by email, at once or in a
    digest (a missing row means the kind's default, docs/web.md)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preferences"
    )
    kind = models.CharField(max_length=20, choices=NotificationKind.choices)
    email = models.BooleanField()
    digest = models.BooleanField(
        default=False,
        help_text="Mailed in a digest (several notices in one mail) rather than at once.",
    )

    class Meta:
        ordering = ("user_id", "kind")
        constraints = (
            models.UniqueConstraint(
                fields=["user", "kind"], name="notification_preference_once_per_kind"
            ),
            models.CheckConstraint(
                name="notification_preference_kind_valid",
                condition=Q(kind__in=[k.value for k in NotificationKind]),
            ),
        )

    def __str__(self) -> str:
        mode = "off" if not self.email else "digest" if self.digest else "immediate"
        return f"{self.user}: {self.kind} by email {mode}"
