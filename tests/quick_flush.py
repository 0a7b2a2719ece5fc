"""Emptying the database after a transactional test: DELETE, not TRUNCATE, in one round
trip, and the rows ``migrate`` made kept.

A test marked ``django_db(transaction=True)`` (the ones whose servers, workers and browsers
read what it commits) ends with Django's ``flush``, which on PostgreSQL is one ``TRUNCATE``
of every table: 2.2 s for this project's 60 tables on a busy machine, where ``DELETE`` of
each takes 0.15 s (measured 2026-11-28), as TRUNCATE makes every table new files while
DELETE only marks a test's few rows dead. Django's PostgreSQL foreign keys are
``DEFERRABLE INITIALLY DEFERRED`` and ``flush`` runs its statements in one transaction, so
the order of the DELETEs does not matter: the keys are checked at its end, when every
table is empty. The DELETEs go to the server as one statement list, one round trip instead
of sixty.

``flush`` then sends ``post_migrate`` again, so that the content types and permissions it
deleted are made anew: about 120 ms and 40 queries after every transactional test. Here
those two tables (``KEPT_TABLES``) are not emptied, which leaves them as ``migrate`` made
them for the database's template, and the signal is not sent again: the only other
receiver, the league's rebuild of stale standings, finds none in an empty database. A
test's own rows in those two tables would outlive it; no test makes any (content types and
permissions come from the models). A flush that resets the sequences keeps Django's own
statements and signal.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.commands import flush as flush_command
from django.db.backends.postgresql.operations import DatabaseOperations

KEPT_TABLES = frozenset({"django_content_type", "auth_permission"})
"""What ``migrate`` fills from the models (and ``post_migrate`` would fill again)."""


class _LastFlush:
    kept_tables = False
    """Whether the flush statements made last kept ``KEPT_TABLES`` (read by the signal)."""


def delete_flush_sql(
    operations: DatabaseOperations,
    style: Any,
    tables: list[str],
    *,
    reset_sequences: bool = False,
    allow_cascade: bool = False,
) -> list[str]:
    _LastFlush.kept_tables = not (reset_sequences or not tables)
    if not _LastFlush.kept_tables:
        return DJANGO_SQL_FLUSH(
            operations, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    deletes = [
        f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(operations.quote_name(table))};"
        for table in tables
        if table not in KEPT_TABLES
    ]
    return ["\n".join(deletes)] if deletes else []


def post_migrate_unless_kept(verbosity: int, interactive: bool, db: str, **kwargs: Any) -> None:
    """``flush``'s ``post_migrate``, sent unless its statements were ``delete_flush_sql``'s,
    which kept the content types and permissions (SQLite's flush, and PostgreSQL's with
    sequences reset, send it as Django does)."""
    if _LastFlush.kept_tables:
        _LastFlush.kept_tables = False
        return
    DJANGO_POST_MIGRATE(verbosity, interactive, db, **kwargs)


DJANGO_SQL_FLUSH = DatabaseOperations.sql_flush
DJANGO_POST_MIGRATE = flush_command.emit_post_migrate_signal  # type: ignore[attr-defined]


@contextmanager
def flush_by_delete() -> Iterator[None]:
    """While in it, Django's flush on PostgreSQL deletes the rows instead of truncating,
    keeps the content types and permissions, and sends no ``post_migrate``."""
    DatabaseOperations.sql_flush = delete_flush_sql  # type: ignore[method-assign,assignment]
    flush_command.emit_post_migrate_signal = post_migrate_unless_kept  # type: ignore[attr-defined]
    try:
        yield
    finally:
        DatabaseOperations.sql_flush = DJANGO_SQL_FLUSH  # type: ignore[method-assign]
        flush_command.emit_post_migrate_signal = DJANGO_POST_MIGRATE  # type: ignore[attr-defined]
