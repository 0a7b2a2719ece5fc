"""Admin: the league's rows, read-mostly. A running match's dealt cards (its chance
events) are shown to superusers only: other staff see them once the match is over."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from league.models import (
    Club,
    Competitor,
    Entry,
    Heartbeat,
    Invitation,
    Match,
    MatchEvent,
    MatchResult,
    MatchSeat,
    MatchStatus,
    Membership,
    Round,
    Tournament,
)


@admin.register(Heartbeat)
class HeartbeatAdmin(admin.ModelAdmin[Heartbeat]):
    list_display = ("token", "created_at")
    readonly_fields = ("token", "created_at")


class MembershipInline(admin.TabularInline[Membership, Club]):
    model = Membership
    extra = 0
    raw_id_fields = ("user",)


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin[Club]):
    list_display = ("name", "created_at")
    search_fields = ("name",)
    inlines = (MembershipInline,)


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin[Invitation]):
    list_display = ("club", "role", "created_by", "expires_at", "accepted_by")
    readonly_fields = ("code",)


@admin.register(Competitor)
class CompetitorAdmin(admin.ModelAdmin[Competitor]):
    list_display = ("name", "user", "bot_version", "created_at")
    search_fields = ("name",)
    raw_id_fields = ("user", "bot_version")


class EntryInline(admin.TabularInline[Entry, Tournament]):
    model = Entry
    extra = 0
    raw_id_fields = ("competitor",)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin[Tournament]):
    list_display = ("name", "club", "game", "format", "rounds", "status", "created_at")
    list_filter = ("format", "status")
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
    list_display = ("id", "tournament", "round", "table", "status", "attempts", "lease_until")
    list_filter = ("status",)
    readonly_fields = ("attempts", "events_stored", "deals_done")
    inlines = (MatchSeatInline,)

    def get_exclude(self, request: HttpRequest, obj: Match | None = None) -> tuple[str, ...]:
        # The seed decides every deal: only superusers see it before the match ends.
        if obj is not None and obj.status != MatchStatus.FINISHED and not request.user.is_superuser:
            return ("seed",)
        return ()


@admin.register(MatchEvent)
class MatchEventAdmin(admin.ModelAdmin[MatchEvent]):
    list_display = ("match", "index", "seat", "action", "ms", "created_at")
    list_filter = ("match__status",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[MatchEvent]:
        events = super().get_queryset(request)
        if request.user.is_superuser:
            return events
        return events.filter(Q(match__status=MatchStatus.FINISHED) | Q(chance__isnull=True))

    def has_change_permission(self, request: HttpRequest, obj: MatchEvent | None = None) -> bool:
        return False


@admin.register(MatchResult)
class MatchResultAdmin(admin.ModelAdmin[MatchResult]):
    list_display = ("match", "scores", "outcomes", "created_at")

    def has_change_permission(self, request: HttpRequest, obj: MatchResult | None = None) -> bool:
        return False
