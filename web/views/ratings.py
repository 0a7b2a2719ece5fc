"""The leaderboards: every competitor rated in a game family, best rating first."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from engine.variants import FAMILIES
from league.selectors import ratings_leaderboard


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponse:
    family = request.GET.get("family", "kingen")
    if family not in FAMILIES:
        family = "kingen"
    context = {
        "family": family,
        "families": list(FAMILIES),
        "rows": ratings_leaderboard(family=family),
    }
    return render(request, "web/ratings.html", context)
