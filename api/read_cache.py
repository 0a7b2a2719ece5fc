"""A shared cache of public reads, part of the project's HTTP layer under the API and the
pages: anonymous GETs of the hot pages and API reads (standings, ladders, match lists,
records, replays), kept in Django's default cache (Redis with REDIS_URL, files under
VAR_DIR otherwise: every web process and worker shares it).

Correctness first (docs/operations.md, "Caching"):

- **Only public reads** are stored: an answer computed for a signed-in user, a session
  cookie, a messages cookie or an Authorization header is never stored. A person's own
  pages, hidden hands and authors' logs are therefore never in it. A signed-in person is
  served a stored page only through ``personal_page`` and ``_early_signed_in_hit``: the
  shared page with their own regions (header, seat, notices) rendered for them, their own
  CSRF token, and the normal path whenever anything needed is not in the cache; an early
  hit splices in the person's regions kept under their versions (api.kept_parts).
- **Invalidation by generation**: every entry holds the *reads generation* it was computed
  under (league/reads_generation.py: counters in the cache that the league's writes move
  on). An entry is served while its generation is the current one (both read in one
  round trip), and for READ_CACHE_LAG_SECONDS after it was computed whatever changed
  since (5 s by default: a page may lag a change by that much, and a ladder that moves the
  generations on several times a second does not make every page computed again each
  time; 0 for none); entries expire by themselves (``READ_CACHE_SECONDS``). A page that never
  shows a running match's progress (``SETTLED``: standings, ladders, ratings) keys the
  generation that a running match's progress leaves alone; see ``READS``.
- **Per-visitor parts stay per visitor**: the pages carry a CSRF token (the language
  switcher's form); a stored page holds a placeholder instead, filled with the visitor's
  own token when served. A page in which a token of the visitor is found anywhere else is
  not stored. The key holds the language, the visitor's time zone (its
  cookie), host, scheme and ``Accept`` header.
- Cached HTML answers say ``Cache-Control: private, no-cache`` (their CSRF token is the
  visitor's: no shared proxy may keep them).

``READ_CACHE=off`` turns it off (the benchmark's reference run). A cache that does not
answer is skipped: the page is computed as without it.

Why this module is long: the key, the storing, the serving and the two early answers (a
visitor's and a signed-in person's hit, before the rest of the middleware) are one
contract about what may be served to whom; each of them must agree with the others on the
key, the placeholder of the CSRF token, the generations and the headers, and split apart
that agreement would be in no one file a reviewer reads.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import re
import time
import zoneinfo
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import tzinfo
from functools import wraps
from inspect import iscoroutinefunction
from typing import Any, TypeVar, cast

from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends import cached_db
from django.contrib.sessions.backends.base import SessionBase
from django.core.cache import cache, caches
from django.db import close_old_connections
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware import csrf
from django.middleware.csrf import get_token
from django.urls import URLResolver, get_resolver, get_urlconf
from django.urls.resolvers import ResolverMatch
from django.utils import timezone, translation
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.crypto import constant_time_compare
from django.utils.decorators import sync_and_async_middleware
from django.utils.functional import SimpleLazyObject, empty
from django.utils.module_loading import import_string
from django.utils.translation import get_language

from asgiref.sync import sync_to_async

from accounts import kept_users
from api import kept_parts
from api.csrf_tokens import csrf_secret_new, csrf_token_masked
from league import person_counts
from league.display_settings import cookie_time_zone, time_zone_known
from league.reads_generation import (
    GENERATION_KEY,
    PROGRESS_KEY,
    finished_at,
    finished_key,
    read_cache_on,
)

log = logging.getLogger(__name__)

HIT_HEADER = "X-Read-Cache"
PLACEHOLDER = "\x00csrf-token\x00"
TOKEN_PATTERN = re.compile(
    r'(name="csrfmiddlewaretoken" value="|name="csrf-token" content=")([A-Za-z0-9]{64})(")'
)
ANY_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{32,64}(?![A-Za-z0-9])")
CACHEABLE_TYPES = ("text/html", "application/json")
STORED_HEADERS = ("Content-Type", "Content-Language", "ETag", "Cache-Control", "Vary")
"""What a stored answer keeps of the view's headers: a hit says what the view said (its
``Vary`` too: a record varies on Authorization, which the read cache's own list lacks)."""
UNCHANGED_HEADERS = ("ETag", "Cache-Control", "Vary")
"""What a 304 repeats of the stored 200 (RFC 9110 15.4.5): the same caching headers."""

View = TypeVar("View", bound=Callable[..., Any])


KNOWN_AUTHENTICATION = frozenset(
    {
        "rest_framework.authentication.TokenAuthentication",  # the Authorization header
        "api.token_scopes.ApiTokenAuthentication",  # the Authorization header (Token, Bearer)
        "rest_framework.authentication.SessionAuthentication",  # the session cookie
        "rest_framework.authentication.BasicAuthentication",  # the Authorization header
    }
)
"""The API's ways of signing in whose sign (a header, a cookie) ``_anonymous`` looks for;
with any other in the settings nothing is cached."""


