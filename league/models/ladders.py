"""Ladders and their entrants, written by league.services.ladders (docs/league.md, *Ladders*)."""

from django.db import models
from django.db.models import Q
from django.utils import timezone

from league.models.accounts import Competitor
from league.models.tournaments import Tournament


class Ladder(models.Model):
    """An always-running ladder of one game (a family or a variant): its games are the
    matches of ``tournament`` (format ladder), its leaderboard that tournament's ratings."""

    slug = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=120)
    game = models.CharField(max_length=200, help_text="Canonical game string (engine).")
    family = models.CharField(max_length=40)
    tournament = models.OneToOneField(Tournament, on_delete=models.PROTECT, related_name="ladder")
    running = models.BooleanField(default=True, help_text="The matchmaker queues its games.")
    queued_limit = models.PositiveIntegerField(default=6, help_text="Its matches queued at most.")
    concurrent_limit = models.PositiveIntegerField(default=2, help_text="A version's, at most.")
    placement_games = models.PositiveIntegerField(default=10, help_text="A newcomer's first.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("name", "id")
        constraints = (
            models.CheckConstraint(
                name="ladder_limits_positive",
                condition=Q(queued_limit__gte=1) & Q(concurrent_limit__gte=1),
            ),
        )

    def __str__(self) -> str:
        return self.name


class LadderEntrantStatus(models.TextChoices):
    PLAYING = "playing"
    SUPERSEDED = "superseded"
    """A newer version of the same bot plays instead; still listed."""
    SUSPENDED = "suspended"
    """Crashed or failed to start in LADDER_SUSPEND_AFTER matches in a row."""


class LadderEntrant(models.Model):
    """A bot version on a ladder: a built-in anchor or an uploaded version. The owner's
    choices (``opted_out``, ``challengeable``) pass to the bot's next version."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="entrants")
    competitor = models.ForeignKey(Competitor, on_delete=models.PROTECT, related_name="+")
    bot = models.ForeignKey("bots.Bot", on_delete=models.PROTECT, related_name="+")
    anchor = models.BooleanField(default=False, help_text="A built-in bot anchoring the scale.")
    status = models.CharField(
        max_length=12, choices=LadderEntrantStatus.choices, default=LadderEntrantStatus.PLAYING
    )
    opted_out = models.BooleanField(default=False, help_text="The owner took it off the ladder.")
    challengeable = models.BooleanField(default=True, help_text="Other authors may challenge it.")
    consecutive_failures = models.PositiveIntegerField(default=0, help_text="Crashes in a row.")
    suspended_at = models.DateTimeField(null=True, blank=True)
    suspension_faults = models.JSONField(default=list, blank=True)
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("ladder_id", "id")
        constraints = (
            models.UniqueConstraint(
                fields=["ladder", "competitor"], name="ladder_entrant_once_per_ladder"
            ),
            models.CheckConstraint(
                name="ladder_entrant_status_valid",
                condition=Q(status__in=[s.value for s in LadderEntrantStatus]),
            ),
            models.CheckConstraint(
                name="ladder_entrant_suspended_has_time",
                condition=~Q(status="suspended") | Q(suspended_at__isnull=False),
            ),
        )

    def __str__(self) -> str:
        return f"{self.competitor} on {self.ladder} ({self.status})"
