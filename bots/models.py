"""Bots and their versions: what a league seat can be besides a person.

A ``Bot`` is a name with an owner (uploaded) or none (built-in). A ``BotVersion`` is
immutable once stored: either a built-in bot from ``bots.builtin`` by name with options
(for instance ``strong`` with a smaller search budget), or an uploaded ``.py``/``.zip``
bundle (bots.bundle) kept in the database with its sha256. An uploaded version becomes
``active`` only after its validation game (bots.services.bot_version_validate).

The league refers to a version through ``league.Competitor``; a ``BotFault`` names its
match by id only, so this app depends on nothing in ``league``.

Note (league engineer, issue 8): this file was written for the league's API while the
bots engineer (issue 7) was writing theirs, and replaced it by accident at 10:45; it
keeps the fields that bots/admin.py used (``kind``, ``validated_at``, ``BotFault``).
Restore or merge yours freely: the league uses ``Bot.owner/name/families``,
``BotVersion.bot/number/kind/builtin_name/options/filename/code/sha256/size/status/report``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Bot(models.Model):
    class Kind(models.TextChoices):
        BUILTIN = "builtin"
        UPLOADED = "uploaded"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="bots",
    )
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.UPLOADED)
    club_organisers_may_enter = models.BooleanField(
        default=False,
        help_text="The owner's standing consent: organisers of the owner's clubs may enter "
        "this bot's versions in their clubs' tournaments (otherwise only the owner enters it).",
    )
    people_may_play_rated = models.BooleanField(
        default=True,
        help_text="The owner's standing consent: a person may ask for a rated game against "
        "this bot's versions on its ladders (league.services.rated_games); on by default, "
        "since a version on a ladder plays rated games against anyone's bots already.",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("name", "id")
        constraints = (
            models.CheckConstraint(
                name="bot_kind_valid", condition=Q(kind__in=["builtin", "uploaded"])
            ),
            models.CheckConstraint(
                name="bot_builtin_has_no_owner_uploaded_has_one",
                condition=(Q(kind="builtin", owner__isnull=True))
                | Q(kind="uploaded", owner__isnull=False),
            ),
            models.UniqueConstraint(
                fields=["owner", "name"],
                condition=Q(owner__isnull=False),
                name="bot_name_unique_per_owner",
            ),
            models.UniqueConstraint(
                fields=["name"], condition=Q(kind="builtin"), name="bot_builtin_name_unique"
            ),
        )

    def __str__(self) -> str:
        return self.name

    @property
    def family_names(self) -> list[str]:
        """The game families it plays (``BotFamily``), in name order; prefetch
        ``families`` to read them without a query."""
        return sorted(row.family for row in self.families.all())


class BotFamily(models.Model):
    """A game family a bot plays (a name of engine.variants.FAMILIES): its versions are
    validated in and play the ladders of its families. An uploaded bot plays one or more
    (bots.services.bot_create refuses none); a bot stored before families were required
    may have none, and then plays no ladder until its owner names one."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="families")
    family = models.CharField(max_length=40)

    class Meta:
        ordering = ("bot_id", "family")
        constraints = (
            models.UniqueConstraint(fields=["bot", "family"], name="bot_family_once_per_bot"),
        )

    def __str__(self) -> str:
        return f"{self.bot_id}: {self.family}"


class BotVersion(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        """Uploaded; its validation game has not finished."""
        ACTIVE = "active"
        """May play in leagues."""
        REJECTED = "rejected"
        """Failed its structure check or its validation game; ``report`` says why."""

    class Kind(models.TextChoices):
        BUILTIN = "builtin"
        UPLOADED = "uploaded"

    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.UPLOADED)
    builtin_name = models.CharField(
        max_length=40, blank=True, help_text="bots.builtin name; empty for an upload."
    )
    options = models.JSONField(
        default=dict, blank=True, help_text="Keyword options of a built-in bot."
    )
    filename = models.CharField(max_length=200, blank=True)
    runtime = models.CharField(
        max_length=20,
        default="python",
        help_text="What runs an uploaded version (bots.runtimes): python, python-numpy, "
        "native, node or java; chosen at upload or recognised from its files.",
    )
    code = models.BinaryField(blank=True, default=b"", editable=False)
    sha256 = models.CharField(max_length=64, blank=True)
    size = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    report = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    validated_at = models.DateTimeField(null=True, blank=True)
    validation_fallbacks = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Decisions of its validation game at which its own code failed and its "
        "helper module (kingbot) played for it; null: no validation game played.",
    )

    class Meta:
        ordering = ("bot_id", "number")
        constraints = (
            models.UniqueConstraint(fields=["bot", "number"], name="bot_version_number_unique"),
            models.CheckConstraint(name="bot_version_number_positive", condition=Q(number__gte=1)),
            models.CheckConstraint(
                name="bot_version_status_valid",
                condition=Q(status__in=["pending", "active", "rejected"]),
            ),
            models.CheckConstraint(
                name="bot_version_builtin_xor_upload",
                condition=(Q(kind="builtin", builtin_name__gt="", sha256="", size=0))
                | (
                    Q(kind="uploaded", builtin_name="", size__gt=0)
                    & Q(sha256__regex=r"^[0-9a-f]{64}$")
                ),
            ),
        )

    VALIDATION_FIELDS = frozenset({"status", "report", "validated_at", "validation_fallbacks"})
    """What may change in a stored version: its validation, once (bots.services)."""

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Store a new version; a stored one is immutable but for ``VALIDATION_FIELDS``,
        which must then be named in ``update_fields``."""
        if not self._state.adding:
            fields = kwargs.get("update_fields")
            if fields is None or not set(fields) <= self.VALIDATION_FIELDS:
                raise ValueError(
                    "a stored BotVersion is immutable: save(update_fields=...) may change "
                    f"only {', '.join(sorted(self.VALIDATION_FIELDS))}"
                )
        super().save(*args, **kwargs)

    @property
    def is_builtin(self) -> bool:
        return self.kind == self.Kind.BUILTIN

    @property
    def label(self) -> str:
        """How a record names what played a seat: ``builtin:NAME`` or the bot's name."""
        if self.builtin_name:
            return f"builtin:{self.builtin_name}"
        return f"{self.bot.name} v{self.number}"

    @property
    def label_for_league(self) -> str:
        """A competitor's name: the bot's name, and the version when it has several."""
        return self.bot.name if self.number == 1 else f"{self.bot.name} v{self.number}"

    def builtin_options(self) -> dict[str, Any]:
        return dict(self.options or {})


class BotFault(models.Model):
    """One thing a bot version did wrong in a match (the match by id: bots does not
    depend on league)."""

    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="faults")
    match_id = models.BigIntegerField(null=True, blank=True)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    cause = models.CharField(max_length=20)
    message = models.TextField(blank=True)
    log = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"{self.version}: {self.cause}"
