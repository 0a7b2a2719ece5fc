"""Ratings: the rated matches, the queue of results to rate, the ratings and their changes,
written by league.services.ratings (docs/league.md)."""

from django.db import models
from django.db.models import Q
from django.utils import timezone

from league.models.accounts import Competitor
from league.models.matches import Match
from league.models.results import MatchResult
from league.models.tournaments import Tournament


class RatedMatch(models.Model):
    """A result the ratings queue has rated; the id is the order of rating, which a
    recomputation replays (``recompute_ratings``)."""

    result = models.OneToOneField(MatchResult, on_delete=models.CASCADE, related_name="rated")
    family = models.CharField(max_length=40)
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("id",)
        verbose_name_plural = "rated matches"

    def __str__(self) -> str:
        return f"rated result of match {self.result_id}"


class RatingQueueEntry(models.Model):
    """A stored result waiting to be rated: inserted in the transaction that stores the
    result and deleted in the one that writes its ``RatedMatch``, so the ratings queue
    reads the few results waiting here (oldest first, by primary key) instead of looking
    for unrated results among every stored one (docs/league.md)."""

    result = models.OneToOneField(
        MatchResult, primary_key=True, on_delete=models.CASCADE, related_name="rating_queue"
    )

    class Meta:
        ordering = ("result_id",)
        verbose_name_plural = "rating queue entries"

    def __str__(self) -> str:
        return f"result {self.result_id} waiting to be rated"


class Rating(models.Model):
    """A competitor's openskill rating now: on a game family's leaderboard (no
    tournament) or within one tournament."""

    competitor = models.ForeignKey(Competitor, on_delete=models.CASCADE, related_name="ratings")
    family = models.CharField(max_length=40)
    tournament = models.ForeignKey(
        Tournament, null=True, blank=True, on_delete=models.CASCADE, related_name="ratings"
    )
    mu = models.FloatField()
    sigma = models.FloatField()
    conservative = models.FloatField(help_text="mu - 3 sigma: what a leaderboard shows.")
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-conservative", "competitor_id")
        constraints = (
            models.UniqueConstraint(
                fields=["competitor", "family"],
                condition=Q(tournament__isnull=True),
                name="rating_once_per_family",
            ),
            models.UniqueConstraint(
                fields=["competitor", "tournament"],
                condition=Q(tournament__isnull=False),
                name="rating_once_per_tournament",
            ),
            models.CheckConstraint(name="rating_sigma_positive", condition=Q(sigma__gt=0)),
        )
        indexes = (models.Index(fields=["family", "-conservative"], name="rating_leaderboard"),)

    def __str__(self) -> str:
        where = f"tournament {self.tournament_id}" if self.tournament_id else self.family
        return f"{self.competitor} in {where}: {self.conservative:.2f}"


class RatingChange(models.Model):
    """One competitor's rating after one rated match (the history), in one scope: the
    family's leaderboard (no tournament) or the match's tournament."""

    rated = models.ForeignKey(RatedMatch, on_delete=models.CASCADE, related_name="changes")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    competitor = models.ForeignKey(
        Competitor,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        db_index=False,  # rating_change_history starts with it
    )
    family = models.CharField(max_length=40)
    tournament = models.ForeignKey(
        Tournament, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu = models.FloatField()
    sigma = models.FloatField()
    conservative = models.FloatField()

    class Meta:
        ordering = ("rated_id", "competitor_id")
        constraints = (
            models.UniqueConstraint(
                fields=["rated", "competitor"],
                condition=Q(tournament__isnull=True),
                name="rating_change_once_per_family_match",
            ),
            models.UniqueConstraint(
                fields=["rated", "competitor", "tournament"],
                condition=Q(tournament__isnull=False),
                name="rating_change_once_per_tournament_match",
            ),
        )
        indexes = (
            models.Index(fields=["competitor", "family", "rated"], name="rating_change_history"),
        )

    def __str__(self) -> str:
        return f"{self.competitor} after match {self.match_id}: {self.conservative:.2f}"
