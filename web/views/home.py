"""The home page, and "Play now": a newcomer's first table, with three of the demo's bots."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django.views.generic import TemplateView

from api.throttles import TableThrottle
from engine.variants import load_game
from league.errors import LeagueError
from league.selectors.bots import bots_without_family
from league.selectors.invitations import invitations_waiting_for
from league.selectors.my_games import my_games
from league.selectors.tables import games_to_watch
from league.services.demo import DEMO_TABLE_BOTS, demo_table_game, demo_table_open
from web.forms import family_choices
from web.templatetags.games import game_name
from web.throttling import rate_limited

HOME_LIST_LENGTH = 5
"""Games per list on the home page (the lobby has the longer lists)."""


class HomeView(TemplateView):
    template_name = "home.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["play_now_game"] = load_game(demo_table_game()).display_name
        context["invitations"] = invitations_waiting_for(user=self.request.user)
        context["without_family"] = bots_without_family(user=self.request.user)
        context["family_choices"] = family_choices()
        # The person's own games first (their move, then tables waiting for them): never
        # in the anonymous readers' cache, which only ever holds a visitor's page.
        mine = my_games(user=self.request.user, finished_limit=0)
        context["your_move"] = mine["your_move"][:HOME_LIST_LENGTH]
        context["your_waiting"] = mine["waiting"][:HOME_LIST_LENGTH]
        context["watch"] = games_to_watch(user=self.request.user, limit=HOME_LIST_LENGTH)
        return context


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited(TableThrottle)  # the API's new-tables allowance
def play_now(request: HttpRequest) -> HttpResponse:
    """GET: what the table is (the sign-up page sends a newcomer here); POST: open it and
    sit down at seat 0."""
    if request.method == "POST":
        try:
            match = demo_table_open(actor=request.user)  # type: ignore[arg-type]
        except LeagueError as exc:
            messages.error(request, exc.detail)
        else:
            messages.success(request, _("Your table is ready: you sit at seat 0. Good luck!"))
            return redirect("web:table", match_id=match.pk, seat=0)
    context = {"game_name": game_name(demo_table_game()), "bots": DEMO_TABLE_BOTS}
    return render(request, "web/play_now.html", context)
