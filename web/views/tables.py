"""Tables and the lobby: opening a table (/play/, with the one-step game against bots), a
table's page while it waits for its players (seats, invitation links, the host's
controls), the page an invitation link opens (accept or decline), and the lobby.

The writes are league.services.tables'; the reads league.selectors.tables's.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from api.throttles import TableJoinThrottle, TableThrottle
from engine.variants import load_game
from league.errors import LeagueError, NotAllowedError, NotFoundError
from league.models import Club, Match, MatchStatus
from league.selectors.bots import bot_version_get
from league.selectors.clubs import club_find
from league.selectors.matches import match_get
from league.selectors.tables import (
    lobby,
    seat_invitation_get,
    table_detail,
    table_get,
    table_players,
)
from league.services.competitors import competitor_for_bot_version
from league.services.tables import (
    seat_invitation_accept,
    seat_invitation_decline,
    table_cancel,
    table_join,
    table_open,
    table_rematch,
    table_seat_bot,
    table_seat_invite,
)
from league.words.games_and_times import game_name_words
from league.words.seats import seat_in_words
from web.forms import TableForm
from web.selectors import table_form_choices
from web.table_forms import (
    SeatBotForm,
    SeatInviteForm,
    TableOpenForm,
    game_initial,
    time_control_initial,
)
from web.throttling import rate_limited


def _bot_spec(spec: str) -> Any:
    """A bot of the forms as the service reads it: ``builtin:NAME`` as it is, one of the
    person's versions (``version:ID``) by its competitor id."""
    if not spec.startswith("version:"):
        return spec
    try:
        version = bot_version_get(version_id=int(spec.removeprefix("version:")))
    except (ValueError, NotFoundError):
        return spec  # the service names it as a seat it cannot read
    return competitor_for_bot_version(version=version).pk


def _table(match_id: int) -> Match:
    try:
        return table_get(match_id=match_id)
    except NotFoundError:
        raise Http404(_("No such table.")) from None


def _after_seating(request: HttpRequest, match_id: int) -> HttpResponse:
    """Where a person goes once seated: their seat once the game has started, else the
    table's page to wait for the others."""
    match = _table(match_id)
    detail = table_detail(match=match, user=request.user)
    if match.status != MatchStatus.WAITING and detail["your_seat"] is not None:
        return redirect("web:table", match_id=match.pk, seat=detail["your_seat"])
    return redirect("web:table-waiting", match_id=match.pk)


def _players_of(request: HttpRequest) -> dict[str, Any]:
    """*New table with these players* (``?with=MATCH``): the form as that table was opened
    (its game with its length and options, its time control and club) and its seats as
    they sat, for a person who played at it; nothing otherwise."""
    wanted = request.GET.get("with", "")
    if not wanted.isdigit():
        return {}
    try:
        match = match_get(match_id=int(wanted))
    except NotFoundError:
        return {}
    players = table_players(match=match)
    if not any(p["user_id"] == request.user.pk for p in players):
        return {}
    tournament = match.tournament
    initial: dict[str, Any] = game_initial(match.game) | time_control_initial(
        time_control=tournament.time_control,
        move_seconds=tournament.move_seconds,
        time_bank_seconds=tournament.time_bank_seconds,
    )
    if tournament.club_id is not None:
        initial["club"] = str(tournament.club_id)
    for row, player in enumerate(players):
        if player["user_id"] == request.user.pk:
            initial[f"seat_{row}"] = "me"
        elif player["user_id"] is not None:
            initial[f"seat_{row}"] = "invite"
            initial[f"seat_{row}_username"] = player["username"]
        else:
            initial[f"seat_{row}"] = "bot"
            if isinstance(player["bot"], str):
                initial[f"seat_{row}_bot"] = player["bot"]
    return initial


