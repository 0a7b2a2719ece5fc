"""The rating lists: every competitor rated in a game family (people and bots on one
scale, or only one kind), best rating first, with how sure each position is."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import pgettext
from django.views.decorators.http import require_GET

from engine.variants import FAMILIES
from league.selectors.ratings import RATING_LIST_WHO, ratings_leaderboard
from web.selectors import competitor_links


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponse:
    family = request.GET.get("family", "")
    if family not in FAMILIES:
        family = next(iter(FAMILIES))
    who = request.GET.get("who", "both")
    if who not in RATING_LIST_WHO:
        who = "both"
    rows = ratings_leaderboard(family=family, who=who)
    links = competitor_links(competitor_ids=[int(row["competitor"]) for row in rows])
    rows = [{**row, "link": links.get(int(row["competitor"]))} for row in rows]
    context = {
        "family": family,
        "family_title": FAMILIES[family].title or family,
        "families": [(name, game.title or name) for name, game in FAMILIES.items()],
        "rows": rows,
        "who": who,
        "whos": [
            ("both", pgettext("rating list filter", "People and bots")),
            ("people", pgettext("rating list filter", "People")),
            ("bots", pgettext("rating list filter", "Bots")),
        ],
    }
    return render(request, "web/ratings.html", context)
