"""What a signed-in page needs of its reader's account, kept in Django's default cache so
that a page answered from the shared read cache (api.read_cache's early signed-in hits)
reads no row of ``auth_user``: the id, the username, whether the account is active and
staff, and the account's *session auth hash* (never the password hash itself).

The session auth hash is an HMAC of the password hash under SECRET_KEY
(``AbstractBaseUser.get_session_auth_hash``); Django keeps the same value in each of the
person's sessions (``HASH_SESSION_KEY``), which the session store (cached_db) already
holds in Redis: keeping it here tells Redis nothing it did not know. A session is
served as signed in only while its hash equals the kept one (constant-time compare), as
``django.contrib.auth.get_user`` requires of the database's: a password changed ends the
person's other sessions at their next page.

Invalidation, as league.person_counts does it: a *version* per person beside the kept
values. Every save or deletion of a user gives that user a new version (at once and again
once its transaction commits); a reader takes the version before it reads the row, so a
row read before a commit is kept under the version the commit replaces and never served
after it. A write that bypasses ``save`` (a queryset ``update``) is bounded by
``KEPT_SECONDS``. A kept user is a ``User`` with no password that refuses to be saved.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.utils.crypto import constant_time_compare

log = logging.getLogger(__name__)

KEPT_SECONDS = 60
"""The longest a user is served from the cache (the bound of a change no save said)."""
VERSION_SECONDS = 24 * 60 * 60


def version_key(user_id: int) -> str:
    return f"person:user-version:{user_id}"


def kept_key(user_id: int) -> str:
    return f"person:user:{user_id}"


class KeptUserSaveRefusedError(RuntimeError):
    """A kept user has no password: saving it would erase the real one."""


def kept_user_of(entry: Any, version: Any) -> tuple[AbstractBaseUser, str] | None:
    """The user and session auth hash of a kept ``entry`` if it is of ``version``."""
    if version is None or not isinstance(entry, dict) or entry.get("version") != version:
        return None
    model = get_user_model()
    user = model(
        pk=entry["id"],
        username=entry["username"],
        is_active=entry["is_active"],
        is_staff=entry["is_staff"],
        is_superuser=entry["is_superuser"],
    )
    user.password = ""  # never kept: the instance refuses to be saved

    def refused(*_args: Any, **_kwargs: Any) -> None:
        raise KeptUserSaveRefusedError(f"user {entry['id']} is a kept copy without its password")

    user.save = refused  # type: ignore[method-assign]
    return user, str(entry["auth_hash"])


def kept_signed_in(entry: Any, version: Any, auth_hash: str) -> bool:
    """Whether a kept ``entry`` of ``version`` says its account is active and its session
    auth hash is ``auth_hash`` (a session's: constant-time compare), without building the
    user (a hit that needs only this check; False: ask ``kept_user_of``)."""
    if version is None or not isinstance(entry, dict) or entry.get("version") != version:
        return False
    return bool(entry.get("is_active")) and constant_time_compare(
        auth_hash, str(entry.get("auth_hash", ""))
    )


def user_read_and_keep(user_id: int, version: Any) -> tuple[AbstractBaseUser, str] | None:
    """The user ``user_id`` read from the database (None: no such user) and kept under
    ``version`` (taken before this read; None: a version is started here first)."""
    if version is None:
        try:
            cache.add(version_key(user_id), uuid.uuid4().hex, timeout=VERSION_SECONDS)
            version = cache.get(version_key(user_id))
        except Exception as exc:
            log.warning("kept users: no version (%s)", exc)
            version = None
    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None:
        return None
    auth_hash = user.get_session_auth_hash()
    if version is not None:
        entry = {
            "version": version,
            "id": user.pk,
            "username": user.get_username(),
            "is_active": user.is_active,
            "is_staff": getattr(user, "is_staff", False),
            "is_superuser": getattr(user, "is_superuser", False),
            "auth_hash": auth_hash,
        }
        try:
            cache.set(kept_key(user_id), entry, timeout=KEPT_SECONDS)
        except Exception as exc:
            log.warning("kept users: not kept (%s)", exc)
    return user, auth_hash


def kept_user_moved_on(user_id: int) -> None:
    """What is kept of ``user_id`` is old: a new version, so it is not served again."""
    try:
        cache.set(version_key(user_id), uuid.uuid4().hex, timeout=VERSION_SECONDS)
    except Exception as exc:
        log.warning("kept users: version not moved on (%s)", exc)


def _user_changed(sender: Any, instance: Any, **_kwargs: Any) -> None:
    if instance.pk is None:
        return
    user_id = int(instance.pk)
    kept_user_moved_on(user_id)  # at once: this process's next read
    transaction.on_commit(lambda: kept_user_moved_on(user_id))  # after: every reader


def kept_users_connect() -> None:
    """Called once as the app is ready: every save or deletion of a user moves it on."""
    model = get_user_model()
    post_save.connect(_user_changed, sender=model, dispatch_uid="kept_users_save")
    post_delete.connect(_user_changed, sender=model, dispatch_uid="kept_users_delete")
