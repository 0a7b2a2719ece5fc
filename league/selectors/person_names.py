"""The name a person is shown by to others (docs/web.md, *Your account*): their display name
from their settings, or their username when they chose none. One function for every page,
payload, notice and mail; the username stays in URLs and wherever a person is named for an
action (an invitation by username). A competitor's ``name`` is this name too, kept in step
by league.services.person_names when it changes, so that seats, standings and lobbies that
read competitors need no join."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ObjectDoesNotExist

from league.models import AccountSettings


def person_name(user: AbstractBaseUser) -> str:
    """``user``'s display name, or their username when blank. Reads the settings row once
    (none if the caller ``select_related("account_settings")``)."""
    try:
        row: AccountSettings | None = user.account_settings  # type: ignore[attr-defined]
    except ObjectDoesNotExist:
        row = None
    display = row.display_name.strip() if row is not None else ""
    return display or user.get_username()


def person_name_with_username(user: AbstractBaseUser) -> str:
    """``Display (username)`` where the person chose a display name, else the username: a
    profile's heading, where the two must be told apart."""
    name = person_name(user)
    username = user.get_username()
    return username if name == username else f"{name} ({username})"


def display_name_of(*, user: AbstractBaseUser) -> str:
    """The display name ``user`` chose ('' for none: the username is shown)."""
    row = AccountSettings.objects.filter(user_id=user.pk).only("display_name").first()
    return row.display_name if row is not None else ""
