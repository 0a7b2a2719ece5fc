"""The organiser's side of a club night on the web: who is present for the next round
(the league page's form), a table's scores confirmed from the round's page, the night
closed, and a correction from the match's page on the phones' own score grid (docs/web.md,
*Club nights*)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from league.errors import LeagueError, NotFoundError
from league.models import Match, Tournament
from league.selectors.club_nights import match_sheet_to_correct, round_attendance
from league.selectors.clubs import club_member_list
from league.selectors.matches import match_get
from league.selectors.profiles import user_find
from league.selectors.tournaments import entry_list, tournament_get
from league.services.club_nights import (
    club_attendance_set,
    club_night_close,
    table_scores_confirm_by_organiser,
    table_scores_correct,
)
from league.services.competitors import competitor_for_user
from league.words.score_sheet import seats_in_language, sheet_in_language
from web.club_forms import FormEntryError, entry_from_form, rows_filled, sheet_rows


def club_correction_rows(match: Match) -> list[dict[str, Any]]:
    """The score grid of a club match, as the phones have it, filled with the sheet as it
    was confirmed: the organiser's correction form."""
    form = match_sheet_to_correct(match=match)
    rows = sheet_rows(sheet_in_language(form["sheet"]), seats_in_language(form["seats"]))
    rows_filled(rows, form["entry"])
    return rows


def club_attendance_form(tournament: Tournament) -> dict[str, Any]:
    """The entrants ticked present (as said last, everyone before anything was said) and
    the club's other members, who may be reserves."""
    said = round_attendance(tournament=tournament)
    entries = entry_list(tournament=tournament, by_name=True)
    present = set(said["present"]) if said["round"] is not None else None
    entrant_users = {e.competitor.user_id for e in entries if e.competitor.user_id is not None}
    members = [] if tournament.club is None else club_member_list(club=tournament.club)
    return {
        "round": said["round"],
        "entrants": [
            {
                "id": e.competitor_id,
                "name": e.competitor.name,
                "present": present is None or e.competitor_id in present,
            }
            for e in entries
        ],
        "members": [
            {"id": m.user_id, "name": m.user.username}
            for m in members
            if m.user_id not in entrant_users
        ],
        "byes": said["byes"],
    }


def _ids(values: list[str]) -> list[int]:
    return [int(v) for v in values if v.isdigit()]


@login_required
@require_POST
def club_attendance_post(request: HttpRequest, tournament_id: int) -> HttpResponse:
    try:
        tournament = tournament_get(tournament_id=tournament_id)
    except NotFoundError as exc:
        raise Http404(exc.detail) from None
    reserves = []
    for user_id in _ids(request.POST.getlist("reserve")):
        user = user_find(user_id=user_id)
        if user is not None:
            reserves.append(competitor_for_user(user=user).pk)
    try:
        club_attendance_set(
            actor=request.user,
            tournament=tournament,
            present=_ids(request.POST.getlist("present")),
            reserves=reserves,
        )
    except LeagueError as exc:
        messages.error(request, exc.detail)
    else:
        messages.success(request, _("Attendance saved for the next round."))
    return redirect("web:league", tournament_id=tournament_id)


@login_required
@require_POST
def club_night_close_post(request: HttpRequest, tournament_id: int, number: int) -> HttpResponse:
    """The organiser closes the round's club night: its table codes no longer open."""
    try:
        tournament = tournament_get(tournament_id=tournament_id)
    except NotFoundError as exc:
        raise Http404(exc.detail) from None
    try:
        closed = club_night_close(actor=request.user, tournament=tournament, number=number)
    except LeagueError as exc:
        messages.error(request, exc.detail)
    else:
        messages.success(
            request,
            ngettext(
                "The club night is closed: the codes of %(count)s table no longer open it.",
                "The club night is closed: the codes of %(count)s tables no longer open them.",
                closed,
            )
            % {"count": closed},
        )
    return redirect("web:league-round", tournament_id=tournament_id, number=number)


@login_required
@require_POST
def match_scores_confirm_post(request: HttpRequest, match_id: int) -> HttpResponse:
    try:
        match = match_get(match_id=match_id)
    except NotFoundError as exc:
        raise Http404(exc.detail) from None
    try:
        result = table_scores_confirm_by_organiser(actor=request.user, match=match)
    except LeagueError as exc:
        messages.error(request, exc.detail)
    else:
        messages.success(
            request,
            _("Table %(table)s confirmed: %(scores)s.")
            % {"table": match.table, "scores": result.scores},
        )
    return redirect(
        "web:league-round", tournament_id=match.tournament_id, number=match.round.number
    )


@login_required
@require_POST
def match_correction_post(request: HttpRequest, match_id: int) -> HttpResponse:
    try:
        match = match_get(match_id=match_id)
    except NotFoundError as exc:
        raise Http404(exc.detail) from None
    data = {k: v for k, v in request.POST.items() if isinstance(v, str)}
    try:
        entry = entry_from_form(club_correction_rows(match), data)
    except FormEntryError as exc:
        messages.error(request, str(exc))
        return redirect("web:match", match_id=match.pk)
    try:
        table_scores_correct(
            actor=request.user, match=match, entry=entry, reason=request.POST.get("reason", "")
        )
    except LeagueError as exc:
        messages.error(request, exc.detail)
    else:
        messages.success(request, _("Corrected: the standings and ratings are recomputed."))
    return redirect("web:match", match_id=match.pk)
