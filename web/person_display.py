"""A signed-in person's language and time zone, applied to every request they make.

Django's LocaleMiddleware picks the language of a visitor: the switcher's cookie, else the
browser's Accept-Language. Once someone signs in, the language kept in their settings (if
they chose one) wins, and their time zone becomes the current one, so every date and
deadline on the page is shown in it. The settings are read once per session and kept in
it (``SESSION_KEY``); saving them (the switcher, /settings/display/) refreshes the copy.

A visitor who is not signed in sees times in their browser's time zone: a small script of
every page (web/static/web/js/time_zone.js) keeps the browser's IANA name in the
``time_zone`` cookie, and a name zoneinfo knows becomes the request's zone (anything
else is ignored: UTC, the site's).
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation

from league.display_settings import (
    DEFAULTS,
    DisplaySettings,
    cookie_time_zone,
    display_settings_of,
)

SESSION_KEY = "person_display"


def session_display_keep(request: HttpRequest, chosen: DisplaySettings) -> None:
    """Keep ``chosen`` as the session's copy of the signed-in person's settings."""
    request.session[SESSION_KEY] = {"user": request.user.pk, **chosen.as_dict()}


def request_display(request: HttpRequest) -> DisplaySettings:
    """The settings of the person making ``request`` (the defaults for a visitor)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return DEFAULTS
    kept = request.session.get(SESSION_KEY)
    if not isinstance(kept, dict) or kept.get("user") != user.pk:
        chosen = display_settings_of(user_id=user.pk)
        session_display_keep(request, chosen)
        return chosen
    fields = {k: v for k, v in kept.items() if k != "user"}
    try:
        return DisplaySettings(**fields)
    except TypeError:  # a copy from an older version of the settings: read them afresh
        chosen = display_settings_of(user_id=user.pk)
        session_display_keep(request, chosen)
        return chosen


class PersonDisplayMiddleware:
    """After AuthenticationMiddleware: the person's own language and time zone."""

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        chosen = request_display(request)
        if chosen.language:
            translation.activate(chosen.language)
            request.LANGUAGE_CODE = chosen.language
        signed_in = getattr(request, "user", None) is not None and request.user.is_authenticated
        visitor_zone = None if signed_in else cookie_time_zone(request.COOKIES)
        if chosen.time_zone:
            timezone.activate(zoneinfo.ZoneInfo(chosen.time_zone))
        elif visitor_zone is not None:
            timezone.activate(visitor_zone)
        else:
            timezone.deactivate()
        try:
            response: HttpResponse = self.get_response(request)
        finally:
            timezone.deactivate()
        return response
