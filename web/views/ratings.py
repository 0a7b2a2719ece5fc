"""The leaderboards: every competitor rated in a game family, best rating first."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from engine.variants import FAMILIES
from league.selectors.ratings import ratings_leaderboard
from web.selectors import competitor_links


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponse:
    family = request.GET.get("family", "")
    if family not in FAMILIES:
        family = next(iter(FAMILIES))
    rows = ratings_leaderboard(family=family)
    links = competitor_links(competitor_ids=[int(row["competitor"]) for row in rows])
    rows = [{**row, "link": links.get(int(row["competitor"]))} for row in rows]
    context = {
        "family": family,
        "family_title": FAMILIES[family].title or family,
        "families": [(name, game.title or name) for name, game in FAMILIES.items()],
        "rows": rows,
    }
    return render(request, "web/ratings.html", context)
