"""The test process's own database connections are not pooled; the servers and workers the
tests start are, as in production.

Tests run the ORM in threads of their own (two people racing for a seat, the in-thread live
server, the channel layer's helpers) that end without handing their connection back: a pool
of DATABASE_POOL_SIZE would be emptied by them and a later test would wait for a connection
that never comes. So, loaded with ``-p`` (pyproject's addopts) before pytest-django sets
Django up, this plugin turns the pool off for this process (DATABASE_POOL_SIZE=0) unless
the variable was given, and ``subprocess_environment`` (tests/conftest.py) leaves it out
again for the processes the tests start, which get production's pool
(tests/config/test_database_pool.py checks it).
"""

from __future__ import annotations

import os

POOL_VARIABLE = "DATABASE_POOL_SIZE"
_GIVEN = os.environ.get(POOL_VARIABLE)
if _GIVEN is None:
    os.environ[POOL_VARIABLE] = "0"


def subprocess_pool_restored(environment: dict[str, str]) -> dict[str, str]:
    """``environment`` for a process a test starts: without the variable this plugin set."""
    if _GIVEN is None:
        environment.pop(POOL_VARIABLE, None)
    return environment
