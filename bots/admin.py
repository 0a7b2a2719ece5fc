"""Admin: bots, their versions (read-only: versions are immutable) and their faults.

The admin is for staff only (Django's admin lets in active staff accounts and nobody
else), so it shows the faults' messages and logs, which the site shows to a bot's owner
and staff only (league.selectors.bots.can_read_bot_private)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from bots.models import Bot, BotFault, BotVersion


class BotVersionInline(admin.TabularInline[BotVersion, Bot]):
    model = BotVersion
    fields = (
        "number",
        "kind",
        "filename",
        "builtin_name",
        "size",
        "sha256",
        "status",
        "created_at",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Bot | None = None) -> bool:
        return False


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin[Bot]):
    list_display = (
        "name",
        "kind",
        "families_played",
        "owner",
        "club_organisers_may_enter",
        "created_at",
    )
    list_filter = ("kind", "families__family")
    readonly_fields = ("club_organisers_may_enter",)  # the owner's consent: theirs to give
    search_fields = ("name", "owner__username")
    inlines = (BotVersionInline,)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Bot]:
        return super().get_queryset(request).prefetch_related("families")

    @admin.display(description="families")
    def families_played(self, bot: Bot) -> str:
        return ", ".join(bot.family_names)


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin[BotVersion]):
    """Versions are immutable: uploads and validation go through bots.services."""

    list_display = ("bot", "number", "kind", "status", "filename", "size", "validated_at")
    list_filter = ("status", "kind")
    search_fields = ("bot__name", "sha256")
    exclude = ("code",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: BotVersion | None = None) -> bool:
        return False


@admin.register(BotFault)
class BotFaultAdmin(admin.ModelAdmin[BotFault]):
    list_display = ("version", "cause", "match_id", "seat", "created_at")
    list_filter = ("cause",)
    search_fields = ("version__bot__name",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: BotFault | None = None) -> bool:
        return False
