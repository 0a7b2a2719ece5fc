"""Leagues (the league's tournaments): creating one, its page with live standings and the
organiser's controls, entering competitors, and the results of a round."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from league.errors import LeagueError, NotFoundError
from league.models import (
    CLUBLESS_FORMATS,
    Club,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)
from league.reads_generation import settled_read
from league.selectors.clubs import club_get, club_role_of
from league.selectors.matches import match_list
from league.selectors.ratings import tournament_ratings
from league.selectors.standings import tournament_standings
from league.selectors.tournaments import (
    entry_list,
    league_progress_of,
    round_find,
    round_list,
    tournament_get,
    tournament_list,
)
from league.services.competitors import (
    competitor_builtin,
    competitor_create,
    competitor_for_user,
)
from league.services.tournaments import (
    tournament_create,
    tournament_enter,
    tournament_finish,
    tournament_pause,
    tournament_resume,
    tournament_round_start,
)
from league.words.league_progress import progress_words
from web.charts import line_chart_svg
from web.forms import BuiltinEntryForm, CompetitorEntryForm, TournamentForm
from web.personal_parts import base_parts, personal_parts
from web.selectors import (
    CompetitorLink,
    can_organise,
    can_organise_club,
    competitor_links,
    entry_candidates,
    head_to_head_table,
    tournament_rating_series,
)
from web.views.club_organise import club_attendance_form

STANDINGS_COLUMNS = (
    ("rank", gettext_lazy("Rank")),
    ("name", gettext_lazy("Competitor")),
    ("games", gettext_lazy("Games")),
    ("total", gettext_lazy("Total")),
    ("average", gettext_lazy("Average")),
    ("wins", gettext_lazy("Wins")),
    ("opposition", gettext_lazy("Opposition")),
    ("matchpoints", gettext_lazy("Matchpoints")),
    ("percentage", gettext_lazy("Percentage")),
)
COLUMN_EXPLANATIONS = {
    "opposition": gettext_lazy(
        "the strength of the opposition: the average ranking value (as this table ranks) of "
        "the opponents met, over the competitor's games. Between competitors level on points "
        "it breaks the tie in favour of the one who met the harder field."
    ),
    "wins": gettext_lazy(
        "games finished with the best score at the table outright (in partnership play: the "
        "side's total beat the other side's)."
    ),
    "matchpoints": gettext_lazy(
        "duplicate play: 2 for every result beaten and 1 for every tie among the tables that "
        "held the same cards."
    ),
    "percentage": gettext_lazy(
        "duplicate play: the matchpoints as a share of the most that could be won."
    ),
}
"""A sentence for each standings column whose name does not say it all, shown under the
table and on its heading."""
LEAD_EXPLAINED = gettext_lazy(
    "how far a row is ahead of the next one, and whether the results make that lead clear "
    "or it could still be luck (a statistical test of their scores)."
)
"""The standings columns known here, in order; other scalar fields the standings carry
follow them, so a field the league adds shows up without a change here."""
HIDDEN_FIELDS = frozenset({"competitor", "per_round", "next_gap"})


def _club(club_id: int) -> Club:
    try:
        return club_get(club_id=club_id)
    except NotFoundError:
        raise Http404(_("No such club.")) from None


def _tournament(tournament_id: int) -> Tournament:
    try:
        tournament = tournament_get(tournament_id=tournament_id)
    except NotFoundError:
        raise Http404(_("No such league.")) from None
    return tournament


def _tournament_shared(tournament_id: int) -> Tournament:
    """The league and its club, read once for every signed-in reader while no write but a
    running match's progress happens (league.reads_generation.settled_read)."""

    def read() -> Tournament:
        tournament = _tournament(tournament_id)
        _ = tournament.club  # kept with the league
        return tournament

    return settled_read(f"tournament:{tournament_id}", read)


@require_GET
def league_index(request: HttpRequest) -> HttpResponse:
    leagues = tournament_list(formats_left_out=CLUBLESS_FORMATS)[:100]  # tables, ladders
    return render(request, "web/leagues.html", {"leagues": leagues})


