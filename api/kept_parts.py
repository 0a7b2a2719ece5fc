"""A signed-in person's rendered regions of a shared page (their header, counts, their own
part of a ladder or a league page), kept in Django's default cache so that a repeat of
the page (api.read_cache's early signed-in hit) renders no template and reads no row:
the hit is one MGET (the session, the generations, the shared page, the person's account,
counts, versions and these regions) and a splice.

Whose, and how long (issue 34):

- **One person's**: the key holds the person's id and the shared page's key (its path,
  host, language, time zone and ``Accept``); the regions hold a placeholder where their
  CSRF token was (``api.read_cache.PLACEHOLDER``), filled with the reader's own token at
  each hit; regions in which a token of the person's secret is found anywhere else are
  not kept.
- **Exact versions of the person**: an entry is served only while the person's account
  version (accounts.kept_users), counts version (league.person_counts) and *own-writes
  version* (below) are the ones it was rendered under, each read before its rows were
  read: a renamed or deactivated account, a new notice, a changed password (the kept
  account's session hash is checked at each hit, beside this) show at the next page.
- **Own writes at once**: any POST, PUT, PATCH or DELETE a signed-in person makes (a
  challenge, a league entry, a club joined, their settings) gives them a new own-writes
  version once it has answered (``own_writes_moved_on``, called by
  api.read_cache.read_cache_middleware): what they did shows at their next page.
- **Others' writes like the shared page**: what other people's writes change in a
  person's regions (a challenge's match finishing, a role given by an organiser) moves
  the page's reads generation on; an entry follows the shared page's rule
  (``READ_CACHE_LAG_SECONDS``: at most that much behind), and the forms it shows are
  checked again by the views they post to.

Entries expire by themselves after ``PARTS_SECONDS``.

**The header once per reader.** base.html's regions (the join link, the account header
with the counts and the log-out form, the messages, the script) show nothing of the page:
they are the same on every page for one person in one language, and depend on nothing but
the person's three versions. So they are kept once per person and language as well
(``base_key``), never follow a page's generation, and expire after the counts' own bound
(league.person_counts.COUNTS_SECONDS). A page whose entry is old or missing takes them from
there and renders only its own regions (``BaseRegions``, handed to web.personal_parts):
a new page, or a page the ladder moved on, costs the reader its own regions alone.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache

from league.person_counts import COUNTS_SECONDS

log = logging.getLogger(__name__)

PARTS_SECONDS = 120
"""The longest an entry is kept (versions aside)."""
VERSION_SECONDS = 24 * 60 * 60
"""An own-writes version outlives every entry rendered under it."""
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
BASE_SECONDS = COUNTS_SECONDS
"""The longest a person's base regions are kept: no longer than the counts they show."""
BASE_REGIONS_ATTRIBUTE = "kept_base_regions"
"""The request's attribute that carries its ``BaseRegions`` to web.personal_parts."""


@dataclass(slots=True)
class BaseRegions:
    """A reader's base.html regions for one render of a page's regions: ``kept`` (handed
    in by the read cache, placeholders for the token in: used as they are) or, when none
    were, ``rendered`` (handed back by web.personal_parts: the ones to keep)."""

    kept: dict[str, str] | None = None
    rendered: dict[str, str] | None = None


def own_version_key(user_id: int) -> str:
    return f"person:own-version:{user_id}"


def parts_key(user_id: int, page_key: str) -> str:
    """The entry of ``user_id``'s regions of the shared page stored under ``page_key``."""
    return f"person:parts:{user_id}:{page_key}"


def base_key(user_id: int, language: str) -> str:
    """The entry of ``user_id``'s base.html regions in ``language``, whatever the page."""
    return f"person:base:{user_id}:{language}"


def own_writes_moved_on(user_id: int) -> None:
    """``user_id`` wrote something: their kept regions are old."""
    try:
        cache.set(own_version_key(user_id), uuid.uuid4().hex, timeout=VERSION_SECONDS)
    except Exception as exc:
        # Then their regions lag their own write by PARTS_SECONDS at most.
        log.warning("kept parts: own version not moved on (%s)", exc)


def own_version_started(user_id: int) -> str | None:
    """The own-writes version of ``user_id``, started if there was none."""
    try:
        cache.add(own_version_key(user_id), uuid.uuid4().hex, timeout=VERSION_SECONDS)
        value = cache.get(own_version_key(user_id))
    except Exception as exc:
        log.warning("kept parts: no own version (%s)", exc)
        return None
    return str(value) if value is not None else None


def versions_of(found: dict[str, Any], keys: list[str]) -> tuple[str, ...] | None:
    """The values of ``keys`` in ``found`` (a get_many), None if one is missing."""
    values = tuple(found.get(key) for key in keys)
    if any(value is None for value in values):
        return None
    return tuple(str(value) for value in values)


def kept_parts_of(
    entry: Any, versions: tuple[str, ...] | None, page_version: str | None
) -> dict[str, str] | None:
    """The regions in ``entry`` if rendered under the person's ``versions`` (exactly) and
    the page's ``page_version`` (or less than READ_CACHE_LAG_SECONDS ago; None: regions
    of no page, kept with None)."""
    if versions is None or not isinstance(entry, dict) or entry.get("versions") != versions:
        return None
    if entry.get("page_version") != page_version:
        lag = settings.READ_CACHE_LAG_SECONDS
        if lag <= 0 or time.time() - float(entry.get("stored_at", 0.0)) >= lag:
            return None
    parts = entry.get("parts")
    return dict(parts) if isinstance(parts, dict) else None


def parts_keep(
    key: str,
    parts: dict[str, str],
    versions: tuple[str, ...],
    page_version: str | None,
    seconds: int = PARTS_SECONDS,
) -> None:
    """Keep ``parts`` (placeholders for the token already in) under ``versions`` for
    ``seconds`` at most."""
    entry = {
        "versions": versions,
        "page_version": page_version,
        "stored_at": time.time(),
        "parts": parts,
    }
    try:
        cache.set(key, entry, timeout=seconds)
    except Exception as exc:
        log.warning("kept parts: not kept (%s)", exc)
