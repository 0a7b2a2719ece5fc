"""The suite in several processes (pytest-xdist's ``-n``, which scripts/test passes) on one
PostgreSQL, one Redis and one machine.

- **A Redis database each.** pytest-django gives every process a test database of its own
  (``test_<name>_gw0``, ``test_<name>_gw1``, ...). This plugin gives every process a Redis
  database of its own as well, the one after REDIS_URL's for each process number (``/0``
  for gw0, ``/1`` for gw1, ...), so one process's Celery workers never take another's
  tasks, its Channels groups and caches are its own, and a test that empties its database
  empties nobody else's. It changes REDIS_URL in the environment when it is imported,
  which ``-p`` (pyproject's addopts) does before pytest-django sets Django up; the workers
  and servers the tests start inherit it. A process whose database would be past the
  server's last one (``CONFIG GET databases``, 16 if the server does not say) does not
  wrap around to a database another run may use: the run stops with a message saying
  which database and how many the server has. Tests empty Redis only through
  ``redis_own_database_flush``, which refuses any database but the process's own.
- **A module's tests in one process**, so a module's fixtures (a live site, a worker) start
  once: scripts/test asks for ``--dist loadfile``. (pytest-xdist's ``xdist_group`` marks do
  not group under pytest 9, whose node ids they can no longer change.)
- **The slowest modules first**, by their seconds measured in the last whole run
  (tests/module_clock.py; a module never measured counts as long when it has a ``browser``
  or ``slow`` test), handed out in that order (scripts/test's ``--no-loadscope-reorder``),
  so that no process starts a long one when the others are nearly done.

Without ``-n`` it changes nothing but the order of the modules.
"""

from __future__ import annotations

import os
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

REDIS_DATABASES = 16
"""Redis's default number of databases, when the server does not say how many it has."""
REDIS_ANSWER_SECONDS = 5


class RedisDatabaseNotGivenError(Exception):
    """A process would use, or empty, a Redis database that is not its own."""


def redis_database_of(url: str) -> int:
    """The database of a redis://, rediss:// or unix:// URL (0 when it names none)."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return int(dict(parse_qsl(parts.query)).get("db", "0"))
    return int(parts.path.strip("/") or "0")


def redis_url_of_process(url: str, worker: str, databases: int = REDIS_DATABASES) -> str:
    """``url`` with the database that follows its own by the process number of ``worker``
    (``gw0``, ``gw1``, ...): the path of redis:// and rediss://, the ``db`` of unix://.
    Past the server's ``databases`` it raises RedisDatabaseNotGivenError: wrapping around would
    share a database with another process or another run."""
    number = int(worker.removeprefix("gw"))
    given = redis_database_of(url)
    database = given + number
    if database >= databases:
        raise RedisDatabaseNotGivenError(
            f"test process {worker} would use Redis database {database} (REDIS_URL's "
            f"{given} + {number}), but the Redis server has {databases} databases "
            f"(0-{databases - 1}): give REDIS_URL a lower database or run fewer "
            "processes (-n); the run does not wrap around into a database another run "
            "may use"
        )
    parts = urlsplit(url)
    if parts.scheme == "unix":
        query = dict(parse_qsl(parts.query))
        query["db"] = str(database)  # urlunsplit would drop the empty host's "//"
        return f"unix://{parts.netloc}{parts.path}?{urlencode(query)}"
    return urlunsplit(parts._replace(path=f"/{database}"))


def redis_databases_of_server(url: str) -> int:
    """How many databases the Redis server at ``url`` has (``CONFIG GET databases``), or
    Redis's default when it does not answer or does not allow CONFIG."""
    import redis

    try:
        client = redis.Redis.from_url(
            url,
            socket_connect_timeout=REDIS_ANSWER_SECONDS,
            socket_timeout=REDIS_ANSWER_SECONDS,
            decode_responses=True,
        )
        with client:
            answer = client.config_get("databases")
    except redis.RedisError:
        return REDIS_DATABASES
    count = str(answer.get("databases", ""))
    return int(count) if count.isdigit() else REDIS_DATABASES


def redis_own_database_flush(url: str) -> None:
    """Empty the Redis database of ``url`` (FLUSHDB) if it is this process's own, the one of
    its REDIS_URL; any other raises RedisDatabaseNotGivenError and nothing is emptied."""
    import redis

    own = os.environ.get("REDIS_URL", "").strip()
    if not own or urlsplit(url)._replace(path="", query="") != urlsplit(own)._replace(
        path="", query=""
    ):
        raise RedisDatabaseNotGivenError(f"{url} is not this process's Redis server ({own!r})")
    if redis_database_of(url) != redis_database_of(own):
        raise RedisDatabaseNotGivenError(
            f"Redis database {redis_database_of(url)} is not this process's own "
            f"({redis_database_of(own)}, REDIS_URL): it is not emptied"
        )
    with redis.Redis.from_url(url) as client:
        client.flushdb()


GIVEN_REDIS_URL = os.environ.get("REDIS_URL", "").strip()
"""REDIS_URL as the run was given it: the first process's database."""
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
_redis_problem: str | None = None
if _worker and os.environ.get("REDIS_URL", "").strip():
    _given_url = os.environ["REDIS_URL"].strip()
    try:
        os.environ["REDIS_URL"] = redis_url_of_process(
            _given_url, _worker, redis_databases_of_server(_given_url)
        )
    except RedisDatabaseNotGivenError as exc:
        _redis_problem = str(exc)
        # Not REDIS_URL's own database either: that one is the first process's.
        del os.environ["REDIS_URL"]


def pytest_configure(config: pytest.Config) -> None:
    if _redis_problem is not None:
        raise pytest.UsageError(_redis_problem)


LONG_MARKERS = ("browser", "slow")
LONG_MODULE_SECONDS = 60.0
"""What a module never measured is expected to take when it has a ``browser`` or ``slow``
test; any other such module is expected to be quick."""
SHORT_MODULE_SECONDS = 1.0


def module_of(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's, which sends the order on
def pytest_collection_finish(session: pytest.Session) -> None:
    """The modules longest first, by their seconds measured last (tests/module_clock.py),
    after every reordering of the collection (pytest-django's); a module never measured
    counts as long when it has a ``browser`` or ``slow`` test. Stable, so within a module
    the order stays."""
    from tests.module_clock import module_seconds_known

    known = module_seconds_known()
    long_modules = {
        module_of(item)
        for item in session.items
        if any(item.get_closest_marker(marker) for marker in LONG_MARKERS)
    }
    session.items.sort(key=lambda item: -expected_seconds(module_of(item), known, long_modules))


def expected_seconds(module: str, known: dict[str, float], long_modules: set[str]) -> float:
    """What ``module`` is expected to take: as measured, else by its markers."""
    if module in known:
        return known[module]
    return LONG_MODULE_SECONDS if module in long_modules else SHORT_MODULE_SECONDS