@login_required
@require_POST
@rate_limited(TableThrottle)  # the API's new-tables allowance
def table_rematch_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """*Rematch* at the end of a table: the same players, seats rotated by one; the others
    are invited and the table starts when all accepted (league.services.tables)."""
    try:
        match = table_rematch(actor=request.user, match_id=match_id)
    except LeagueError as exc:
        messages.error(request, exc.detail)
        return redirect("web:match", match_id=match_id)
    messages.success(
        request, _("Rematch: the others are invited; the table starts when all accept.")
    )
    return _after_seating(request, match.pk)


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited(TableThrottle)  # the API's new-tables allowance
def table_new(request: HttpRequest) -> HttpResponse:
    """/play/: the one-step game with bots (``quick``) and the table for anyone."""
    choices = table_form_choices(user=request.user)
    posted = request.POST if request.method == "POST" else None
    which = request.POST.get("form") if posted is not None else None
    quick = TableForm(posted if which == "quick" else None, prefix="quick")
    form = TableOpenForm(
        posted if which == "table" else None,
        clubs=choices["clubs"],
        own_bots=choices["bots"],
        initial=_players_of(request),
    )
    if which == "quick" and quick.is_valid():
        game = quick.cleaned_data["game"]
        seats = ["me"] + [f"builtin:{quick.cleaned_data['opponents']}"] * (
            load_game(game).num_seats - 1
        )
        try:
            match = table_open(actor=request.user, game=game, seats=seats)
        except LeagueError as exc:
            quick.add_error(None, exc.detail)
        else:
            messages.success(request, _("Your table is ready: you sit at seat 0."))
            return redirect("web:table", match_id=match.pk, seat=0)
    if which == "table" and form.is_valid():
        time_control, move_seconds, bank = form.time_control_chosen()
        club = None
        if form.cleaned_data.get("club"):
            club = club_find(club_id=int(form.cleaned_data["club"]))
        try:
            match = table_open(
                actor=request.user,
                game=form.cleaned_data["game_string"],
                seats=[_bot_spec(spec) for spec in form.seat_specs()],
                time_control=time_control,
                move_seconds=move_seconds,
                time_bank_seconds=bank,
                club=club,
            )
        except LeagueError as exc:
            form.add_error(None, exc.detail)
        else:
            return _after_seating(request, match.pk)
    context = {
        "quick": quick,
        "form": form,
        "people": choices["people"],
        "players_of_games": form.players_of_games(),
    }
    return render(request, "web/table_new.html", context, status=400 if which else 200)


_UNDER_WAY = (MatchStatus.QUEUED, MatchStatus.RUNNING)


@require_GET
def table_waiting(request: HttpRequest, match_id: int) -> HttpResponse:
    """A table's page: its seats while it waits, the invitation links for its host. Once the
    game is under way a seated person is sent to their seat, as a card site does: the page
    that reloaded as the last seat was taken lands there too."""
    match = _table(match_id)
    detail = table_detail(match=match, user=request.user)
    if detail["your_seat"] is not None and detail["status"] in _UNDER_WAY:
        return redirect("web:table", match_id=match.pk, seat=detail["your_seat"])
    choices = table_form_choices(user=request.user)
    invitation_links = {
        seat["seat"]: request.build_absolute_uri(
            reverse("web:table-invitation", args=[seat["code"]])
        )
        for seat in detail["seat_list"]
        if seat["code"]
    }
    context = {
        "title": _("Table %(pk)s: %(detail_game_name)s")
        % {"pk": match.pk, "detail_game_name": game_name_words(detail["game_name"])},
        "match": match,
        "table": detail,
        "links": invitation_links,
        "bot_form": SeatBotForm(own_bots=choices["bots"]),
        "invite_form": SeatInviteForm(),
        "people": choices["people"],
        "api_url": reverse("api-table", args=[match.pk]),
        "seat_url": (
            reverse("web:table", args=[match.pk, detail["your_seat"]])
            if detail["your_seat"] is not None
            else ""
        ),
        "watch_url": reverse("web:match", args=[match.pk]),
    }
    return render(request, "web/table_waiting.html", context)


def _refused(request: HttpRequest, exc: LeagueError, *, back: str = "") -> HttpResponse:
    """The page of a refused change: the message naming the problem, and the way back."""
    context = {"reason": exc.detail, "back": back or reverse("web:lobby")}
    return render(request, "web/table_refused.html", context, status=exc.status)


@login_required
@require_POST
@rate_limited(TableJoinThrottle)
def table_join_post(request: HttpRequest, match_id: int) -> HttpResponse:
    try:
        table_join(user=request.user, match_id=match_id)
    except LeagueError as exc:
        return _refused(request, exc, back=reverse("web:table-waiting", args=[match_id]))
    messages.success(request, _("You took a seat."))
    return _after_seating(request, match_id)


