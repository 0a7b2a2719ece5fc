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