def _anonymous(request: HttpRequest) -> bool:
    """Nobody signed in, by what every way of signing in needs (before they run)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return False
    if "Authorization" in request.headers:
        return False
    if getattr(request, "_force_auth_user", None) is not None:  # DRF's test client
        return False
    framework: dict[str, Any] = settings.REST_FRAMEWORK
    if not set(framework.get("DEFAULT_AUTHENTICATION_CLASSES", [])) <= KNOWN_AUTHENTICATION:
        return False
    cookies = request.COOKIES
    return settings.SESSION_COOKIE_NAME not in cookies and "messages" not in cookies


PROGRESS = "progress"
"""A page that may show a running match's progress: the progress generation (every write)."""
SETTLED = "settled"
"""A page that never shows a running match's progress (standings, ladders, ratings): the
generation of every write but progress."""
FINISHED_RECORD = "finished-record"
"""A match's record: once finished it never changes (its ETag says so for an hour already),
so its version is the match's end, whatever else the league writes; PROGRESS before."""
FINISHED_PAGE = "finished-page"
"""A match's page (its replay, its API detail): once finished it has no progress left to
show, but names and corrected scores may change: SETTLED; PROGRESS before."""
READS = (PROGRESS, SETTLED, FINISHED_RECORD, FINISHED_PAGE)


def version_of(
    reads: str, match_id: int | None, settled: int, progress: int, finished: str | None
) -> str:
    """The version an answer of a ``reads`` page has now (READS)."""
    if finished is not None and reads == FINISHED_RECORD:
        return f"m{match_id}-{finished}"
    if reads == SETTLED or (finished is not None and reads == FINISHED_PAGE):
        return f"g{settled}"
    return f"p{progress}"


def page_key(request: HttpRequest, language: str | None = None) -> str | None:
    """The cache key of an anonymous GET's answer (its version is in the entry, checked
    against the generations read in the same round trip); None for what is never cached."""
    if not read_cache_on() or request.method not in ("GET", "HEAD") or not _anonymous(request):
        return None
    # A visitor's times are in their time zone's cookie's zone.
    return _key_of(request, language or get_language() or "", cookie_time_zone(request.COOKIES))


def _key_of(request: HttpRequest, language: str, zone: tzinfo | None) -> str:
    """The key of the shared answer of ``request``'s page in ``language`` and ``zone``
    (None: the site's), whoever reads it."""
    what = "\n".join(
        (
            request.get_full_path(),
            request.get_host(),
            request.scheme or "",
            language,
            str(zone or ""),
            request.headers.get("Accept", ""),
        )
    )
    digest = hashlib.sha256(what.encode()).hexdigest()[:40]
    return f"reads:page:{digest}"


def _own_token_in(content: str, request: HttpRequest) -> bool:
    """Whether a token of this visitor's CSRF secret is still in ``content``."""
    unmask = csrf._unmask_cipher_token  # type: ignore[attr-defined]
    secret = request.META.get("CSRF_COOKIE")
    if not secret:
        return False
    for found in ANY_TOKEN.finditer(content):
        text = found.group(0)
        if text == secret or (len(text) == 64 and unmask(text) == secret):
            return True
    return False


def _storable(response: HttpResponse, request: HttpRequest) -> dict[str, Any] | None:
    if response.status_code != 200 or response.streaming:
        return None
    if any(name != settings.CSRF_COOKIE_NAME for name in response.cookies):
        return None
    control = response.get("Cache-Control", "")
    if "private" in control or "no-store" in control:
        return None
    content_type = response.get("Content-Type", "")
    if not content_type.startswith(CACHEABLE_TYPES):
        return None
    charset = response.charset or "utf-8"
    try:
        content = response.content.decode(charset)
    except UnicodeDecodeError:
        return None
    content = TOKEN_PATTERN.sub(lambda m: m.group(1) + PLACEHOLDER + m.group(3), content)
    if _own_token_in(content, request):
        return None
    headers = {name: response[name] for name in STORED_HEADERS if name in response}
    return {"content": content, "charset": charset, "headers": headers}


def _served(
    stored: dict[str, Any], request: HttpRequest, secret: str | None = None
) -> HttpResponse:
    """The stored answer with the visitor's CSRF token: of ``secret`` where the early path
    sets the cookie itself, else through ``get_token`` (which has the chain set it)."""
    content = str(stored["content"])
    content = _filled(content, request) if secret is None else _filled_with(content, secret)
    response = HttpResponse(content.encode(stored["charset"]))
    for name, value in stored["headers"].items():
        response[name] = value
    response[HIT_HEADER] = "hit"
    return response


def _filled(content: str, request: HttpRequest) -> str:
    """The page with the visitor's CSRF token in each placeholder: one masked token for
    the whole answer (a new mask each answer is what keeps the secret from BREACH)."""
    if PLACEHOLDER not in content:
        return content
    return get_token(request).join(content.split(PLACEHOLDER))


def _filled_with(content: str, secret: str) -> str:
    """``_filled`` for the CSRF ``secret`` of a request the chain has not seen."""
    if PLACEHOLDER not in content:
        return content
    return csrf_token_masked(secret).join(content.split(PLACEHOLDER))


