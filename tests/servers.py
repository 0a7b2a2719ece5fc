"""Which real servers the tests can reach, and what a test does when one is missing.

A test that needs a server carries its marker (pytest.mark.postgres, .redis, .worker).
tests/conftest.py asks the probe registered here for that marker before the test runs:
a probe returns None when the server answers, or the reason it cannot be used. The test
is then skipped with that reason, except under CI=true, where it fails: CI promises the
servers, so a missing one is a broken CI, not a reason to pass quietly.

To add a requirement (the bot sandbox, a browser), write a probe and add it to PROBES,
and declare the marker in pyproject.toml.
"""

import functools
import os
import shutil
import socket
import sys
from collections.abc import Callable

import pytest

from config.configuration import ConfigurationError, redis_url_check
from config.configuration import database_url_for as database_url_for  # a test's subprocesses


def running_under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


@functools.cache
def postgres_unavailable_reason() -> str | None:
    """PostgreSQL: DATABASE_URL points at it and it answers."""
    from django.conf import settings

    import psycopg

    database = settings.DATABASES["default"]
    if not database["ENGINE"].endswith("postgresql"):
        return "DATABASE_URL is not a PostgreSQL URL (set DATABASE_URL=postgres://...)"
    try:
        with psycopg.connect(
            host=database.get("HOST") or None,
            port=database.get("PORT") or None,
            user=database.get("USER") or None,
            password=database.get("PASSWORD") or None,
            dbname=database.get("NAME") or None,
            connect_timeout=5,
        ) as connection:
            connection.execute("SELECT 1")
    except psycopg.Error as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"PostgreSQL does not answer: {first_line}"
    return None


@functools.cache
def redis_unavailable_reason() -> str | None:
    """Redis: REDIS_URL is set and PING answers."""
    import redis

    url = os.environ.get("REDIS_URL", "").strip()
    if not url:
        return "REDIS_URL is not set (set REDIS_URL=redis://127.0.0.1:6379/0)"
    try:
        redis_url_check(url)
    except ConfigurationError as exc:
        return str(exc)
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        client.ping()
    except redis.RedisError as exc:
        return f"Redis does not answer at {url}: {exc}"
    return None


@functools.cache
def worker_unavailable_reason() -> str | None:
    """A real Celery worker can be started: the celery command is installed."""
    executable_dir = os.path.dirname(sys.executable)
    if not (shutil.which("celery", path=executable_dir) or shutil.which("celery")):
        return "the celery command is not installed (run ./scripts/test)"
    return None


def sandbox_unavailable_reason() -> str | None:
    """The bot sandbox: bubblewrap and the system Python are installed and a sandbox starts."""
    from bots.runner.sandbox import sandbox_unavailable_reason as reason

    return reason()


def browser_unavailable_reason() -> str | None:
    """Headless Chromium: Debian's chromium and chromium-driver, and the selenium package."""
    from tests.web.browser import browser_unavailable_reason as reason

    return reason()


@functools.cache
def netns_unavailable_reason() -> str | None:
    """Worker hosts on this machine: root and iproute2 make network namespaces."""
    from tests.network_hosts import netns_unavailable_reason as reason

    return reason()


@functools.cache
def balancer_unavailable_reason() -> str | None:
    """A load balancer in front of web hosts: Debian's haproxy (tests/balancer.py)."""
    from tests.balancer import haproxy_unavailable_reason as reason

    return reason()


PROBES: dict[str, Callable[[], str | None]] = {
    "postgres": postgres_unavailable_reason,
    "redis": redis_unavailable_reason,
    "worker": worker_unavailable_reason,
    "sandbox": sandbox_unavailable_reason,
    "browser": browser_unavailable_reason,
    "netns": netns_unavailable_reason,
    "balancer": balancer_unavailable_reason,
}


def server_requirements_check(item: pytest.Item) -> None:
    """Skip (or, under CI, fail) item when a server its markers ask for is missing."""
    for marker, probe in PROBES.items():
        if item.get_closest_marker(marker) is None:
            continue
        reason = probe()
        if reason is None:
            continue
        if running_under_ci():
            pytest.fail(f"{marker}: {reason} (CI=true: a missing server fails)", pytrace=False)
        pytest.skip(f"{marker}: {reason}")


def closed_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (it was free a moment ago)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port
