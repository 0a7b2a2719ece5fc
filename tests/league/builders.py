"""Small builders for league tests: users, a club with an organiser, built-in competitors,
an active uploaded bot version."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.utils import timezone

from bots.models import BotVersion
from bots.services import bot_create, bot_version_store
from league.models import AccountSettings, Club, Competitor, Tournament
from league.services.clubs import club_create
from league.services.competitors import competitor_builtin, competitor_for_bot_version
from league.services.tournaments import tournament_create


def user_create(username: str, password: str = "a long password 1") -> User:
    return User.objects.create_user(username=username, password=password)


def user_with_verified_email(username: str, email: str = "") -> User:
    """A person whose address is confirmed (as by the link of accounts.account_settings):
    notices are mailed only to such an address."""
    user = User.objects.create_user(
        username=username, email=email or f"{username}@example.org", password="a long password 1"
    )
    AccountSettings.objects.create(user=user, verified_email=user.email)
    return user


def club_with_organiser(name: str = "Club", organiser: str = "olga") -> tuple[Club, User]:
    user = user_create(organiser)
    return club_create(user=user, name=name), user


def builtin_competitors(count: int, name: str = "random") -> list[Competitor]:
    """``count`` distinct competitors playing the built-in ``name``."""
    return [competitor_builtin(name=name, bot_name=f"{name}-{index}") for index in range(count)]


def active_uploaded_version(owner: User, name: str, code: str) -> Competitor:
    """An active uploaded Kingen version of ``owner``'s bot ``name`` playing ``code`` (its
    validation game is the bots' tests' business)."""
    bot = bot_create(owner=owner, name=name, families=["kingen"])
    version = bot_version_store(owner=owner, bot=bot, filename=f"{name}.py", data=code.encode())
    version.status = BotVersion.Status.ACTIVE
    version.validated_at = timezone.now()
    version.save(update_fields=["status", "validated_at"])
    return competitor_for_bot_version(version=version)


def bot_tournament(
    *, game: str = "kingen", entrants: int = 4, rounds: int = 1, bot: str = "random"
) -> tuple[Tournament, User]:
    club, organiser = club_with_organiser()
    tournament = tournament_create(
        actor=organiser,
        club=club,
        name="Test league",
        game=game,
        rounds=rounds,
        entrants=builtin_competitors(entrants, bot),
    )
    return tournament, organiser
