"""A URL configuration with a page that waits until the test lets it answer, a quick one
and a streamed one (tests/config/test_request_threads.py)."""

import threading
from collections.abc import AsyncIterator

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import path

entered = threading.Event()
"""Set when the page has started."""
released = threading.Event()
"""Set by the test: the page may answer."""


def _held(request: HttpRequest) -> HttpResponse:
    entered.set()
    released.wait(timeout=30)
    return HttpResponse("late")


def _quick(request: HttpRequest) -> HttpResponse:
    return HttpResponse("quick")


def _streamed(request: HttpRequest) -> StreamingHttpResponse:
    async def parts() -> AsyncIterator[bytes]:  # as the handler serves them: no warning
        yield b"first "
        yield b"second"

    return StreamingHttpResponse(parts())


urlpatterns = [path("held/", _held), path("quick/", _quick), path("streamed/", _streamed)]
