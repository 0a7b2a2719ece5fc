"""The processes' rows: their heartbeats and ticks, and the outbox of tasks for the broker."""

from django.db import models
from django.utils import timezone


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
