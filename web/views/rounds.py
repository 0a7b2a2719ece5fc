"""An organiser sets a round's play-by date from the league page (docs/web.md; the service
is league.services.rounds.round_play_by_set, the API's PATCH /api/rounds/{id}/)."""

from __future__ import annotations

from datetime import UTC

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from api.throttles import SettingsThrottle
from league.errors import LeagueError, NotFoundError
from league.selectors.tournaments import round_list, tournament_get
from league.services.rounds import round_play_by_set
from league.words.games_and_times import moment_words
from web.forms import PlayByForm
from web.throttling import rate_limited


@login_required
@require_POST
@rate_limited(SettingsThrottle)
def round_play_by(request: HttpRequest, tournament_id: int, number: int) -> HttpResponse:
    try:
        tournament = tournament_get(tournament_id=tournament_id)
    except NotFoundError:
        raise Http404(_("No such league.")) from None
    round_ = next((r for r in round_list(tournament_id=tournament.pk) if r.number == number), None)
    if round_ is None:
        raise Http404(_("No such round."))
    form = PlayByForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give the play-by date as a date and a time (UTC)."))
        return redirect("web:league", tournament_id=tournament.pk)
    play_by = form.cleaned_data["play_by"]
    if play_by is not None and timezone.is_naive(play_by):
        play_by = play_by.replace(tzinfo=UTC)
    elif play_by is not None:
        # The field reads the time in the current time zone (UTC here): say so explicitly.
        play_by = play_by.astimezone(UTC)
    try:
        round_play_by_set(actor=request.user, round_=round_, play_by=play_by)
    except LeagueError as exc:
        messages.error(request, exc.detail[:1].upper() + exc.detail[1:] + ".")
    else:
        messages.success(
            request,
            _("Round %(number)s is to be played by %(moment_in_words)s.")
            % {"number": number, "moment_in_words": moment_words(play_by)}
            if play_by is not None
            else _("Round %(number)s has no play-by date now.") % {"number": number},
        )
    return redirect("web:league", tournament_id=tournament.pk)
