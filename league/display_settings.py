"""A person's display settings (docs/web.md, *Languages and display*), in one place: the
plain values, what may be chosen (the site's languages, the IANA time zones zoneinfo
knows), the read and the write. A person without a row has every default: the browser's
language, the site's time zone (UTC), the two-colour deck at its usual size. The pages
apply them to a request (web.person_display) and offer them (web.views.display).
"""

from __future__ import annotations

import functools
import zoneinfo
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import tzinfo
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.utils.translation import gettext

from league.errors import InvalidInputError
from league.models import PersonDisplaySettings


@dataclass(frozen=True)
class DisplaySettings:
    language: str = ""
    """One of the site's languages' codes (settings.LANGUAGES), or blank for the browser's
    preference."""
    time_zone: str = ""
    """An IANA time zone (``Europe/Brussels``), or blank for the site's."""
    four_colour_deck: bool = False
    large_cards: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


DEFAULTS = DisplaySettings()


@functools.cache
def time_zone_names() -> list[str]:
    """Every IANA time zone the standard library knows, sorted."""
    return sorted(zoneinfo.available_timezones())


def person_zone(time_zone: str) -> tzinfo:
    """A person's time zone from their settings (blank or unknown: UTC, the site's)."""
    try:
        return zoneinfo.ZoneInfo(time_zone) if time_zone else zoneinfo.ZoneInfo("UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def language_codes() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def _language_checked(language: str) -> str:
    """``language`` if it is one of the site's (or blank); InvalidInputError otherwise."""
    if language and language not in language_codes():
        raise InvalidInputError(
            gettext("language: %(repr)s is not one of %(join)s")
            % {"repr": repr(language), "join": ", ".join(language_codes())}
        )
    return language


def display_settings_checked(
    *, language: str, time_zone: str, four_colour_deck: bool, large_cards: bool
) -> DisplaySettings:
    """The settings asked for; InvalidInputError naming a language or time zone we do not
    know."""
    _language_checked(language)
    if time_zone and time_zone not in time_zone_names():
        raise InvalidInputError(
            gettext("time_zone: %(zone)s is not a known time zone") % {"zone": repr(time_zone)}
        )
    return DisplaySettings(language, time_zone, four_colour_deck, large_cards)


def display_settings_of(*, user_id: int) -> DisplaySettings:
    row = PersonDisplaySettings.objects.filter(user_id=user_id).first()
    if row is None:
        return DEFAULTS
    return DisplaySettings(row.language, row.time_zone, row.four_colour_deck, row.large_cards)


def _chosen(user_id: int, field: str) -> str:
    rows = PersonDisplaySettings.objects.filter(user_id=user_id)
    return str(rows.values_list(field, flat=True).first() or "")


def language_of(*, user_id: int) -> str:
    """The language to write to the person in when they are not on a page (a notice, an
    email): the one they chose, else the site's."""
    return _chosen(user_id, "language") or settings.LANGUAGE_CODE


def time_zone_of(*, user_id: int) -> str:
    """The time zone the person chose (an IANA name), blank if none: their notices say
    deadlines in it."""
    return _chosen(user_id, "time_zone")


@transaction.atomic
def display_settings_set(
    *, user: AbstractBaseUser | AnonymousUser, chosen: DisplaySettings
) -> DisplaySettings:
    """Keep ``chosen`` (already checked) as the person's settings."""
    PersonDisplaySettings.objects.update_or_create(
        user_id=int(user.pk or 0), defaults=chosen.as_dict()
    )
    return chosen


@transaction.atomic
def language_set(*, user: AbstractBaseUser | AnonymousUser, language: str) -> None:
    """Keep ``language`` (one of the site's, or blank) as the person's language."""
    PersonDisplaySettings.objects.update_or_create(
        user_id=int(user.pk or 0), defaults={"language": _language_checked(language)}
    )


TIME_ZONE_COOKIE = "time_zone"
"""Where a visitor's browser names its time zone (web/static/web/js/time_zone.js)."""


@functools.cache
def _time_zone_name_set() -> frozenset[str]:
    return frozenset(time_zone_names())


def time_zone_known(name: str) -> bool:
    """Whether zoneinfo knows ``name`` (an IANA name), from a set read once a process."""
    return name in _time_zone_name_set()


def cookie_time_zone(cookies: Mapping[str, str]) -> zoneinfo.ZoneInfo | None:
    """The zone a visitor's browser named in the ``time_zone`` cookie, if zoneinfo knows
    it (an IANA name such as ``Europe/Amsterdam``); None for anything else. The pages
    show a visitor's times in it, so the shared cache of public reads keys it too
    (api.read_cache)."""
    name = cookies.get(TIME_ZONE_COOKIE, "")
    if not name or len(name) > 64 or name not in _time_zone_name_set():
        return None
    return zoneinfo.ZoneInfo(name)
