"""Outages of the database and of Redis, with real processes, without touching the servers.

Each test puts a TCP proxy (tests/outages.py) in front of the shared PostgreSQL or Redis and
points the processes under test (celery beat, workers, a web process) at the proxy; cutting
the proxy closes their connections and refuses new ones, as a server that went down would.
The test itself keeps its own direct connection, to look at the rows during the outage.

- beat keeps ticking across a 30 s database cut, and a match whose worker died during the
  cut is re-queued and finishes after it;
- beat started while the database is down waits for it (django-celery-beat's scheduler
  exits at once);
- with Redis cut, beat keeps ticking, starting a round answers 201 (its tasks wait in the
  outbox) and the matches run once Redis is back;
- a worker re-queues a match whose lease expired by itself, with no beat at all;
- a run hit by a database cut releases its claim as soon as the database is back, long
  before its lease would have run out;
- reads (and a write) with the database cut answer 503 JSON with Retry-After, pages a 503
  page, and everything answers again once it is back;
- /healthz names beat when it stopped, was killed (stale) or never ticked.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

import pytest
from pytest_django import Settings

from bots.models import BotVersion
from bots.services import bot_create
from config.health import ComponentHealth, beat_health
from league.models import Match, MatchStatus, OutboxTask, ProcessTick
from league.services.heartbeats import BEAT, process_stopped, process_tick
from league.services.tournaments import tournament_create, tournament_round_start
from tests.celery_beat import CeleryBeatProcess, beat_start
from tests.celery_workers import REPOSITORY_ROOT, CeleryWorkerProcess
from tests.league import worker_runs
from tests.league.builders import bot_tournament, builtin_competitors, club_with_organiser
from tests.league.worker_runs import assert_one_verified_result, long_match, match_status
from tests.outages import OutageProxy
from tests.servers import database_url_for

BOT_EXAMPLE = REPOSITORY_ROOT / "bots" / "examples" / "random_bot.py"

logger = logging.getLogger(__name__)
WorkerFactory = Callable[..., CeleryWorkerProcess]
WAIT_SECONDS = 60.0
DATABASE_OUTAGE_SECONDS = 30.0

pytestmark = pytest.mark.django_db(transaction=True)


# ---------------------------------------------------------------- helpers


def wait_until(what: str, predicate: Callable[[], Any], *logs: Callable[[], str]) -> Any:
    return worker_runs.wait_until(what, predicate, *logs, seconds=WAIT_SECONDS)


def beat_tick(beat: CeleryBeatProcess) -> ProcessTick | None:
    """The tick row of this beat process (by its pid), if it ticked."""
    return ProcessTick.objects.filter(name=BEAT, process__endswith=f":{beat.pid}").first()


def ticked_after(beat: CeleryBeatProcess, moment: datetime) -> bool:
    tick = beat_tick(beat)
    return tick is not None and tick.ticked_at > moment


@pytest.fixture
def database_proxy() -> Iterator[OutageProxy]:
    settings_dict = connection.settings_dict
    proxy = OutageProxy(
        str(settings_dict["HOST"] or "127.0.0.1"), int(settings_dict["PORT"] or 5432)
    )
    yield proxy
    proxy.close()


@pytest.fixture
def redis_proxy() -> Iterator[OutageProxy]:
    parts = urlsplit(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    proxy = OutageProxy(parts.hostname or "127.0.0.1", parts.port or 6379)
    yield proxy
    proxy.close()


def environment_through(
    base: Mapping[str, str],
    *,
    database: OutageProxy | None = None,
    redis: OutageProxy | None = None,
) -> dict[str, str]:
    """``base`` with the test database (and Redis) reached through the proxies given."""
    database_url = database_url_for(connection.settings_dict)
    environment = dict(base) | {"DATABASE_URL": database_url}
    if database is not None:
        environment["DATABASE_URL"] = database.url_for(database_url)
    if redis is not None:
        environment["REDIS_URL"] = redis.url_for(base["REDIS_URL"])
    return environment


@pytest.fixture
def beats(tmp_path: Path) -> Iterator[Callable[[Mapping[str, str]], CeleryBeatProcess]]:
    started: list[CeleryBeatProcess] = []

    def start(environment: Mapping[str, str]) -> CeleryBeatProcess:
        beat = beat_start(environment=environment, directory=tmp_path)
        started.append(beat)
        return beat

    yield start
    for beat in started:
        beat.stop()


def django_script(code: str, environment: Mapping[str, str]) -> dict[str, Any]:
    """Run ``code`` in a new Django process with ``environment``; the JSON it prints last."""
    prelude = "import django, json, time\ndjango.setup()\nfrom django.test import Client\n"
    result = subprocess.run(
        [sys.executable, "-c", prelude + code],
        cwd=REPOSITORY_ROOT,
        env=dict(environment) | {"DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    outcome: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return outcome


# ---------------------------------------------------------------- beat and lost matches


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.worker
@pytest.mark.slow
def test_beat_ticks_across_a_30_s_database_cut_and_a_match_lost_in_it_finishes_after(
    database_proxy: OutageProxy,
    beats: Callable[[Mapping[str, str]], CeleryBeatProcess],
    celery_worker_factory: WorkerFactory,
    subprocess_environment: dict[str, str],
) -> None:
    environment = environment_through(subprocess_environment, database=database_proxy)
    beat = beats(environment)
    wait_until("beat ticks", lambda: beat_tick(beat), beat.log)
    first = celery_worker_factory(environment)
    match = long_match()
    wait_until(
        "the worker stores events",
        lambda: Match.objects.filter(pk=match.pk, events_stored__gt=50).exists(),
        first.log,
    )

    database_proxy.cut()
    cut_at = time.monotonic()
    os.killpg(first.process.pid, signal.SIGKILL)  # its worker dies during the outage
    first.process.wait()
    # ... and its lease runs out during the outage too (the test's own connection is direct)
    Match.objects.filter(pk=match.pk).update(lease_until=timezone.now())
    second = celery_worker_factory(environment)
    while time.monotonic() - cut_at < DATABASE_OUTAGE_SECONDS:
        assert beat.alive(), beat.log()
        time.sleep(0.5)
    assert match_status(match.pk) == MatchStatus.RUNNING  # nobody could re-queue it
    database_proxy.restore()
    restored_at = timezone.now()
    restored = time.monotonic()

    wait_until("beat ticks again", lambda: ticked_after(beat, restored_at), beat.log)
    logger.info("beat ticked %.1f s after the database returned", time.monotonic() - restored)
    wait_until(
        "the match is re-queued",
        lambda: Match.objects.filter(pk=match.pk, lease_expiries=1).exists(),
        second.log,
        beat.log,
    )
    logger.info(
        "lost match re-queued %.1f s after the database returned", time.monotonic() - restored
    )
    wait_until(
        "the match finishes",
        lambda: match_status(match.pk) == MatchStatus.FINISHED,
        second.log,
        beat.log,
    )
    assert_one_verified_result(match.pk)
    match.refresh_from_db()
    assert (match.attempts, match.lease_expiries) == (2, 1)
    assert beat.alive(), beat.log()
    assert "the database answers again" in beat.log()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.worker
def test_beat_started_while_the_database_is_down_waits_for_it(
    database_proxy: OutageProxy,
    beats: Callable[[Mapping[str, str]], CeleryBeatProcess],
    subprocess_environment: dict[str, str],
) -> None:
    database_proxy.cut()
    beat = beats(environment_through(subprocess_environment, database=database_proxy))
    wait_until(
        "beat says the database is unavailable",
        lambda: "the database is unavailable" in beat.log() or not beat.alive(),
        beat.log,
    )
    assert beat.alive(), beat.log()  # django-celery-beat's scheduler exits here
    restored_at = timezone.now()
    database_proxy.restore()

    wait_until("beat ticks", lambda: ticked_after(beat, restored_at), beat.log)
    assert beat.alive()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.worker
@pytest.mark.slow
def test_with_redis_cut_beat_ticks_a_round_starts_with_201_and_its_matches_run_after(
    redis_proxy: OutageProxy,
    beats: Callable[[Mapping[str, str]], CeleryBeatProcess],
    celery_worker_factory: WorkerFactory,
    subprocess_environment: dict[str, str],
) -> None:
    environment = environment_through(subprocess_environment, redis=redis_proxy)
    beat = beats(environment)
    wait_until("beat ticks", lambda: beat_tick(beat), beat.log)
    worker = celery_worker_factory(environment)
    tournament, organiser = bot_tournament(game="kingen", entrants=8, bot="greedy")
    token = Token.objects.create(user=organiser)

    redis_proxy.cut()
    cut_at = timezone.now()
    answer = django_script(
        "began = time.monotonic()\n"
        f"response = Client(HTTP_HOST='127.0.0.1').post('/api/tournaments/{tournament.pk}/"
        f"start-round/', HTTP_AUTHORIZATION='Token {token.key}')\n"
        "print(json.dumps({'status': response.status_code, 'body': response.json(),"
        " 'seconds': time.monotonic() - began}))\n",
        environment,
    )
    logger.info("start-round with Redis cut answered in %.2f s", answer["seconds"])

    assert answer["status"] == 201, answer
    matches = list(Match.objects.filter(tournament=tournament).values_list("id", flat=True))
    assert len(matches) == 2
    waiting = list(OutboxTask.objects.filter(task="league.tasks.run_match"))
    assert sorted(row.args[0] for row in waiting) == sorted(matches)  # kept for the relay
    # The commit's own send failed and said why; the worker's sweeper (every 5 s) may
    # have tried once more since.
    assert all(row.attempts >= 1 and row.last_error for row in waiting)
    wait_until("beat ticks with Redis cut", lambda: ticked_after(beat, cut_at), beat.log)
    assert beat.alive(), beat.log()

    redis_proxy.restore()
    worker_log_at_restore = len(worker.log())
    wait_until(
        "beat's sweep runs again",
        lambda: "league.tasks.matches_sweep" in worker.log()[worker_log_at_restore:],
        worker.log,
        beat.log,
    )
    wait_until(
        "the matches finish",
        lambda: all(match_status(match_id) == MatchStatus.FINISHED for match_id in matches),
        worker.log,
        beat.log,
    )
    for match_id in matches:
        assert_one_verified_result(match_id)
    assert not OutboxTask.objects.filter(task="league.tasks.run_match").exists()
    assert beat.alive(), beat.log()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.worker
@pytest.mark.sandbox
def test_with_redis_cut_an_upload_answers_201_and_its_validation_game_is_played_after(
    redis_proxy: OutageProxy,
    celery_worker_factory: WorkerFactory,
    subprocess_environment: dict[str, str],
) -> None:
    environment = environment_through(subprocess_environment, redis=redis_proxy)
    author = User.objects.create_user("uploader", password="a long password 1")
    bot = bot_create(owner=author, name="rando", families=["kingen"])
    token = Token.objects.create(user=author)
    upload = BOT_EXAMPLE.read_text()

    redis_proxy.cut()
    answer = django_script(
        "from django.core.files.uploadedfile import SimpleUploadedFile\n"
        f"upload = SimpleUploadedFile('random_bot.py', {upload!r}.encode())\n"
        "began = time.monotonic()\n"
        f"response = Client(HTTP_HOST='127.0.0.1').post('/api/bots/{bot.pk}/versions/',"
        f" {{'file': upload}}, HTTP_AUTHORIZATION='Token {token.key}')\n"
        "print(json.dumps({'status': response.status_code, 'body': response.json(),"
        " 'seconds': time.monotonic() - began}))\n",
        environment,
    )
    logger.info("an upload with Redis cut answered in %.2f s", answer["seconds"])

    assert answer["status"] == 201, answer
    version = BotVersion.objects.get(bot=bot)
    assert version.status == BotVersion.Status.PENDING
    (waiting,) = OutboxTask.objects.filter(task="bots.tasks.bot_version_validate")
    assert waiting.args == [version.pk]  # kept for the relay
    assert waiting.attempts == 1
    assert waiting.last_error

    redis_proxy.restore()
    worker = celery_worker_factory(environment)  # its sweeper relays the outbox
    wait_until(
        "the validation game is played",
        lambda: BotVersion.objects.get(pk=version.pk).status != BotVersion.Status.PENDING,
        worker.log,
    )
    assert BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.ACTIVE
    assert not OutboxTask.objects.filter(task="bots.tasks.bot_version_validate").exists()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.worker
def test_a_worker_requeues_an_expired_lease_by_itself_with_no_beat(
    celery_worker_factory: WorkerFactory, subprocess_environment: dict[str, str]
) -> None:
    tournament, organiser = bot_tournament(game="kingen", bot="greedy")
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    # Before any worker took its task, a worker claimed it and was lost.
    Match.objects.filter(pk=match.pk).update(
        status=MatchStatus.RUNNING,
        attempts=1,
        lease_until=timezone.now() - timedelta(seconds=1),
        worker="lost:1",
    )

    worker = celery_worker_factory(environment_through(subprocess_environment))

    wait_until(
        "the match finishes", lambda: match_status(match.pk) == MatchStatus.FINISHED, worker.log
    )
    assert_one_verified_result(match.pk)
    match.refresh_from_db()
    assert (match.attempts, match.lease_expiries) == (2, 1)
    # The sweeper logs once its re-queue committed; on a loaded machine the match it
    # re-queued can be played out before that line is written.
    wait_until("the sweeper says so", lambda: "sweeper: re-queued" in worker.log(), worker.log)


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.worker
def test_a_run_hit_by_a_database_cut_releases_its_claim_as_soon_as_the_database_is_back(
    database_proxy: OutageProxy,
    celery_worker_factory: WorkerFactory,
    subprocess_environment: dict[str, str],
) -> None:
    worker = celery_worker_factory(
        environment_through(subprocess_environment, database=database_proxy)
    )
    match = long_match(time_bank_seconds=3600.0)  # a lease of over an hour
    wait_until(
        "the worker stores events",
        lambda: Match.objects.filter(pk=match.pk, events_stored__gt=50).exists(),
        worker.log,
    )
    match.refresh_from_db()
    lease_until = match.lease_until
    assert lease_until is not None

    database_proxy.cut()
    wait_until(
        "the run fails on the database",
        lambda: "the database is away; releasing" in worker.log(),
        worker.log,
    )
    database_proxy.restore()
    restored = time.monotonic()

    wait_until("the match is claimed again", lambda: Match.objects.get(pk=match.pk).attempts == 2)
    logger.info("claimed again %.1f s after the database returned", time.monotonic() - restored)
    assert timezone.now() < lease_until  # not the lease running out: the release
    wait_until(
        "the match finishes", lambda: match_status(match.pk) == MatchStatus.FINISHED, worker.log
    )
    assert_one_verified_result(match.pk)
    match.refresh_from_db()
    assert match.lease_expiries == 1
    assert "OperationalError" in match.error


# ---------------------------------------------------------------- reads while the database is cut


@pytest.mark.postgres
def test_reads_and_writes_with_the_database_cut_answer_503_and_answer_again_after(
    subprocess_environment: dict[str, str],
) -> None:
    club, organiser = club_with_organiser()
    tournament = tournament_create(
        actor=organiser,
        club=club,
        name="Read me",
        game="kingen",
        rounds=1,
        entrants=builtin_competitors(4),
    )
    token = Token.objects.create(user=organiser)
    database_url = database_url_for(connection.settings_dict)
    # The web process makes its own proxy (before Django reads DATABASE_URL) and cuts it.
    code = f"""
