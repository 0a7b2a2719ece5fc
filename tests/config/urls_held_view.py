"""A URL configuration with one page that waits until the test lets it answer
(tests/config/test_request_threads.py)."""

import threading

from django.http import HttpRequest, HttpResponse
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


urlpatterns = [path("held/", _held), path("quick/", _quick)]
