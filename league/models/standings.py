"""The stored standings of a tournament, written by league.services.standings (docs/league.md)."""

from django.db import models
from django.utils import timezone

from league.models.tournaments import Tournament


class StandingsSnapshot(models.Model):
    """A tournament's standings: its lock, its rules and how many results its parts hold.
    ``version`` 0 means "to be rebuilt from the results" (new, or its rules or the parts'
    format changed)."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="standings_snapshot"
    )
    version = models.PositiveIntegerField(default=0, help_text="Parts' format; 0: rebuild.")
    rules = models.JSONField(default=dict, blank=True)
    results = models.PositiveIntegerField(default=0, help_text="Match results applied.")
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"standings of tournament {self.tournament_id} ({self.results} results)"


class StandingsPart(models.Model):
    """One part of a tournament's standings sums (league.domain.standings_maths'
    accumulator, and the margin rating's for Priffe): a player's sheet, a pair's
    head-to-head, a partnership,
    a duplicate board. A stored result updates only the few parts it touches, in the
    transaction that stores it."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="standings_parts"
    )
    key = models.CharField(max_length=60)
    data = models.JSONField()

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["tournament", "key"], name="standings_part_once"),
        )

    def __str__(self) -> str:
        return f"standings part {self.key} of tournament {self.tournament_id}"
