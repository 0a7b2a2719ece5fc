"""Shared fixtures: server requirements (tests/servers.py) and real Celery workers."""

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings as hypothesis_settings

from tests.celery_workers import (
    REPOSITORY_ROOT,
    WORKER_TEARDOWN_STOP_SECONDS,
    CeleryWorkerProcess,
    worker_start,
)
from tests.process_database_pool import subprocess_pool_restored
from tests.quick_flush import flush_by_delete
from tests.servers import PROBES, running_under_ci, server_requirements_check
from tests.template_database import template_databases
from tests.tracked_files import GUARD as TRACKED_FILES
from tests.tracked_files import session_finish, summary_lines
from tests.uvicorn_servers import UvicornLiveServer

if TYPE_CHECKING:
    from pytest_django.fixtures import Settings
    from pytest_django.plugin import DjangoDbBlocker

# A page answers what the view would answer now, in the project's processes the tests start
# as in this one (read_cache_without_lag): a test that reads after a write sees the write.
# tests/api/test_read_cache.py sets a lag where it tests one.
os.environ["READ_CACHE_LAG_SECONDS"] = "0"

# hypothesis's profiles (docs/operations.md, "Tests and CI"). Under CI=true every run tries
# the same examples (derandomize: a red build is red again on a rerun, and a green one
# does not turn red by luck), prints the blob that replays a failure
# (@reproduce_failure), keeps no example database, and allows an example 5 s: CI shares a
# loaded machine, where hypothesis's 200 ms fails tests that are only slow. Locally each
# run draws new examples (hypothesis's defaults), which finds what CI's fixed ones miss.
# HYPOTHESIS_PROFILE=ci (or local) chooses one explicitly.
HYPOTHESIS_CI_DEADLINE = timedelta(seconds=5)
hypothesis_settings.register_profile(
    "ci",
    derandomize=True,
    print_blob=True,
    database=None,
    deadline=HYPOTHESIS_CI_DEADLINE,
)
hypothesis_settings.register_profile("local", parent=hypothesis_settings.get_profile("default"))
hypothesis_settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE", "").strip() or ("ci" if running_under_ci() else "local")
)


@pytest.fixture(scope="session")
def django_db_setup(
    request: pytest.FixtureRequest,
    django_test_environment: None,
    django_db_blocker: "DjangoDbBlocker",
    django_db_use_migrations: bool,
    django_db_keepdb: bool,
    django_db_createdb: bool,
    django_db_modify_db_settings: None,
) -> Iterator[None]:
    """pytest-django's fixture of that name: on PostgreSQL each process's database is a
    copy of a template migrated once (tests/template_database.py); elsewhere, or with
    ``--reuse-db`` or ``--no-migrations``, pytest-django's own setup."""
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    with django_db_blocker.unblock():
        if connection.vendor == "postgresql" and django_db_use_migrations and not django_db_keepdb:
            databases = template_databases()
            next(databases)
        else:
            databases = None
            made = setup_databases(verbosity=0, interactive=False, keepdb=django_db_keepdb)
    yield
    with django_db_blocker.unblock():
        if databases is not None:
            next(databases, None)
        elif not django_db_keepdb:
            teardown_databases(made, verbosity=0)


@pytest.fixture(autouse=True, scope="session")
def read_cache_without_lag() -> None:
    from django.conf import settings

    settings.READ_CACHE_LAG_SECONDS = 0


def pytest_runtest_setup(item: pytest.Item) -> None:
    server_requirements_check(item)


def pytest_sessionstart(session: pytest.Session) -> None:
    TRACKED_FILES.start()  # the suite never modifies tracked files (tests/tracked_files.py)


def pytest_sessionfinish(session: pytest.Session) -> None:
    if session_finish(under_ci=running_under_ci()):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> None:
    TRACKED_FILES.current_test = item.nodeid


