"""A person sets the name they are shown by (league.selectors.person_names): checked like
every chosen name (no bidirectional or other control characters, at most 40 characters,
spaces at either end dropped), stored in their settings and copied to their competitor, so
that seats, standings and lobbies show it from then on."""

from __future__ import annotations

import unicodedata

from django.contrib.auth.models import AbstractBaseUser, User
from django.db import transaction
from django.utils.translation import gettext

from league.errors import InvalidInputError
from league.models import AccountSettings, Competitor
from league.selectors.person_names import person_name
from league.services.chosen_names import chosen_name_check

DISPLAY_NAME_MAX = 40


def display_name_clean(name: str) -> str:
    """``name`` stripped; InvalidInputError (naming ``display_name``) if it is too long or
    holds a control character."""
    name = chosen_name_check(name.strip(), field="display_name")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in name):
        message = gettext("A display name cannot hold control characters or line breaks.")
        raise InvalidInputError(f"display_name: {message}", errors={"display_name": [message]})
    if len(name) > DISPLAY_NAME_MAX:
        message = gettext("A display name has at most %(count)d characters.") % {
            "count": DISPLAY_NAME_MAX
        }
        raise InvalidInputError(f"display_name: {message}", errors={"display_name": [message]})
    return name


def display_name_set(*, user: AbstractBaseUser, display_name: str) -> str:
    """Store ``user``'s display name (blank: the username is shown); the name now shown.
    Another person's username is refused: nobody sits at a table as someone else."""
    name = display_name_clean(display_name)
    others = User.objects.exclude(pk=user.pk)
    if name and others.filter(username__iexact=name).exists():
        message = gettext("That is another person's username: choose a name of your own.")
        raise InvalidInputError(f"display_name: {message}", errors={"display_name": [message]})
    with transaction.atomic():
        row, _ = AccountSettings.objects.select_for_update().get_or_create(user_id=user.pk)
        row.display_name = name
        row.save(update_fields=["display_name"])
        shown = name or user.get_username()
        Competitor.objects.filter(user_id=user.pk).update(name=shown)
    if hasattr(user, "_state"):
        user._state.fields_cache.pop("account_settings", None)
    return person_name(user)
