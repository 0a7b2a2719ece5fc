"""A NUL byte anywhere in a request's path is a 404, before anything reads the path.

PostgreSQL refuses a NUL in a text value (psycopg raises ValueError), so a path like
``/people/a%00b/`` reached a view's query and answered 500. No name, code or slug of ours
can hold a NUL, so such a path names nothing: it is answered "not found" here, first in
MIDDLEWARE, for every page and every API path alike (the API's JSON 404 under /api/, the
site's 404 page elsewhere). docs/operations.md, *Hostile input*.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from inspect import iscoroutinefunction

from django.http import Http404, HttpRequest, HttpResponse
from django.utils.decorators import sync_and_async_middleware

from api.views import api_not_found

NUL = "\x00"
API_PREFIX = "/api/"


def nul_path_answer(request: HttpRequest) -> HttpResponse | None:
    """The 404 for a path with a NUL; None for any other path."""
    if NUL not in request.path:
        return None
    if request.path_info.startswith(API_PREFIX):
        return api_not_found(request)
    raise Http404("no page at this address")  # Django's handler: templates/404.html


@sync_and_async_middleware
def nul_path_middleware(
    get_response: Callable[[HttpRequest], HttpResponse | Awaitable[HttpResponse]],
) -> Callable[[HttpRequest], HttpResponse | Awaitable[HttpResponse]]:
    """First in settings.MIDDLEWARE (module docstring)."""
    if iscoroutinefunction(get_response):

        async def middleware_async(request: HttpRequest) -> HttpResponse:
            answer = nul_path_answer(request)
            if answer is not None:
                return answer
            return await get_response(request)

        return middleware_async

    def middleware(request: HttpRequest) -> HttpResponse | Awaitable[HttpResponse]:
        answer = nul_path_answer(request)
        return answer if answer is not None else get_response(request)

    return middleware
