"""My games (docs/web.md, *My games*): the signed-in person's games where it is their move
(soonest deadline first), waiting to start, in progress and finished."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from league.selectors.my_games import my_games


@login_required
@require_GET
def my_games_page(request: HttpRequest) -> HttpResponse:
    return render(request, "web/games.html", {"games": my_games(user=request.user)})
