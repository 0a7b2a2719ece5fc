"""A person's profile: their games, ratings, partners and opponents, and bots
(league.selectors.profiles; only what anyone may see, and the games, partners and bots
only to whom the person lets see them)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from accounts.account_settings import profile_details_visible
from league.errors import NotFoundError
from league.selectors.person_names import person_name, person_name_with_username
from league.selectors.profiles import (
    person_bots,
    person_competitor,
    person_games,
    person_get,
    person_ratings,
    person_tablemates,
)
from web.charts import line_chart_svg


def _page_number(raw: str | None) -> int:
    """``?page=`` as a page number (anything else: the first page)."""
    return int(raw) if raw and raw.isdigit() and 0 < len(raw) < 7 else 1


@require_GET
def person_detail(request: HttpRequest, username: str) -> HttpResponse:
    try:
        person = person_get(username=username)
    except NotFoundError:
        raise Http404(_("Nobody by that name plays here.")) from None
    competitor = person_competitor(person=person)
    ratings = person_ratings(competitor=competitor)
    chart = line_chart_svg(
        [(rating.title, rating.history) for rating in ratings],
        title=_("Ratings of %(name)s") % {"name": person_name(person)},
        x_label=_("games rated"),
        y_label=_("rating's low end"),
        chart_id="person-ratings",
    )
    # The person's choice (settings, *Privacy*): their games, partners and bots or not.
    visible = profile_details_visible(person_id=person.pk, viewer=request.user)
    page = _page_number(request.GET.get("page"))
    context = {
        "person": person,
        "person_display": person_name(person),
        "person_heading": person_name_with_username(person),
        "details_visible": visible,
        "games": person_games(competitor=competitor, page=page) if visible else None,
        "ratings": ratings,
        "chart": chart if ratings else "",
        "tablemates": person_tablemates(competitor=competitor) if visible else None,
        "bots": person_bots(person=person) if visible else [],
        "is_you": request.user.is_authenticated and request.user.pk == person.pk,
    }
    return render(request, "web/person.html", context)
