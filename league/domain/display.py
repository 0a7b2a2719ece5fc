"""A person's display settings as plain values, and the time zones a browser may name.

league.display_settings reads them from a person's row and checks what is asked for; the
pages (web.person_display) and the shared read cache (web.read_cache) read a visitor's
time zone from the cookie the browser sets (web/static/web/js/time_zone.js). The time
zones are the IANA names the standard library's zoneinfo knows.
"""

from __future__ import annotations

import functools
import zoneinfo
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any


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


@functools.cache
def _time_zone_name_set() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


TIME_ZONE_COOKIE = "time_zone"
"""Where a visitor's browser names its time zone (web/static/web/js/time_zone.js)."""


def cookie_time_zone(cookies: Mapping[str, str]) -> zoneinfo.ZoneInfo | None:
    """The zone a visitor's browser named in the ``time_zone`` cookie, if zoneinfo knows
    it (an IANA name such as ``Europe/Amsterdam``); None for anything else. The pages
    show a visitor's times in it (web.person_display), so the shared cache of public
    reads keys it too (web.read_cache)."""
    name = cookies.get(TIME_ZONE_COOKIE, "")
    if not name or len(name) > 64 or name not in _time_zone_name_set():
        return None
    return zoneinfo.ZoneInfo(name)
