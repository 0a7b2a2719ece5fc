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

from api.throttles import (
    RateLimited,
    TableCodeWriteThrottle,
    TableSessionWriteThrottle,
    phone_of,
    table_code_guesses_limited,
)
from league.errors import LeagueError, NotAllowedError, NotFoundError
from league.selectors.club_nights import (
    club_organiser_check,
    club_round,
    round_cards,
    table_code_open,
    table_entry_view,
)
from league.selectors.tournaments import tournament_get
from league.services.club_nights import table_scores_confirm, table_scores_enter
from league.words.games_and_times import game_name_words
from league.words.score_sheet import cards_in_language, seats_in_language, sheet_in_language
from web.club_forms import FormEntryError, entry_from_form, sheet_rows, totals_from_form
from web.table_cards import PAPER_SIZES, cards_pdf, grid_rows, qr_svg
from web.throttling import phone_session_ensure, rate_limited, too_many_requests_page
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
        for side in card["sides"]:
            side["qr"] = qr_svg(side["entry_url"])
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


def _phone(request: HttpRequest) -> str:
    """The digest of this phone's session, the session made if it has none yet."""
    phone_session_ensure(request)
    return phone_of(request)


def _version_posted(data: dict[str, str]) -> int:
    value = data.get("version", "0")
    return int(value) if value.isdigit() else 0


def _entered_now(code: str) -> dict[str, Any]:
    """What the sheet holds now (another phone's entry), or nothing if it is closed."""
    try:
        fresh = table_code_open(code=code)
    except LeagueError:
        return {}
    now = table_entry_view(sheet=fresh.sheet, opened=fresh)
    return {k: now[k] for k in ("status", "version", "entered_seat", "scores")}


@require_http_methods(["GET", "POST"])
@rate_limited(TableCodeWriteThrottle)
@rate_limited(TableSessionWriteThrottle)
def table_entry_page(request: HttpRequest, code: str) -> HttpResponse:
    """The table's score sheet on a phone, opened by one side's code: enter it (a seat of
    this side), or confirm what the other side entered."""
    phone_session_ensure(request)  # the phone's own session: it opens its code again
    try:
        with table_code_guesses_limited(request, code):
            opened = table_code_open(code=code)
    except RateLimited as error:
        return too_many_requests_page(request, error)
    except LeagueError as exc:
        return render(request, "web/club_table.html", {"gone": exc.detail}, status=exc.status)
    sheet = opened.sheet
    view = table_entry_view(sheet=sheet, opened=opened)
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
        version = _version_posted(data)
        try:
            if data.get("action") == "confirm":
                result = table_scores_confirm(
                    code=code, seat=seat, version=version, phone=_phone(request)
                )
                messages.success(
                    request,
                    _("Confirmed: the scores %(scores)s are in.") % {"scores": result.scores},
                )
                return render(
                    request, "web/club_table.html", {"done": view, "scores": result.scores}
                )
            if data.get("action") == "totals":
                totals = totals_from_form(view["seats"], data)
                table_scores_enter(
                    code=code, seat=seat, totals=totals, version=version, phone=_phone(request)
                )
            else:
                entry = entry_from_form(rows, data)
                table_scores_enter(
                    code=code, seat=seat, entry=entry, version=version, phone=_phone(request)
                )
        except FormEntryError as exc:
            context["error"] = str(exc)
            return render(request, "web/club_table.html", context, status=400)
        except LeagueError as exc:
            if exc.status == 409:  # what the other phone entered: the page shows it now
                context["view"] = {**view, **_entered_now(code)}
            context["error"] = exc.detail
            return render(request, "web/club_table.html", context, status=exc.status)
        return redirect("web:club-table", code=code.strip().upper())
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
