"""Answers while the database is unreachable: 503 with Retry-After, never a 500.

``django.db``'s OperationalError and InterfaceError (the database is down, the connection
was lost) mean "try again shortly", not a bug. ``DatabaseUnavailableMiddleware`` turns
them into a 503 for the web pages (a short page) and for any view under /api/ (JSON); the
API's exception handler (api/exceptions.py) leaves them to it. docs/operations.md, *Outages*.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.deprecation import MiddlewareMixin

from api.exceptions import DATABASE_UNAVAILABLE

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 10
DETAIL = "the database is unavailable; try again in a moment"


def is_database_unavailable(error: BaseException) -> bool:
    return isinstance(error, DATABASE_UNAVAILABLE)


def _reason(error: BaseException) -> str:
    return (str(error).strip() or type(error).__name__).splitlines()[0]


def _unavailable(error: BaseException) -> None:
    """Log one line, and drop the broken connection so the next request opens a new one."""
    logger.warning("503: the database is unavailable (%s)", _reason(error))
    close_old_connections()


def database_unavailable_json(error: BaseException) -> JsonResponse:
    """The same for a view under /api/ outside the REST framework."""
    _unavailable(error)
    response = JsonResponse({"detail": DETAIL}, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def database_unavailable_page(error: BaseException) -> HttpResponse:
    """A page's answer: templates/503.html (rendered without the request, so nothing in
    it needs the database), 503, Retry-After."""
    _unavailable(error)
    response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware(MiddlewareMixin):
    """Last in MIDDLEWARE, so that its process_exception is asked first."""

    def __init__(
        self,
        get_response: Callable[[HttpRequest], HttpResponse | Awaitable[HttpResponse]],
    ) -> None:
        super().__init__(get_response)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_database_unavailable(exception):
            return None
        if request.path.startswith("/api/"):
            return database_unavailable_json(exception)
        return database_unavailable_page(exception)
