"""PostgreSQL connection pools across a fork (docs/operations.md, "Database connections").

Django keeps one psycopg pool per database in each process (a class attribute of its
PostgreSQL backend). A Celery worker's prefork pool forks its processes from the main
process, whose sweeper thread uses the database: a child would inherit the parent's pool,
its open sockets and its dead background threads, and either share a connection with the
parent or wait for threads that no longer exist. So a forked child forgets the pools (and
its thread's connection) and opens its own. It never closes what it inherited: closing a
socket it shares would end the parent's session too. It keeps a reference to them so that
collecting them cannot close them either.
"""

from __future__ import annotations

import os
from typing import Any

_inherited: list[Any] = []


def pools_forget_in_child() -> None:
    """In a forked child: the pools and the open connection of the forking thread are the
    parent's; start with none."""
    from django.db import connections
    from django.db.backends.postgresql.base import DatabaseWrapper

    pools: dict[str, Any] = getattr(DatabaseWrapper, "_connection_pools")  # noqa: B009
    _inherited.extend(pools.values())
    pools.clear()
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None:
            _inherited.append(connection.connection)
            connection.connection = None


def fork_safe_pools() -> None:
    """Register the forgetting for every ``os.fork`` of this process from now on."""
    os.register_at_fork(after_in_child=pools_forget_in_child)
