"""Who plays and how the site shows itself to a person: competitors (a person's
account or a bot version) and a person's display settings."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from bots.models import BotVersion


class Competitor(models.Model):
    """What takes a seat: a person's account or a bot version, never both."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="competitor",
    )
    bot_version = models.OneToOneField(
        BotVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="competitor"
    )
    name = models.CharField(max_length=120)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("name", "id")
        constraints = (
            models.CheckConstraint(
                name="competitor_person_xor_bot",
                condition=Q(user__isnull=False, bot_version__isnull=True)
                | Q(user__isnull=True, bot_version__isnull=False),
            ),
        )

    def __str__(self) -> str:
        return self.name

    @property
    def kind(self) -> str:
        return "person" if self.user_id is not None else "bot"


class PersonDisplaySettings(models.Model):
    """How the site speaks to a person and draws their cards (docs/web.md, *Languages and
    display*): their language (blank: the browser's preference), their time zone (blank:
    the site's, UTC), a four-colour deck and large cards. A missing row means all defaults."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="display_settings"
    )
    language = models.CharField(max_length=10, blank=True)
    time_zone = models.CharField(max_length=64, blank=True)
    four_colour_deck = models.BooleanField(default=False)
    large_cards = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"{self.user}: {self.language or 'browser'} {self.time_zone or 'UTC'}"
