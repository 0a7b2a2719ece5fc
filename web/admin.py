"""Admin: the league's rows, read-mostly, for staff only (Django's admin lets in active
staff accounts and nobody else). A running match's dealt cards (its chance events) and its
seed are shown to nobody until the match is over.

The admin is a set of pages, so it lives with the pages: Django's autodiscovery finds it
here as it finds any installed app's ``admin`` module, and the rows keep their addresses
(/admin/league/...), which follow the models' app.

Nobody is made a member or entered without agreeing (docs/api.md, "Who may see and do
what"), and the admin keeps to that: memberships come from accepted invitations and
entries from the league's services, so the admin shows them (and may remove one) but
adds none."""

from __future__ import annotations

import json

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html

from league.models import (
    Club,
    Competitor,
    Entry,
    Heartbeat,
    Invitation,
    Ladder,
    LadderEntrant,
    Match,
    MatchAnalysis,
    MatchResult,
    MatchSeat,
    MatchStatus,
    Membership,
    Rating,
    Round,
    RoundAttendance,
    RoundSchedule,
    ScoreCorrection,
    TableSheet,
    Tournament,
)


@admin.register(Heartbeat)
class HeartbeatAdmin(admin.ModelAdmin[Heartbeat]):
    list_display = ("token", "created_at")
    readonly_fields = ("token", "created_at")


class MembershipInline(admin.TabularInline[Membership, Club]):
    """Members join by accepting an invitation; staff change a role or remove a member."""

    model = Membership
    extra = 0
    raw_id_fields = ("user",)

    def has_add_permission(self, request: HttpRequest, obj: Club | None = None) -> bool:
        return False


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin[Club]):
    list_display = ("name", "created_at")
    search_fields = ("name",)
    inlines = (MembershipInline,)


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin[Invitation]):
    """Made by organisers and answered by the invitee through the site; staff may only
    look and withdraw one (delete)."""

    list_display = ("club", "role", "invitee", "created_by", "expires_at", "accepted_by")
    readonly_fields = ("code",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Invitation | None = None) -> bool:
        return False


@admin.register(Competitor)
class CompetitorAdmin(admin.ModelAdmin[Competitor]):
    list_display = ("name", "user", "bot_version", "created_at")
    search_fields = ("name",)
    raw_id_fields = ("user", "bot_version")


class EntryInline(admin.TabularInline[Entry, Tournament]):
    """Entries are made through the league's services, with the competitor's consent."""

    model = Entry
    extra = 0
    raw_id_fields = ("competitor",)

    def has_add_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin[Tournament]):
    list_display = ("name", "club", "game", "format", "rounds", "status", "at_club", "created_at")
    list_filter = ("format", "status", "at_club")
    search_fields = ("name",)
    inlines = (EntryInline,)


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin[Round]):
    list_display = ("tournament", "number", "created_at")


class MatchSeatInline(admin.TabularInline[MatchSeat, Match]):
    model = MatchSeat
    extra = 0
    raw_id_fields = ("competitor",)


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin[Match]):
    list_display = (
        "id",
        "tournament",
        "round",
        "table",
        "status",
        "attempts",
        "lease_until",
        "worker",
        "played_by",
    )
    list_filter = ("status",)
    readonly_fields = ("attempts", "events_stored", "deals_done", "played_by", "event_log")
    inlines = (MatchSeatInline,)

    @admin.display(description="events")
    def event_log(self, obj: Match) -> str:
        """The event log, one line per event (MatchEvent's key is (match, index), which
        the admin cannot list on its own). A running match's dealt cards are hidden."""
        hide_cards = obj.status != MatchStatus.FINISHED
        lines = []
        for event in obj.events.order_by("index")[:2000]:
            if event.seat is not None:
                lines.append(f"{event.index}: seat {event.seat} {event.action} ({event.ms} ms)")
            elif hide_cards:
                kind = (event.chance or {}).get("chance", "chance")
                lines.append(f"{event.index}: {kind} (hidden until the end)")
            else:
                lines.append(f"{event.index}: {json.dumps(event.chance)}")
        return format_html("<pre>{}</pre>", "\n".join(lines))

    def get_exclude(self, request: HttpRequest, obj: Match | None = None) -> tuple[str, ...]:
        # The seed decides every deal: nobody sees it before the match ends.
        if obj is not None and obj.status != MatchStatus.FINISHED:
            return ("seed",)
        return ()


@admin.register(MatchResult)
class MatchResultAdmin(admin.ModelAdmin[MatchResult]):
    list_display = ("match", "scores", "outcomes", "created_at")

    def has_change_permission(self, request: HttpRequest, obj: MatchResult | None = None) -> bool:
        return False


@admin.register(MatchAnalysis)
class MatchAnalysisAdmin(admin.ModelAdmin[MatchAnalysis]):
    """Written by the `analysis` queue only (league.services.analysis); its verdicts are
    left out of the page (thousands of cards; the API serves them)."""

    list_display = ("match", "status", "analysed", "not_analysed", "seconds", "finished_at")
    list_filter = ("status",)
    exclude = ("cards", "deals")

    def has_change_permission(self, request: HttpRequest, obj: MatchAnalysis | None = None) -> bool:
        return False


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin[Rating]):
    """Written by the ratings queue only; ``manage.py recompute_ratings`` rebuilds them."""

    list_display = ("competitor", "family", "tournament", "conservative", "mu", "sigma", "games")
    list_filter = ("family",)
    search_fields = ("competitor__name",)

    def has_change_permission(self, request: HttpRequest, obj: Rating | None = None) -> bool:
        return False


@admin.register(RoundSchedule)
class RoundScheduleAdmin(admin.ModelAdmin[RoundSchedule]):
    """Set through the API (it keeps the beat entry in step); the entry itself is under
    Periodic tasks."""

    list_display = ("tournament", "cron", "interval_minutes", "time_zone", "periodic_task")
    readonly_fields = ("tournament", "periodic_task", "created_by", "created_at")

    def has_change_permission(self, request: HttpRequest, obj: RoundSchedule | None = None) -> bool:
        return False


class _ReadOnly:
    """Club nights' rows change through the league's services only (a correction leaves
    its audit row; a confirmation stores a result): the admin shows them."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(RoundAttendance)
class RoundAttendanceAdmin(_ReadOnly, admin.ModelAdmin[RoundAttendance]):
    list_display = ("tournament", "number", "present", "reserves", "byes", "created_at")


@admin.register(TableSheet)
class TableSheetAdmin(_ReadOnly, admin.ModelAdmin[TableSheet]):
    list_display = ("match", "code", "status", "entered_seat", "entered_at", "confirmed_at")
    list_filter = ("status",)


@admin.register(ScoreCorrection)
class ScoreCorrectionAdmin(_ReadOnly, admin.ModelAdmin[ScoreCorrection]):
    list_display = ("match", "corrected_by", "corrected_at", "reason")

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False  # the audit trail stays


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin[Ladder]):
    """A ladder's switch and limits; a ladder is opened by ``manage.py ladder_open``."""

    list_display = ("slug", "name", "game", "running", "queued_limit", "concurrent_limit")
    list_editable = ("running", "queued_limit", "concurrent_limit")
    readonly_fields = ("slug", "game", "family", "tournament", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(LadderEntrant)
class LadderEntrantAdmin(admin.ModelAdmin[LadderEntrant]):
    list_display = ("competitor", "ladder", "anchor", "status", "opted_out", "consecutive_failures")
    list_filter = ("ladder", "status", "anchor")
    readonly_fields = ("ladder", "competitor", "bot", "anchor", "suspension_faults", "joined_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
