"""The site's own page for a refused form (Django's CSRF_FAILURE_VIEW), and /favicon.ico."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static

CSRF_PROBLEM = (
    "the form was sent without this site's security token, or with an old one (the page "
    "stayed open across a sign-in or a sign-out, or the browser blocks this site's cookies)"
)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form refused by Django's CSRF check: a plain page saying what to do (never
    Django's debug page); for the API, JSON like its other errors."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": f"CSRF check failed: {reason or CSRF_PROBLEM}"}, status=403)
    return render(request, "403_csrf.html", {"reason": reason}, status=403)


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers that ask /favicon.ico without reading the page's links get the PNG."""
    return HttpResponsePermanentRedirect(static("web/favicon-32.png"))