def _headers_finish(response: HttpResponse, content_type: str | None = None) -> HttpResponse:
    """The read cache's headers on an answer whose body is of ``content_type`` (the
    response's own unless given: a 304 has no body, its 200's type decides), the same on a
    200 and on its 304."""
    if (content_type or response.get("Content-Type", "")).startswith("text/html"):
        patch_cache_control(response, private=True, no_cache=True)
    patch_vary_headers(response, ("Cookie", "Accept-Language", "Accept"))
    return response


def _not_modified(stored: dict[str, Any], request: HttpRequest) -> HttpResponse | None:
    """A 304 with the stored 200's caching headers, finished as that 200 is."""
    etag = stored["headers"].get("ETag")
    if not etag or etag not in request.headers.get("If-None-Match", ""):
        return None
    unchanged = HttpResponse(status=304)
    del unchanged["Content-Type"]  # no body
    unchanged[HIT_HEADER] = "hit"
    for name in UNCHANGED_HEADERS:
        if name in stored["headers"]:
            unchanged[name] = stored["headers"][name]
    return _headers_finish(unchanged, stored["headers"].get("Content-Type", ""))


@dataclass(frozen=True, slots=True)
class Found:
    """What one round trip to the cache says about a page: the generations, the match's
    end where it matters, and the stored answer if it is of the current version."""

    match_id: int | None
    settled: int
    progress: int
    finished: str | None
    fresh: dict[str, Any] | None
    others: dict[str, Any]


def _lookup(
    key: str, reads: str, kwargs: dict[str, Any], others: Sequence[str] = ()
) -> Found | None:
    """None when the cache does not answer or has no generations yet (it has then);
    ``others``: more keys read in the same round trip (``Found.others``)."""
    match_id = kwargs.get("match_id") if reads in (FINISHED_RECORD, FINISHED_PAGE) else None
    names = [GENERATION_KEY, PROGRESS_KEY, key, *others]
    if match_id is not None:
        names.append(finished_key(match_id))
    try:
        found = cache.get_many(names)
        settled, progress = found.get(GENERATION_KEY), found.get(PROGRESS_KEY)
        if settled is None or progress is None:  # a new cache (or evicted): start them
            cache.add(GENERATION_KEY, 1, timeout=None)
            cache.add(PROGRESS_KEY, 1, timeout=None)
            return None
    except Exception as exc:
        log.warning("read cache: not read (%s)", exc)
        return None
    finished = found.get(finished_key(match_id)) if match_id is not None else None
    now = version_of(reads, match_id, int(settled), int(progress), finished)
    stored = found.get(key)
    fresh = stored if stored is not None and _servable(stored, now) else None
    extra = {name: found[name] for name in others if name in found}
    return Found(match_id, int(settled), int(progress), finished, fresh, extra)


def _servable(stored: dict[str, Any], version: str) -> bool:
    """Of the current version, or computed under an older one less than
    READ_CACHE_LAG_SECONDS ago (what a page shows may lag a change by that much)."""
    if stored.get("version") == version:
        return True
    lag = settings.READ_CACHE_LAG_SECONDS
    return lag > 0 and time.time() - float(stored.get("stored_at", 0.0)) < lag


Personal = Callable[..., dict[str, str] | None]
"""A page's personal parts for the signed-in person of a request (called with the view's
keyword arguments): the HTML of each region marked ``<!--personal:NAME-->`` in the page,
by NAME (``PERSONAL_REGION``); None where this person's page differs from a visitor's
beyond its regions (its owner, an organiser, staff: few readers), so the view renders it
whole for them."""

PERSONAL_REGION = re.compile(r"<!--personal:(\w+)-->(.*?)<!--/personal:\1-->", re.DOTALL)
"""A region of a page that is a person's own (their header, their notices, their forms):
in a shared answer it holds what a visitor sees, and a signed-in person's answer has their
own in its place. A name in a page is escaped (``&lt;!--``): no page text forges one."""


def public_read_cached(view: View, reads: str = PROGRESS, personal: Personal | None = None) -> View:
    """Answer an anonymous GET of ``view`` from the shared cache (module docstring);
    anything else goes to the view untouched. ``reads`` (READS): which changes make its
    answer new. A hit costs one round trip to the cache (the generations, the match's
    end where it matters and the entry, in one MGET) and no query.

    With ``personal`` (a page whose only parts of a person's own are its marked regions),
    a signed-in person's GET is the shared answer too, with ``personal``'s regions in
    place of the visitor's (``personal_page``)."""
    if reads not in READS:
        raise ValueError(f"reads: one of {', '.join(READS)}, not {reads!r}")

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        if personal is not None and _signed_in_reader(request):
            return personal_page(view, personal, reads, request, *args, **kwargs)
        key = page_key(request)
        if key is None:
            return view(request, *args, **kwargs)
        found = _lookup(key, reads, kwargs)
        if found is None:
            return view(request, *args, **kwargs)
        if found.fresh is not None:
            unchanged = _not_modified(found.fresh, request)
            return unchanged or _headers_finish(_served(found.fresh, request))
        response, stored = _computed(view, found, key, reads, request, *args, **kwargs)
        if response.status_code == 304:  # the view's own: headers as its 200's
            return _headers_finish(response)
        if stored is None:
            return response
        response[HIT_HEADER] = "miss"
        return _headers_finish(response)

    wrapped.read_cache_reads = reads  # type: ignore[attr-defined]
    wrapped.read_cache_personal = personal  # type: ignore[attr-defined]
    return cast(View, wrapped)