@pytest.fixture(autouse=True)
def tracked_files_untouched(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails a test that tried to modify a file git tracks (even if the error was caught)."""
    yield
    written = TRACKED_FILES.attempts_of(request.node.nodeid)
    if written:
        pytest.fail(f"the test tried to modify tracked files: {', '.join(written)}")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line per server marker: how many of its tests ran, so CI shows none was skipped."""
    counts: dict[str, dict[str, int]] = {marker: {} for marker in PROBES}
    for outcome in ("passed", "failed", "skipped", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            keywords = getattr(report, "keywords", {})
            if report.when not in ("call", "setup") or (
                outcome == "passed" and report.when != "call"
            ):
                continue
            for marker in PROBES:
                if marker in keywords:
                    counts[marker][outcome] = counts[marker].get(outcome, 0) + 1
    terminalreporter.section("real servers")
    terminalreporter.write_line(f"CI={'true' if running_under_ci() else 'false'}")
    for marker, outcomes in counts.items():
        summary = ", ".join(f"{n} {outcome}" for outcome, n in sorted(outcomes.items()))
        terminalreporter.write_line(f"{marker} tests: {summary or 'none selected'}")
    for line in summary_lines(under_ci=running_under_ci()):
        terminalreporter.write_line(line, red=line.startswith("FAILED"))


@pytest.fixture(autouse=True)
def rate_limits_of_its_own(settings: "Settings") -> None:
    """Each test counts its own rate limits and sign-in failures (a cache key prefix of its
    own, in the real Redis when REDIS_URL is set), under rates no test reaches unless it is
    about them: tests/api/test_throttling.py and tests/web/test_sign_in_lockout.py set
    theirs. The sign-in lock keeps its real settings."""
    settings.CACHES = {
        alias: {**cache, "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
        for alias, cache in settings.CACHES.items()
    }
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": dict.fromkeys(rates, "100000/minute"),
    }


@pytest.fixture
def celery_worker_factory(
    tmp_path: Path,
) -> Iterator[Callable[..., CeleryWorkerProcess]]:
    """Start real worker processes with a given environment (and queues); all are stopped
    afterwards."""
    workers: list[CeleryWorkerProcess] = []

    def start(
        environment: Mapping[str, str], queues: str = "interactive,default,matches,analysis"
    ) -> CeleryWorkerProcess:
        log_path = tmp_path / f"worker-{len(workers)}.log"
        worker = worker_start(environment=environment, log_path=log_path, queues=queues)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop(timeout=WORKER_TEARDOWN_STOP_SECONDS)


@pytest.fixture(autouse=True, scope="session")
def quick_password_hashing() -> Iterator[None]:
    """Passwords made in this process cost 1,000 PBKDF2 iterations, not a million
    (tests/password_hashing.py); checking them is the same code."""
    from django.conf import settings
    from django.test import override_settings

    quick = "tests.password_hashing.QuickPBKDF2PasswordHasher"
    with override_settings(PASSWORD_HASHERS=[quick, *settings.PASSWORD_HASHERS]):
        yield


@pytest.fixture(autouse=True, scope="session")
def quick_flush() -> Iterator[None]:
    """A transactional test's database is emptied by DELETE, not TRUNCATE
    (tests/quick_flush.py): 15 times quicker for a test's few rows."""
    with flush_by_delete():
        yield


@pytest.fixture
def subprocess_environment() -> dict[str, str]:
    """The environment of this test run, for a child process of the project (with
    production's connection pool: tests/process_database_pool.py), and a small analysis
    budget (``TEST_WORKER_ANALYSIS``) unless the run was given one."""
    return TEST_WORKER_ANALYSIS | subprocess_pool_restored(dict(os.environ))


TEST_WORKER_ANALYSIS = {"ANALYSIS_NODE_LIMIT": "50000", "ANALYSIS_SAMPLES": "2"}
"""The analysis budget of the tests' workers: a game with people that ends is analysed on
the `analysis` queue, which a test's worker serves. With production's budget (a million
nodes, eight samples) the analysis of a ten-deal Kingen cost a worker about 30 s of CPU
beside the test's next steps (the four people's Priffe game). The tests of the analysis
itself set the budget they need (tests/league/test_analysis.py)."""


@pytest.fixture(scope="session")
def collected_static(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site's static files, collected once per test process for the sites the tests
    start (``STATIC_ROOT``): ``collectstatic`` compresses every file, about 3 s of CPU,
    and the files cannot change during a run (tests/tracked_files.py)."""
    root = tmp_path_factory.mktemp("static")
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=REPOSITORY_ROOT,
        env=subprocess_pool_restored(dict(os.environ))
        | {"STATIC_ROOT": str(root), "DEBUG": "false"},
        check=True,
        timeout=300,
    )
    return root


@pytest.fixture(scope="session")
def live_server() -> Iterator[UvicornLiveServer]:
    """The site served as production serves it (uvicorn, config.web_server's options), in
    a thread of this process: pytest-django's fixture of that name, with production's
    server instead of Django's WSGI one (tests/uvicorn_servers.py)."""
    server = UvicornLiveServer()
    try:
        yield server
    finally:
        server.stop()
