"""Send a match's play to its lane: the task that plays it, chosen from the match.

Every place that queues a match's play (a round's start, a people's table that fills, a
challenge, a ladder's pass, a person's move handing over to the bots, a tournament's
resume, the sweep's re-queues and re-sends) calls ``match_run_enqueue``: the lane is
decided each time from who sits at the match and what kind of tournament it is
(league.domain.lanes), so a re-queued match keeps its lane. The lanes' tasks are one body
under four names (league/tasks.py), which settings' CELERY_TASK_ROUTES send to the
`interactive` queue (a challenge after the tables there), to `matches`, and to
`matches` at the lowest priority.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef

from league.domain.lanes import Lane, match_lane
from league.models import Match, MatchSeat, OutboxTask, TournamentFormat
from league.services.task_outbox import task_enqueue
from league.task_names import (
    RUN_CHALLENGE_MATCH,
    RUN_INTERACTIVE_MATCH,
    RUN_LADDER_MATCH,
    RUN_MATCH,
)

RUN_TASK_OF_LANE: dict[Lane, str] = {
    Lane.INTERACTIVE: RUN_INTERACTIVE_MATCH,
    Lane.CHALLENGE: RUN_CHALLENGE_MATCH,
    Lane.MATCHES: RUN_MATCH,
    Lane.LADDER: RUN_LADDER_MATCH,
}
"""The task that plays a match in each lane (routed by name: settings' CELERY_TASK_ROUTES)."""


def match_lane_of(match_id: int) -> Lane:
    """The lane of a stored match (its seats stored): interactive when a person sits at it
    or it is a challenge."""
    tournament_format, person_seated = (
        Match.objects.filter(pk=match_id)
        .annotate(
            person_seated=Exists(
                MatchSeat.objects.filter(match=OuterRef("pk"), competitor__user__isnull=False)
            )
        )
        .values_list("tournament__format", "person_seated")
        .get()
    )
    return match_lane(
        person_seated=person_seated,
        challenge=tournament_format == TournamentFormat.CHALLENGE,
        ladder=tournament_format == TournamentFormat.LADDER,
    )


def match_run_enqueue(match_id: int) -> OutboxTask:
    """Queue the play of a match in its lane, through the outbox (sent when the current
    transaction commits)."""
    return task_enqueue(RUN_TASK_OF_LANE[match_lane_of(match_id)], match_id)
