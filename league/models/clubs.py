"""Clubs, their members' roles and the invitations to join them."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Role(models.TextChoices):
    OWNER = "owner", _("Owner")
    ORGANISER = "organiser", _("Organiser")
    PLAYER = "player", _("Player")


ROLE_VALUES = [role.value for role in Role]


class Club(models.Model):
    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.PLAYER)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("club_id", "id")
        constraints = (
            models.UniqueConstraint(fields=["club", "user"], name="membership_once_per_club"),
            models.CheckConstraint(name="membership_role_valid", condition=Q(role__in=ROLE_VALUES)),
        )

    def __str__(self) -> str:
        return f"{self.user} in {self.club} ({self.role})"


class Invitation(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="invitations")
    code = models.CharField(max_length=64, unique=True)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.PLAYER)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    accepted_at = models.DateTimeField(null=True, blank=True)
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="club_invitations",
        help_text="A personal invitation: only this person may accept (or decline) it.",
    )
    declined_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)
        constraints = (
            models.CheckConstraint(name="invitation_role_valid", condition=Q(role__in=ROLE_VALUES)),
            models.CheckConstraint(
                name="invitation_accepted_by_its_invitee",
                condition=Q(invitee__isnull=True)
                | Q(accepted_by__isnull=True)
                | Q(accepted_by=F("invitee")),
            ),
            models.CheckConstraint(
                name="invitation_declined_only_personal_and_unaccepted",
                condition=Q(declined_at__isnull=True)
                | Q(invitee__isnull=False, accepted_at__isnull=True),
            ),
            models.UniqueConstraint(
                fields=["club", "invitee"],
                condition=Q(
                    invitee__isnull=False, accepted_at__isnull=True, declined_at__isnull=True
                ),
                name="invitation_personal_pending_once",
            ),
            models.CheckConstraint(
                name="invitation_accepted_by_iff_at",
                condition=Q(accepted_by__isnull=True, accepted_at__isnull=True)
                | Q(accepted_by__isnull=False, accepted_at__isnull=False),
            ),
            models.CheckConstraint(
                name="invitation_expires_after_creation",
                condition=Q(expires_at__gt=F("created_at")),
            ),
        )

    def __str__(self) -> str:
        to = f" for {self.invitee}" if self.invitee_id is not None else ""
        return f"invitation to {self.club} as {self.role}{to}"
