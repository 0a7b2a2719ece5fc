"""The generations of the public reads: two counters in Django's default cache (Redis with
REDIS_URL, files under VAR_DIR otherwise) that go up when what the public pages read
changes, so that the shared cache of anonymous reads (api/read_cache.py) serves an
answer only while nothing it shows has changed (docs/operations.md, "Caching").

An execute wrapper on every database connection sees each INSERT, UPDATE and DELETE,
however made, and after a transaction that wrote a table other than the internal
bookkeeping ones below (which no page reads) moves the generations on once it commits.
Two counters: the progress one moves on at every such write, the other at every write but
a running match's progress (``PROGRESS_WRITE``), so that pages that never show a running
match's progress (standings, ladders, ratings) keep their answers while matches play.

The league owns them because the league writes: they are installed by league.apps.ready
in every process (web, workers, beat, commands). A cache that does not answer moves
nothing on; the read cache's entries expire by themselves (``READ_CACHE_SECONDS``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any, TypeVar, cast

from django.apps import apps
from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.backends.signals import connection_created

from league.models import Match, MatchStatus

log = logging.getLogger(__name__)

GENERATION_KEY = "reads:generation"
PROGRESS_KEY = "reads:progress"
PROGRESS_WRITE = re.compile(
    r'^UPDATE "league_match" SET "lease_until" = %s, "events_stored" = %s, '
    r'"deals_done" = %s WHERE '
)
"""A running match's progress as its worker stores it (league.services.matches.EventWriter:
the lease renewed with the events and deals stored so far, several times a match). Only
pages that may show a running match's progress (``PROGRESS``) must change with it."""
INTERNAL_MODELS = frozenset(
    {
        # Bookkeeping no public page reads, written every few seconds by beat and workers.
        "league.heartbeat",
        "league.processtick",
        "league.outboxtask",
        "league.ratingqueueentry",
        "sessions.session",
        "authtoken.token",
        "django_celery_beat.periodictask",
        "django_celery_beat.periodictasks",
        "django_celery_beat.intervalschedule",
        "django_celery_beat.crontabschedule",
        "django_celery_beat.solarschedule",
        "django_celery_beat.clockedschedule",
    }
)


def read_cache_on() -> bool:
    return bool(getattr(settings, "READ_CACHE", True))


def reads_generation(key: str = GENERATION_KEY) -> int | None:
    """The current generation (``GENERATION_KEY`` or ``PROGRESS_KEY``); None when the cache
    does not answer (then: no caching)."""
    try:
        value = cache.get(key)
        if value is None:
            cache.add(key, 1, timeout=None)
            value = cache.get(key)
        return int(value) if value is not None else None
    except Exception as exc:
        log.warning("read cache: no generation (%s)", exc)
        return None


def _generation_next(key: str) -> None:
    try:
        try:
            cache.incr(key)
        except ValueError:  # absent (first write, or evicted): any new value is new
            cache.add(key, 1, timeout=None)
            cache.incr(key)
    except Exception as exc:
        # Entries expire after READ_CACHE_SECONDS: the bound of a missed change.
        log.warning("read cache: generation not moved on (%s)", exc)


def reads_changed() -> None:
    """What the public pages read has changed: new generations, both."""
    _generation_next(GENERATION_KEY)
    _generation_next(PROGRESS_KEY)


def reads_progressed() -> None:
    """Only a running match's progress has changed: a new progress generation."""
    _generation_next(PROGRESS_KEY)


def reads_changed_on_commit(
    using: str = DEFAULT_DB_ALIAS, change: Callable[[], None] = reads_changed
) -> None:
    """``change`` (``reads_changed`` or ``reads_progressed``) once the current transaction
    commits (at once outside one); once per transaction however many rows it writes."""
    connection = connections[using]
    if not connection.in_atomic_block:
        change()
        return
    if any(entry[1] is change for entry in connection.run_on_commit):
        return
    transaction.on_commit(change, using=using)


WRITE = re.compile(
    r'^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?([A-Za-z0-9_]+)"?', re.IGNORECASE
)


