"""Signing in with a password, and the locks that slow down guessing (docs/web.md, *Signing
in and the lock*).

A wrong password counts against the username *together with where it came from*:

- from a **known device** (a browser that signed in as this username before: it keeps a
  signed cookie, ``KNOWN_DEVICE_COOKIE``), against that device alone;
- from anywhere else, against the client's **address** and, with a larger allowance
  (``SIGN_IN_STRANGER_FAILURES_ALLOWED``), against **every unknown device** together.

Each of these counts allows ``SIGN_IN_FAILURES_ALLOWED`` wrong passwords (within
``SIGN_IN_FAILURE_WINDOW_SECONDS`` of the first); the next wrong one locks the username for
that source only. While a source is locked every password from it is refused, the right one
too, without being checked. Each lock lasts longer than the one before
(``SIGN_IN_LOCKOUT_SECONDS``: 1, 5, 15 minutes, then an hour each time); a source that has gone
``SIGN_IN_LOCK_MEMORY_SECONDS`` without a new lock starts again from the first length. A
successful sign-in empties the count of its own device or address.

Why so: the lock of one count per username let anyone keep anyone's account locked with six
wrong passwords an hour. Now a stranger locks only their own address; guessing from many
addresses at once locks the unknown devices after the larger allowance; and the owner's own
browser, which signed in before, is never locked by anyone but itself.

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
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.core import signing
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework.throttling import BaseThrottle

import redis
from asgiref.sync import sync_to_async

from accounts.account_settings import email_set
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


def _key(kind: str, username: str, source: str = "") -> str:
    subject = f"{username}\n{source}" if source else username
    digest = hashlib.sha256(subject.encode("utf-8", "surrogatepass")).hexdigest()[:40]
    return f"sign-in:{kind}:{digest}"


def _lock_read(username: str, source: str = "") -> tuple[int, float] | None:
    """(level, until) of the username's last lock still remembered, or None."""
    stored = cache.get(_key("lock", username, source))
    if isinstance(stored, dict) and "level" in stored and "until" in stored:
        return int(stored["level"]), float(stored["until"])
    return None


def sign_in_lock_get(
    *, username: str, source: str = "", now: float | None = None
) -> SignInLock | None:
    """The lock on ``username`` for ``source`` if it is locked now, else None."""
    now = time.time() if now is None else now
    try:
        stored = _lock_read(username, source)
    except CACHE_ERRORS as exc:
        logger.error("sign-in locks unavailable, the cache does not answer: %s", exc)
        return None
    if stored is None or stored[1] <= now:
        return None
    return SignInLock(username=username, level=stored[0], until=stored[1])


def sign_in_failure_record(
    *, username: str, source: str = "", allowed: int | None = None, now: float | None = None
) -> SignInLock | None:
    """Count a wrong password for ``username`` from ``source``; the lock it starts, if it is
    one too many (``allowed``: SIGN_IN_FAILURES_ALLOWED unless given)."""
    now = time.time() if now is None else now
    allowed = int(settings.SIGN_IN_FAILURES_ALLOWED) if allowed is None else allowed
    window = int(settings.SIGN_IN_FAILURE_WINDOW_SECONDS)
    key = _key("failures", username, source)
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
            return sign_in_lock_get(username=username, source=source, now=now)
        return _lock_start(username, source, now)
    except CACHE_ERRORS as exc:
        logger.error("sign-in locks unavailable, the cache does not answer: %s", exc)
        return None


def _lock_start(username: str, source: str, now: float) -> SignInLock:
    lengths = tuple(settings.SIGN_IN_LOCKOUT_SECONDS)
    memory = int(settings.SIGN_IN_LOCK_MEMORY_SECONDS)
    previous = _lock_read(username, source)
    level = previous[0] + 1 if previous is not None else 1
    length = float(lengths[min(level, len(lengths)) - 1])
    lock = SignInLock(username=username, level=level, until=now + length)
    cache.set(
        _key("lock", username, source),
        {"level": lock.level, "until": lock.until},
        timeout=math.ceil(length) + memory,
    )
    cache.delete(_key("failures", username, source))
    logger.warning(
        "sign-in locked for %.0f s after too many wrong passwords (lock %d, %s)",
        length,
        level,
        source.partition(":")[0] or "username",
    )
    return lock


