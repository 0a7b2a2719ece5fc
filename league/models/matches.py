"""Matches and what happens at their table: seats, invitations to a seat, chat, the
events of play and the bots' logs."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from bots.seats import Outcome
from league.models.accounts import Competitor
from league.models.tournaments import Round, Tournament


class MatchStatus(models.TextChoices):
    WAITING = "waiting", _("Waiting")
    """A table whose seats are not all taken yet: no worker touches it."""
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    FINISHED = "finished", _("Finished")
    ERROR = "error", _("Error")


class Match(models.Model):
    """One game at one table. The database is the truth about it (docs/league.md).

    ``attempts`` counts claims; the worker that holds the lease writes events only while
    ``attempts`` still equals its claim, so a worker that lost its lease stops writing.
    ``lease_until`` is set while a worker plays the bot seats; a match that waits for a
    person is running with no lease and a ``deadline`` for that person's move.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="matches")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="matches")
    table = models.PositiveIntegerField(default=1)
    game = models.CharField(max_length=200, help_text="Canonical game string of this match.")
    seed = models.BigIntegerField()
    status = models.CharField(
        max_length=10, choices=MatchStatus.choices, default=MatchStatus.QUEUED, db_index=True
    )
    attempts = models.PositiveIntegerField(default=0, help_text="Claims by a worker so far.")
    lease_expiries = models.PositiveIntegerField(
        default=0, help_text="Leases that ran out (a lost worker); error after a few."
    )
    queued_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True, db_index=True)
    worker = models.CharField(max_length=200, blank=True)
    played_by = models.CharField(
        max_length=200,
        blank=True,
        help_text="The worker that finished its bots' play (Celery node:process), kept after "
        "the match ends so operators see which machine played it; blank when a person's last "
        "move ended it.",
    )
    deadline = models.DateTimeField(
        null=True, blank=True, db_index=True, help_text="When the person to move must have moved."
    )
    waiting_seat = models.SmallIntegerField(null=True, blank=True)
    events_stored = models.PositiveIntegerField(default=0)
    deals_done = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("id",)
        verbose_name_plural = "matches"
        constraints = (
            models.CheckConstraint(
                name="match_status_valid",
                condition=Q(status__in=[s.value for s in MatchStatus]),
            ),
            models.UniqueConstraint(fields=["round", "table"], name="match_table_once_per_round"),
            models.CheckConstraint(
                name="match_lease_only_while_running",
                condition=Q(lease_until__isnull=True) | Q(status="running"),
            ),
            models.CheckConstraint(
                name="match_deadline_only_while_running_without_lease",
                condition=Q(deadline__isnull=True)
                | Q(status="running", lease_until__isnull=True, waiting_seat__isnull=False),
            ),
            models.CheckConstraint(
                name="match_finished_has_time",
                condition=~Q(status="finished") | Q(finished_at__isnull=False),
            ),
            models.CheckConstraint(
                name="match_running_was_claimed",
                condition=Q(status__in=["waiting", "queued", "error"]) | Q(attempts__gte=1),
            ),
        )

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game})"


PERSON_MAX_STRIKES = 3
"""A person who misses this many deadlines forfeits: a built-in bot plays on for them (the
sweep counts the strikes, league.services.matches; the table shows them)."""


SeatOutcome = Outcome
"""How a seat fared: the bots' outcomes (bots.seats.Outcome), a person's forfeit included."""


SEAT_OUTCOME_CHOICES = [(outcome.value, outcome.label) for outcome in SeatOutcome]


class MatchSeat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    competitor = models.ForeignKey(Competitor, on_delete=models.PROTECT, related_name="seats")
    strikes = models.PositiveSmallIntegerField(
        default=0, help_text="Missed deadlines of a person (the fallback action was played)."
    )
    replaced = models.BooleanField(
        default=False, help_text="A built-in bot plays the seat for the rest of the match."
    )
    outcome = models.CharField(
        max_length=20, choices=SEAT_OUTCOME_CHOICES, default=SeatOutcome.OK.value
    )
    faults = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ("match_id", "seat")
        constraints = (
            models.UniqueConstraint(fields=["match", "seat"], name="match_seat_filled_once"),
            models.CheckConstraint(
                name="match_seat_outcome_valid",
                condition=Q(outcome__in=[o.value for o in SeatOutcome]),
            ),
        )

    def __str__(self) -> str:
        return f"seat {self.seat} of match {self.match_id}: {self.competitor}"


