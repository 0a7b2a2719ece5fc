"""The analysis of a finished match through a real worker on the `analysis` queue, real
PostgreSQL and Redis: asked for through the API by the organiser, stored, shown on the
replay page and in the API and the NDJSON export; refused to others; hidden while the
match's record does not show every hand."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

import pytest

from league.models import AnalysisStatus, Match, MatchAnalysis, MatchStatus
from league.selectors.tables import seat_view
from league.services.analysis import analysis_lost_after, match_analyse
from league.services.matches import match_person_act, match_run, matches_sweep
from league.services.tables import table_open
from league.services.task_outbox import outbox_relay
from league.services.tournaments import tournament_create, tournament_round_start
from tests.api_answers import ok, refused
from tests.celery_workers import CeleryWorkerProcess
from tests.league import worker_runs
from tests.league.builders import builtin_competitors, club_with_organiser, user_create
from tests.servers import database_url_for

WorkerFactory = Callable[..., CeleryWorkerProcess]
WAIT_SECONDS = 240.0

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def worker(
    celery_worker_factory: WorkerFactory, subprocess_environment: dict[str, str]
) -> CeleryWorkerProcess:
    """A worker for matches and analyses, with a small analysis budget (the setting)."""
    environment: Mapping[str, str] = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "ANALYSIS_NODE_LIMIT": "50000",
        "ANALYSIS_SAMPLES": "2",
    }
    return celery_worker_factory(environment, queues="interactive,default,matches,analysis")


def _wait(what: str, predicate: Callable[[], Any], worker: CeleryWorkerProcess) -> Any:
    return worker_runs.wait_until(what, predicate, worker.log, seconds=WAIT_SECONDS)


def _match() -> tuple[Match, Any]:
    club, organiser = club_with_organiser()
    tournament = tournament_create(
        actor=organiser,
        club=club,
        name="Analysed",
        game="kung_och_adel",
        deals=2,
        entrants=builtin_competitors(4, "greedy"),
    )
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    return match, organiser


def _client_of(user: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def test_an_analysis_asked_for_is_computed_on_its_queue_stored_and_shown(
    worker: CeleryWorkerProcess,
) -> None:
    match, organiser = _match()
    path = f"/api/matches/{match.pk}/analysis/"
    _wait(
        "the match finishes",
        lambda: Match.objects.filter(pk=match.pk, status=MatchStatus.FINISHED).exists(),
        worker,
    )
    # A bots' match is not analysed by itself; nobody has asked yet.
    refused(APIClient().get(path), 404)

    stranger = _client_of(user_create("stranger"))
    refused(stranger.post(path), 403)
    refused(APIClient().post(path), 401)  # anonymous: log in first
    assert not MatchAnalysis.objects.filter(match=match).exists()

    queued = ok(_client_of(organiser).post(path), 202)
    assert queued["status"] in ("queued", "running", "done")
    _wait(
        "the analysis is done",
        lambda: MatchAnalysis.objects.filter(match=match, status=AnalysisStatus.DONE).exists(),
        worker,
    )
    assert "league.tasks.match_analyse" in worker.log()

    answer = ok(APIClient().get(path))  # anyone who sees the full record
    record = ok(APIClient().get(f"/api/matches/{match.pk}/record/"))
    plays = [
        (deal["deal"], index)
        for deal in record["deals"]
        for index, event in enumerate(deal["actions"], start=1)
        if str(event.get("action", "")).startswith("play ")
    ]
    assert [(c["deal"], c["event"]) for c in answer["cards"]] == plays
    assert answer["settings"]["node_limit"] == 50000  # the worker's setting
    assert answer["settings"]["samples"] == 2
    assert answer["analysed"] + answer["not_analysed"] == len(plays)
    assert answer["analysed"] > 0
    assert answer["not_analysed"] == sum(1 for c in answer["cards"] if not c["analysed"])
    assert all(c["reason"] for c in answer["cards"] if not c["analysed"])
    assert [row["seat"] for row in answer["summary"]] == [0, 1, 2, 3]
    assert len(answer["deals"]) == 2

    page = Client().get(f"/matches/{match.pk}/")
    html = page.content.decode()
    assert page.status_code == 200
    assert f'data-analysis-url="{path}"' in html
    assert 'data-role="analysis-summary"' in html
    for row in answer["summary"]:
        assert f'<tr data-seat="{row["seat"]}">' in html
    assert 'data-role="analysis-request"' not in html  # a visitor may not ask
    organiser_client = Client()
    organiser_client.force_login(organiser)
    assert (
        'data-role="analysis-request"'
        in organiser_client.get(f"/matches/{match.pk}/").content.decode()
    )

    export = APIClient().get(f"/api/tournaments/{match.tournament_id}/records.ndjson")
    body = b"".join(export.streaming_content)  # type: ignore[attr-defined]
    lines = [json.loads(line) for line in body.splitlines()]
    exported = next(line for line in lines if line["meta"]["match"] == match.pk)
    assert exported["meta"]["analysis"]["cards"] == answer["cards"]
    assert exported["meta"]["analysis"]["summary"] == answer["summary"]

    # Asked again while one is under way: refused.
    MatchAnalysis.objects.filter(match=match).update(status=AnalysisStatus.RUNNING)
    refused(_client_of(organiser).post(path), 409)


def test_a_match_not_finished_has_no_analysis_to_show_or_ask_for() -> None:
    """Until a match is finished its record shows each viewer only their own cards, so its
    analysis (which names hidden cards) is not shown, even where a row exists, and none
    can be asked for."""
    match, organiser = _match()  # queued: no worker runs it here
    assert Match.objects.get(pk=match.pk).status == MatchStatus.QUEUED
    path = f"/api/matches/{match.pk}/analysis/"
    refused(_client_of(organiser).get(path), 404)
    refused(_client_of(organiser).post(path), 409)
    MatchAnalysis.objects.create(match=match, status=AnalysisStatus.QUEUED)
    refused(APIClient().get(path), 404)
    refused(_client_of(organiser).get(path), 404)
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert 'data-role="analysis"' not in page
    assert 'data-analysis-url=""' in page


@pytest.mark.parametrize("seats", [["me", "builtin:greedy", "builtin:greedy", "builtin:greedy"]])
def test_a_finished_game_with_a_person_is_analysed_without_asking(
    seats: list[str], settings: Any
) -> None:
    """A table of people (here one person and bots) queues its analysis when it finishes;
    the matches and the analysis run here in the test's process, as the tasks would."""
    settings.ANALYSIS_NODE_LIMIT = 20_000
    settings.ANALYSIS_SAMPLES = 1
    ann = user_create("ann")
    match = table_open(actor=ann, game="kung_och_adel(deals=1)", seats=seats)
    for _ in range(200):
        match_run(match_id=match.pk)
        match.refresh_from_db()
        if match.status == MatchStatus.FINISHED:
            break
        view = seat_view(match=match, seat=0, user=ann)
        assert view["your_turn"], view["phase"]
        match_person_act(match=match, seat=0, action=view["view"]["legal"][0])
        match.refresh_from_db()
        if match.status == MatchStatus.FINISHED:
            break
    assert match.status == MatchStatus.FINISHED
    analysis = MatchAnalysis.objects.get(match=match)
    assert analysis.status == AnalysisStatus.QUEUED
    assert analysis.requested_by is None  # nobody asked
    assert match_analyse(match_id=match.pk).endswith("not")
    analysis.refresh_from_db()
    assert analysis.status == AnalysisStatus.DONE
    assert analysis.analysed + analysis.not_analysed == len(analysis.cards) > 0
    assert analysis.settings["node_limit"] == 20_000
    assert match_analyse(match_id=match.pk) == "done already"  # a duplicate task