def sign_in_success_record(*, username: str, source: str = "") -> None:
    """A right password: the count of wrong ones starts again (the locks are remembered)."""
    try:
        cache.delete(_key("failures", username, source))
    except CACHE_ERRORS as exc:
        logger.error("sign-in locks unavailable, the cache does not answer: %s", exc)


# ---------------------------------------------------------------- where attempts come from

KNOWN_DEVICE_COOKIE = "known_device"
KNOWN_DEVICE_SALT = "league.sign_in.known-device"
KNOWN_DEVICE_DAYS = 365
KNOWN_DEVICE_USERNAMES = 8  # a shared family computer: the last few who signed in on it
STRANGERS = "strangers"


def _username_digest(username: str) -> str:
    return hashlib.sha256(username.casefold().encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _known_device(request: HttpRequest | None) -> dict[str, Any] | None:
    if request is None:
        return None
    raw = getattr(request, "COOKIES", {}).get(KNOWN_DEVICE_COOKIE)
    if not raw:
        return None
    try:
        value = signing.loads(raw, salt=KNOWN_DEVICE_SALT, max_age=KNOWN_DEVICE_DAYS * 86400)
    except signing.BadSignature:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("u"), list):
        return None
    return value


def client_address(request: HttpRequest | None) -> str:
    """The client's address as the rate limits see it (REST framework's NUM_PROXIES)."""
    if request is None:
        return "unknown"
    return str(BaseThrottle().get_ident(request))  # type: ignore[arg-type]


def sign_in_sources(request: HttpRequest | None, *, username: str) -> list[tuple[str, int]]:
    """The counts an attempt to sign in as ``username`` is judged by, with their allowance of
    wrong passwords: the known device alone, else the address and every unknown device."""
    allowed = int(settings.SIGN_IN_FAILURES_ALLOWED)
    device = _known_device(request)
    if device is not None and _username_digest(username) in device["u"]:
        return [(f"device:{device['d']}", allowed)]
    return [
        (f"address:{client_address(request)}", allowed),
        (STRANGERS, int(settings.SIGN_IN_STRANGER_FAILURES_ALLOWED)),
    ]


def sign_in_lock_for(request: HttpRequest | None, *, username: str) -> SignInLock | None:
    """The lock that refuses ``username`` to this request now, the longest if several."""
    locks = [
        lock
        for source, _ in sign_in_sources(request, username=username)
        if (lock := sign_in_lock_get(username=username, source=source)) is not None
    ]
    return max(locks, key=lambda lock: lock.until, default=None)


def known_device_remember(request: HttpRequest, response: HttpResponse, *, username: str) -> None:
    """After a successful sign-in: the browser becomes a known device of ``username``."""
    device = _known_device(request) or {"d": secrets.token_urlsafe(12), "u": []}
    digest = _username_digest(username)
    names = [digest, *(name for name in device["u"] if name != digest)]
    value = {"d": device["d"], "u": names[:KNOWN_DEVICE_USERNAMES]}
    response.set_cookie(
        KNOWN_DEVICE_COOKIE,
        signing.dumps(value, salt=KNOWN_DEVICE_SALT),
        max_age=KNOWN_DEVICE_DAYS * 86400,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )


class SignInLocked(PermissionDenied):
    """Raised by the backend for a locked username; authenticate() then returns None."""

    def __init__(self, lock: SignInLock) -> None:
        super().__init__(lock.message())
        self.lock = lock


class SignInLockoutBackend(ModelBackend):
    """Django's ModelBackend, refusing a locked username and counting wrong passwords.

    The views ask ``sign_in_lock_for`` after a refused sign-in to tell a lock from a wrong
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
        lock = sign_in_lock_for(request, username=username)
        if lock is not None:
            raise SignInLocked(lock)
        user = super().authenticate(request, username=username, password=password, **kwargs)
        for source, allowed in sign_in_sources(request, username=username):
            if user is None:
                sign_in_failure_record(username=username, source=source, allowed=allowed)
            elif source != STRANGERS:  # the owner's success does not reset others' guesses
                sign_in_success_record(username=username, source=source)
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


def account_create(*, username: str, password: str, email: str = "") -> User:
    """A person's new account (the sign-up page's form has checked that the username is free
    and that the password passes the settings' validators); an address given is mailed a
    verification link (accounts.account_settings); a username with a direction control
    character is refused here too, whoever calls)."""
    chosen_name_check(username, field="username")
    user = get_user_model().objects.create_user(username=username, password=password)
    if email:
        email_set(user=user, email=email)
    return user
