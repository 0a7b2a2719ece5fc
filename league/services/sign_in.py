"""Signing in with a password, and the lock that follows too many wrong passwords.

A username may have ``SIGN_IN_FAILURES_ALLOWED`` wrong passwords (within
``SIGN_IN_FAILURE_WINDOW_SECONDS`` of the first); the next wrong one locks it. While a
username is locked every password is refused, the right one too, without being checked.
Each lock lasts longer than the one before (``SIGN_IN_LOCKOUT_SECONDS``: 1, 5, 15 minutes,
then an hour each time); a username that has gone ``SIGN_IN_LOCK_MEMORY_SECONDS`` without a
new lock starts again from the first length. When a lock ends the username has its allowance
of wrong passwords again; a successful sign-in empties the count of wrong passwords.

The counts and locks live in Django's default cache (Redis in production, files under
$VAR_DIR otherwise; config.configuration.cache_from_env), so every web process sees them.
They are kept per username, whether or not such an account exists, so a lock tells nothing
about which usernames exist. Signing in from one address is also rate limited
(api.throttles.SignInThrottle), which limits guessing across many usernames.

Every way in that checks a password goes through ``authenticate()`` and so through
``SignInLockoutBackend``: the token endpoint, the sign-in page and the admin's.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework.authtoken.models import Token

import redis
from asgiref.sync import sync_to_async

from league.services.chosen_names import chosen_name_check
from league.words.games_and_times import wait_in_words

logger = logging.getLogger(__name__)

# The cache could not be reached: signing in goes on without locks rather than failing
# for everyone (the error is logged). OSError covers a file cache's folder.
CACHE_ERRORS = (redis.RedisError, OSError)


@dataclass(frozen=True, kw_only=True, slots=True)
class SignInLock:
    """A username that may not sign in until ``until`` (seconds since the epoch)."""

    username: str
    level: int  # 1 for its first lock, 2 for the next one, ...
    until: float

    def seconds_left(self, now: float | None = None) -> int:
        """Whole seconds until the lock ends, at least 1 (for a Retry-After header)."""
        return max(1, math.ceil(self.until - (time.time() if now is None else now)))

    def message(self, now: float | None = None) -> str:
        """What a person is told, in the active language and time zone: why, until when,
        and how long that is."""
        ends = timezone.localtime(datetime.fromtimestamp(self.until, tz=UTC))
        return gettext(
            "Too many wrong passwords for %(username)s: signing in as %(username)s is locked "
            "until %(ends)s. Try again in %(wait)s."
        ) % {
            "username": repr(self.username),
            "ends": f"{ends:%H:%M:%S} {ends.tzname()}",
            "wait": wait_in_words(self.seconds_left(now)),
        }


def _key(kind: str, username: str) -> str:
    digest = hashlib.sha256(username.encode("utf-8", "surrogatepass")).hexdigest()[:40]
    return f"sign-in:{kind}:{digest}"


def _lock_read(username: str) -> tuple[int, float] | None:
    """(level, until) of the username's last lock still remembered, or None."""
    stored = cache.get(_key("lock", username))
    if isinstance(stored, dict) and "level" in stored and "until" in stored:
        return int(stored["level"]), float(stored["until"])
    return None


def sign_in_lock_get(*, username: str, now: float | None = None) -> SignInLock | None:
    """The lock on ``username`` if it is locked now, else None."""
    now = time.time() if now is None else now
    try:
        stored = _lock_read(username)
    except CACHE_ERRORS as exc:
        logger.error("sign-in locks unavailable, the cache does not answer: %s", exc)
        return None
    if stored is None or stored[1] <= now:
        return None
    return SignInLock(username=username, level=stored[0], until=stored[1])


def sign_in_failure_record(*, username: str, now: float | None = None) -> SignInLock | None:
    """Count a wrong password for ``username``; the lock it starts, if it is one too many."""
    now = time.time() if now is None else now
    allowed = int(settings.SIGN_IN_FAILURES_ALLOWED)
    window = int(settings.SIGN_IN_FAILURE_WINDOW_SECONDS)
    key = _key("failures", username)
    try:
        cache.add(key, 0, timeout=window)
        try:
            failures = cache.incr(key)
        except ValueError:  # the count expired between add and incr
            cache.set(key, 1, timeout=window)
            failures = 1
        if failures <= allowed:
            return None
        if failures > allowed + 1:
            # Wrong passwords sent together with the one that is locking the username: the
            # lock is that request's to write (the cache counts atomically in Redis).
            return sign_in_lock_get(username=username, now=now)
        return _lock_start(username, now)
    except CACHE_ERRORS as exc:
        logger.error("sign-in locks unavailable, the cache does not answer: %s", exc)
        return None


def _lock_start(username: str, now: float) -> SignInLock:
    lengths = tuple(settings.SIGN_IN_LOCKOUT_SECONDS)
    memory = int(settings.SIGN_IN_LOCK_MEMORY_SECONDS)
    previous = _lock_read(username)
    level = previous[0] + 1 if previous is not None else 1
    length = float(lengths[min(level, len(lengths)) - 1])
    lock = SignInLock(username=username, level=level, until=now + length)
    cache.set(
        _key("lock", username),
        {"level": lock.level, "until": lock.until},
        timeout=math.ceil(length) + memory,
    )
    cache.delete(_key("failures", username))
    logger.warning(
        "sign-in locked for %.0f s after too many wrong passwords (lock %d)", length, level
    )
    return lock


def sign_in_success_record(*, username: str) -> None:
    """A right password: the count of wrong ones starts again (the locks are remembered)."""
    try:
        cache.delete(_key("failures", username))
    except CACHE_ERRORS as exc:
        logger.error("sign-in locks unavailable, the cache does not answer: %s", exc)


class SignInLocked(PermissionDenied):
    """Raised by the backend for a locked username; authenticate() then returns None."""

    def __init__(self, lock: SignInLock) -> None:
        super().__init__(lock.message())
        self.lock = lock


class SignInLockoutBackend(ModelBackend):
    """Django's ModelBackend, refusing a locked username and counting wrong passwords.

    The views ask ``sign_in_lock_get`` after a refused sign-in to tell a lock from a wrong
    password (api.throttles.password_authenticate, web.views.accounts).
    """

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> User | None:
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        lock = sign_in_lock_get(username=username)
        if lock is not None:
            raise SignInLocked(lock)
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            sign_in_failure_record(username=username)
        else:
            sign_in_success_record(username=username)
        return user

    async def aauthenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> User | None:
        """authenticate(), for ``aauthenticate()`` (ModelBackend's would skip the lock)."""
        return await sync_to_async(self.authenticate)(request, username, password, **kwargs)


def api_token_get_or_create(*, user: User) -> str:
    """The key of ``user``'s API token (``Authorization: Token <key>``), made on first use."""
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)


def account_create(*, username: str, password: str) -> User:
    """A person's new account (the sign-up page's form has checked that the username is free
    and that the password passes the settings' validators; a username with a direction
    control character is refused here too, whoever calls)."""
    chosen_name_check(username, field="username")
    return get_user_model().objects.create_user(username=username, password=password)
