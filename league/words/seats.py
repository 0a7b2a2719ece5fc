"""A seat as people at a card table name it: a compass position (seat 0 is North, then
clockwise: East, South, West; engine.table_sheet.compass_names, the positions the club
night's table cards print), in the active language. The engine knows seats as numbers."""

from __future__ import annotations

from django.utils.translation import gettext, pgettext

from engine.table_sheet import compass_names


def compass_in_language(name: str) -> str:
    """``North`` -> ``Noord`` (nl), ``Nord`` (sv); a name it does not know as it is."""
    names = {
        "North": pgettext("compass", "North"),
        "East": pgettext("compass", "East"),
        "South": pgettext("compass", "South"),
        "West": pgettext("compass", "West"),
        "North-East": pgettext("compass", "North-East"),
        "South-East": pgettext("compass", "South-East"),
        "South-West": pgettext("compass", "South-West"),
        "North-West": pgettext("compass", "North-West"),
    }
    return names.get(name, name)


def seat_in_words(seat: int, num_seats: int) -> str:
    """Seat 2 at a table of four -> ``South`` in the active language (``Seat 7`` past the
    compass, counted from one)."""
    names = compass_names(num_seats)
    if 0 <= seat < len(names) and not names[seat].startswith("seat "):
        return compass_in_language(names[seat])
    return gettext("Seat %(seat)s") % {"seat": seat + 1}