@login_required
@require_http_methods(["GET", "POST"])
def league_new(request: HttpRequest, club_id: int) -> HttpResponse:
    club = _club(club_id)
    if not can_organise_club(user=request.user, club=club):
        # Said before the form is filled in, not after: only organisers create leagues.
        role = club_role_of(user=request.user, club=club)
        return render(
            request,
            "web/league_new.html",
            {"club": club, "refused": True, "role": role},
            status=403,
        )
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            tournament = tournament_create(
                actor=request.user,
                club=club,
                name=data["name"],
                game=data["game"],
                format=data["format"],
                rounds=data["rounds"],
                deals=data["deals"],
                move_seconds=data["move_seconds"],
                time_control=data["time_control"],
                at_club=data.get("at_club", False),
                totals_allowed=data.get("totals_allowed", False),
            )
        except LeagueError as exc:
            for field, errors in (exc.errors or {}).items():
                for error in errors:
                    form.add_error(field if field in form.fields else None, error)
            if not exc.errors:
                form.add_error(None, exc.detail)
        else:
            messages.success(
                request, _("%(name)s is open: enter its competitors.") % {"name": tournament.name}
            )
            return redirect("web:league", tournament_id=tournament.pk)
    return render(request, "web/league_new.html", {"club": club, "form": form})


def _gap(row: dict[str, Any]) -> dict[str, Any] | None:
    """The confidence marker of a row's lead over the next row, for the template."""
    gap = row.get("next_gap")
    if not isinstance(gap, dict) or gap.get("difference") is None:
        return None
    low, high, p_value = gap.get("low"), gap.get("high"), gap.get("p_value")
    details = [_("lead %(lead)s over the next row") % {"lead": f"{gap['difference']:+g}"}]
    if low is not None and high is not None:
        details.append(
            _("95%% interval %(low)s to %(high)s") % {"low": f"{low:+g}", "high": f"{high:+g}"}
        )
    if p_value is not None:
        details.append(f"p = {p_value:g}")
    return {
        "difference": gap["difference"],
        "significant": bool(gap.get("significant")),
        "details": "; ".join(details),
    }


KNOWN_PARTS = frozenset({"rows", "partner_pairs", "head_to_head"})


def standings_context(tournament: Tournament) -> dict[str, Any]:
    """The standings, progress, ratings and rounds: the part of a league page that moves."""
    standings = tournament_standings(tournament=tournament)
    rows: list[dict[str, Any]] = list(standings.get("rows", []))
    names = {int(row["competitor"]): str(row["name"]) for row in rows}
    columns = _standings_columns(rows)
    standing = league_progress_of(tournament=tournament)
    played = {r["round"] for row in rows for r in row.get("per_round") or []}
    rounds = sorted(played | set(standing.round_numbers))  # a column for every round started
    table_rows = _table_rows(rows, columns, rounds, competitor_links(competitor_ids=list(names)))
    progress = {"finished": standing.games_played, "total": standing.games_total}
    return {
        "tournament": tournament,
        "unit": standings.get("unit", "game"),
        "columns": [(key, label, COLUMN_EXPLANATIONS.get(key, "")) for key, label in columns],
        "lead_explained": LEAD_EXPLAINED,
        "round_numbers": rounds,
        "rows": table_rows,
        "has_gaps": any(row["gap"] for row in table_rows),
        "partner_pairs": _partner_pairs(standings),
        "head_to_head": head_to_head_table(
            heads=standings.get("head_to_head") or [],
            order=[int(row["competitor"]) for row in rows],
            names=names,
        ),
        "other_tables": _other_tables(standings),
        **_ratings_context(tournament),
        "progress": progress,
        "standing": progress_words(standing),
        "rounds": round_list(tournament_id=tournament.pk),
        "percent": round(100 * progress["finished"] / max(1, progress["total"])),
    }


