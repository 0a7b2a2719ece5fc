"""The ladder runs for real: real worker processes, PostgreSQL, Redis and the sandbox.

- a new version plays its placement games first, and no version ever sits in more
  matches than the ladder's concurrent limit (two workers, limit 1);
- a challenge runs before the ladder games queued ahead of it (the priority of
  run_match_ladder, settings' routes);
- a version that crashes in LADDER_SUSPEND_AFTER matches in a row is suspended and its
  owner told; its logs are its owner's (and staff's), 403 for anyone else.

The matchmaker is called from the test for the first tables (beat calls the same service);
each finished ladder match asks the worker for the next pass itself.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test import Client

import pytest

from bots.models import BotVersion
from bots.services import bot_version_store
from league.models import (
    Competitor,
    Ladder,
    LadderEntrant,
    LadderEntrantStatus,
    Match,
    MatchSeat,
    MatchStatus,
    Notification,
    NotificationKind,
    RatedMatch,
    RatingChange,
    SeatLog,
)
from league.services.ladder_authors import challenge_create
from league.services.ladders import (
    LADDER_SUSPEND_AFTER,
    ladder_anchor_add,
    ladder_matchmake,
    ladder_open,
)
from tests.api_answers import client_for, ok, refused
from tests.bots.botcode import PLAYER
from tests.celery_workers import CeleryWorkerProcess
from tests.league import worker_runs
from tests.league.builders import active_uploaded_version, user_create, user_with_verified_email
from tests.servers import database_url_for

WorkerFactory = Callable[..., CeleryWorkerProcess]
WAIT_SECONDS = 180.0
ALL_QUEUES = "interactive,default,matches,ratings"

GOOD_BOT = PLAYER + "\ndef hook(number, request):\n    report('move', str(number))\n\nplay()\n"
CRASHING_BOT = PLAYER + "\ndef hook(number, request):\n    raise RuntimeError('oops')\n\nplay()\n"

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.sandbox,
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
        return celery_worker_factory(environment, queues=ALL_QUEUES)

    return start


def wait_until(what: str, predicate: Callable[[], Any], *workers: CeleryWorkerProcess) -> Any:
    return worker_runs.wait_until(what, predicate, *[w.log for w in workers], seconds=WAIT_SECONDS)


def browser_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def uploaded(owner: User, name: str, code: str = GOOD_BOT) -> Competitor:
    return active_uploaded_version(owner, name, code)


def ladder_matches_of(competitor_id: int) -> list[Match]:
    return list(
        Match.objects.filter(tournament__format="ladder", seats__competitor_id=competitor_id)
        .distinct()
        .order_by("id")
    )


def overlapping(intervals: list[tuple[datetime, datetime]]) -> int:
    """The most intervals that overlap at one moment."""
    points = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals])
    most = now = 0
    for _, step in points:
        now += step
        most = max(most, now)
    return most


def test_a_new_version_plays_its_placement_games_first_and_never_exceeds_its_limit(
    start_worker: Callable[[], CeleryWorkerProcess],
) -> None:
    ladder = ladder_open(
        game="kingen",
        anchors=("greedy", "random"),
        queued_limit=2,
        concurrent_limit=1,
        placement_games=3,
    )
    ladder_anchor_add(ladder=ladder, name="greedy", bot_name="greedy-2")
    ann = user_create("ann")
    steady = uploaded(ann, "steady")
    ladder_matchmake(ladder_id=ladder.pk)  # steady is placed: one table (its limit)
    workers = [start_worker(), start_worker()]
    wait_until(
        "steady plays its placement games",
        lambda: sum(m.status == "finished" for m in ladder_matches_of(steady.pk)) >= 3,
        *workers,
    )
    # Under the ladder's row lock, as the matchmaker takes it: a pass already under way (the
    # workers run one after each match) ends before, with a roster without the newcomer and
    # matches up to ``activated``; every pass after sees the newcomer.
    with transaction.atomic():
        Ladder.objects.select_for_update().get(pk=ladder.pk)
        newcomer = uploaded(user_create("bea"), "newcomer")
        activated = Match.objects.order_by("-id").values_list("id", flat=True).first() or 0
    worst = 0

    def placed() -> bool:
        nonlocal worst
        for competitor in (steady.pk, newcomer.pk):
            worst = max(
                worst,
                MatchSeat.objects.filter(
                    competitor_id=competitor,
                    match__tournament=ladder.tournament,
                    match__status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING],
                )
                .values("match_id")
                .distinct()
                .count(),
            )
        ladder_matchmake(ladder_id=ladder.pk)  # beat's pass
        return sum(m.status == "finished" for m in ladder_matches_of(newcomer.pk)) >= 3

    wait_until("the newcomer plays its placement games", placed, *workers)
    after = list(
        Match.objects.filter(tournament=ladder.tournament, pk__gt=activated).order_by("id")
    )
    with_newcomer = [any(s.competitor_id == newcomer.pk for s in m.seats.all()) for m in after]
    # Its three placement games came first: no match was queued without it while it could
    # play one (its limit is 1: others' tables only while it was busy).
    assert with_newcomer.count(True) >= 3
    # The first pass after it joined seats it (a pass queues its tables as one round, in
    # the order the planner lists them).
    first_seated = next(m for m, seated in zip(after, with_newcomer, strict=True) if seated)
    assert first_seated.round_id == after[0].round_id
    assert worst <= 1
    for competitor in (steady.pk, newcomer.pk):
        played = [
            (m.started_at, m.finished_at)
            for m in ladder_matches_of(competitor)
            if m.started_at and m.finished_at
        ]
        assert overlapping(played) <= 1, competitor
    # the old versions stop being matched when a new one is active, and stay listed
    assert steady.bot_version is not None
    later = steady.bot_version
    second = bot_version_store(
        owner=ann, bot=later.bot, filename="steady.py", data=GOOD_BOT.encode()
    )
    second.status = BotVersion.Status.ACTIVE
    second.save(update_fields=["status"])
    ladder_matchmake(ladder_id=ladder.pk)
    assert LadderEntrant.objects.get(ladder=ladder, competitor=steady).status == "superseded"
    assert LadderEntrant.objects.filter(
        ladder=ladder, competitor__bot_version=second, status="playing"
    ).exists()


def test_a_challenge_runs_before_the_ladder_games_queued_ahead_of_it(
    start_worker: Callable[[], CeleryWorkerProcess],
) -> None:
    ladder = ladder_open(
        game="kingen", anchors=("greedy", "random"), queued_limit=4, concurrent_limit=4
    )
    ladder_anchor_add(ladder=ladder, name="greedy", bot_name="greedy-2")
    ladder_anchor_add(ladder=ladder, name="random", bot_name="random-2")
    ann = user_create("ann")
    mine = uploaded(ann, "mine")
    queued = ladder_matchmake(ladder_id=ladder.pk)
    assert len(queued) == 4
    anchors = list(
        LadderEntrant.objects.filter(ladder=ladder, anchor=True).values_list(
            "competitor_id", flat=True
        )
    )
    challenge = challenge_create(
        actor=ann, ladder=ladder, competitor_id=mine.pk, opponent_ids=anchors[:3]
    )
    worker = start_worker()  # one worker, one match at a time: the queue's order shows
    wait_until(
        "the challenge and the queued ladder games are played",
        lambda: (
            Match.objects.filter(
                pk__in=[*queued, challenge.pk], status=MatchStatus.FINISHED
            ).count()
            == 5
        ),
        worker,
    )
    started = {m.pk: m.started_at for m in Match.objects.filter(pk__in=[*queued, challenge.pk])}
    first = started[challenge.pk]
    assert first is not None
    assert all(first < moment for pk in queued if (moment := started[pk]) is not None)
    assert all(started[pk] is not None for pk in queued)
    wait_until(
        "the ratings queue has seen the challenge",
        lambda: RatedMatch.objects.filter(result__match_id=challenge.pk).exists(),
        worker,
    )
    assert not RatingChange.objects.filter(match_id=challenge.pk).exists()  # unrated
    page = ok(client_for(ann).get("/api/ladders/kingen/challenges/"))
    assert [c["match"] for c in page] == [challenge.pk]
    assert page[0]["status"] == "finished"


def test_a_crashing_version_is_suspended_its_owner_told_and_its_logs_private(
    start_worker: Callable[[], CeleryWorkerProcess],
) -> None:
    ladder = ladder_open(
        game="kingen", anchors=("greedy", "random"), queued_limit=2, concurrent_limit=2
    )
    ladder_anchor_add(ladder=ladder, name="greedy", bot_name="greedy-2")
    # without a confirmed address the worker's mail task drops it
    carl = user_with_verified_email("carl")
    crasher = uploaded(carl, "crasher", CRASHING_BOT)
    ladder_matchmake(ladder_id=ladder.pk)
    worker = start_worker()
    entrant = LadderEntrant.objects.get(ladder=ladder, competitor=crasher)

    def suspended() -> bool:
        entrant.refresh_from_db()
        return entrant.status == LadderEntrantStatus.SUSPENDED

    wait_until("the crasher is suspended", suspended, worker)
    # suspended at the K-th crash in a row; a match already running beside it (the limit is
    # 2 at once) may crash too and count before this poll sees the suspension
    assert entrant.consecutive_failures >= LADDER_SUSPEND_AFTER
    assert len(entrant.suspension_faults) == LADDER_SUSPEND_AFTER
    notice = Notification.objects.get(user=carl, kind=NotificationKind.BOT_SUSPENDED)
    assert "crash" in notice.text
    assert "crasher" in notice.text
    assert notice.email_due or notice.emailed_at is not None  # mailed by default
    # No new ladder match seats it (those queued before may still finish).
    before = {m.pk for m in ladder_matches_of(crasher.pk)}
    ladder_matchmake(ladder_id=ladder.pk)
    assert {m.pk for m in ladder_matches_of(crasher.pk)} == before

    log = SeatLog.objects.filter(competitor=crasher).order_by("match_id").first()
    assert log is not None
    assert "RuntimeError: oops" in log.stderr
    url = f"/api/matches/{log.match_id}/logs/{log.seat}/"
    mine = ok(client_for(carl).get(url))
    assert "RuntimeError: oops" in mine["stderr"]
    assert all(move["ms"] >= 0 for move in mine["moves"])
    refused(client_for(user_create("dora")).get(url), 403)
    refused(client_for().get(url), 403)
    page = f"/matches/{log.match_id}/logs/{log.seat}/"
    assert browser_for(carl).get(page).status_code == 200
    download = browser_for(carl).get(page + "stderr.txt")
    assert download.status_code == 200
    assert b"RuntimeError: oops" in download.content
    for path in (page, page + "stderr.txt"):
        assert browser_for(user_create(f"eve{len(path)}")).get(path).status_code == 403
        assert Client().get(path).status_code == 403

    # the owner resumes it
    answer = ok(
        client_for(carl).patch(
            f"/api/ladders/{ladder.slug}/entrants/{crasher.pk}/", {"resume": True}, format="json"
        )
    )
    assert answer["status"] == "playing"