def _computed(
    view: Callable[..., Any],
    found: Found,
    key: str,
    reads: str,
    request: HttpRequest,
    *args: Any,
    **kwargs: Any,
) -> tuple[HttpResponse, dict[str, Any] | None]:
    """The view's answer to ``request`` (anonymous), and what was stored of it (None:
    nothing)."""
    match_id, settled, progress, finished = (
        found.match_id,
        found.settled,
        found.progress,
        found.finished,
    )
    ended = finished
    if match_id is not None and ended is None:
        # Before the answer: an answer computed after a finish is a finished one's.
        ended = finished_at(int(match_id))
    response = view(request, *args, **kwargs)
    render = getattr(response, "render", None)
    if callable(render) and not getattr(response, "is_rendered", True):
        render()
    if response.status_code == 304:
        return response, None
    storable = _storable(response, request)
    if storable is None:
        return response, None
    storable["version"] = version_of(reads, match_id, int(settled), int(progress), ended)
    storable["stored_at"] = time.time()
    try:
        if match_id is not None and ended is not None and finished is None:
            cache.set(finished_key(match_id), ended, timeout=settings.READ_CACHE_SECONDS)
        cache.set(key, storable, timeout=settings.READ_CACHE_SECONDS)
    except Exception as exc:
        log.warning("read cache: not stored (%s)", exc)
    return response, storable


# ---------------------------------------------------------------- signed-in readers


def _signed_in_reader(request: HttpRequest) -> bool:
    """A person signed in to the pages by their session (not by a header), reading."""
    user = getattr(request, "user", None)
    return (
        read_cache_on()
        and request.method in ("GET", "HEAD")
        and user is not None
        and user.is_authenticated
        and "Authorization" not in request.headers
        and getattr(request, "_force_auth_user", None) is None
    )


def _as_visitor(request: HttpRequest) -> HttpRequest:
    """``request`` as a visitor would make it: nobody signed in, no session or messages
    cookie, none of the person's messages; the same language and time zone (active)."""
    visitor = copy.copy(request)
    visitor.user = AnonymousUser()
    visitor.COOKIES = {
        name: value
        for name, value in request.COOKIES.items()
        if name not in (settings.SESSION_COOKIE_NAME, "messages")
    }
    visitor.META = dict(request.META)
    visitor._messages = ()  # type: ignore[attr-defined]
    return visitor


def _personalised(content: str, parts: dict[str, str]) -> str | None:
    """``content`` with each marked region replaced by the person's (None: a region the
    page marks that ``parts`` lacks, or one ``parts`` has that the page does not mark)."""
    marked = {found.group(1) for found in PERSONAL_REGION.finditer(content)}
    if marked != set(parts):
        return None
    return PERSONAL_REGION.sub(
        lambda found: (
            f"<!--personal:{found.group(1)}-->{parts[found.group(1)]}"
            f"<!--/personal:{found.group(1)}-->"
        ),
        content,
    )


def personal_page(
    view: Callable[..., Any],
    personal: Personal,
    reads: str,
    request: HttpRequest,
    *args: Any,
    **kwargs: Any,
) -> HttpResponse:
    """A signed-in person's page from the shared answer (keyed as a visitor's in the
    person's language and time zone; computed as a visitor's and stored when missing),
    with the person's own regions computed for this request. Never stored as theirs; says
    ``private, no-cache``; their CSRF token in it. Anything unexpected, or ``personal``
    saying None (the person's page is not the shared one): the view as is."""
    parts = personal(request, **kwargs)
    if parts is None:
        return cast(HttpResponse, view(request, *args, **kwargs))
    zone = timezone.get_current_timezone()
    default = timezone.get_default_timezone_name()
    key = _key_of(
        request,
        get_language() or "",
        None if timezone.get_current_timezone_name() == default else zone,
    )
    found = _lookup(key, reads, kwargs)
    if found is None:
        return cast(HttpResponse, view(request, *args, **kwargs))
    stored, hit = found.fresh, "hit"
    if stored is None:
        response, stored = _computed(view, found, key, reads, _as_visitor(request), *args, **kwargs)
        hit = "miss"
    if stored is None or not stored["headers"].get("Content-Type", "").startswith("text/html"):
        return cast(HttpResponse, view(request, *args, **kwargs))
    content = _personalised(str(stored["content"]), parts)
    if content is None:
        return cast(HttpResponse, view(request, *args, **kwargs))
    response = HttpResponse(_filled(content, request).encode(stored["charset"]))
    for name, value in stored["headers"].items():
        if name != "ETag":  # the shared answer's, not this person's page's
            response[name] = value
    response[HIT_HEADER] = hit
    patch_vary_headers(response, ("Cookie",))
    return _headers_finish(response)