def _standings_columns(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The known columns some row has a value in (rank and name always), then the other
    scalar fields the rows carry."""
    columns = [
        (key, str(label))
        for key, label in STANDINGS_COLUMNS
        if key in ("rank", "name") or any(row.get(key) is not None for row in rows)
    ]
    return columns + [(key, key.replace("_", " ").capitalize()) for key in _extra_fields(rows)]


def _extra_fields(rows: list[dict[str, Any]]) -> list[str]:
    """The scalar fields of the rows that no known column shows, by name."""
    known = {key for key, _label in STANDINGS_COLUMNS} | HIDDEN_FIELDS
    return sorted(
        {
            key
            for row in rows
            for key, value in row.items()
            if key not in known and isinstance(value, int | float | str | bool | None)
        }
    )


def _round_points(row: dict[str, Any], number: int) -> Any:
    """A row's points in round ``number``, or None."""
    return next((r["points"] for r in row.get("per_round") or [] if r["round"] == number), None)


def _table_rows(
    rows: list[dict[str, Any]],
    columns: list[tuple[str, str]],
    rounds: list[int],
    links: dict[int, CompetitorLink],
) -> list[dict[str, Any]]:
    return [
        {
            "cells": [(key, row.get(key)) for key, _label in columns],
            "rounds": [_round_points(row, number) for number in rounds],
            "gap": _gap(row),
            "link": links.get(int(row["competitor"])),
        }
        for row in rows
    ]


def _other_tables(standings: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Parts the league may add later, shown as plain tables."""
    return [
        (key.replace("_", " ").capitalize(), _generic_table(value))
        for key, value in standings.items()
        if key not in KNOWN_PARTS
        and isinstance(value, list)
        and value
        and isinstance(value[0], dict)
    ]


def _partner_pairs(standings: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "names": " & ".join(pair.get("names") or []),
            **{key: pair.get(key) for key in ("games", "points", "average", "wins")},
        }
        for pair in standings.get("partner_pairs") or []
    ]


def _ratings_context(tournament: Tournament) -> dict[str, Any]:
    """The tournament's ratings with links to the rated, the queue's backlog, the margin
    rating and the chart of the ratings round by round."""
    ratings = tournament_ratings(tournament=tournament)
    rows = list(ratings.get("ratings", []))
    links = competitor_links(competitor_ids=[int(r["competitor"]) for r in rows])
    series = tournament_rating_series(tournament=tournament)
    chart = line_chart_svg(
        [(line.name, line.points) for line in series],
        title=_("Ratings in %(name)s") % {"name": tournament.name},
        x_label=_("round"),
        y_label=_("rating's low end"),
        chart_id=f"ratings-{tournament.pk}",
    )
    return {
        "ratings": [{**r, "link": links.get(int(r["competitor"]))} for r in rows],
        "ratings_pending": ratings.get("pending", 0),
        "margin": ratings.get("margin"),
        "chart": chart,
    }


def _generic_table(items: list[dict[str, Any]]) -> dict[str, Any]:
    keys = [key for key in items[0] if isinstance(items[0][key], int | float | str | None)]
    return {
        "headers": [key.replace("_", " ").capitalize() for key in keys],
        "rows": [[item.get(key) for key in keys] for item in items],
    }


def _entry_choices(request: HttpRequest, tournament: Tournament) -> list[tuple[str, str]]:
    """Competitors a person may enter here (web.selectors.entry_candidates,
    by the consent rule that league.services.competitors enforces)."""
    candidates = entry_candidates(user=request.user, tournament=tournament)
    me = [("me", _("Me (%(name)s)") % {"name": request.user.get_username()})]
    return (me if candidates.themself else []) + [
        (f"version:{v.pk}", f"{v.bot.name} v{v.number} (bot)") for v in candidates.versions
    ]


@require_GET
def league_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _tournament(tournament_id)
    if tournament.format == TournamentFormat.LADDER and hasattr(tournament, "ladder"):
        return redirect("web:ladder", slug=tournament.ladder.slug)
    if tournament.format in (TournamentFormat.TABLE, TournamentFormat.CHALLENGE):
        first = match_list(tournament_id=tournament.pk).first()
        if first is not None:
            return redirect("web:match", match_id=first.pk)
    context = standings_context(tournament)
    context.update(
        _league_own_context(request, tournament), entries=entry_list(tournament=tournament)
    )
    return render(request, "web/league.html", context)


def _league_own_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    """What the page's own part of the person reading it shows (web/_league_personal.html)."""
    organiser = can_organise(user=request.user, tournament=tournament)
    club = tournament.club
    return {
        "tournament": tournament,
        "organiser": organiser,
        "member": club is None or club_role_of(user=request.user, club=club) is not None,
        "builtin_form": BuiltinEntryForm(),
        "entry_form": CompetitorEntryForm(choices=_entry_choices(request, tournament)),
        "running": tournament.status == TournamentStatus.RUNNING,
        "finished": tournament.status == TournamentStatus.FINISHED,
        "paused": tournament.status == TournamentStatus.PAUSED,
        "attendance": club_attendance_form(tournament)
        if tournament.at_club and organiser
        else None,
    }


def league_personal(request: HttpRequest, tournament_id: int) -> dict[str, str]:
    """The league page's parts of the signed-in person reading it (api.read_cache's
    ``personal``): base.html's and the page's own (entering, organising)."""
    tournament = _tournament_shared(tournament_id)
    context = _league_own_context(request, tournament)
    if context["organiser"]:
        context["rounds"] = round_list(tournament_id=tournament.pk)
    return personal_parts(request, "web/_league_personal_parts.html", context)


@require_GET
def league_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The moving part of a league page, for htmx to swap in on each progress message."""
    tournament = _tournament(tournament_id)
    return render(request, "web/_standings.html", standings_context(tournament))


ACTIONS = {
    "start-round": (tournament_round_start, gettext_lazy("Round started.")),
    "pause": (
        tournament_pause,
        gettext_lazy("Paused: queued matches wait, running ones finish."),
    ),
    "resume": (tournament_resume, gettext_lazy("Resumed.")),
    "finish": (
        tournament_finish,
        gettext_lazy("Finished: matches not yet started are cancelled."),
    ),
}


@login_required
@require_POST
def league_action(request: HttpRequest, tournament_id: int, action: str) -> HttpResponse:
    tournament = _tournament(tournament_id)
    if action not in ACTIONS:
        raise Http404(_("No such action."))
    service, done = ACTIONS[action]
    try:
        service(actor=request.user, tournament=tournament)
    except LeagueError as exc:
        messages.error(request, exc.detail[:1].upper() + exc.detail[1:] + ".")
    else:
        messages.success(request, done)
    return redirect("web:league", tournament_id=tournament.pk)


def _builtin_names_for(tournament: Tournament, kind: str, count: int) -> list[str]:
    """Bot names for ``count`` built-in competitors of ``kind`` not yet entered here:
    "greedy 1", "greedy 2", ... (the same names are the same competitors in every league,
    so their ratings carry over)."""
    entered = {entry.competitor.name for entry in entry_list(tournament=tournament)}
    names: list[str] = []
    number = 1
    while len(names) < count:
        if f"{kind} {number}" not in entered:
            names.append(f"{kind} {number}")
        number += 1
    return names


@login_required
@require_POST
def league_enter(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _tournament(tournament_id)
    entered: list[str] = []
    try:
        if "bot" in request.POST:
            form = BuiltinEntryForm(request.POST)
            if not form.is_valid():
                raise LeagueError(_("choose a built-in bot and how many (1 to 32)"))
            kind = form.cleaned_data["bot"]
            names = _builtin_names_for(tournament, kind, form.cleaned_data["count"])
            competitors = [competitor_builtin(name=kind, bot_name=name) for name in names]
        else:
            choice_form = CompetitorEntryForm(
                request.POST, choices=_entry_choices(request, tournament)
            )
            if not choice_form.is_valid():
                raise LeagueError(_("choose a competitor from the list"))
            kind, _colon, number = choice_form.cleaned_data["competitor"].partition(":")
            if kind == "me":
                competitors = [competitor_for_user(user=request.user)]  # type: ignore[arg-type]
            else:
                competitors = [competitor_create(actor=request.user, bot_version_id=int(number))]
        for competitor in competitors:
            tournament_enter(actor=request.user, tournament=tournament, competitor=competitor)
            entered.append(competitor.name)
    except LeagueError as exc:
        messages.error(request, exc.detail[:1].upper() + exc.detail[1:] + ".")
    if entered:
        messages.success(request, _("Entered: %(join)s.") % {"join": ", ".join(entered)})
    return redirect("web:league", tournament_id=tournament.pk)


@require_GET
def round_detail(request: HttpRequest, tournament_id: int, number: int) -> HttpResponse:
    tournament = _tournament(tournament_id)
    round_ = round_find(tournament_id=tournament.pk, number=number)
    if round_ is None:
        raise Http404(_("No such round."))
    matches = match_list(tournament_id=tournament.pk, round_number=number)
    seated = [seat.competitor_id for match in matches for seat in match.seats.all()]
    context = {
        "tournament": tournament,
        "round": round_,
        "matches": matches,
        "links": competitor_links(competitor_ids=seated),
        "organiser": can_organise(user=request.user, tournament=tournament),
    }
    return render(request, "web/round.html", context)


def round_personal(request: HttpRequest, tournament_id: int, number: int) -> dict[str, str] | None:
    """The round page's parts of the signed-in person reading it (api.read_cache's
    ``personal``): base.html's; the page whole for an organiser of a league played at the
    club (the table cards, closing the night, confirming scores: theirs alone)."""
    tournament = _tournament_shared(tournament_id)
    if tournament.at_club and can_organise(user=request.user, tournament=tournament):
        return None
    return base_parts(request)
