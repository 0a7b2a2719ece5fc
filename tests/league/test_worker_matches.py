"""Matches through real worker processes, Redis and PostgreSQL: the robustness promises.

- SIGKILL of the worker in the middle of a match still ends with exactly one result
  (the lease runs out, the sweep re-queues, another worker replays the stored events
  and finishes);
- the same task delivered several times, to two workers at once, writes one result;
- a match whose lease expired is re-run and finishes;
- a tournament from creation to final standings through the API alone;
- a person's table: the worker plays the bots up to the person's turn, the person's move
  queues the continuation.

The sweep is called from the test (beat's task calls the same service) with a ``now`` past
the lease, instead of waiting a minute for it.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

import pytest

from engine.record import verify_record
from league.models import Match, MatchEvent, MatchStatus
from league.services.matches import match_lease_seconds, matches_sweep
from league.services.tournaments import tournament_round_start
from league.tasks import run_match as run_match_task
from tests.api_answers import ok
from tests.celery_workers import CeleryWorkerProcess
from tests.league import worker_runs
from tests.league.builders import bot_tournament, builtin_competitors, user_create
from tests.league.worker_runs import assert_one_verified_result, long_match, match_status
from tests.servers import database_url_for

WorkerFactory = Callable[[Mapping[str, str]], CeleryWorkerProcess]
WAIT_SECONDS = 120.0

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def start_worker(
    celery_worker_factory: WorkerFactory, subprocess_environment: dict[str, str]
) -> Callable[[], CeleryWorkerProcess]:
    def start() -> CeleryWorkerProcess:
        environment = subprocess_environment | {
            "DATABASE_URL": database_url_for(connection.settings_dict)
        }
        return celery_worker_factory(environment)

    return start


def wait_until(what: str, predicate: Callable[[], Any], *workers: CeleryWorkerProcess) -> Any:
    logs = [worker.log for worker in workers]
    return worker_runs.wait_until(what, predicate, *logs, seconds=WAIT_SECONDS)


def test_sigkill_of_the_worker_mid_match_still_ends_with_exactly_one_result(
    start_worker: Callable[[], CeleryWorkerProcess],
) -> None:
    first = start_worker()
    match = long_match()
    wait_until(
        "the first worker stores events",
        lambda: Match.objects.filter(pk=match.pk, events_stored__gt=50).exists(),
        first,
    )
    os.killpg(first.process.pid, signal.SIGKILL)
    first.process.wait()
    match.refresh_from_db()
    assert match.status == MatchStatus.RUNNING
    before = list(
        MatchEvent.objects.filter(match=match).order_by("index").values_list("index", "action")
    )
    assert before

    second = start_worker()
    report = matches_sweep(now=timezone.now() + timedelta(seconds=match_lease_seconds() + 600))
    assert report.requeued == [match.pk]
    wait_until("the match finishes", lambda: match_status(match.pk) == "finished", second)

    result = assert_one_verified_result(match.pk)
    match.refresh_from_db()
    assert (match.attempts, match.lease_expiries) == (2, 1)
    after = list(
        MatchEvent.objects.filter(match=match, index__lt=len(before))
        .order_by("index")
        .values_list("index", "action")
    )
    assert after == before  # the stored events were replayed, not played again
    assert result.record["meta"]["match"] == match.pk


def test_the_same_task_delivered_three_times_to_two_workers_writes_one_result(
    start_worker: Callable[[], CeleryWorkerProcess],
) -> None:
    workers = [start_worker(), start_worker()]
    tournament, organiser = bot_tournament(game="kingen", bot="greedy")
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    run_match_task.delay(match.pk)  # the on-commit message, and two more
    run_match_task.delay(match.pk)

    wait_until("the match finishes", lambda: match_status(match.pk) == "finished", *workers)
    wait_until(
        "all three deliveries are done",
        lambda: sum(w.log().count("league.tasks.run_match[") for w in workers) >= 6,
        *workers,
    )
    assert_one_verified_result(match.pk)
    match.refresh_from_db()
    assert match.attempts == 1
    logs = "".join(w.log() for w in workers)
    assert logs.count("'not claimed'") == 2


def test_a_match_whose_lease_expired_is_rerun_and_finishes(
    start_worker: Callable[[], CeleryWorkerProcess],
) -> None:
    tournament, organiser = bot_tournament(game="kingen", bot="greedy")
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    # Before any worker took its task, a worker claimed it and was lost without storing
    # anything (the task, when it comes, finds nothing to claim).
    Match.objects.filter(pk=match.pk).update(
        status=MatchStatus.RUNNING,
        attempts=1,
        lease_until=timezone.now() - timedelta(seconds=1),
        worker="lost:1",
    )
    worker = start_worker()

    # The worker's own sweeper (config/worker_sweeper.py) may re-queue it first.
    assert matches_sweep().requeued in ([match.pk], [])
    wait_until("the match finishes", lambda: match_status(match.pk) == "finished", worker)
    assert_one_verified_result(match.pk)
    match.refresh_from_db()
    assert (match.attempts, match.lease_expiries) == (2, 1)


def test_a_tournament_from_creation_to_final_standings_through_the_api(
    start_worker: Callable[[], CeleryWorkerProcess],
) -> None:
    worker = start_worker()
    organiser = user_create("olga")
    bots = builtin_competitors(6, "greedy")
    api = APIClient()
    token = ok(
        api.post(
            "/api/auth/token/", {"username": "olga", "password": "a long password 1"}, format="json"
        )
    )["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert organiser.pk
    club = ok(api.post("/api/clubs/", {"name": "Priffe Club"}, format="json"), 201)
    tournament = ok(
        api.post(
            "/api/tournaments/",
            {
                "name": "Rotating partners",
                "club": club["id"],
                "game": "priffe",
                "format": "rotating_partners",
                "deals": 1,
                "rounds": 2,
                "entrants": [b.pk for b in bots[:5]],
            },
            format="json",
        ),
        201,
    )
    assert tournament["game"] == "priffe(rubbers_per_game=1)"
    ok(
        api.post(
            f"/api/tournaments/{tournament['id']}/entries/",
            {"competitor": bots[5].pk},
            format="json",
        ),
        201,
    )
    path = f"/api/tournaments/{tournament['id']}/"
    for _ in range(2):
        ok(api.post(f"{path}start-round/"), 201)
        wait_until(
            "the round is played",
            lambda: (d := ok(api.get(path)))["finished"] == d["total"],
            worker,
        )
    ok(api.post(f"{path}finish/"))
    standings = ok(api.get(f"{path}standings/"))
    assert (standings["finished"], standings["total"]) == (4, 4)
    assert sorted(r["competitor"] for r in standings["rows"]) == sorted(b.pk for b in bots)
    assert all(r["games"] >= 1 for r in standings["rows"])
    lines = b"".join(api.get(f"{path}records.ndjson").streaming_content).splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 4
    assert all(verify_record(line).ok for line in lines)


def test_a_persons_table_is_driven_by_the_persons_moves(
    start_worker: Callable[[], CeleryWorkerProcess],
) -> None:
    worker = start_worker()
    ann = user_create("ann")
    api = APIClient()
    api.force_authenticate(ann)
    match = ok(
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
    view_path = f"/api/matches/{match['id']}/seats/1/view/"
    for _ in range(3):
        view = wait_until(
            "Ann is to act", lambda: (v := ok(api.get(view_path)))["your_turn"] and v, worker
        )
        ok(
            api.post(
                f"/api/matches/{match['id']}/seats/1/actions/",
                {"action": view["view"]["legal"][0]},
                format="json",
            )
        )
    assert match_status(match["id"]) in ("queued", "running")
    assert MatchEvent.objects.filter(match_id=match["id"], seat=1).count() == 3
