"""Who plays and how the site shows itself to a person: competitors (a person's
account or a bot version) and a person's display settings."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy

from bots.models import BotVersion


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


class ProfileVisibility(models.TextChoices):
    """Who sees a person's games, partners and opponents, and bots (their profile page and
    the API's people endpoints); their name and ratings stay public."""

    EVERYONE = "everyone", gettext_lazy("Everyone")
    CLUBS = "clubs", gettext_lazy("People in my clubs")
    NOBODY = "nobody", gettext_lazy("Nobody but me")


class AccountSettings(models.Model):
    """A person's account beyond Django's User: the email address they proved is theirs
    (``verified_email``: the address a verification link was opened for; the account's
    address is verified while ``user.email`` equals it), who sees their profile and the name
    shown to others (``display_name``; blank: the username). A missing row means no verified
    address, a profile everyone sees and the username shown."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_settings"
    )
    verified_email = models.EmailField(blank=True)
    profile_visibility = models.CharField(
        max_length=10, choices=ProfileVisibility.choices, default=ProfileVisibility.EVERYONE
    )
    display_name = models.CharField(max_length=40, blank=True)
    """The name shown to others (league.selectors.person_names.person_name); blank: the
    username."""

    def __str__(self) -> str:
        return f"{self.user}: {self.verified_email or 'no verified address'}"


class SignedInSession(models.Model):
    """A browser session a person signed in with, so that they can list and end their
    sessions (Django's session table cannot be searched by person). Written when they sign
    in; removed with the session when they log out or end it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="signed_in_sessions"
    )
    session_key = models.CharField(max_length=40, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    user_agent = models.CharField(max_length=200, blank=True)
    address = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"{self.user} since {self.created_at:%Y-%m-%d %H:%M}"


class ApiTokenScope(models.TextChoices):
    """What an API token may do (docs/api.md, *Tokens*): every read; moves, tables and
    leagues entered; bots and ladders; clubs, their invitations and leagues run."""

    READ = "read", gettext_lazy("Read")
    PLAY = "play", gettext_lazy("Play")
    BOTS = "bots", gettext_lazy("Bots")
    CLUBS = "clubs", gettext_lazy("Clubs")


class ApiToken(models.Model):
    """A named API token with scopes. Only the key's SHA-256 is kept (the key is shown
    once, when it is made); ``prefix`` is its first characters, for the person to tell
    their tokens apart. A revoked or expired token is refused at its next request."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    key_digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=12)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"{self.user}: {self.name} ({self.prefix}…)"
