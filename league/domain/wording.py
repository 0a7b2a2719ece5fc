"""Times, durations and places in words, as the league says them to people: in its notices,
on its pages and in its API's messages. One module, so that a time per move reads the same
in the lobby, on a league's page and in a notice.

Plain values in, a string out: no clock is read (a moment is given) and nothing is
localised (English, UTC).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime

Ngettext = Callable[[str, str, int], str]


def _english(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


MINUTE = 60
HOUR = 3600
DAY = 86400
WHOLE_UNITS = (("day", DAY), ("hour", HOUR), ("minute", MINUTE))
"""The units a duration is said in when it is a whole number of them, largest first."""


def duration_in_words(seconds: float) -> str:
    """A duration in its largest whole unit: ``1 day``, ``12 hours``, ``2 minutes``, and
    in seconds when it is no whole number of minutes: ``90 seconds``, ``1.5 seconds``."""
    for unit, size in WHOLE_UNITS:
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds:g} seconds"


def duration_abbreviated(seconds: float) -> str:
    """A move time in a table's short notices, rounded to its unit: ``30 s``, ``5 min``,
    ``12 h``, ``3 days`` (seconds below two minutes, minutes below two hours, hours below
    two days)."""
    if seconds < 2 * MINUTE:
        return f"{seconds:g} s"
    if seconds < 2 * HOUR:
        return f"{round(seconds / MINUTE)} min"
    if seconds < 2 * DAY:
        return f"{round(seconds / HOUR)} h"
    return f"{round(seconds / DAY)} days"


def wait_in_words(seconds: int, ngettext: Ngettext = _english) -> str:
    """How long someone must wait, never less than it is: ``45 seconds``, ``1 minute``,
    and in whole minutes rounded up from a minute on (290 s: ``5 minutes``; an hour:
    ``60 minutes``). ``ngettext`` says it in another language (the services pass
    Django's; makemessages finds the messages here)."""
    if seconds < MINUTE:
        return ngettext("%(count)s second", "%(count)s seconds", seconds) % {"count": seconds}
    minutes = math.ceil(seconds / MINUTE)
    return ngettext("%(count)s minute", "%(count)s minutes", minutes) % {"count": minutes}


def move_time_in_words(move_seconds: float) -> str:
    """A time per move: ``1 day per move``, ``12 hours per move``, ``30 seconds per move``."""
    return f"{duration_in_words(move_seconds)} per move"


def time_control_words(*, time_control: str, move_seconds: float, time_bank_seconds: float) -> str:
    """A time control: ``live, 2 minutes a move + 1 minute bank``, ``correspondence, 1 day
    a move``."""
    words = f"{time_control}, {duration_in_words(move_seconds)} a move"
    if time_bank_seconds:
        words += f" + {duration_in_words(time_bank_seconds)} bank"
    return words


def moment_in_words(moment: datetime) -> str:
    """``Tue 25 Nov 2026, 20:00 UTC``: a deadline as people read it."""
    return moment.astimezone(UTC).strftime("%a %d %b %Y, %H:%M UTC")


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 111th."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"
