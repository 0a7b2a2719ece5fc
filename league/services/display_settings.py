"""Keeping a person's language, time zone and card display (league.display_settings reads
and checks them)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.utils.translation import gettext as _

from league.display_settings import language_codes
from league.domain.display import DisplaySettings
from league.errors import InvalidInputError
from league.models import PersonDisplaySettings


@transaction.atomic
def display_settings_set(
    *, user: AbstractBaseUser | AnonymousUser, chosen: DisplaySettings
) -> DisplaySettings:
    """Keep ``chosen`` (already checked) as the person's settings."""
    PersonDisplaySettings.objects.update_or_create(
        user_id=int(user.pk or 0),
        defaults={
            "language": chosen.language,
            "time_zone": chosen.time_zone,
            "four_colour_deck": chosen.four_colour_deck,
            "large_cards": chosen.large_cards,
        },
    )
    return chosen


@transaction.atomic
def language_set(*, user: AbstractBaseUser | AnonymousUser, language: str) -> None:
    """Keep ``language`` (one of the site's, or blank) as the person's language."""
    if language and language not in language_codes():
        raise InvalidInputError(
            _("language: %(repr)s is not one of %(join)s")
            % {"repr": repr(language), "join": ", ".join(language_codes())}
        )
    PersonDisplaySettings.objects.update_or_create(
        user_id=int(user.pk or 0), defaults={"language": language}
    )