import os, sys
sys.path.insert(0, {str(REPOSITORY_ROOT)!r})
from tests.outages import OutageProxy
from urllib.parse import urlsplit
parts = urlsplit({database_url!r})
proxy = OutageProxy(parts.hostname, parts.port or 5432)
from django.conf import settings
settings.DATABASES["default"]["PORT"] = proxy.port
client = Client(HTTP_HOST="127.0.0.1")

def answer(response):
    kind = response.get("Content-Type", "")
    return {{"status": response.status_code, "retry_after": response.get("Retry-After"),
            "cache": response.get("X-Read-Cache"),
            "json": response.json() if kind.startswith("application/json") else None,
            "text": "" if kind.startswith("application/json") else response.content.decode()}}

before = answer(client.get("/api/tournaments/"))
proxy.cut()
cached = answer(client.get("/api/tournaments/"))
read = answer(client.get("/api/tournaments/", HTTP_AUTHORIZATION="Token {token.key}"))
page = answer(client.get("/leagues/"))
write = answer(client.post("/api/tournaments/{tournament.pk}/start-round/",
                           HTTP_AUTHORIZATION="Token {token.key}"))
proxy.restore()
after = answer(client.get("/api/tournaments/"))
print(json.dumps({{"before": before, "cached": cached, "read": read, "page": page, "write": write,
                  "after": after}}))
