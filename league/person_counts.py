"""The navigation bar's counts of a signed-in person (unread notices, games awaiting their
move), kept in Django's default cache so that a page's header costs no query when they
have not changed: every page a person reads shows them (web/context_processors.py), and
counting them ran two queries a page.

Invalidation: a *version* of each person's counts lives in the cache beside them. The
writes that change the counts already call league.live_updates.person_updated (it tells
the person's open pages); once their transaction commits it gives the person a new
version (``person_counts_moved_on``), and counts stored under an older one are not
served again. A reader takes the version before it counts, so counts read before a
commit are stored under the version the commit replaces: a new notice shows at the
person's next page. A write that forgot to say so is bounded by ``COUNTS_SECONDS``, the
longest any counts are kept. A cache that does not answer: the counts are read from the
database, as before.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable

from django.core.cache import cache

from league.reads_generation import uncommitted_writes
from league.selectors.my_games import Person
from league.selectors.my_games import person_counts as person_counts_read

log = logging.getLogger(__name__)

COUNTS_SECONDS = 60
"""The longest a person's counts are served from the cache (a missed change's bound)."""
VERSION_SECONDS = 24 * 60 * 60
"""A version outlives every counts stored under it."""


def _version_key(user_id: int) -> str:
    return f"person:counts-version:{user_id}"


def _counts_key(user_id: int) -> str:
    return f"person:counts:{user_id}"


def person_counts_cached(*, user: Person) -> dict[str, int]:
    """``{"unread": n, "your_move": m}`` of ``user`` (zeros for a visitor), from the cache
    while no write has changed them since they were counted."""
    if not user.is_authenticated:
        return {"unread": 0, "your_move": 0}
    user_id = int(user.pk)
    if uncommitted_writes():  # its own writes are not in the cache's counts yet
        return person_counts_read(user=user)
    try:
        found = cache.get_many([_version_key(user_id), _counts_key(user_id)])
        version = found.get(_version_key(user_id))
        if version is None:
            cache.add(_version_key(user_id), uuid.uuid4().hex, timeout=VERSION_SECONDS)
            version = cache.get(_version_key(user_id))
        stored = found.get(_counts_key(user_id))
    except Exception as exc:
        log.warning("person counts: cache not read (%s)", exc)
        return person_counts_read(user=user)
    if version is not None and isinstance(stored, dict) and stored.get("version") == version:
        return dict(stored["counts"])
    counts = person_counts_read(user=user)
    if version is not None:
        try:
            entry = {"version": version, "counts": counts}
            cache.set(_counts_key(user_id), entry, timeout=COUNTS_SECONDS)
        except Exception as exc:
            log.warning("person counts: not stored (%s)", exc)
    return counts


def person_counts_moved_on(user_ids: Iterable[int]) -> None:
    """What the counts of ``user_ids`` count has changed (a committed write): a new
    version each, so that their stored counts are not served again."""
    versions = {_version_key(user_id): uuid.uuid4().hex for user_id in user_ids}
    if not versions:
        return
    try:
        cache.set_many(versions, timeout=VERSION_SECONDS)
    except Exception as exc:
        # Then the counts lag the change by COUNTS_SECONDS at most.
        log.warning("person counts: version not moved on (%s)", exc)


def person_counts_keys(user_id: int) -> list[str]:
    """The cache keys of ``user_id``'s counts and their version (to read with others)."""
    return [_version_key(user_id), _counts_key(user_id)]


def person_counts_found(found: dict[str, object], user_id: int) -> dict[str, int] | None:
    """The counts in ``found`` (a get_many of ``person_counts_keys``) if still current."""
    version = found.get(_version_key(user_id))
    stored = found.get(_counts_key(user_id))
    if version is not None and isinstance(stored, dict) and stored.get("version") == version:
        return dict(stored["counts"])
    return None
