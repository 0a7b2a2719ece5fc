"""Club nights: who comes to a round, the tables' score sheets and an organiser's
corrections."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from league.models.matches import Match
from league.models.tournaments import Tournament


class RoundAttendance(models.Model):
    """Who is at the club for a round of a league played at the club: the organiser says
    it before the round starts (docs/league.md, *A club night*). ``present``: the entrants
    who play; ``reserves``: club members who are no entrants, seated at a short table
    (their scores do not count in the standings); ``byes``: the players the plan left
    without a table (filled in when the round starts)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="attendances")
    number = models.PositiveIntegerField(help_text="The round this attendance is for.")
    present = models.JSONField(default=list, help_text="Competitor ids of the entrants present.")
    reserves = models.JSONField(default=list, blank=True, help_text="Competitor ids of reserves.")
    byes = models.JSONField(default=list, blank=True, help_text="Present but left without a table.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("tournament_id", "number")
        constraints = (
            models.UniqueConstraint(
                fields=["tournament", "number"], name="round_attendance_once_per_round"
            ),
        )

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}: {len(self.present)} present"


class TableSheetStatus(models.TextChoices):
    OPEN = "open"
    """Nothing entered yet."""
    ENTERED = "entered"
    """Scores entered, waiting for a second player or the organiser to confirm."""
    CONFIRMED = "confirmed"
    """Confirmed: the result is stored and the code no longer opens the entry page."""


class TableSheet(models.Model):
    """The score sheet of one table of a round played at the club: its two entry codes,
    one for each side of the table (valid for this table and round only, until confirmed,
    closed or expired), what was entered, from which version, by which seat and phone,
    and who confirmed it (a player of the other side, or the organiser)."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="table_sheet")
    code = models.CharField(
        max_length=12, unique=True, help_text="The entry code of the table's first side."
    )
    second_side_code = models.CharField(
        max_length=12,
        unique=True,
        null=True,
        blank=True,
        help_text="The entry code of the table's second side (none on sheets of old rounds).",
    )
    version = models.PositiveIntegerField(
        default=0, help_text="How many times scores were entered: an entry names the one it saw."
    )
    entered_phone = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="A digest of the session that entered: that phone does not confirm.",
    )
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text="When the organiser closed the club night's codes."
    )
    status = models.CharField(
        max_length=10, choices=TableSheetStatus.choices, default=TableSheetStatus.OPEN
    )
    entry = models.JSONField(null=True, blank=True, help_text="One object per deal, or null.")
    totals = models.JSONField(null=True, blank=True, help_text="Game totals, when allowed.")
    entered_seat = models.SmallIntegerField(null=True, blank=True)
    entered_at = models.DateTimeField(null=True, blank=True)
    confirmed_seat = models.SmallIntegerField(null=True, blank=True)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("match_id",)
        constraints = (
            models.CheckConstraint(
                name="table_sheet_status_valid",
                condition=Q(status__in=[s.value for s in TableSheetStatus]),
            ),
            models.CheckConstraint(
                name="table_sheet_confirmed_has_time",
                condition=~Q(status="confirmed") | Q(confirmed_at__isnull=False),
            ),
        )

    def __str__(self) -> str:
        return f"table sheet of match {self.match_id} ({self.status})"


class ScoreCorrection(models.Model):
    """An organiser's correction of a table's confirmed scores: who, when, from what to
    what (the entries and the scores), and why. Shown on the match."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="score_corrections")
    corrected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    corrected_at = models.DateTimeField(default=timezone.now)
    before = models.JSONField(help_text="The entry (or totals) and scores before.")
    after = models.JSONField(help_text="The entry (or totals) and scores after.")
    reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ("match_id", "corrected_at", "id")

    def __str__(self) -> str:
        return f"correction of match {self.match_id} at {self.corrected_at:%Y-%m-%d %H:%M}"
