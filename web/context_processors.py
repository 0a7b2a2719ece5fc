"""Template context for every page: the navigation bar's counts of the signed-in person
(unread notices, games awaiting their move), kept in the cache until a write changes them
(league.person_counts); the page's script (web/static/web/js/person.js) keeps them current
over the person's WebSocket."""

from __future__ import annotations

from django.http import HttpRequest

from api.read_cache import PREFETCHED_COUNTS
from league.person_counts import person_counts_cached
from web.person_display import request_display


def person_counts(request: HttpRequest) -> dict[str, dict[str, int]]:
    """``person_counts``: ``{"unread": n, "your_move": m}`` (zeros for a visitor)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"person_counts": {"unread": 0, "your_move": 0}}
    found = getattr(request, PREFETCHED_COUNTS, None)  # api.read_cache's early hits
    if isinstance(found, dict):
        return {"person_counts": found}
    return {"person_counts": person_counts_cached(user=user)}


def person_display(request: HttpRequest) -> dict[str, object]:
    """``display``: the person's language, time zone and card display (defaults for a
    visitor), for the language switcher and the table's and replay's deck."""
    return {"display": request_display(request)}
