"""A match: its page (the replay viewer, live while it runs), the timeline of public facts,
and a person's table. Opening a table is web.views.tables."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from league.errors import NotAllowedError, NotFoundError
from league.models import Match, MatchStatus
from league.reads_generation import settled_read
from league.selectors.club_nights import match_club_sheet
from league.selectors.matches import (
    analysis_askers,
    can_request_analysis,
    match_analysis_for,
    match_error_for,
    match_get,
    match_seat_get_for_owner,
    match_seat_of_viewer,
    record_shows_all_hands,
)
from league.selectors.tables import CHAT_MAX_CHARS
from web.person_display import request_display
from web.personal_parts import base_parts, personal_parts
from web.selectors import can_organise, competitor_links, match_timeline, seat_names
from web.templatetags.games import game_name
from web.views.club_organise import club_correction_rows


def _match(match_id: int) -> Match:
    try:
        return match_get(match_id=match_id)
    except NotFoundError:
        raise Http404(_("No such match.")) from None


@require_GET
def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    match = _match(match_id)
    seats = seat_names(match.seats.all())  # by seat (match_get)
    result = getattr(match, "result", None)
    if result is not None:
        for seat in seats:
            seat["score"] = result.scores[seat["seat"]]
            seat["outcome"] = result.outcomes[seat["seat"]]
    name = game_name(match.game)
    club_sheet = match_club_sheet(match=match) if match.tournament.at_club else None
    organiser = can_organise(user=request.user, tournament=match.tournament)
    context = {
        "title": _("Match %(pk)s: %(game_name)s") % {"pk": match.pk, "game_name": name},
        "match": match,
        "game_name": name,
        "seats": seats,
        "links": competitor_links(competitor_ids=[seat["competitor"] for seat in seats]),
        "error": match_error_for(match=match, user=request.user),
        "record_url": reverse("api-match-record", args=[match.pk]),
        "timeline_url": reverse("web:match-timeline", args=[match.pk]),
        "socket_url": f"/ws/matches/{match.pk}/",
        **_match_own_context(request, match),
        "club_sheet": club_sheet,
        "organiser": organiser,
        "correction_rows": (
            club_correction_rows(match)
            if organiser
            and club_sheet
            and (club_sheet["status"] == "confirmed" or club_sheet["to_finish"])
            else []
        ),
        **_analysis_context(request, match, seats),
    }
    return render(request, "web/match.html", context)


def _match_own_context(request: HttpRequest, match: Match) -> dict[str, Any]:
    """What the match page's own parts of the person reading it show
    (web/_match_personal.html): their seat, play again, the chat they write in."""
    my_seat = match_seat_of_viewer(match=match, user=request.user)
    return {
        "match": match,
        "my_seat": my_seat,
        "running": match.status in (MatchStatus.QUEUED, MatchStatus.RUNNING),
        "table_url": reverse("web:table", args=[match.pk, my_seat]) if my_seat is not None else "",
        "chat_url": reverse("api-match-chat", args=[match.pk]),
        "chat_can_write": my_seat is not None,
        "chat_max_chars": CHAT_MAX_CHARS,
        "chat_socket_url": f"/ws/matches/{match.pk}/",
    }


def _match_shared(match_id: int) -> tuple[Match, bool, frozenset[int]]:
    """The match (its seats, tournament and club), whether its record shows every hand,
    and who may ask for its analysis, read once for every signed-in reader while no write
    but a running match's progress happens (league.reads_generation.settled_read)."""

    def read() -> tuple[Match, bool, frozenset[int]]:
        match = _match(match_id)
        _ = match.tournament.club  # kept with the match
        all_hands = record_shows_all_hands(match=match)
        return match, all_hands, analysis_askers(match=match) if all_hands else frozenset()

    return settled_read(f"match:{match_id}", read)


def match_personal(request: HttpRequest, match_id: int) -> dict[str, str] | None:
    """The match page's parts of the signed-in person reading it (api.read_cache's
    ``personal``): base.html's and, on a replay, their seat, play again and the chat.
    The page whole for those who see more than a visitor outside those parts: staff (a
    failed match's traceback), a person with their own deck (the replay's cards), an
    organiser of a club's match (its corrections), and who may ask for the analysis shown
    (its button: who sat at it, its bots' owners, its organisers)."""
    user = request.user
    deck = request_display(request)
    if getattr(user, "is_staff", False) or deck.large_cards or deck.four_colour_deck:
        return None
    match, all_hands, askers = _match_shared(match_id)
    if match.tournament.at_club:  # a score sheet: no replay, no chat
        if can_organise(user=user, tournament=match.tournament):
            return None
        return base_parts(request)
    if all_hands and can_request_analysis(user=user, match=match, askers=askers):
        return None
    context = _match_own_context(request, match)
    return personal_parts(request, "web/_match_personal_parts.html", context)


def _analysis_context(request: HttpRequest, match: Match, seats: list[Any]) -> dict[str, Any]:
    """The analysis panel: shown where the record shows every hand (a finished match;
    league.selectors.matches.match_analysis_for), with its button for those who may ask."""
    if match.tournament.at_club or not record_shows_all_hands(match=match):
        return {"analysis_url": ""}
    try:
        analysis: dict[str, Any] | None = match_analysis_for(
            match=match, user=request.user, with_cards=False
        )
    except NotFoundError:
        analysis = None
    names = {seat["seat"]: seat["name"] for seat in seats}
    summary = [
        {**row, "name": names.get(row["seat"], row["seat"])}
        for row in (analysis["summary"] if analysis and analysis["status"] == "done" else [])
    ]
    return {
        "analysis_url": reverse("api-match-analysis", args=[match.pk]),
        "analysis": analysis,
        "analysis_summary": summary,
        "analysis_can_request": can_request_analysis(user=request.user, match=match),
    }


@require_GET
def match_timeline_json(request: HttpRequest, match_id: int) -> JsonResponse:
    """Public facts after each event of the match (engine.timeline); anyone may see them."""
    try:
        match = match_get(match_id=match_id)
    except NotFoundError:
        return JsonResponse({"detail": f"no match {match_id}"}, status=404)
    return JsonResponse(match_timeline(match=match))


@login_required
@require_GET
def table(request: HttpRequest, match_id: int, seat: int) -> HttpResponse:
    """The seat's table: everything on it comes from the seat's view (GET, the API) and the
    match's socket, so the page itself holds no state of the game."""
    match = _match(match_id)
    try:
        match_seat_get_for_owner(match=match, seat=seat, user=request.user)
    except NotFoundError:
        raise Http404(_("No such seat.")) from None
    except NotAllowedError as exc:
        return render(request, "403.html", {"reason": exc.detail}, status=403)
    name = game_name(match.game)
    context = {
        "title": _("Table %(pk)s: %(game_name)s") % {"pk": match.pk, "game_name": name},
        "match": match,
        "game_name": name,
        "view_url": reverse("api-match-seat-view", args=[match.pk, seat]),
        "action_url": reverse("api-match-seat-actions", args=[match.pk, seat]),
        "vote_url": reverse("api-match-absence-vote", args=[match.pk, 0]),
        "socket_url": f"/ws/matches/{match.pk}/",
        "seat": seat,
        "record_url": reverse("web:match", args=[match.pk]),
        "next_url": f"{reverse('api-my-next-game')}?after={match.pk}",
        "chat_url": reverse("api-match-chat", args=[match.pk]),
        "chat_can_write": True,
        "chat_max_chars": CHAT_MAX_CHARS,
    }
    return render(request, "web/table.html", context)
