"""A URL configuration with none of the site's pages (tests/api/test_read_cache.py)."""

from django.http import HttpRequest, HttpResponse
from django.urls import path


def _nothing(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return HttpResponse()


urlpatterns = [path("leagues/<int:tournament_id>/", _nothing)]
