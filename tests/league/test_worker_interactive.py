"""The interactive lane with real worker processes, Redis and PostgreSQL: a people's table
gets its bots' moves while bot-only matches hold every other worker slot.

The workers are laid out as scripts/run lays them out, one process each: the general
worker (every queue, `interactive` included) and the interactive lane's own worker (only
`interactive`). Long bot-only matches (Kung och Adel, 1000 deals each, several times what
the general worker can play while the table is played) hold the general worker's slot and
wait in its queue; a person opens a table with three bots, and at each of her turns the
bots' moves before it were played by the interactive worker while the bot-only matches
were still running and queued: the table never waited for them.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any

from django.db import connection
from rest_framework.test import APIClient

import pytest

from league.models import Match, MatchEvent, MatchStatus
from league.services.tournaments import tournament_round_start
from tests.api_answers import ok
from tests.celery_workers import CeleryWorkerProcess
from tests.league import worker_runs
from tests.league.builders import bot_tournament, user_create
from tests.servers import database_url_for

WorkerFactory = Callable[..., CeleryWorkerProcess]
WAIT_SECONDS = 120.0
GENERAL_QUEUES = "interactive,default,matches"  # scripts/run's `worker`
LONG_BOT_ONLY_GAME = "kung_och_adel(deals=1000)"
PERSONS_TURNS = 3

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
]


def wait_until(what: str, predicate: Callable[[], Any], *workers: CeleryWorkerProcess) -> Any:
    return worker_runs.wait_until(what, predicate, *[w.log for w in workers], seconds=WAIT_SECONDS)


def runs_that_played(worker: CeleryWorkerProcess, task: str) -> int:
    """How many of the worker's runs of ``league.tasks.<task>`` played a match."""
    return sum(
        1
        for line in worker.log().splitlines()
        if f"league.tasks.{task}[" in line
        and " succeeded " in line
        and not line.endswith("'not claimed'")
    )


def statuses(match_ids: list[int]) -> list[str]:
    by_id = dict(Match.objects.filter(pk__in=match_ids).values_list("id", "status"))
    return [by_id[pk] for pk in match_ids]


def test_a_people_table_gets_its_bot_moves_while_bot_only_matches_hold_every_other_slot(
    celery_worker_factory: WorkerFactory, subprocess_environment: dict[str, str]
) -> None:
    environment = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict)
    }
    general = celery_worker_factory(environment, queues=GENERAL_QUEUES)
    interactive = celery_worker_factory(environment, queues="interactive")
    workers = (general, interactive)

    tournament, organiser = bot_tournament(game=LONG_BOT_ONLY_GAME, entrants=12, bot="greedy")
    round_ = tournament_round_start(actor=organiser, tournament=tournament)
    bot_only = list(round_.matches.order_by("id").values_list("id", flat=True))
    assert len(bot_only) == 3
    holding = wait_until(
        "the general worker plays a bot-only match",
        lambda: next(
            (
                pk
                for pk, status in zip(bot_only, statuses(bot_only), strict=True)
                if status == MatchStatus.RUNNING
            ),
            None,
        ),
        *workers,
    )

    ann = user_create("ann")
    api = APIClient()
    api.force_authenticate(ann)
    table = ok(
        api.post(
            "/api/tables/",
            {
                "game": "kingen",
                "seats": ["builtin:greedy", "me", "builtin:greedy", "builtin:greedy"],
            },
            format="json",
        ),
        201,
    )
    view_path = f"/api/matches/{table['id']}/seats/1/view/"
    for turn in range(PERSONS_TURNS):
        view = wait_until(
            f"Ann is to act (turn {turn + 1})",
            lambda: (v := ok(api.get(view_path)))["your_turn"] and v,
            *workers,
        )
        # The bot-only work still holds the general worker's one slot: the same match
        # running, the others waiting in the queue for it.
        assert statuses([holding]) == [MatchStatus.RUNNING], statuses(bot_only)
        assert statuses(bot_only).count(MatchStatus.QUEUED) == 2, statuses(bot_only)
        ok(
            api.post(
                f"/api/matches/{table['id']}/seats/1/actions/",
                {"action": view["view"]["legal"][0]},
                format="json",
            )
        )
    bots_moves = MatchEvent.objects.filter(match_id=table["id"], seat__in=[0, 2, 3]).count()
    assert bots_moves >= PERSONS_TURNS  # the bots answered between Ann's moves
    assert MatchStatus.QUEUED in statuses(bot_only)
    # Every run of the table was the interactive worker's, whose queue the bot-only
    # matches never reach; the general worker played bot-only matches only (a message left
    # in Redis by an earlier test finds nothing to claim).
    wait_until(
        "the interactive worker has logged the table's runs",
        lambda: runs_that_played(interactive, "run_match_interactive") >= PERSONS_TURNS,
        *workers,
    )
    assert runs_that_played(interactive, "run_match") == 0
    assert runs_that_played(general, "run_match_interactive") == 0
    # Not the minutes of bot-only play left: the general worker is stopped at once.
    os.killpg(general.process.pid, signal.SIGKILL)
    general.process.wait()
