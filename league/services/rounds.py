"""A round's play-by date (docs/league.md, *Time controls*): the organiser's date by which
its games are to be played; no person's deadline falls after it
(league.services.matches.person_deadline).
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from league.errors import ConflictError, InvalidInputError
from league.models import Match, MatchStatus, Round, TournamentStatus
from league.services.tournaments import User, tournament_organiser_require


@transaction.atomic
def round_play_by_set(
    *, actor: User, round_: Round, play_by: datetime | None, now: datetime | None = None
) -> Round:
    """Set (or clear, with None) the date by which a round's games are to be played. Only
    the league's organisers; not for a finished league, nor a date already past. The
    deadlines of the people the round's games wait for now are brought forward to it
    (a deadline is never later than the play-by date); a later date leaves them as they
    are (the next move gets the longer time)."""
    now = now or timezone.now()
    round_ = Round.objects.select_for_update().select_related("tournament").get(pk=round_.pk)
    tournament = round_.tournament
    tournament_organiser_require(user=actor, tournament=tournament)
    if tournament.status == TournamentStatus.FINISHED:
        raise ConflictError(_("the league is finished"))
    if play_by is not None and play_by <= now:
        message = "the play-by date must be in the future"
        raise InvalidInputError(
            _("play_by: %(message)s") % {"message": message}, errors={"play_by": [message]}
        )
    round_.play_by = play_by
    round_.save(update_fields=["play_by"])
    if play_by is not None:
        Match.objects.filter(round=round_, status=MatchStatus.RUNNING, deadline__gt=play_by).update(
            deadline=play_by
        )
    return round_