# ---------------------------------------------------------------- hits before the rest


@dataclass(frozen=True, slots=True)
class Outer:
    """The middleware a hit passes through as if it came after them: Prometheus's request
    counts and latencies, SecurityMiddleware's redirect and headers, and the
    Content-Security-Policy (config/content_security.py). In
    settings.MIDDLEWARE they come after this one, so that under ASGI a hit never waits
    for the process's one thread of synchronous code (Django runs their methods there);
    a hit runs them here, in its own thread (they are quick and thread-safe)."""

    metrics: Any = None
    security: Any = None
    content_security: Any = None

    @classmethod
    def of(cls, get_response: Callable[[HttpRequest], Any]) -> Outer:
        kinds = {
            "metrics": OUTER_METRICS,
            "security": OUTER_SECURITY,
            "content_security": OUTER_CONTENT_SECURITY,
        }
        return cls(
            **{
                name: import_string(path)(get_response)
                for name, path in kinds.items()
                if path in settings.MIDDLEWARE
            }
        )


OUTER_METRICS = "django_prometheus.middleware.PrometheusBeforeMiddleware"
OUTER_SECURITY = "django.middleware.security.SecurityMiddleware"
OUTER_CONTENT_SECURITY = "config.content_security.ContentSecurityPolicyMiddleware"


def _early_hit(request: HttpRequest, outer: Outer = Outer()) -> HttpResponse | None:
    """A cache hit answered before the rest of the middleware and off Django's one thread
    for synchronous code; None: go on as usual (the view's decorator stores a miss).

    Only where the answer is what the rest would give: an anonymous request by its cookies
    and headers alone (no session cookie: AuthenticationMiddleware would find no one), not
    one SecurityMiddleware would redirect, the language LocaleMiddleware would choose, the
    visitor's CSRF cookie (one is set where there was none, as CsrfViewMiddleware does),
    XFrameOptionsMiddleware's header, and ``outer``'s counts and headers."""
    if not read_cache_on() or request.method not in ("GET", "HEAD") or not _anonymous(request):
        return None
    if outer.security is not None and outer.security.process_request(request) is not None:
        return None  # redirected to HTTPS by the chain
    match = _cached_page_match(request.path_info)
    if match is None:
        return None
    reads = match.func.read_cache_reads  # type: ignore[attr-defined]
    language = translation.get_language_from_request(request)
    key = page_key(request, language)
    found = _lookup(key, reads, match.kwargs) if key is not None else None
    if found is None or found.fresh is None:
        return None
    usable, cookie = _csrf_cookie(request)
    if not usable:
        return None  # CsrfViewMiddleware's to mend
    if outer.metrics is not None:
        outer.metrics.process_request(request)
    fresh_secret = cookie is None
    if cookie is None:
        cookie = csrf_secret_new()
    request.META["CSRF_COOKIE"] = cookie
    with translation.override(language):
        unchanged = _not_modified(found.fresh, request)
        response = unchanged or _headers_finish(_served(found.fresh, request, cookie))
    return _early_finish(request, response, cookie, fresh_secret, language, outer)


_page_matches: dict[tuple[URLResolver, str], ResolverMatch] = {}
"""The views of the paths the read cache serves, resolved once per process and URL
configuration (Django resolves each request anew: 15-70 µs of a hit here)."""
PAGE_MATCHES_KEPT = 4096


def _cached_page_match(path: str) -> ResolverMatch | None:
    """What ``path`` resolves to where its view is one the read cache serves; else None
    (no view, or another one: the chain answers)."""
    resolver = get_resolver(get_urlconf())
    match = _page_matches.get((resolver, path))
    if match is None:
        try:
            match = resolver.resolve(path)
        except Http404:
            return None
        if getattr(match.func, "read_cache_reads", None) is None:
            return None
        if len(_page_matches) >= PAGE_MATCHES_KEPT:
            _page_matches.clear()
        _page_matches[(resolver, path)] = match
    return match


def _csrf_cookie(request: HttpRequest) -> tuple[bool, str | None]:
    """Whether the request's CSRF cookie (None: none) is one CsrfViewMiddleware takes as
    it is (False: it would mend it: not early)."""
    cookie = request.COOKIES.get(settings.CSRF_COOKIE_NAME)
    if cookie is not None and (
        len(cookie) != csrf.CSRF_SECRET_LENGTH or not set(cookie) <= _ALLOWED
    ):
        return False, None
    return True, cookie


def _early_finish(
    request: HttpRequest,
    response: HttpResponse,
    cookie: str,
    fresh_secret: bool,
    language: str,
    outer: Outer,
) -> HttpResponse:
    """An early answer with what the middleware after this one would have added."""
    if fresh_secret:
        response.set_cookie(
            settings.CSRF_COOKIE_NAME,
            cookie,
            max_age=settings.CSRF_COOKIE_AGE,
            domain=settings.CSRF_COOKIE_DOMAIN,
            path=settings.CSRF_COOKIE_PATH,
            secure=settings.CSRF_COOKIE_SECURE,
            httponly=settings.CSRF_COOKIE_HTTPONLY,
            samesite=settings.CSRF_COOKIE_SAMESITE,
        )
    response.setdefault("X-Frame-Options", getattr(settings, "X_FRAME_OPTIONS", "DENY"))
    response["Content-Language"] = language
    if outer.content_security is not None:
        response = outer.content_security.process_response(request, response)
    if outer.security is not None:
        response = outer.security.process_response(request, response)
    if outer.metrics is not None:
        response = outer.metrics.process_response(request, response)
    return response


