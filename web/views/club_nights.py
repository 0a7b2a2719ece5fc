"""The pages of a club night (docs/web.md, *Club nights*): a round's table cards and
seating list to print (and as a PDF), a table's score entry on a phone from its code
(no account needed), and the standings in large type for a projector."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from league.errors import LeagueError, NotAllowedError, NotFoundError
from league.selectors.club_nights import (
    club_organiser_check,
    club_round,
    round_cards,
    table_entry_view,
    table_sheet_for_code,
)
from league.selectors.tournaments import tournament_get
from league.services.club_nights import table_scores_confirm, table_scores_enter
from league.words.games_and_times import game_name_words
from league.words.score_sheet import cards_in_language, seats_in_language, sheet_in_language
from web.club_forms import FormEntryError, entry_from_form, sheet_rows, totals_from_form
from web.table_cards import PAPER_SIZES, cards_pdf, grid_rows, qr_svg
from web.views.leagues import standings_context


def _cards(request: HttpRequest, tournament_id: int, number: int) -> dict[str, Any]:
    try:
        tournament = tournament_get(tournament_id=tournament_id)
        club_organiser_check(user=request.user, tournament=tournament)
        cards = cards_in_language(
            round_cards(
                round_=club_round(tournament=tournament, number=number),
                base_url=request.build_absolute_uri("/")[:-1],
            )
        )
    except NotFoundError as exc:
        raise Http404(exc.detail) from None
    for card in cards["tables"]:
        card["game_name"] = game_name_words(card["game_name"])
    return cards


@require_GET
def round_cards_page(request: HttpRequest, tournament_id: int, number: int) -> HttpResponse:
    try:
        cards = _cards(request, tournament_id, number)
    except NotAllowedError as exc:
        return render(request, "403.html", {"reason": exc.detail}, status=403)
    for card in cards["tables"]:
        card["qr"] = qr_svg(card["entry_url"])
        card["grid"] = grid_rows(card)
        card["players"] = [s for s in card["seats"] if s["role"] == "player"]
    compass = [s["compass"] for s in cards["tables"][0]["seats"]] if cards["tables"] else []
    for record in cards.get("hand_records", []):
        record["rows"] = list(zip(compass, record["hands"], strict=False))
    return render(request, "web/club_cards.html", {"cards": cards})


@require_GET
def round_cards_pdf(request: HttpRequest, tournament_id: int, number: int) -> HttpResponse:
    try:
        cards = _cards(request, tournament_id, number)
    except NotAllowedError as exc:
        return render(request, "403.html", {"reason": exc.detail}, status=403)
    paper = request.GET.get("paper", "a4")
    if paper not in PAPER_SIZES:
        return render(request, "400.html", {"reason": _("paper: a4 or letter")}, status=400)
    response = HttpResponse(cards_pdf(cards, paper=paper), content_type="application/pdf")
    name = f"table-cards-{tournament_id}-round-{number}-{paper}.pdf"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_GET
def table_code_page(request: HttpRequest) -> HttpResponse:
    """Type the code of a table card (for a phone without a QR reader)."""
    code = request.GET.get("code", "").strip().upper()
    if code:
        return redirect("web:club-table", code=code)
    return render(request, "web/club_table.html", {"ask_code": True})


@require_http_methods(["GET", "POST"])
def table_entry_page(request: HttpRequest, code: str) -> HttpResponse:
    """The table's score sheet on a phone: enter it (any seat), or confirm what another
    seat entered."""
    try:
        sheet = table_sheet_for_code(code=code)
    except NotFoundError as exc:
        return render(request, "web/club_table.html", {"gone": exc.detail}, status=404)
    view = table_entry_view(sheet=sheet)
    view["sheet"] = sheet_in_language(view["sheet"])
    view["seats"] = seats_in_language(view["seats"])
    view["game_name"] = game_name_words(view["game_name"])
    rows = sheet_rows(view["sheet"], view["seats"])
    context: dict[str, Any] = {"view": view, "rows": rows, "posted": {}}
    if request.method == "POST":
        data = {k: v for k, v in request.POST.items() if isinstance(v, str)}
        context["posted"] = data
        try:
            seat = int(data.get("seat", ""))
        except ValueError:
            context["error"] = _("Choose your seat at the table first.")
            return render(request, "web/club_table.html", context, status=400)
        try:
            if data.get("action") == "confirm":
                result = table_scores_confirm(code=code, seat=seat)
                messages.success(
                    request,
                    _("Confirmed: the scores %(scores)s are in.") % {"scores": result.scores},
                )
                return render(
                    request, "web/club_table.html", {"done": view, "scores": result.scores}
                )
            if data.get("action") == "totals":
                table_scores_enter(
                    code=code, seat=seat, totals=totals_from_form(view["seats"], data)
                )
            else:
                table_scores_enter(code=code, seat=seat, entry=entry_from_form(rows, data))
        except FormEntryError as exc:
            context["error"] = str(exc)
            return render(request, "web/club_table.html", context, status=400)
        except LeagueError as exc:
            context["error"] = exc.detail
            return render(request, "web/club_table.html", context, status=400)
        return redirect("web:club-table", code=sheet.code)
    return render(request, "web/club_table.html", context)


@require_GET
def league_projector(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The standings in large type, updated live (for a projector at the club)."""
    try:
        tournament = tournament_get(tournament_id=tournament_id)
    except NotFoundError as exc:
        raise Http404(exc.detail) from None
    context = {"tournament": tournament, **standings_context(tournament)}
    return render(request, "web/club_projector.html", context)
