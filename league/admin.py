from django.contrib import admin

from league.models import Heartbeat


@admin.register(Heartbeat)
class HeartbeatAdmin(admin.ModelAdmin[Heartbeat]):
    list_display = ("token", "created_at")
    readonly_fields = ("token", "created_at")