_ALLOWED = frozenset(csrf.CSRF_ALLOWED_CHARS)
CACHED_DB_SESSIONS = "django.contrib.sessions.backends.cached_db"


# ------------------------------------------------ signed-in hits before the rest

PREFETCHED_COUNTS = "_person_counts_prefetched"
"""The request attribute with the person's header counts an early hit read with the page
(web.context_processors.person_counts uses them instead of asking the cache again)."""

DISPLAY_SESSION_KEY = "person_display"
"""The session's copy of the person's language and time zone (web.person_display)."""


@dataclass(frozen=True, slots=True)
class Reader:
    """A signed-in reader as their session in the cache says: who, how they signed in."""

    session: SessionBase
    user_id: int
    auth_hash: str
    language: str
    zone: tzinfo | None

    @property
    def keys_chosen_by(self) -> tuple[int, str, tzinfo | None]:
        """What chooses the cache keys of their hit: who, in which language and zone."""
        return (self.user_id, self.language, self.zone)


def _session_store(request: HttpRequest) -> cached_db.SessionStore | None:
    """The store of ``request``'s session cookie where an early hit may read it (None:
    another backend, or not a key: the chain's)."""
    if settings.SESSION_ENGINE != CACHED_DB_SESSIONS:
        return None
    store = cached_db.SessionStore(request.COOKIES.get(settings.SESSION_COOKIE_NAME))
    return store if store.session_key is not None else None


def _reader_of(request: HttpRequest, store: SessionBase, data: Any) -> Reader | None:
    """The reader that ``data``, the session's copy in the cache, says (None: anything the
    rest of the chain must decide: no copy, an unknown backend, messages waiting in it, no
    kept display settings)."""
    if not isinstance(data, dict):
        return None  # ended, expired or only in the database: the chain reads it
    user_id, backend = data.get(auth.SESSION_KEY), data.get(auth.BACKEND_SESSION_KEY)
    auth_hash = data.get(auth.HASH_SESSION_KEY)
    display = data.get(DISPLAY_SESSION_KEY)
    if user_id is None or backend not in settings.AUTHENTICATION_BACKENDS or not auth_hash:
        return None
    if "_messages" in data or not isinstance(display, dict):
        return None
    try:
        user_pk = int(user_id)
    except (TypeError, ValueError):
        return None
    if display.get("user") != user_pk:
        return None
    language = display.get("language") or translation.get_language_from_request(request)
    zone_name = display.get("time_zone") or ""
    if zone_name and not time_zone_known(zone_name):
        return None
    zone = (
        zoneinfo.ZoneInfo(zone_name)
        if zone_name and zone_name != timezone.get_default_timezone_name()
        else None
    )
    store._session_cache = data  # type: ignore[attr-defined]
    return Reader(store, user_pk, str(auth_hash), str(language), zone)


READER_GUESSES_MAX = 10_000
_reader_guesses: dict[bytes, tuple[int, str, tzinfo | None]] = {}
"""Who each session this process answered early was, by a digest of its key (the keys
themselves are not kept): the person's id, language and time zone, used only to choose
which keys to read *with* the session, in one round trip; the session in that same answer
is what decides (a guess that it contradicts is read again under the session's own).
Emptied when full."""


def _guess_key(session_key: str) -> bytes:
    return hashlib.blake2b(session_key.encode(), digest_size=16).digest()


def _reader_guess_keep(reader: Reader) -> None:
    if len(_reader_guesses) >= READER_GUESSES_MAX:
        _reader_guesses.clear()
    key = reader.session.session_key
    if key is not None:
        _reader_guesses[_guess_key(key)] = reader.keys_chosen_by


@dataclass(frozen=True, slots=True)
class PersonKeys:
    """The cache keys of a signed-in person's hit: the shared page's (by their language
    and time zone) and theirs (api.kept_parts, accounts.kept_users, league.person_counts)."""

    page: str
    user: list[str]
    counts: list[str]
    own: str
    entry: str
    base: str

    @property
    def others(self) -> list[str]:
        return [*self.user, *self.counts, self.own, self.entry, self.base]


def _person_keys(request: HttpRequest, chosen_by: tuple[int, str, tzinfo | None]) -> PersonKeys:
    user_id, language, zone = chosen_by
    page = _key_of(request, language, zone)
    return PersonKeys(
        page=page,
        user=[kept_users.version_key(user_id), kept_users.kept_key(user_id)],
        counts=person_counts.person_counts_keys(user_id),
        own=kept_parts.own_version_key(user_id),
        entry=kept_parts.parts_key(user_id, page),
        base=kept_parts.base_key(user_id, language),
    )