@login_required
@require_POST
def table_seat_bot_post(request: HttpRequest, match_id: int, seat: int) -> HttpResponse:
    choices = table_form_choices(user=request.user)
    form = SeatBotForm(request.POST, own_bots=choices["bots"])
    if not form.is_valid():
        return render(request, "400.html", {"reason": _("Choose a bot for the seat.")}, status=400)
    try:
        table_seat_bot(
            actor=request.user,
            match_id=match_id,
            seat=seat,
            bot=_bot_spec(form.cleaned_data["bot"]),
        )
    except LeagueError as exc:
        return _refused(request, exc, back=reverse("web:table-waiting", args=[match_id]))
    return _after_seating(request, match_id)


@login_required
@require_POST
def table_seat_invite_post(request: HttpRequest, match_id: int, seat: int) -> HttpResponse:
    form = SeatInviteForm(request.POST)
    if not form.is_valid():
        return render(request, "400.html", {"reason": _("Give a username.")}, status=400)
    username = form.cleaned_data["username"].strip() or None
    try:
        table_seat_invite(actor=request.user, match_id=match_id, seat=seat, username=username)
    except LeagueError as exc:
        return _refused(request, exc, back=reverse("web:table-waiting", args=[match_id]))
    place = seat_in_words(seat, load_game(match_get(match_id=match_id).game).num_seats)
    messages.success(
        request,
        _("The %(place)s seat is kept for %(username)s.") % {"place": place, "username": username}
        if username
        else _("The %(place)s seat is open.") % {"place": place},
    )
    return redirect("web:table-waiting", match_id=match_id)


@login_required
@require_POST
def table_cancel_post(request: HttpRequest, match_id: int) -> HttpResponse:
    try:
        table_cancel(actor=request.user, match_id=match_id)
    except LeagueError as exc:
        return _refused(request, exc, back=reverse("web:table-waiting", args=[match_id]))
    messages.success(request, _("The table is cancelled."))
    return redirect("web:lobby")


@require_GET
def table_invitation(request: HttpRequest, code: str) -> HttpResponse:
    """The page of an invitation link: the table, and Accept / Decline."""
    try:
        invitation = seat_invitation_get(code=code)
    except NotFoundError:
        raise Http404(_("No such invitation: the link may be mistyped.")) from None
    match = _table(invitation.match_id)
    detail = table_detail(match=match, user=request.user)
    yours = request.user.is_authenticated and invitation.invitee_id == request.user.pk
    context = {
        "invitation": invitation,
        "table": detail,
        "match": match,
        "yours": yours,
        "for_someone_else": invitation.invitee_id is not None and not yours,
        "table_url": reverse("web:table-waiting", args=[match.pk]),
    }
    return render(request, "web/table_invitation.html", context)


@login_required
@require_POST
@rate_limited(TableJoinThrottle)
def table_invitation_accept(request: HttpRequest, code: str) -> HttpResponse:
    try:
        invitation = seat_invitation_accept(user=request.user, code=code)
    except LeagueError as exc:
        return _refused(request, exc, back=reverse("web:table-invitation", args=[code]))
    place = seat_in_words(invitation.seat, load_game(invitation.match.game).num_seats)
    messages.success(request, _("You took the %(place)s seat.") % {"place": place})
    return _after_seating(request, invitation.match_id)


@login_required
@require_POST
def table_invitation_decline(request: HttpRequest, code: str) -> HttpResponse:
    try:
        seat_invitation_decline(user=request.user, code=code)
    except LeagueError as exc:
        return _refused(request, exc, back=reverse("web:table-invitation", args=[code]))
    messages.success(request, _("You declined the invitation; the host is shown it."))
    return redirect("web:lobby")


@require_GET
def lobby_page(request: HttpRequest) -> HttpResponse:
    """/lobby/ (?club=ID for a club's): tables waiting for players, games to watch, the
    latest finished, and the seats kept for you."""
    club: Club | None = None
    raw = request.GET.get("club", "")
    if raw:
        club = club_find(club_id=int(raw)) if raw.isdigit() else None
        if club is None:
            raise Http404(_("No such club."))
    try:
        found = lobby(user=request.user, club=club)
    except NotAllowedError as exc:
        return render(request, "403.html", {"reason": exc.detail}, status=403)
    context = {
        "lobby": found,
        "club": club,
        "clubs": table_form_choices(user=request.user)["clubs"],
    }
    return render(request, "web/lobby.html", context)
