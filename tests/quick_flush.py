"""Emptying the database after a transactional test with DELETE, not TRUNCATE.

A test marked ``django_db(transaction=True)`` (the ones whose servers, workers and browsers
read what it commits) ends with Django's ``flush``, which on PostgreSQL is one ``TRUNCATE``
of every table: 2.2 s for this project's 60 tables on a busy machine, where ``DELETE`` of
each takes 0.15 s (measured 2026-11-28), as TRUNCATE makes every table new files while
DELETE only marks a test's few rows dead. Django's PostgreSQL foreign keys are
``DEFERRABLE INITIALLY DEFERRED`` and ``flush`` runs its statements in one transaction, so
the order of the DELETEs does not matter: the keys are checked at its end, when every
table is empty. A flush that resets the sequences keeps Django's own statement.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db.backends.postgresql.operations import DatabaseOperations


def delete_flush_sql(
    operations: DatabaseOperations,
    style: Any,
    tables: list[str],
    *,
    reset_sequences: bool = False,
    allow_cascade: bool = False,
) -> list[str]:
    if reset_sequences or not tables:
        return DJANGO_SQL_FLUSH(
            operations, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    return [
        f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(operations.quote_name(table))};"
        for table in tables
    ]


DJANGO_SQL_FLUSH = DatabaseOperations.sql_flush


@contextmanager
def flush_by_delete() -> Iterator[None]:
    """While in it, Django's flush on PostgreSQL deletes the rows instead of truncating."""
    DatabaseOperations.sql_flush = delete_flush_sql  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        DatabaseOperations.sql_flush = DJANGO_SQL_FLUSH  # type: ignore[method-assign]