def _early_signed_in_hit(request: HttpRequest, outer: Outer = Outer()) -> HttpResponse | None:
    """A signed-in person's GET of a page with personal regions whose shared answer is in
    the cache, answered before the rest of the middleware and without the view: in one
    round trip their session, the generations, the shared page, their account
    (accounts.kept_users), header counts, versions and kept regions (api.kept_parts); the
    regions spliced in with their CSRF token. Regions not kept (or old) are rendered as
    ``personal_page`` renders them, and kept. None (the chain as usual) wherever the chain
    might answer otherwise: no session in the cache, a session whose auth hash is not the
    account's, an inactive account, messages waiting, an unusable CSRF cookie, no fresh
    shared answer, or a page that is not the shared one for this person."""
    if (
        not read_cache_on()
        or request.method not in ("GET", "HEAD")
        or settings.SESSION_COOKIE_NAME not in request.COOKIES
        or "messages" in request.COOKIES
        or "Authorization" in request.headers
    ):
        return None
    if outer.security is not None and outer.security.process_request(request) is not None:
        return None
    match = _cached_page_match(request.path_info)
    personal = getattr(match.func, "read_cache_personal", None) if match is not None else None
    if match is None or personal is None:
        return None
    reads = match.func.read_cache_reads  # type: ignore[attr-defined]
    usable, cookie = _csrf_cookie(request)
    if not usable:
        return None
    store = _session_store(request)
    if store is None:
        return None
    session_key = store.cache_key
    together = settings.SESSION_CACHE_ALIAS == "default"  # the session in the page's read
    guess = _reader_guesses.get(_guess_key(str(store.session_key))) if together else None
    try:
        if guess is None:  # the session first, then the keys it names
            reader = _reader_of(
                request, store, caches[settings.SESSION_CACHE_ALIAS].get(session_key)
            )
            if reader is None:
                return None
            keys = _person_keys(request, reader.keys_chosen_by)
            found = _lookup(keys.page, reads, match.kwargs, keys.others)
        else:  # the guessed keys and the session at once: the session in the answer decides
            keys = _person_keys(request, guess)
            found = _lookup(keys.page, reads, match.kwargs, [*keys.others, session_key])
            reader = _reader_of(request, store, found.others.get(session_key)) if found else None
            if reader is None:
                return None  # ended (signed out), changed or gone: the chain decides
            if reader.keys_chosen_by != guess:  # read again under its own
                keys = _person_keys(request, reader.keys_chosen_by)
                found = _lookup(keys.page, reads, match.kwargs, keys.others)
    except Exception as exc:
        log.warning("read cache: session not read (%s)", exc)
        return None
    if found is None or found.fresh is None:
        return None
    _reader_guess_keep(reader)
    user_id = reader.user_id
    user_keys, counts_keys = keys.user, keys.counts
    own_key, entry_key = keys.own, keys.entry
    stored = found.fresh
    if not stored["headers"].get("Content-Type", "").startswith("text/html"):
        return None
    fresh_secret = cookie is None
    cookie = cookie or csrf_secret_new()
    versions = kept_parts.versions_of(found.others, [user_keys[0], counts_keys[0], own_key])
    page_version = version_of(reads, found.match_id, found.settled, found.progress, found.finished)
    parts = kept_parts.kept_parts_of(found.others.get(entry_key), versions, page_version)
    content = None
    if parts is not None and kept_users.kept_signed_in(
        found.others.get(user_keys[1]), found.others.get(user_keys[0]), reader.auth_hash
    ):
        content = _personalised(str(stored["content"]), parts)
    if content is None:  # the regions rendered for this request (and kept)
        if found.others.get(own_key) is None:
            kept_parts.own_version_started(user_id)  # kept from the next hit on
        base = kept_parts.BaseRegions(
            kept=kept_parts.kept_parts_of(found.others.get(keys.base), versions, None)
        )
        rendered = _signed_in_content(
            request, reader, cookie, found, stored, match.kwargs, personal, keys, base
        )
        if rendered is None:
            return None
        content, parts = rendered
        if parts is not None and versions is not None:
            kept_parts.parts_keep(entry_key, parts, versions, page_version)
            if base.rendered is not None:
                regions = {name: parts[name] for name in base.rendered}
                kept_parts.parts_keep(keys.base, regions, versions, None, kept_parts.BASE_SECONDS)
    if outer.metrics is not None:
        outer.metrics.process_request(request)
    response = HttpResponse(_filled_with(content, cookie).encode(stored["charset"]))
    for name, value in stored["headers"].items():
        if name != "ETag":  # the shared answer's, not this person's page's
            response[name] = value
    response[HIT_HEADER] = "hit"
    patch_vary_headers(response, ("Cookie",))
    _headers_finish(response)
    return _early_finish(request, response, cookie, fresh_secret, reader.language, outer)


