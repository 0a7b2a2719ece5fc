"""What a bot's author does on a ladder (docs/league.md, *Ladders*): opt a version out or
in, allow challenges, resume a suspended version, and challenge: an unrated one-match
tournament (format challenge) queued ahead of the ladder's games, CHALLENGES_PER_DAY a day."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from bots.models import BotVersion
from engine.variants import load_game
from league.domain.ladder_results import OpponentFacts, challenge_problem
from league.errors import ConflictError, InvalidInputError, NotAllowedError, NotFoundError
from league.models import (
    Competitor,
    Ladder,
    LadderEntrant,
    LadderEntrantStatus,
    Match,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)
from league.selectors.bots import can_read_bot_private
from league.services.ladders import match_queue, round_next
from league.services.task_outbox import task_enqueue
from league.services.tournaments import seed_draw
from league.task_names import LADDERS_MATCHMAKE
from league.words.ladder_messages import challenge_problem_words

User = Account | AnonymousUser

CHALLENGES_PER_DAY = 20  # challenges one person may ask for in 24 hours

RESUMED: dict[str, object] = {
    "status": LadderEntrantStatus.PLAYING,
    "suspended_at": None,
    "consecutive_failures": 0,
    "suspension_faults": [],
}
"""A suspended version resumed: its failures in a row start again from 0."""


@transaction.atomic
def ladder_entrant_update(
    *, actor: User, ladder: Ladder, competitor_id: int, resume: bool = False, **choices: bool | None
) -> LadderEntrant:
    """The owner's ``choices`` for a version (``opted_out``: off the ladder,
    ``challengeable``), or a suspended version resumed (its failures in a row from 0)."""
    entrant = LadderEntrant.objects.filter(ladder=ladder, competitor_id=competitor_id).first()
    if entrant is None:
        raise NotFoundError(
            _("version %(id)s is not on the %(ladder)s")
            % {"id": competitor_id, "ladder": ladder.name}
        )
    if entrant.anchor or not can_read_bot_private(user=actor, bot=entrant.bot):
        raise NotAllowedError(_("only the bot's owner (or staff) may change its place on a ladder"))
    changes: dict[str, object] = {f: v for f, v in choices.items() if v is not None}
    if resume:
        if entrant.status != LadderEntrantStatus.SUSPENDED:
            raise ConflictError(_("%(name)s is not suspended") % {"name": entrant.competitor.name})
        changes |= RESUMED
    for field, value in changes.items():
        setattr(entrant, field, value)
    if changes:
        entrant.save(update_fields=list(changes))
        task_enqueue(LADDERS_MATCHMAKE)
    return entrant


def challenges_left(*, user_id: int, now: datetime | None = None) -> int:
    since = (now or timezone.now()) - timedelta(days=1)
    used = Tournament.objects.filter(
        format=TournamentFormat.CHALLENGE, created_by_id=user_id, created_at__gt=since
    ).count()
    return max(0, CHALLENGES_PER_DAY - used)


@transaction.atomic
def challenge_create(
    *, actor: User, ladder: Ladder, competitor_id: int, opponent_ids: Sequence[int]
) -> Match:
    """Queue an unrated match of the actor's version against ``opponent_ids`` (clockwise
    from seat 1), ahead of the ladder's games; ``CHALLENGES_PER_DAY`` per person."""
    if not actor.is_authenticated:
        raise NotAllowedError(_("log in to challenge"))
    competitor = (
        Competitor.objects.select_related("bot_version__bot").filter(pk=competitor_id).first()
    )
    version = competitor.bot_version if competitor else None
    if competitor is None or version is None or version.is_builtin:
        raise InvalidInputError(_("version: name one of your uploaded bot versions"))
    if not can_read_bot_private(user=actor, bot=version.bot):
        raise NotAllowedError(_("only the bot's owner challenges with it"))
    plays = version.bot.families.filter(family=ladder.family).exists()
    if version.status != BotVersion.Status.ACTIVE or not plays:
        raise InvalidInputError(
            _("version: %(name)s is not an active %(family)s bot version")
            % {"name": competitor.name, "family": ladder.family}
        )
    opponents = Competitor.objects.filter(pk__in=list(opponent_ids))
    allowed = LadderEntrant.objects.filter(ladder=ladder, challengeable=True)
    facts = {
        c.pk: OpponentFacts(
            name=c.name,
            bot=c.bot_version is not None,
            builtin=c.bot_version is not None and c.bot_version.is_builtin,
            own=c.bot_version is not None
            and can_read_bot_private(user=actor, bot=c.bot_version.bot),
            allowed=c.pk in set(allowed.values_list("competitor_id", flat=True)),
        )
        for c in opponents.select_related("bot_version__bot")
    }
    problem = challenge_problem(
        seats=len(load_game(ladder.game).player_seats), opponents=opponent_ids, facts=facts
    )
    if problem is not None:
        raise (NotAllowedError if problem.not_allowed else InvalidInputError)(
            _("opponents: %(problem)s") % {"problem": challenge_problem_words(problem)}
        )
    user_id = int(actor.pk)
    if challenges_left(user_id=user_id) <= 0:
        raise ConflictError(
            _("you have asked for %(count)s challenges in the last 24 hours; try again later")
            % {"count": CHALLENGES_PER_DAY}
        )
    tournament = Tournament.objects.create(
        name=f"Challenge: {competitor.name}",
        game=ladder.game,
        format=TournamentFormat.CHALLENGE,
        status=TournamentStatus.RUNNING,
        created_by_id=user_id,
        seed=seed_draw(),
    )
    return match_queue(
        round_=round_next(tournament),
        table=1,
        seed=seed_draw(),
        players=[competitor_id, *opponent_ids],
    )
