"""The suite in several processes (pytest-xdist's ``-n``, which scripts/test passes) on one
PostgreSQL, one Redis and one machine.

- **A Redis database each.** pytest-django gives every process a test database of its own
  (``test_<name>_gw0``, ``test_<name>_gw1``, ...). This plugin gives every process a Redis
  database of its own as well, the one after REDIS_URL's for each process number (``/0``
  for gw0, ``/1`` for gw1, ...), so one process's Celery workers never take another's
  tasks, its Channels groups and caches are its own, and a test that empties its database
  empties nobody else's. It changes REDIS_URL in the environment when it is imported,
  which ``-p`` (pyproject's addopts) does before pytest-django sets Django up; the workers
  and servers the tests start inherit it.
- **A module's tests in one process**, so a module's fixtures (a live site, a worker) start
  once: scripts/test asks for ``--dist loadfile``. (pytest-xdist's ``xdist_group`` marks do
  not group under pytest 9, whose node ids they can no longer change.)
- **The slowest modules first** (those with a ``browser`` or ``slow`` test), handed out in
  that order (scripts/test's ``--no-loadscope-reorder``), so that no process starts a long
  one when the others are nearly done.

Without ``-n`` it changes nothing but the order of the modules.
"""

from __future__ import annotations

import os
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

REDIS_DATABASES = 16
"""Redis's default number of databases: the process numbers wrap around after it."""


def redis_url_of_process(url: str, worker: str) -> str:
    """``url`` with the database that follows its own by the process number of ``worker``
    (``gw0``, ``gw1``, ...): the path of redis:// and rediss://, the ``db`` of unix://."""
    number = int(worker.removeprefix("gw"))
    parts = urlsplit(url)
    if parts.scheme == "unix":
        query = dict(parse_qsl(parts.query))
        database = (int(query.get("db", "0")) + number) % REDIS_DATABASES
        query["db"] = str(database)  # urlunsplit would drop the empty host's "//"
        return f"unix://{parts.netloc}{parts.path}?{urlencode(query)}"
    database = (int(parts.path.strip("/") or "0") + number) % REDIS_DATABASES
    return urlunsplit(parts._replace(path=f"/{database}"))


_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker and os.environ.get("REDIS_URL", "").strip():
    os.environ["REDIS_URL"] = redis_url_of_process(os.environ["REDIS_URL"].strip(), _worker)

LONG_MARKERS = ("browser", "slow")


def module_of(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's, which sends the order on
def pytest_collection_finish(session: pytest.Session) -> None:
    """The long modules first, after every reordering of the collection (pytest-django's);
    stable, so within each part the order stays."""
    long_modules = {
        module_of(item)
        for item in session.items
        if any(item.get_closest_marker(marker) for marker in LONG_MARKERS)
    }
    session.items.sort(key=lambda item: module_of(item) not in long_modules)
