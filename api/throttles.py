"""Rate limits of the API and of the web forms that do the same things, and the answer to a
sign-in refused by a lock (docs/api.md, "Rate limits and sign-in locks").

One throttle class per scope; its rate is ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"][scope]``
(config/settings.py, overridable with RATE_LIMITS). The API views list the class in
``throttle_classes``; a Django view calls ``throttle_check`` (web.throttling wraps it in a
decorator). Both count in the same place, Django's default cache, so a person's uploads
through the page and through the API share one allowance, in every web process.

A refused request is a ``RateLimited`` exception: HTTP 429 with a ``Retry-After`` header and
``{"detail": "..."}`` naming the limit. Only writes are limited (GET, HEAD and OPTIONS pass),
but for the wrong codes of a club night's tables, which are counted for reads and writes
alike (``table_code_guesses_limited``).

A club night's phones share the venue's one address: their score entries and confirmations
are counted per table code and per phone (its session, or its signed-in person), never per
address; only the guesses of a code (a code no table has) are counted per address.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework.exceptions import APIException, Throttled
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from django_stubs_ext import StrOrPromise
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse

from accounts.sign_in import CACHE_ERRORS, SignInLock, sign_in_lock_for
from api.serializers import ErrorSerializer
from league.errors import InvalidInputError, UnknownTableCodeError
from league.words.games_and_times import wait_in_words

logger = logging.getLogger(__name__)

PERIOD_WORDS = {
    "s": gettext_lazy("a second"),
    "m": gettext_lazy("a minute"),
    "h": gettext_lazy("an hour"),
    "d": gettext_lazy("a day"),
}


class RateLimited(Throttled):
    """429: too many requests of one kind; ``wait`` whole seconds go to Retry-After."""

    def __init__(self, *, detail: str, wait: int) -> None:
        APIException.__init__(self, detail, "throttled")  # no DRF sentence appended
        self.wait = max(1, wait)


class ScopedThrottle(SimpleRateThrottle):
    """Counts one kind of write per person (per address when not signed in).

    The rate is read at each request, not when the class is imported, so that a changed
    REST_FRAMEWORK setting (tests' override_settings) takes effect.
    """

    scope: str
    what: StrOrPromise  # "bot uploads": the words of the 429 message (a lazy translation)
    by_address = False  # True: count per client address even for a signed-in person

    def __init__(self) -> None:
        pass

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return None if rate is None else str(rate)

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        user = getattr(request, "user", None)
        if not self.by_address and user is not None and user.is_authenticated:
            ident = f"user-{user.pk}"
        else:
            ident = f"address-{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        try:
            allowed = super().allow_request(request, view)
        except CACHE_ERRORS as exc:
            logger.error("rate limits unavailable, the cache does not answer: %s", exc)
            return True
        if allowed:
            return True
        wait = max(1, math.ceil(self.wait() or 1))
        raise RateLimited(detail=self.message(wait), wait=wait)

    def message(self, wait: int) -> str:
        """The 429's sentence in the request's language."""
        count, period = (self.rate or "").split("/")
        return _("Too many %(what)s: at most %(count)s in %(period)s. Try again in %(wait)s.") % {
            "what": self.what,
            "count": count,
            "period": PERIOD_WORDS[period[0]],
            "wait": wait_in_words(wait),
        }


class SignInThrottle(ScopedThrottle):
    """Sign-in attempts (token endpoint, sign-in page) from one address."""

    scope = "sign_in"
    what = gettext_lazy("sign-in attempts from your address")
    by_address = True


class SignUpThrottle(ScopedThrottle):
    """New accounts (the sign-up page) from one address."""

    scope = "sign_up"
    what = gettext_lazy("new accounts from your address")
    by_address = True


class UploadThrottle(ScopedThrottle):
    """Bot version uploads, per person."""

    scope = "uploads"
    what = gettext_lazy("bot uploads")


class TableThrottle(ScopedThrottle):
    """New casual tables, per person."""

    scope = "tables"
    what = gettext_lazy("new tables")


class TableJoinThrottle(ScopedThrottle):
    """Seats taken at tables (an invitation accepted, an open seat joined), per person."""

    scope = "table_joins"
    what = gettext_lazy("seats taken at tables")


class TableCodeWriteThrottle(ScopedThrottle):
    """Score entries and confirmations through one table code, whoever sends them."""

    scope = "table_code_writes"
    what = gettext_lazy("score entries and confirmations for this table")

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        resolved = getattr(request, "resolver_match", None)
        code = str(resolved.kwargs.get("code", "")) if resolved is not None else ""
        code = code.strip().upper()[:12]
        return self.cache_format % {"scope": self.scope, "ident": f"code-{code}"} if code else None


def phone_of(request: HttpRequest | Request) -> str:
    """Who writes a table's scores, as a digest: the signed-in person, or the browser's
    session; "" for a client with neither (an anonymous API client without cookies)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        raw = f"user-{user.pk}"
    else:
        session = getattr(request, "session", None)
        key = session.session_key if session is not None else None
        if not key:
            return ""
        raw = f"session-{key}"
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


class TableSessionWriteThrottle(ScopedThrottle):
    """Score entries and confirmations from one phone (its session or its signed-in
    person); a client with neither is counted per table code only."""

    scope = "table_session_writes"
    what = gettext_lazy("score entries and confirmations from your phone")

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        phone = phone_of(request)
        return self.cache_format % {"scope": self.scope, "ident": phone} if phone else None


class TableCodeGuessThrottle(ScopedThrottle):
    """Wrong table codes (codes no table has) from one address, reads and writes alike:
    the bound that makes guessing a code useless (docs/api.md, *Rate limits*)."""

    scope = "table_code_guesses"
    what = gettext_lazy("wrong table codes from your address")
    by_address = True

    def _history_load(self, request: Any) -> int:
        """Load the address's wrong codes of the period; the most allowed."""
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self.key = self.get_cache_key(request, None)
        self.now = self.timer()
        period = self.duration or 0
        self.history = [t for t in self.cache.get(self.key, []) if t > self.now - period]
        return self.num_requests or 0

    def refuse_when_spent(self, request: Any) -> None:
        """RateLimited while the address has no wrong code left; counts nothing."""
        if self.get_rate() is None:
            return
        try:
            allowed = self._history_load(request)
        except CACHE_ERRORS as exc:
            logger.error("rate limits unavailable, the cache does not answer: %s", exc)
            return
        if len(self.history) >= allowed:
            wait = max(1, math.ceil(self.wait() or 1))
            raise RateLimited(detail=self.message(wait), wait=wait)

    def count(self, request: Any) -> None:
        """One wrong code more for the address."""
        if self.get_rate() is None:
            return
        try:
            self._history_load(request)
            self.history.insert(0, self.now)
            self.cache.set(self.key, self.history, self.duration)
        except CACHE_ERRORS as exc:
            logger.error("rate limits unavailable, the cache does not answer: %s", exc)


OPENED_CODES_KEY = "table_codes_opened"
"""The session's list of the table codes it has opened: its phone is not refused them when
its address has spent its wrong codes (a stranger guessing on the venue's Wi-Fi does not
lock out the phones already at their tables)."""


def _opened_codes(request: HttpRequest | Request) -> list[str]:
    session = getattr(request, "session", None)
    return list(session.get(OPENED_CODES_KEY, [])) if session is not None else []


@contextmanager
def table_code_guesses_limited(request: HttpRequest | Request, code: str) -> Iterator[None]:
    """Around a read or write of a table code: refused (RateLimited) while the address
    has spent its wrong codes, unless this session opened the code before; a code no
    table has (UnknownTableCodeError) is counted, a code that opens is remembered by the
    session (if the client keeps one)."""
    code = code.strip().upper()
    opened = _opened_codes(request)
    throttle = TableCodeGuessThrottle()
    if code not in opened:
        throttle.refuse_when_spent(request)
    try:
        yield
    except UnknownTableCodeError:
        throttle.count(request)
        raise
    session = getattr(request, "session", None)
    if session is not None and code not in opened and session.session_key:
        session[OPENED_CODES_KEY] = [*opened[-19:], code]


class ActionThrottle(ScopedThrottle):
    """Moves at a table, per person (over HTTP: the WebSocket only listens)."""

    scope = "actions"
    what = gettext_lazy("moves")


class ChatThrottle(ScopedThrottle):
    """Lines written in the tables' chats, per person."""

    scope = "chat"
    what = gettext_lazy("chat messages")


class SettingsThrottle(ScopedThrottle):
    """A person's own settings and notices (marking read, email choices), per person."""

    scope = "settings"
    what = gettext_lazy("changes of your settings and notifications")


def throttle_check(request: HttpRequest | Request, throttle_class: type[ScopedThrottle]) -> None:
    """Apply an API throttle to any request, a Django view's too; RateLimited if refused."""
    throttle_class().allow_request(request, None)


# ---------------------------------------------------------------- sign-in


class SignInLockedError(RateLimited):
    """429 for a username locked after too many wrong passwords."""

    def __init__(self, lock: SignInLock) -> None:
        super().__init__(detail=lock.message(), wait=lock.seconds_left())
        self.lock = lock


def password_authenticate(request: HttpRequest | Request, *, username: str, password: str) -> User:
    """The account of this username and password, or: SignInLockedError (429) while the
    username is locked, InvalidInputError (400) for a wrong username or password."""
    user = authenticate(request, username=username, password=password)
    if user is not None:
        return user
    lock = sign_in_lock_for(request, username=username)
    if lock is not None:
        raise SignInLockedError(lock)
    raise InvalidInputError(_("wrong username or password"))


# ---------------------------------------------------------------- OpenAPI


class ThrottledAutoSchema(AutoSchema):
    """drf-spectacular's schema, plus the 429 answer of every limited write."""

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        bodies: dict[str, Any] = super()._get_response_bodies(direction)
        throttled = any(isinstance(t, ScopedThrottle) for t in self.view.get_throttles())
        if direction == "response" and throttled and self.method not in SAFE_METHODS:
            answer = OpenApiResponse(
                ErrorSerializer,
                description="Too many requests (a rate limit, or a locked sign-in); "
                "Retry-After says in how many seconds to try again.",
            )
            body = self._get_response_for_code(  # type: ignore[no-untyped-call]
                answer, "429", direction=direction
            )
            body["headers"] = {
                "Retry-After": {
                    "schema": {"type": "integer"},
                    "description": "Seconds to wait before trying again.",
                }
            }
            bodies.setdefault("429", body)
        return bodies
