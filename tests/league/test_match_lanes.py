"""Each match's play is queued in its lane (league.domain.lanes, league.services.match_lanes),
first and every time again: a match a person waits for (a people's table, a league game
with a person) on the `interactive` queue, a challenge there after the tables, a bot-only
league's on `matches`, a ladder's on `matches` at the lowest priority; a person's move
handing over to the bots, the fallback at a deadline, a lease that ran out and a lost task
sent again keep the lane.

The tasks are read from the outbox (in a test's transaction nothing is sent) and routed as
the relay sends them: by name through settings' CELERY_TASK_ROUTES.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone

import pytest

from config.celery import app
from league.domain.lanes import Lane, match_lane
from league.models import PERSON_MAX_STRIKES, LadderEntrant, Match, MatchStatus, OutboxTask
from league.selectors.replays import match_state_read
from league.services.competitors import (
    competitor_builtin,
    competitor_for_user,
)
from league.services.ladder_authors import challenge_create
from league.services.ladders import ladder_anchor_add, ladder_matchmake, ladder_open
from league.services.matches import (
    match_claim,
    match_deadline_expire,
    match_lease_seconds,
    match_person_act,
    match_resend_seconds,
    match_run,
    matches_sweep,
)
from league.services.tables import table_open
from league.services.tournaments import tournament_create, tournament_round_start
from tests.league.builders import (
    active_uploaded_version,
    bot_tournament,
    club_with_organiser,
    user_create,
)

pytestmark = [pytest.mark.postgres]

INTERACTIVE = ("interactive", None)
CHALLENGE = ("interactive", 3)
MATCHES = ("matches", None)
LADDER = ("matches", 9)

BOT_CODE = "import sys\n"  # never run here: nothing is played in these tests but built-ins


def lanes_sent(match_id: int) -> list[tuple[str, int | None]]:
    """Where each task queued for the match's play goes (queue, priority), oldest first."""
    sent = []
    for row in OutboxTask.objects.filter(task__startswith="league.tasks.run_match").order_by("id"):
        if row.args == [match_id]:
            route = app.amqp.router.route({}, row.task)
            sent.append((route["queue"].name, route.get("priority")))
    return sent


def lease_lost_and_swept(match_id: int) -> None:
    """A worker claims the match and is lost; the sweep re-queues it."""
    assert match_claim(match_id=match_id, worker="lost") is not None
    later = timezone.now() + timedelta(seconds=match_lease_seconds() + 3600)
    assert matches_sweep(now=later).requeued == [match_id]


def task_lost_and_resent(match_id: int) -> None:
    """The match stays queued past MATCH_RESEND_SECONDS (its message lost): the sweep sends
    its task again."""
    Match.objects.filter(pk=match_id).update(
        queued_at=timezone.now() - timedelta(seconds=match_resend_seconds() + 60)
    )
    assert matches_sweep().resent == [match_id]


def people_table(host: User) -> Match:
    return table_open(actor=host, game="kingen", seats=["me", *["builtin:greedy"] * 3])


def test_the_lane_is_interactive_when_a_person_sits_or_for_a_challenge() -> None:
    assert match_lane(person_seated=True, challenge=False, ladder=False) == Lane.INTERACTIVE
    assert match_lane(person_seated=False, challenge=True, ladder=False) == Lane.CHALLENGE
    assert match_lane(person_seated=True, challenge=False, ladder=True) == Lane.INTERACTIVE
    assert match_lane(person_seated=False, challenge=False, ladder=True) == Lane.LADDER
    assert match_lane(person_seated=False, challenge=False, ladder=False) == Lane.MATCHES


@pytest.mark.django_db
def test_a_bot_only_league_match_goes_to_matches_and_keeps_it_after_the_sweeps() -> None:
    tournament, organiser = bot_tournament(bot="greedy")
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    assert lanes_sent(match.pk) == [MATCHES]
    lease_lost_and_swept(match.pk)
    task_lost_and_resent(match.pk)
    assert lanes_sent(match.pk) == [MATCHES, MATCHES, MATCHES]


