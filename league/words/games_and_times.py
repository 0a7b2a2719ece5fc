"""The league's and the engine's words that are made of parts, said in the page's language:
a game's name with its length (``Priffe, 2 rubbers``), a duration, a time per move and a
time control, a moment (a deadline) in a person's own time zone, and how long someone
must wait (the rate limits, a locked sign-in). One module, so that a time per move reads
the same in the lobby, on a league's page, in the API and in a notice.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, tzinfo

from django.utils import dateformat, timezone, translation
from django.utils.translation import gettext, ngettext

MINUTE = 60
HOUR = 3600
DAY = 86400

_COUNTED = re.compile(r"^(\d+) (\w+)$")


def duration_words(seconds: float) -> str:
    """A duration in its largest whole unit, in the page's language: ``1 day`` (``1 dag``),
    ``12 hours`` (``12 timmar``), and in seconds when it is no whole number of minutes:
    ``90 seconds`` (``90 seconden``), ``1.5 seconds``."""
    for size in (DAY, HOUR, MINUTE):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            if size == DAY:
                words = ngettext("%(count)s day", "%(count)s days", count)
            elif size == HOUR:
                words = ngettext("%(count)s hour", "%(count)s hours", count)
            else:
                words = ngettext("%(count)s minute", "%(count)s minutes", count)
            return words % {"count": count}
    return gettext("%(count)s seconds") % {"count": f"{seconds:g}"}


def duration_abbreviated(seconds: float) -> str:
    """A move time in the table's short notices, rounded to its unit: ``30 s``, ``5 min``,
    ``12 h``, ``3 days`` (seconds below two minutes, minutes below two hours, hours below
    two days)."""
    if seconds < 2 * MINUTE:
        return gettext("%(count)s s") % {"count": f"{seconds:g}"}
    if seconds < 2 * HOUR:
        return gettext("%(count)s min") % {"count": round(seconds / MINUTE)}
    if seconds < 2 * DAY:
        return gettext("%(count)s h") % {"count": round(seconds / HOUR)}
    days = round(seconds / DAY)
    return ngettext("%(count)s day", "%(count)s days", days) % {"count": days}


def move_time_words(seconds: float) -> str:
    return gettext("%(duration)s per move") % {"duration": duration_words(seconds)}


def time_control_words(*, time_control: str, move_seconds: float, time_bank_seconds: float) -> str:
    """``live, 2 minuten per zet + 1 minuut tijdsbank``."""
    control = gettext("live") if time_control == "live" else gettext("correspondence")
    words = gettext("%(control)s, %(duration)s a move") % {
        "control": control,
        "duration": duration_words(move_seconds),
    }
    if time_bank_seconds:
        words += " " + gettext("+ %(duration)s bank") % {
            "duration": duration_words(time_bank_seconds)
        }
    return words


def time_control_in_english(
    *, time_control: str, move_seconds: float, time_bank_seconds: float
) -> str:
    """``time_control_words`` in English whatever the request's language (the API's lobby
    rows, league.selectors.tables' ``time_words``)."""
    with translation.override("en"):
        return time_control_words(
            time_control=time_control,
            move_seconds=move_seconds,
            time_bank_seconds=time_bank_seconds,
        )


def wait_in_words(seconds: int) -> str:
    """How long someone must wait, never less than it is: ``45 seconds``, ``1 minute``,
    and in whole minutes rounded up from a minute on (290 s: ``5 minutes``; an hour:
    ``60 minutes``)."""
    if seconds < MINUTE:
        return ngettext("%(count)s second", "%(count)s seconds", seconds) % {"count": seconds}
    minutes = math.ceil(seconds / MINUTE)
    return ngettext("%(count)s minute", "%(count)s minutes", minutes) % {"count": minutes}


def _counted(count: int, unit: str) -> str:
    """``3 players``, ``6 rubbers``, ``12 deals``, ``2 games`` in the page's language."""
    singular = unit[:-1] if unit.endswith("s") else unit
    if singular == "player":
        words = ngettext("%(count)s player", "%(count)s players", count)
    elif singular == "rubber":
        words = ngettext("%(count)s rubber", "%(count)s rubbers", count)
    elif singular == "deal":
        words = ngettext("%(count)s deal", "%(count)s deals", count)
    elif singular == "game":
        words = ngettext("%(count)s game", "%(count)s games", count)
    else:
        return f"{count} {gettext(unit)}"
    return words % {"count": count}


def game_name_words(display_name: str) -> str:
    """A game's name for people (engine.game.Game.display_name) in the page's language: the
    whole name when the catalogue has it, else its parts (the title, then each ``N unit``
    and ``own rules``)."""
    whole = gettext(display_name)
    if whole != display_name:
        return whole
    title, *parts = display_name.split(", ")
    said = [gettext(title)]
    for part in parts:
        counted = _COUNTED.match(part)
        if counted:
            said.append(_counted(int(counted.group(1)), counted.group(2)))
        elif part == "own rules":
            said.append(gettext("own rules"))
        else:
            said.append(gettext(part))
    return ", ".join(said)


def moment_words(moment: datetime, zone: tzinfo | None = None) -> str:
    """``Tue 25 Nov 2026, 20:00 UTC`` (``di 25 nov. 2026, 21:00 CET``): a deadline in the
    active language, in ``zone`` (else the active time zone)."""
    local = timezone.localtime(moment, zone or timezone.get_current_timezone())
    return str(dateformat.format(local, "D j M Y, H:i T"))
