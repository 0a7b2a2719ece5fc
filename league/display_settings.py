"""A person's language, time zone and card display (docs/web.md, *Languages and display*):
the read and the checks of what may be chosen (the write: league.services.display_settings).

The languages are the site's (settings.LANGUAGES); the time zones are the IANA names the
standard library's zoneinfo knows. A person without a row has every default: the browser's
language, the site's time zone (UTC), the two-colour deck at its usual size.
"""

from __future__ import annotations

import functools
import zoneinfo
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings
from django.utils.translation import gettext

from league.errors import InvalidInputError
from league.models import PersonDisplaySettings


@dataclass(frozen=True)
class DisplaySettings:
    language: str = ""
    """One of settings.LANGUAGES' codes, or blank for the browser's preference."""
    time_zone: str = ""
    """An IANA time zone (``Europe/Brussels``), or blank for the site's."""
    four_colour_deck: bool = False
    large_cards: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


DEFAULTS = DisplaySettings()


def language_codes() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


@functools.cache
def time_zone_names() -> list[str]:
    """Every IANA time zone the standard library knows, sorted."""
    return sorted(zoneinfo.available_timezones())


@functools.cache
def _time_zone_name_set() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


TIME_ZONE_COOKIE = "time_zone"
"""Where a visitor's browser names its time zone (web/static/web/js/time_zone.js)."""


def cookie_time_zone(cookies: Mapping[str, str]) -> zoneinfo.ZoneInfo | None:
    """The zone a visitor's browser named in the ``time_zone`` cookie, if zoneinfo knows
    it (an IANA name such as ``Europe/Amsterdam``); None for anything else. The pages
    show a visitor's times in it (web.person_display), so the shared cache of public
    reads keys it too (config.read_cache)."""
    name = cookies.get(TIME_ZONE_COOKIE, "")
    if not name or len(name) > 64 or name not in _time_zone_name_set():
        return None
    return zoneinfo.ZoneInfo(name)


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
