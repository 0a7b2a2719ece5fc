"""/healthz: 200 when the database, the broker and a worker answer; 503 naming what is down."""

import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from django.db import connection
from django.test import Client

import pytest
from pytest_django import Settings

from league.services.heartbeats import BEAT, process_tick
from tests.celery_workers import REPOSITORY_ROOT, CeleryWorkerProcess
from tests.servers import closed_port, database_url_for

WorkerFactory = Callable[[Mapping[str, str]], CeleryWorkerProcess]


@pytest.fixture
def beat_ticked() -> None:
    """Beat ticked a moment ago (tests/league/test_outages.py runs a real beat)."""
    process_tick(name=BEAT, process="beat-for-this-test:1")


PROBES = 3
"""How many probes in a row a health check gets before the site is called down
(docker-compose.yml's ``retries: 3``)."""


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_healthz_is_200_when_database_broker_and_worker_answer(
    client: Client,
    celery_worker_factory: WorkerFactory,
    subprocess_environment: dict[str, str],
    beat_ticked: None,
) -> None:
    # The worker uses this run's broker (Redis under CI, else the embedded one).
    worker = celery_worker_factory(
        subprocess_environment | {"DATABASE_URL": database_url_for(connection.settings_dict)}
    )

    # A probe waits 1.5 s for the worker's answer, and a load balancer or orchestrator
    # asks again before it calls a worker down (docker-compose.yml's web health check:
    # three times): so does this test, on a CI machine whose
    # two CPUs may hold a busy worker for longer (seen once: "no worker answered a ping
    # within 1.5 s" from a worker that had just answered the readiness ping).
    for _ in range(PROBES):
        response = client.get("/healthz")
        body = response.json()
        if response.status_code == 200:
            break
        assert body["down"] == ["worker"], body  # only the worker may be late
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert body["down"] == []
    assert set(body["checks"]) == {"database", "broker", "worker", "beat"}
    assert all(check["ok"] for check in body["checks"].values())
    assert body["checks"]["worker"]["detail"]  # names the worker that answered
    assert worker.process.poll() is None


@pytest.mark.django_db
def test_healthz_is_503_naming_the_broker_when_it_does_not_answer(
    client: Client, settings: Settings, beat_ticked: None
) -> None:
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{closed_port()}/0"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}

    response = client.get("/healthz")

    body = response.json()
    assert response.status_code == 503
    assert body["status"] == "down"
    assert body["down"] == ["broker", "worker"]
    assert "connection refused" in body["checks"]["broker"]["detail"]
    assert body["checks"]["database"]["ok"] is True


@pytest.mark.django_db
def test_healthz_is_503_naming_the_worker_when_none_answers(
    client: Client, settings: Settings, beat_ticked: None
) -> None:
    # kombu's in-process broker: it answers, and no worker can listen on it. (Switching this
    # process to another embedded-broker folder would not do: kombu keeps its bindings
    # per process.)
    settings.CELERY_BROKER_URL = "memory://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}

    response = client.get("/healthz")

    body = response.json()
    assert response.status_code == 503
    assert body["down"] == ["worker"]
    assert "no worker answered" in body["checks"]["worker"]["detail"]


def test_healthz_is_503_naming_the_database_when_it_does_not_answer(tmp_path: Path) -> None:
    # A separate process, because this one's database connection is pytest-django's.
    port = closed_port()
    script = (
        "import django, json; django.setup()\n"
        "from django.test import Client\n"
        "response = Client(HTTP_HOST='127.0.0.1').get('/healthz')\n"
        "print(json.dumps({'status': response.status_code, 'body': response.json()}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPOSITORY_ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "VAR_DIR": str(tmp_path),
            "DATABASE_URL": f"postgres://nobody:hidden@127.0.0.1:{port}/league",
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])

    assert outcome["status"] == 503
    assert "database" in outcome["body"]["down"]
    detail = outcome["body"]["checks"]["database"]["detail"]
    assert "connection refused" in detail
    assert "hidden" not in detail  # the password is never shown


@pytest.mark.django_db
def test_home_page_answers(client: Client) -> None:
    response = client.get("/")

    assert response.status_code == 200
    assert b"King League" in response.content
    assert "home.html" in [template.name for template in response.templates]
    assert "base.html" in [template.name for template in response.templates]


@pytest.mark.django_db
def test_healthz_for_a_balancer_asks_only_what_a_web_machine_needs(client: Client) -> None:
    # No worker and no beat: the whole service is not healthy, and this web machine serves.
    whole = client.get("/healthz")
    web = client.get("/healthz?scope=web")

    assert whole.status_code == 503
    assert {"worker", "beat"} <= set(whole.json()["down"])
    body = web.json()
    assert web.status_code == 200, body
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "broker"}


@pytest.mark.django_db
def test_healthz_for_a_balancer_is_503_when_this_machine_cannot_reach_redis(
    client: Client, settings: Settings
) -> None:
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{closed_port()}/0"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}

    response = client.get("/healthz?scope=web")

    assert response.status_code == 503
    assert response.json()["down"] == ["broker"]


def test_healthz_refuses_a_scope_it_does_not_know(client: Client) -> None:
    response = client.get("/healthz?scope=everything")

    assert response.status_code == 400
    assert response.json() == {"detail": "scope: expected 'web' (or none), got 'everything'"}
