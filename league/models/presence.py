"""Who is at a live table (docs/web.md, *Presence*): one row per open WebSocket of a seat's
person, kept alive by the page's heartbeat, and the votes of the others to seat a bot for
a person who is gone."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from league.models.matches import Match


class SeatConnection(models.Model):
    """One open socket of the person at a seat (a tab of their table). It counts while it
    is open and its heartbeat is fresh (league.domain.presence.CONNECTION_TTL_SECONDS), so
    a web process that dies leaves nothing counted for long; a closed one keeps the moment
    it closed, which says since when the person is gone."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField()
    channel = models.CharField(max_length=200, unique=True)
    opened_at = models.DateTimeField(default=timezone.now)
    seen_at = models.DateTimeField(default=timezone.now)
    closed = models.BooleanField(default=False)

    class Meta:
        ordering = ("match_id", "seat", "seen_at")
        indexes = (models.Index(fields=["match", "seat", "seen_at"], name="seat_connection_seen"),)

    def __str__(self) -> str:
        return f"seat {self.seat} of match {self.match_id}: {'closed' if self.closed else 'open'}"


class AbsenceVote(models.Model):
    """A person seated at the table asks that a bot play the seat of another who is gone.
    The votes of one absence are deleted when the person comes back or the bot is seated."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField(help_text="The seat of the person who is gone.")
    voter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("match_id", "seat", "created_at")
        constraints = (
            models.UniqueConstraint(
                fields=["match", "seat", "voter"], name="absence_vote_once_per_voter"
            ),
        )

    def __str__(self) -> str:
        return f"{self.voter}: a bot for seat {self.seat} of match {self.match_id}"