"""
    outcome = django_script(code, environment_through(subprocess_environment))

    assert outcome["before"]["status"] == 200
    assert "Read me" in json.dumps(outcome["before"]["json"])
    # An anonymous read stored before the cut is still the league's current state (nothing
    # can be written while the database is away): the shared read cache answers it.
    assert outcome["cached"]["status"] == 200, outcome["cached"]
    assert outcome["cached"]["cache"] == "hit"
    assert outcome["cached"]["json"] == outcome["before"]["json"]
    # What needs the database (a signed-in read, a page never read, a write) is a 503.
    for name in ("read", "write"):
        answer = outcome[name]
        assert answer["status"] == 503, answer
        assert answer["json"] == {"detail": "the database is unavailable; try again in a moment"}
        assert answer["retry_after"] == "10"
    assert outcome["page"]["status"] == 503
    assert outcome["page"]["retry_after"] == "10"
    assert "database is not answering" in outcome["page"]["text"]
    assert outcome["after"]["status"] == 200


# ---------------------------------------------------------------- /healthz and beat


OK_DATABASE = ComponentHealth(name="database", target="test")


@pytest.mark.postgres
def test_beat_health_names_a_beat_that_never_ticked_went_stale_or_stopped(
    settings: Settings,
) -> None:
    settings.BEAT_STALE_SECONDS = 60
    now = timezone.now()
    assert beat_health(database=OK_DATABASE, now=now).problem == (
        "beat has never ticked (is it running?)"
    )

    process_tick(name=BEAT, process="host:1", now=now - timedelta(seconds=10))
    fresh = beat_health(database=OK_DATABASE, now=now)
    assert fresh.ok, fresh.problem
    assert fresh.detail == "celery beat on host:1, last tick 10.0 s ago"

    stale = beat_health(database=OK_DATABASE, now=now + timedelta(seconds=61))
    assert stale.problem == "last tick 71 s ago (over 60 s): dead or stuck"

    process_stopped(name=BEAT, process="host:1", now=now)
    assert beat_health(database=OK_DATABASE, now=now + timedelta(seconds=5)).problem == (
        "stopped 5 s ago"
    )
    process_tick(name=BEAT, process="host:2", now=now)  # a new beat started
    assert beat_health(database=OK_DATABASE, now=now).ok

    down = ComponentHealth(name="database", target="test", problem="connection refused")
    assert beat_health(database=down).problem == "not asked: the database is down"


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.worker
def test_healthz_is_503_naming_beat_once_it_stopped_or_was_killed(
    client: Client,
    settings: Settings,
    beats: Callable[[Mapping[str, str]], CeleryBeatProcess],
    subprocess_environment: dict[str, str],
) -> None:
    def beat_check() -> tuple[int, dict[str, Any]]:
        response = client.get("/healthz")
        body = response.json()
        return response.status_code, body

    environment = environment_through(subprocess_environment)
    beat = beats(environment)
    wait_until("beat ticks", lambda: beat_tick(beat), beat.log)
    _status, body = beat_check()
    assert body["checks"]["beat"]["ok"] is True, body
    assert f":{beat.pid}" in body["checks"]["beat"]["detail"]

    assert beat.stop() == 0  # SIGTERM: beat marks its tick stopped
    status, body = beat_check()
    assert status == 503
    assert "beat" in body["down"]
    assert "stopped" in body["checks"]["beat"]["detail"]

    killed = beats(environment)
    wait_until("the second beat ticks", lambda: beat_tick(killed), killed.log)
    killed.kill()  # SIGKILL: its last tick just gets older
    settings.BEAT_STALE_SECONDS = 1

    def beat_down() -> tuple[int, dict[str, Any]] | None:
        answer = beat_check()
        return answer if "beat" in answer[1]["down"] else None

    status, body = wait_until("/healthz calls beat stale", beat_down)
    assert status == 503
    assert "dead or stuck" in body["checks"]["beat"]["detail"]
    assert f":{killed.pid}" in body["checks"]["beat"]["detail"]
