"""The API's rate limits on the web forms that do the same things (api.throttles).

``@rate_limited(UploadThrottle)`` on a view counts its POSTs in the same allowance as the
API's uploads; over the limit the person gets the 429 page with the message and a
Retry-After header, and the view does not run.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from api.throttles import RateLimited, ScopedThrottle, throttle_check

View = Callable[..., HttpResponse]


def too_many_requests_page(request: HttpRequest, error: RateLimited) -> HttpResponse:
    """The 429 page: the message, and Retry-After in seconds."""
    response = render(request, "429.html", {"reason": str(error.detail)}, status=429)
    response["Retry-After"] = str(error.wait)
    return response


def rate_limited(throttle_class: type[ScopedThrottle]) -> Callable[[View], View]:
    """Limit a view's POSTs with an API throttle class (GETs pass)."""

    def decorate(view: View) -> View:
        @wraps(view)
        def limited(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                throttle_check(request, throttle_class)
            except RateLimited as error:
                return too_many_requests_page(request, error)
            return view(request, *args, **kwargs)

        return limited

    return decorate


def phone_session_ensure(request: HttpRequest) -> None:
    """Give a browser without a session one (the pages' phones): its phone is known by it
    (``phone_of``) and keeps the codes it opened."""
    user = getattr(request, "user", None)
    session = getattr(request, "session", None)
    signed_in = user is not None and user.is_authenticated
    if session is not None and not signed_in and not session.session_key:
        session.save()