def written_table(sql: str) -> str | None:
    """The table an INSERT, UPDATE or DELETE writes; None for anything else."""
    found = WRITE.match(sql)
    return found.group(1).lower() if found else None


def _internal_tables() -> frozenset[str]:
    tables = {
        model._meta.db_table.lower()
        for model in apps.get_models()
        if model._meta.label_lower in INTERNAL_MODELS
    }
    return frozenset(tables | {"django_celery_beat_periodictasks"})


class WritesWatch:
    """A database execute wrapper: after a statement that writes a table the pages may
    read, a new generation once its transaction commits. It sees every write, whether by
    ``save()``, ``QuerySet.update``, ``bulk_create`` or raw SQL (signals see only the
    first)."""

    def __init__(self, alias: str) -> None:
        self.alias = alias
        self.internal = _internal_tables()

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        result = execute(sql, params, many, context)
        text = str(sql)
        table = written_table(text)
        if table is not None and table not in self.internal:
            progress = PROGRESS_WRITE.match(text) is not None
            reads_changed_on_commit(self.alias, reads_progressed if progress else reads_changed)
        return result


def _connection_watch(sender: Any, connection: Any, **kwargs: Any) -> None:
    if not any(isinstance(w, WritesWatch) for w in connection.execute_wrappers):
        connection.execute_wrappers.append(WritesWatch(connection.alias))


def read_cache_writes_watch() -> None:
    """Every database connection of this process watches its writes (league.apps.ready)."""
    connection_created.connect(_connection_watch, dispatch_uid="read-cache-writes")
    for connection in connections.all(initialized_only=True):
        _connection_watch(None, connection)


def finished_key(match_id: int) -> str:
    """The cache's note of a finished match's end (a finished match stays finished)."""
    return f"reads:finished:{match_id}"


def finished_at(match_id: int) -> str | None:
    """A finished match's end as the read cache notes it; None while it is not finished."""
    ended = (
        Match.objects.filter(pk=match_id, status=MatchStatus.FINISHED)
        .values_list("finished_at", flat=True)
        .first()
    )
    return f"{ended.timestamp():.6f}" if ended is not None else None


T = TypeVar("T")


def uncommitted_writes(using: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether the current transaction has written what the generations will say only
    once it commits: a value kept in the cache does not show its own writes, so a read in
    it reads the database (a test's transaction, which never commits, too)."""
    connection = connections[using]
    return connection.in_atomic_block and any(
        entry[1] in (reads_changed, reads_progressed) for entry in connection.run_on_commit
    )


SETTLED_READ_SECONDS = 300
"""The longest a ``settled_read`` value is kept (a new generation makes it unused sooner)."""


def settled_read(key: str, compute: Callable[[], T]) -> T:
    """``compute()`` (a read of public rows, picklable), kept in the cache under ``key``
    while the generation of every write but a running match's progress is the one it was
    computed under: what a signed-in person's parts of a shared page need of the page's
    public rows (a ladder's board, a match and its seats), read once for every reader
    rather than for each (api.read_cache.personal_page). The generation is read before
    ``compute`` runs, so a value read before a write commits is never served after it.
    Computed each time with the read cache off or a cache that does not answer."""
    if not read_cache_on() or uncommitted_writes():
        return compute()
    name = f"reads:settled:{key}"
    try:
        found = cache.get_many([GENERATION_KEY, name])
    except Exception as exc:
        log.warning("settled read: cache not read (%s)", exc)
        return compute()
    generation = found.get(GENERATION_KEY)
    if generation is None:  # a new cache (or evicted): start it
        generation = reads_generation(GENERATION_KEY)
    stored = found.get(name)
    if generation is not None and isinstance(stored, tuple) and stored[0] == generation:
        return cast(T, stored[1])
    value = compute()
    if generation is not None:
        try:
            cache.set(name, (generation, value), timeout=SETTLED_READ_SECONDS)
        except Exception as exc:
            log.warning("settled read: not stored (%s)", exc)
    return value