# ---------------------------------------------------------------- nothing asked for is lost


def _finished_bots_match() -> tuple[Match, Any]:
    """A bots' match played here, in the test's process, as the task would."""
    match, organiser = _match()
    match_run(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED
    return match, organiser


def test_a_lost_analysis_is_sent_again_and_given_up_after_its_workers_died_three_times(
    settings: Any,
) -> None:
    settings.ANALYSIS_NODE_LIMIT = 20_000
    settings.ANALYSIS_SAMPLES = 1
    match, organiser = _finished_bots_match()
    path = f"/api/matches/{match.pk}/analysis/"
    ok(_client_of(organiser).post(path), 202)  # its task sent, and lost with its worker
    lost_after = analysis_lost_after()
    now = timezone.now()

    # Just asked for: under way, not lost. A second request is refused, the sweep waits.
    refused(_client_of(organiser).post(path), 409)
    assert matches_sweep(now=now).analyses_resent == []

    # Its task lost before any worker began it: sent again once it waited too long.
    later = now + lost_after + timedelta(seconds=1)
    assert matches_sweep(now=later).analyses_resent == [match.pk]
    assert MatchAnalysis.objects.get(match=match).queued_at == later  # sent at that time

    # Each time, a worker begins it and dies (SIGKILL leaves it RUNNING, its claim made).
    for attempt in (1, 2, 3):
        MatchAnalysis.objects.filter(match=match).update(
            status=AnalysisStatus.RUNNING, started_at=now, attempts=attempt
        )
        # Another delivery of the task while the first worker may still be at it: nothing.
        assert match_analyse(match_id=match.pk) == "running in another worker"
        assert matches_sweep(now=now + lost_after / 2).analyses_resent == []
        report = matches_sweep(now=later)
        if attempt < 3:
            assert report.analyses_resent == [match.pk]
            assert MatchAnalysis.objects.get(match=match).status == AnalysisStatus.QUEUED
        else:
            assert report.analyses_failed == [match.pk]
    analysis = MatchAnalysis.objects.get(match=match)
    assert analysis.status == AnalysisStatus.FAILED
    assert "3 times" in analysis.error
    assert matches_sweep(now=later).analyses_resent == []  # given up: no more tasks

    # Asked for again, it starts afresh, and a worker that lives finishes it.
    ok(_client_of(organiser).post(path), 202)
    assert match_analyse(match_id=match.pk).endswith("not")
    analysis.refresh_from_db()
    assert (analysis.status, analysis.attempts) == (AnalysisStatus.DONE, 1)


def test_a_person_asking_again_for_a_lost_analysis_gets_it_queued(settings: Any) -> None:
    match, organiser = _finished_bots_match()
    path = f"/api/matches/{match.pk}/analysis/"
    ok(_client_of(organiser).post(path), 202)
    long_ago = timezone.now() - analysis_lost_after() - timedelta(seconds=1)
    MatchAnalysis.objects.filter(match=match).update(
        status=AnalysisStatus.RUNNING, started_at=long_ago, attempts=1
    )
    answer = ok(_client_of(organiser).post(path), 202)
    assert answer["status"] == "queued"
    analysis = MatchAnalysis.objects.get(match=match)
    assert (analysis.status, analysis.attempts, analysis.started_at) == (
        AnalysisStatus.QUEUED,
        0,
        None,
    )


def test_a_worker_killed_in_the_middle_of_an_analysis_loses_nothing(
    celery_worker_factory: WorkerFactory, subprocess_environment: dict[str, str]
) -> None:
    """A real worker dies (SIGKILL) while it analyses; once the analysis has run longer
    than one may, the sweep sends it again and another worker finishes it."""
    environment = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict)
    }
    match, organiser = _finished_bots_match()
    doomed = celery_worker_factory(
        environment | {"ANALYSIS_NODE_LIMIT": "5000000", "ANALYSIS_SAMPLES": "64"},
        queues="analysis",
    )
    ok(_client_of(organiser).post(f"/api/matches/{match.pk}/analysis/"), 202)
    _wait(
        "the worker is in the middle of the analysis",
        lambda: MatchAnalysis.objects.filter(match=match, status=AnalysisStatus.RUNNING).exists(),
        doomed,
    )
    os.killpg(doomed.process.pid, signal.SIGKILL)
    doomed.process.wait()
    analysis = MatchAnalysis.objects.get(match=match)
    assert (analysis.status, analysis.attempts) == (AnalysisStatus.RUNNING, 1)

    survivor = celery_worker_factory(
        environment | {"ANALYSIS_NODE_LIMIT": "50000", "ANALYSIS_SAMPLES": "2"},
        queues="analysis",
    )
    # The clock moved on past the lost worker's allowance (the sweep is given the time).
    report = matches_sweep(now=timezone.now() + analysis_lost_after() + timedelta(seconds=1))
    assert report.analyses_resent == [match.pk]
    outbox_relay()  # the task to the broker now, not at the survivor's next sweep
    _wait(
        "the surviving worker finishes the analysis",
        lambda: MatchAnalysis.objects.filter(match=match, status=AnalysisStatus.DONE).exists(),
        survivor,
    )
    analysis.refresh_from_db()
    assert analysis.attempts == 2
    assert analysis.analysed > 0
