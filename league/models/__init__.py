"""The league's rows: clubs, competitors, tournaments, rounds, matches and their replays.

Why this module is long: Django keeps an app's models in one module, and the constraints
that make impossible states unstorable sit on the models they protect.

Database constraints make the impossible states unstorable (docs/league.md): a competitor
is a person's account or a bot version, never both; a seat is filled once; a match's
events have one order; a match has at most one result; a lease exists only while a match
is running; a finished match says when it finished.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from bots.models import BotVersion
from bots.seats import Outcome


class Heartbeat(models.Model):
    """One trip through the broker and a worker, written by the heartbeat_record task.

    It proves the path web -> broker -> worker -> database; docs/operations.md.
    """

    token = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"heartbeat {self.token} at {self.created_at:%Y-%m-%d %H:%M:%S}"


class OutboxTask(models.Model):
    """A task waiting to be sent to the broker (the transactional outbox,
    league/services/task_outbox.py): written in the transaction of the change that asks for
    it, sent when that commits or, if the broker was down, by the next relay, and deleted
    once sent."""

    task = models.CharField(max_length=200, help_text="The Celery task's name.")
    args = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    attempts = models.PositiveIntegerField(default=0, help_text="Sends that failed so far.")
    last_error = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ("id",)

    def __str__(self) -> str:
        return f"{self.task}{tuple(self.args)!r}"


class ProcessTick(models.Model):
    """The last sign of life of a periodic process (beat writes ``beat`` every few seconds);
    /healthz compares its age with a threshold."""

    name = models.CharField(max_length=60, primary_key=True)
    ticked_at = models.DateTimeField()
    stopped_at = models.DateTimeField(
        null=True, blank=True, help_text="Set when the process stopped cleanly."
    )
    process = models.CharField(max_length=200, blank=True, help_text="host:pid")

    def __str__(self) -> str:
        return f"{self.name} ticked at {self.ticked_at:%Y-%m-%d %H:%M:%S}"


# ---------------------------------------------------------------- clubs


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

    @property
    def personal(self) -> bool:
        return self.invitee_id is not None


# ---------------------------------------------------------------- competitors


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


# ---------------------------------------------------------------- tournaments


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


# ---------------------------------------------------------------- matches


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


# ---------------------------------------------------------------- standings and ratings
# Written by league.services.standings and league.services.ratings (docs/league.md).


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


# ---------------------------------------------------------------- notifications


class NotificationKind(models.TextChoices):
    """What a person is told about (docs/web.md, *Notifications*)."""

    YOUR_MOVE = "your_move", _("A game awaits your move")
    DEADLINE_NEAR = "deadline_near", _("A deadline is near")
    MOVED_FOR_YOU = "moved_for_you", _("A move was played for you on timeout")
    INVITED = "invited", _("You were invited")
    ROUND_STARTED = "round_started", _("A round started")
    LEAGUE_FINISHED = "league_finished", _("A league finished")
    BOT_SUSPENDED = "bot_suspended", _("Your bot left a ladder after crashing")


class Notification(models.Model):
    """One thing a person is told, in the site and (by their choice) by email.

    ``key`` makes a notice idempotent: a second notice with the same key for the same
    person is not written (a retried task, two sweeps at once)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=20, choices=NotificationKind.choices)
    key = models.CharField(max_length=120)
    text = models.CharField(max_length=400)
    url = models.CharField(max_length=300, blank=True)
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    read_at = models.DateTimeField(null=True, blank=True)
    email_due = models.BooleanField(
        default=False, help_text="The person asked for this kind by email; not sent yet."
    )
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = (
            models.UniqueConstraint(fields=["user", "key"], name="notification_once_per_key"),
            models.CheckConstraint(
                name="notification_kind_valid",
                condition=Q(kind__in=[k.value for k in NotificationKind]),
            ),
        )
        indexes = (
            models.Index(
                fields=["user", "created_at"],
                condition=Q(read_at__isnull=True),
                name="notification_unread",
            ),
            models.Index(
                fields=["created_at"], condition=Q(email_due=True), name="notification_email_due"
            ),
        )

    def __str__(self) -> str:
        return f"{self.user}: {self.text[:60]}"


class NotificationPreference(models.Model):
    """A person's choice of whether a kind of notice also comes by email (a missing row
    means the kind's default, docs/web.md)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preferences"
    )
    kind = models.CharField(max_length=20, choices=NotificationKind.choices)
    email = models.BooleanField()

    class Meta:
        ordering = ("user_id", "kind")
        constraints = (
            models.UniqueConstraint(
                fields=["user", "kind"], name="notification_preference_once_per_kind"
            ),
            models.CheckConstraint(
                name="notification_preference_kind_valid",
                condition=Q(kind__in=[k.value for k in NotificationKind]),
            ),
        )

    def __str__(self) -> str:
        return f"{self.user}: {self.kind} by email {'on' if self.email else 'off'}"


# ---------------------------------------------------------------- club nights


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
    """The score sheet of one table of a round played at the club: its entry code (valid
    for this table and round only, until confirmed), what was entered and by which seat,
    and who confirmed it."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="table_sheet")
    code = models.CharField(max_length=12, unique=True, help_text="The table card's entry code.")
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


# ---------------------------------------------------------------- ladders
# Written by league.services.ladders (docs/league.md, *Ladders*).


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