class SeatInvitation(models.Model):
    """A seat of a table kept for a person until someone takes it (docs/league.md, *Tables*).

    Open (``invitee`` empty: anyone with the link, or from the lobby) or reserved for one
    invitee. Nobody is seated without accepting: the seat's MatchSeat is written when the
    invitation is accepted. The host may cancel a pending one (to fill the seat with a bot).
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seat_invitations")
    seat = models.PositiveSmallIntegerField()
    code = models.CharField(max_length=64, unique=True, help_text="The invitation link's code.")
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="seat_invitations",
        help_text="Reserved for this person; empty for an open seat.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    accepted_at = models.DateTimeField(null=True, blank=True)
    declined_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("match_id", "seat", "id")
        constraints = (
            models.UniqueConstraint(
                fields=["match", "seat"],
                condition=Q(declined_at__isnull=True, cancelled_at__isnull=True),
                name="seat_invitation_one_live_per_seat",
            ),
            models.CheckConstraint(
                name="seat_invitation_accepted_by_its_invitee",
                condition=Q(invitee__isnull=True)
                | Q(accepted_by__isnull=True)
                | Q(accepted_by=F("invitee")),
            ),
            models.CheckConstraint(
                name="seat_invitation_accepted_by_iff_at",
                condition=Q(accepted_by__isnull=True, accepted_at__isnull=True)
                | Q(accepted_by__isnull=False, accepted_at__isnull=False),
            ),
            models.CheckConstraint(
                name="seat_invitation_answered_once",
                condition=Q(accepted_at__isnull=True, declined_at__isnull=True)
                | Q(accepted_at__isnull=True, cancelled_at__isnull=True)
                | Q(declined_at__isnull=True, cancelled_at__isnull=True),
            ),
        )

    def __str__(self) -> str:
        to = f" for {self.invitee}" if self.invitee_id is not None else " (open)"
        return f"seat {self.seat} of match {self.match_id}{to}"

    @property
    def pending(self) -> bool:
        return self.accepted_at is None and self.declined_at is None and self.cancelled_at is None


class ChatMessage(models.Model):
    """A line of a table's chat, written by a person seated there; kept with the match."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat_messages")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField()
    text = models.CharField(max_length=500)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("match_id", "id")
        constraints = (
            models.CheckConstraint(name="chat_message_not_empty", condition=Q(text__gt="")),
        )

    def __str__(self) -> str:
        return f"{self.author} at match {self.match_id}: {self.text[:40]}"


class MatchEvent(models.Model):
    """One entry of a match's event log: a player's action or a chance event (a deal).

    ``index`` is the position in the engine state's log, so the events replay in order;
    ``(match, index)`` is the primary key, so an index is stored once (and a worker that
    lost its lease cannot write over another's events). A key of its own and a separate
    index on ``match`` would only make every insert dearer (bench/league.py).
    """

    pk = models.CompositePrimaryKey("match", "index")
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="events", db_index=False
    )
    index = models.PositiveIntegerField()
    seat = models.SmallIntegerField(null=True, blank=True)
    action = models.CharField(max_length=40, blank=True)
    chance = models.JSONField(null=True, blank=True)
    ms = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(db_default=Now())
    """Set by the database (the transaction's time): one column less to send per event."""

    class Meta:
        ordering = ("match_id", "index")
        constraints = (
            models.CheckConstraint(
                name="match_event_action_xor_chance",
                condition=Q(seat__isnull=False, chance__isnull=True, action__gt="")
                | Q(seat__isnull=True, chance__isnull=False, action=""),
            ),
            models.CheckConstraint(
                name="match_event_ms_not_negative", condition=Q(ms__isnull=True) | Q(ms__gte=0)
            ),
        )

    def __str__(self) -> str:
        what = self.action if self.seat is not None else "chance"
        return f"match {self.match_id} #{self.index}: {what}"


class SeatLog(models.Model):
    """An uploaded bot's stderr in one match (capped), for its author and staff only; the
    per-move times are the match's events' ``ms``."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seat_logs")
    seat = models.PositiveSmallIntegerField()
    competitor = models.ForeignKey(Competitor, on_delete=models.CASCADE, related_name="+")
    stderr = models.TextField(blank=True)
    startup_ms = models.FloatField(null=True, blank=True)
    """How long the match waited for the bot's ``ready`` (its sandbox's start, or less for
    a bot started ahead: bots.runner.warm); None when it never got ready."""
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("match_id", "seat")
        constraints = (
            models.UniqueConstraint(fields=["match", "seat"], name="seat_log_once_per_seat"),
        )

    def __str__(self) -> str:
        return f"log of seat {self.seat} of match {self.match_id}"
