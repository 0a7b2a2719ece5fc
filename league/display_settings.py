"""A person's language, time zone and card display (docs/web.md, *Languages and display*):
the read and the checks of what may be chosen (the write: league.services.display_settings).

The languages are the site's (settings.LANGUAGES); the time zones are the IANA names the
standard library's zoneinfo knows (league.domain.display, with the settings' plain values).
A person without a row has every default: the browser's language, the site's time zone
(UTC), the two-colour deck at its usual size.
"""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext

from league.domain.display import DEFAULTS, DisplaySettings, time_zone_names
from league.errors import InvalidInputError
from league.models import PersonDisplaySettings


def language_codes() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def display_settings_of(*, user_id: int) -> DisplaySettings:
    row = PersonDisplaySettings.objects.filter(user_id=user_id).first()
    if row is None:
        return DEFAULTS
    return DisplaySettings(
        language=row.language,
        time_zone=row.time_zone,
        four_colour_deck=row.four_colour_deck,
        large_cards=row.large_cards,
    )


def display_settings_checked(
    *, language: str, time_zone: str, four_colour_deck: bool, large_cards: bool
) -> DisplaySettings:
    """The settings asked for; InvalidInputError naming a language or time zone we do not
    know."""
    if language and language not in language_codes():
        raise InvalidInputError(
            f"language: {language!r} is not one of {', '.join(language_codes())}"
        )
    if time_zone and time_zone not in time_zone_names():
        raise InvalidInputError(
            gettext("time_zone: %(zone)s is not a known time zone") % {"zone": repr(time_zone)}
        )
    return DisplaySettings(
        language=language,
        time_zone=time_zone,
        four_colour_deck=four_colour_deck,
        large_cards=large_cards,
    )


def language_of(*, user_id: int) -> str:
    """The language to write to the person in when they are not on a page (a notice, an
    email): the one they chose, else the site's."""
    chosen = (
        PersonDisplaySettings.objects.filter(user_id=user_id)
        .values_list("language", flat=True)
        .first()
    )
    return chosen or settings.LANGUAGE_CODE


def time_zone_of(*, user_id: int) -> str:
    """The time zone the person chose (an IANA name), blank if none: their notices say
    deadlines in it."""
    chosen = (
        PersonDisplaySettings.objects.filter(user_id=user_id)
        .values_list("time_zone", flat=True)
        .first()
    )
    return chosen or ""