def _signed_in_content(
    request: HttpRequest,
    reader: Reader,
    cookie: str,
    found: Found,
    stored: dict[str, Any],
    kwargs: dict[str, Any],
    personal: Personal,
    keys: PersonKeys,
    base: kept_parts.BaseRegions,
) -> tuple[str, dict[str, str] | None] | None:
    """The shared page with ``reader``'s regions rendered for this request (base.html's
    from ``base`` where it holds them; their token's placeholder still in), and those
    regions as they may be kept (None: not kept: a token of the person's secret found in
    them); None: the chain answers (the account not served as signed in, the page not the
    shared one for them, anything failing)."""
    version = found.others.get(keys.user[0])
    kept = kept_users.kept_user_of(found.others.get(keys.user[1]), version)
    with translation.override(reader.language), timezone.override(reader.zone):
        try:
            if kept is None:
                kept = kept_users.user_read_and_keep(reader.user_id, version)
            if kept is None:
                return None
            user, auth_hash = kept
            if not user.is_active or not constant_time_compare(reader.auth_hash, auth_hash):
                return None  # the chain decides (a password changed: signed out)
            reading = copy.copy(request)  # the chain gets ``request`` as it came
            reading.META = dict(request.META)
            reading.user = user  # type: ignore[assignment]  # the project's User
            reading.session = reader.session
            reading._messages = ()  # type: ignore[attr-defined]
            reading.LANGUAGE_CODE = reader.language
            counts = person_counts.person_counts_found(found.others, reader.user_id)
            if counts is not None:
                setattr(reading, PREFETCHED_COUNTS, counts)
            reading.META["CSRF_COOKIE"] = cookie
            setattr(reading, kept_parts.BASE_REGIONS_ATTRIBUTE, base)
            rendered = personal(reading, **kwargs)
            if rendered is None:
                return None
            content = _personalised(str(stored["content"]), rendered)
        except Exception as exc:  # the chain answers it (a 404, a database down ...)
            log.debug("read cache: signed-in hit left to the chain (%r)", exc)
            return None
    if content is None:
        return None
    placeheld = {
        name: TOKEN_PATTERN.sub(lambda m: m.group(1) + PLACEHOLDER + m.group(3), part)
        for name, part in rendered.items()
    }
    content = TOKEN_PATTERN.sub(lambda m: m.group(1) + PLACEHOLDER + m.group(3), content)
    if any(_own_token_in(part, reading) for part in placeheld.values()):
        return None  # a token of theirs where no placeholder can stand: the chain's page
    return content, placeheld


def _early_hit_in_thread(request: HttpRequest, outer: Outer) -> HttpResponse | None:
    """``_early_hit``, else ``_early_signed_in_hit``, in a thread of asgiref's pool, not
    Django's thread for synchronous code: a signed-in hit's database connection (a
    reader's row, a page's own rows) is closed or given back to the pool at the end, as
    Django's request signals do for the requests they see."""
    hit = _early_hit(request, outer)
    if hit is not None or settings.SESSION_COOKIE_NAME not in request.COOKIES:
        return hit
    close_old_connections()
    try:
        return _early_signed_in_hit(request, outer)
    finally:
        close_old_connections()


def _own_writes_after(request: HttpRequest) -> None:
    """After a signed-in person's POST, PUT, PATCH or DELETE (answered: its writes are
    committed): their kept regions are old (api.kept_parts), whatever it wrote. Only a
    user the request already knows (AuthenticationMiddleware's lazy user once read, or
    one DRF set): a request that never asked who it was wrote nothing as anyone, and
    reading its session now, after the chain, could fail outside the chain's handling
    of a database down."""
    if request.method in kept_parts.SAFE_METHODS or not read_cache_on():
        return
    user = request.__dict__.get("user")
    if isinstance(user, SimpleLazyObject):
        user = user._wrapped
        if user is empty:
            return
    if user is not None and user.is_authenticated and user.pk is not None:
        kept_parts.own_writes_moved_on(int(user.pk))


@sync_and_async_middleware
def read_cache_middleware(get_response: Callable[[HttpRequest], Any]) -> Callable[..., Any]:
    """First of all (config/settings.py): a hit of the shared cache is answered here, as
    the middleware after it would have passed it (``Outer``); anything else goes on. The
    site's handler runs the chain synchronously in the request's thread
    (config/request_threads.py), and so does this; the asynchronous branch (a hit in a
    thread of the loop's pool) serves Django's own asynchronous handlers (``AsyncClient``),
    which take it when no sync-only middleware follows. After a signed-in person's write,
    their kept regions are made old (``_own_writes_after``)."""
    outer = Outer.of(get_response)
    if iscoroutinefunction(get_response):

        async def middleware_async(request: HttpRequest) -> Any:
            hit = await sync_to_async(_early_hit_in_thread, thread_sensitive=False)(request, outer)
            if hit is not None:
                return hit
            response = await get_response(request)
            if request.method not in kept_parts.SAFE_METHODS:
                await sync_to_async(_own_writes_after)(request)
            return response

        return middleware_async

    def middleware(request: HttpRequest) -> Any:
        hit = _early_hit(request, outer) or _early_signed_in_hit(request, outer)
        if hit is not None:
            return hit
        response = get_response(request)
        _own_writes_after(request)
        return response

    return middleware