@pytest.mark.django_db
def test_a_league_match_with_a_person_goes_to_interactive() -> None:
    club, organiser = club_with_organiser()
    tournament = tournament_create(
        actor=organiser,
        club=club,
        name="With Olga",
        game="kingen",
        entrants=[
            competitor_for_user(user=organiser),
            *(competitor_builtin(name="greedy", bot_name=f"greedy-{i}") for i in range(3)),
        ],
    )
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    assert lanes_sent(match.pk) == [INTERACTIVE]
    task_lost_and_resent(match.pk)
    assert lanes_sent(match.pk) == [INTERACTIVE, INTERACTIVE]


@pytest.mark.django_db
def test_a_people_table_its_bots_turns_and_every_requeue_go_to_interactive() -> None:
    host = user_create("olga")
    match = people_table(host)
    assert lanes_sent(match.pk) == [INTERACTIVE]  # the start of the table

    lease_lost_and_swept(match.pk)
    assert lanes_sent(match.pk) == [INTERACTIVE, INTERACTIVE]

    match_run(match_id=match.pk, worker="test")  # the bots play up to the person's turn
    match.refresh_from_db()
    assert (match.status, match.waiting_seat) == (MatchStatus.RUNNING, 0)
    # The person plays until a move hands the turn to the bots (a card that wins a trick
    # leaves the person to lead again, with no task: the deal decides which); a deal of 13
    # tricks has such a move.
    for _ in range(13):
        state = match_state_read(match)
        action = state.game.action_to_string(state.view_for(0).legal[0])
        match_person_act(match=match, seat=0, action=action)
        match.refresh_from_db()
        if match.status == MatchStatus.QUEUED:
            break
    assert match.status == MatchStatus.QUEUED  # the bots' turns, after the person's move
    assert lanes_sent(match.pk) == [INTERACTIVE] * 3

    match_run(match_id=match.pk, worker="test")
    match.refresh_from_db()
    assert match.waiting_seat == 0
    # Deadlines pass until a fallback hands the turn to the bots (one that wins a trick
    # leaves the person to lead again, with no task; the deal decides which): at most the
    # strikes allowed, after which a bot plays the seat.
    for _ in range(PERSON_MAX_STRIKES):
        match.refresh_from_db()
        assert match.deadline is not None
        assert match_deadline_expire(match_id=match.pk, now=match.deadline + timedelta(seconds=1))
        if Match.objects.get(pk=match.pk).status == MatchStatus.QUEUED:
            break
    assert Match.objects.get(pk=match.pk).status == MatchStatus.QUEUED  # the bots' turn
    assert lanes_sent(match.pk) == [INTERACTIVE] * 4

    task_lost_and_resent(match.pk)
    assert lanes_sent(match.pk) == [INTERACTIVE] * 5


@pytest.mark.django_db
def test_ladder_games_go_to_matches_at_the_lowest_priority_and_a_challenge_to_interactive() -> None:
    """A challenge: to `interactive`, after the people's tables waiting there."""
    ladder = ladder_open(game="kingen", anchors=("greedy", "random"), queued_limit=1)
    ladder_anchor_add(ladder=ladder, name="greedy", bot_name="greedy-2")
    ladder_anchor_add(ladder=ladder, name="random", bot_name="random-2")
    author = user_create("ann")
    mine = active_uploaded_version(author, "mine", BOT_CODE)
    (game,) = ladder_matchmake(ladder_id=ladder.pk)
    assert lanes_sent(game) == [LADDER]
    lease_lost_and_swept(game)
    assert lanes_sent(game) == [LADDER, LADDER]

    anchors = LadderEntrant.objects.filter(ladder=ladder, anchor=True)
    challenge = challenge_create(
        actor=author,
        ladder=ladder,
        competitor_id=mine.pk,
        opponent_ids=list(anchors.values_list("competitor_id", flat=True)[:3]),
    )
    assert lanes_sent(challenge.pk) == [CHALLENGE]  # only bots play, but its author waits
    lease_lost_and_swept(challenge.pk)
    task_lost_and_resent(challenge.pk)
    assert lanes_sent(challenge.pk) == [CHALLENGE] * 3
