"""A finished match's result and its analysis."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from league.models.matches import Match


class MatchResult(models.Model):
    """The one result of a finished match, written with the seats' outcomes in one
    transaction; the unique match makes a second completion impossible."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="result")
    scores = models.JSONField()
    outcomes = models.JSONField(help_text="Per seat: ok, timeout, crash, ..., forfeit.")
    faults = models.JSONField(default=list, blank=True)
    standings_input = models.JSONField(
        help_text="What standings need: per seat the competitor, score and outcome."
    )
    record = models.JSONField(help_text="The complete game record (docs/record-format.md).")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("match_id",)

    def __str__(self) -> str:
        return f"result of match {self.match_id}: {self.scores}"


class AnalysisStatus(models.TextChoices):
    QUEUED = "queued", _("queued")
    RUNNING = "running", _("running")
    DONE = "done", _("done")
    FAILED = "failed", _("failed")


class MatchAnalysis(models.Model):
    """The analysis of a finished match's card play (engine/analysis.py; written by
    league.services.analysis on the `analysis` queue). One per match: a new request
    replaces it. ``cards`` has a verdict per card played, including the ones not analysed
    (with their reason), which ``not_analysed`` counts. A worker that dies while it runs
    leaves it RUNNING: the sweep gives it to another (``attempts``) once it has run longer
    than an analysis may (league.services.analysis.analysis_lost_after)."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(
        max_length=8, choices=AnalysisStatus.choices, default=AnalysisStatus.QUEUED
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_at = models.DateTimeField(default=timezone.now)
    queued_at = models.DateTimeField(
        default=timezone.now, help_text="When its task was last sent (the sweep resends it)."
    )
    started_at = models.DateTimeField(
        null=True, blank=True, help_text="When a worker last began it (RUNNING since then)."
    )
    attempts = models.PositiveSmallIntegerField(
        default=0, help_text="Workers that began it since it was asked for."
    )
    finished_at = models.DateTimeField(null=True, blank=True)
    settings = models.JSONField(default=dict, blank=True, help_text="AnalysisSettings used.")
    cards = models.JSONField(default=list, blank=True, help_text="A verdict per card played.")
    summary = models.JSONField(default=list, blank=True, help_text="Per seat: accuracy, marks.")
    deals = models.JSONField(default=list, blank=True, help_text="Per deal: losses per trick.")
    analysed = models.PositiveIntegerField(default=0)
    not_analysed = models.PositiveIntegerField(default=0)
    seconds = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True, default="")

    class Meta:
        constraints = (
            models.CheckConstraint(
                condition=~Q(status="done") | Q(finished_at__isnull=False),
                name="analysis_done_has_finished_at",
            ),
        )

    def __str__(self) -> str:
        return f"analysis of match {self.match_id}: {self.status}"
