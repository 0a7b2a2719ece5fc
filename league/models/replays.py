"""Private replays: a game record a person uploaded to their own account (a local match of
their bot: ``python -m bots match ... --record FILE``), shown in the site's replay viewer
to them alone (league/services/private_replays.py checks the record on the way in)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class PrivateReplay(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="private_replays"
    )
    title = models.CharField(max_length=200)
    game = models.CharField(max_length=200, help_text="The record's game string (engine).")
    record = models.JSONField(help_text="The whole record, verified by the engine at upload.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = (models.Index(fields=["owner", "created_at"], name="private_replay_owner"),)
        constraints = (
            models.CheckConstraint(condition=~Q(title=""), name="private_replay_title"),
            models.CheckConstraint(condition=~Q(game=""), name="private_replay_game"),
        )

    def __str__(self) -> str:
        return f"{self.title} ({self.owner_id})"
