"""Tournaments, their entries and rounds, and the schedule that starts rounds."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from league.models.accounts import Competitor
from league.models.clubs import Club


class TournamentFormat(models.TextChoices):
    ROUND_ROBIN = "round_robin", _("Round Robin")
    ROTATING_PARTNERS = "rotating_partners", _("Rotating Partners")
    SWISS = "swiss", _("Swiss")
    DUPLICATE = "duplicate", _("Duplicate")
    TABLE = "table", _("Table")
    """A casual table: a one-match tournament without a club."""
    LADDER = "ladder"
    """A ladder's rated games (league.services.ladders): no club, no rounds to start."""
    CHALLENGE = "challenge"
    """An author's unrated challenge on a ladder: one match, no club, no entrants."""


CLUBLESS_FORMATS = ("table", "ladder", "challenge")
"""Formats whose tournaments belong to no club."""


LEAGUE_FORMATS = [f.value for f in TournamentFormat if f.value not in CLUBLESS_FORMATS]
"""The formats a club's tournament may have (a table or a ladder is opened on its own)."""


class TournamentStatus(models.TextChoices):
    DRAFT = "draft", _("Draft")
    OPEN = "open", _("Open")
    RUNNING = "running", _("Running")
    PAUSED = "paused", _("Paused")
    FINISHED = "finished", _("Finished")


class TimeControl(models.TextChoices):
    """How long a person has for a move (docs/league.md, *Time controls*)."""

    LIVE = "live", _("live")
    """Seconds per move with a bank: everyone at the table at once."""
    CORRESPONDENCE = "correspondence", _("correspondence")
    """Hours or days per move, as lichess's correspondence games: people come and go."""


CORRESPONDENCE_MIN_SECONDS = 3600.0
"""The shortest move time of a correspondence game (an hour)."""


class Tournament(models.Model):
    name = models.CharField(max_length=120)
    club = models.ForeignKey(
        Club, null=True, blank=True, on_delete=models.PROTECT, related_name="tournaments"
    )
    game = models.CharField(max_length=200, help_text="Canonical game string (engine).")
    format = models.CharField(
        max_length=20, choices=TournamentFormat.choices, default=TournamentFormat.ROUND_ROBIN
    )
    rounds = models.PositiveIntegerField(default=1)
    deals = models.PositiveIntegerField(
        null=True, blank=True, help_text="Deals (or rubbers) per match, where the family has it."
    )
    move_seconds = models.FloatField(default=30.0, help_text="Per-move time limit.")
    time_bank_seconds = models.FloatField(default=60.0)
    time_control = models.CharField(
        max_length=20, choices=TimeControl.choices, default=TimeControl.LIVE
    )
    status = models.CharField(
        max_length=10, choices=TournamentStatus.choices, default=TournamentStatus.OPEN
    )
    seed = models.BigIntegerField(default=0, help_text="Drawn with secrets; for scheduling.")
    at_club = models.BooleanField(
        default=False,
        help_text="Played with real cards at the club's tables: no worker plays its matches; "
        "each table enters its scores (docs/league.md, A club night).",
    )
    totals_allowed = models.BooleanField(
        default=False, help_text="At the club: a table may enter game totals instead of deals."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = (
            models.CheckConstraint(
                name="tournament_format_valid",
                condition=Q(format__in=[f.value for f in TournamentFormat]),
            ),
            models.CheckConstraint(
                name="tournament_status_valid",
                condition=Q(status__in=[s.value for s in TournamentStatus]),
            ),
            models.CheckConstraint(name="tournament_rounds_positive", condition=Q(rounds__gte=1)),
            models.CheckConstraint(
                name="tournament_deals_positive", condition=Q(deals__isnull=True) | Q(deals__gte=1)
            ),
            models.CheckConstraint(
                name="tournament_time_control_positive",
                condition=Q(move_seconds__gt=0) & Q(time_bank_seconds__gte=0),
            ),
            models.CheckConstraint(
                name="tournament_time_control_valid",
                condition=Q(time_control__in=[t.value for t in TimeControl]),
            ),
            models.CheckConstraint(
                name="tournament_correspondence_takes_hours",
                condition=~Q(time_control="correspondence")
                | Q(move_seconds__gte=CORRESPONDENCE_MIN_SECONDS),
            ),
            models.CheckConstraint(
                name="tournament_club_unless_table",
                condition=Q(format__in=CLUBLESS_FORMATS) | Q(club__isnull=False),
            ),
            models.CheckConstraint(name="tournament_game_not_empty", condition=Q(game__gt="")),
        )

    def __str__(self) -> str:
        return self.name


class Entry(models.Model):
    """A competitor entered in a tournament."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    competitor = models.ForeignKey(Competitor, on_delete=models.PROTECT, related_name="entries")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("tournament_id", "id")
        verbose_name_plural = "entries"
        constraints = (
            models.UniqueConstraint(
                fields=["tournament", "competitor"], name="entry_once_per_tournament"
            ),
        )

    def __str__(self) -> str:
        return f"{self.competitor} in {self.tournament}"


class Round(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    play_by = models.DateTimeField(
        null=True,
        blank=True,
        help_text="The organiser's date by which the round's games are to be played.",
    )

    class Meta:
        ordering = ("tournament_id", "number")
        constraints = (
            models.UniqueConstraint(fields=["tournament", "number"], name="round_number_unique"),
            models.CheckConstraint(name="round_number_positive", condition=Q(number__gte=1)),
        )

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"


class RoundSchedule(models.Model):
    """Rounds started on a schedule: a celery beat entry of the database scheduler
    (django-celery-beat) that calls ``league.tasks.tournament_round_start_scheduled``."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="round_schedule"
    )
    periodic_task = models.OneToOneField(
        "django_celery_beat.PeriodicTask", on_delete=models.CASCADE, related_name="+"
    )
    cron = models.CharField(max_length=100, blank=True, help_text="m h dom mon dow, or empty.")
    interval_minutes = models.PositiveIntegerField(null=True, blank=True)
    time_zone = models.CharField(max_length=64, default="UTC", help_text="Of the cron entry.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = (
            models.CheckConstraint(
                name="round_schedule_cron_xor_interval",
                condition=(Q(cron__gt="") & Q(interval_minutes__isnull=True))
                | (Q(cron="") & Q(interval_minutes__gte=1)),
            ),
        )

    def __str__(self) -> str:
        every = self.cron or f"every {self.interval_minutes} min"
        return f"rounds of {self.tournament}: {every}"
