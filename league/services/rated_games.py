"""A person's rated game against chosen ladder bots (docs/league.md, *One rating list for
people and bots*).

The person names a ladder and the versions on it to sit with (one per other seat); the
game is a people's table (league.services.tables) of the ladder's game, so it is rated
like every table on the family's rating list, where people and bots share one openskill
scale, and it is played on the `interactive` lane (a person sits at it:
league.services.match_lanes). An uploaded version sits down only when its bot's owner
allows rated games against people (``Bot.people_may_play_rated``, on by default; the
owner themself always may); the ladder's built-in anchors always do.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db import transaction
from django.utils.translation import gettext as _

from engine.variants import load_game
from league.errors import InvalidInputError, NotAllowedError
from league.models import Ladder, LadderEntrant, LadderEntrantStatus, Match, TimeControl
from league.services.tables import SEAT_ME, table_open

User = Account | AnonymousUser


def _opponents_error(message: str) -> InvalidInputError:
    return InvalidInputError(
        _("opponents: %(message)s") % {"message": message}, errors={"opponents": [message]}
    )


@transaction.atomic
def rated_game_with_bots(
    *,
    actor: User,
    ladder: Ladder,
    opponents: Sequence[int],
    time_control: str = TimeControl.LIVE,
    move_seconds: float | None = None,
) -> Match:
    """Open a rated table of ``ladder``'s game: ``actor`` in the first seat, the ladder
    versions ``opponents`` (competitor ids, clockwise) in the others, queued at once on the
    `interactive` lane. InvalidInputError when a seat is missing, given twice or not a
    version playing on the ladder; NotAllowedError when a version's owner does not allow
    rated games against people."""
    if not actor.is_authenticated:
        raise NotAllowedError(_("log in to play a rated game"))
    assert isinstance(actor, Account)
    seats = load_game(ladder.game).num_seats
    if len(opponents) != seats - 1:
        raise _opponents_error(
            _("name %(count)s ladder versions, one for each other seat; %(given)s given")
            % {"count": seats - 1, "given": len(opponents)}
        )
    if len(set(opponents)) != len(opponents):
        raise _opponents_error(_("a version takes one seat at a table"))
    entrants = {
        e.competitor_id: e
        for e in LadderEntrant.objects.filter(
            ladder=ladder, competitor_id__in=list(opponents)
        ).select_related("bot", "competitor")
    }
    for competitor_id in opponents:
        entrant = entrants.get(competitor_id)
        if entrant is None or entrant.status != LadderEntrantStatus.PLAYING or entrant.opted_out:
            raise _opponents_error(
                _("%(id)s is not a version playing on the %(ladder)s")
                % {"id": competitor_id, "ladder": ladder.name}
            )
        bot = entrant.bot
        if not (entrant.anchor or bot.people_may_play_rated or bot.owner_id == actor.pk):
            raise NotAllowedError(
                _("%(name)s's owner does not allow rated games against people")
                % {"name": entrant.competitor.name}
            )
    return table_open(
        actor=actor,
        game=ladder.game,
        seats=[SEAT_ME, *opponents],
        time_control=time_control,
        move_seconds=move_seconds,
        consented=set(opponents),
        name=f"Rated game on {ladder.name}",
    )
