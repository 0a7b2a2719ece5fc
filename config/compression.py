"""gzip for the API's JSON (match records among them) and nothing else the views answer.

What is compressed: answers of type ``application/json`` and ``application/x-ndjson`` (the
API, the records, a replay's timeline; not a streamed answer such as a tournament's
records.ndjson, which goes out as it is written), to a client whose
Accept-Encoding has gzip, by Django's GZipMiddleware (which adds ``Vary: Accept-Encoding``,
weakens the ETag, and leaves out answers under 200 bytes). A finished record of 25 KB is
about 4 KB sent. Static files are compressed once by ``collectstatic``
(whitenoise.storage.CompressedStaticFilesStorage) and WhiteNoise serves the ``.gz``.

What is not: HTML pages. BREACH reads a secret out of a compressed answer's length when
the answer also reflects text an attacker chooses; our pages carry a CSRF token (masked
anew each answer, which Django does against BREACH) but also other things a reader may
not see, next to reflected input (the language switcher's ``next`` is the requested path
and query). Leaving pages uncompressed takes BREACH off the table whatever a page holds.
The JSON answers compressed hold no CSRF token, and the one that holds a secret, the API
token's (POST /api/auth/token/), is left out (``UNCOMPRESSED_PATHS``). docs/operations.md,
*Compression*.

First in MIDDLEWARE after the NUL check, so that read-cache hits (answered by the next
middleware) are compressed too; under ASGI in a thread of its own, as those hits are, so
compressing never waits for the process's one thread of synchronous code.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from inspect import iscoroutinefunction

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.middleware.gzip import GZipMiddleware
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.decorators import sync_and_async_middleware

from asgiref.sync import sync_to_async

COMPRESSED_TYPES = ("application/json", "application/x-ndjson")
UNCOMPRESSED_PATHS = ("api-token",)
"""URL names whose answers carry a secret: never compressed (module docstring)."""


def _compressible(request: HttpRequest, response: HttpResponseBase) -> bool:
    content_type = response.get("Content-Type", "").split(";")[0].strip().lower()
    if response.streaming or content_type not in COMPRESSED_TYPES:
        return False
    return request.path_info not in {reverse(name) for name in UNCOMPRESSED_PATHS}


@sync_and_async_middleware
def json_compression_middleware(
    get_response: Callable[[HttpRequest], HttpResponseBase | Awaitable[HttpResponseBase]],
) -> Callable[[HttpRequest], HttpResponseBase | Awaitable[HttpResponseBase]]:
    """gzip for COMPRESSED_TYPES (module docstring)."""
    gzip = GZipMiddleware(get_response)

    def compressed(request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if response.status_code == 304:  # as its 200 (RFC 9110 15.4.5), which varies so
            patch_vary_headers(response, ("Accept-Encoding",))
        if not _compressible(request, response):
            return response
        answer: HttpResponseBase = gzip.process_response(request, response)
        return answer

    if iscoroutinefunction(get_response):

        async def middleware_async(request: HttpRequest) -> HttpResponseBase:
            response = await get_response(request)
            if response.status_code != 304 and not _compressible(request, response):
                return response
            return await sync_to_async(compressed, thread_sensitive=False)(request, response)

        return middleware_async

    def middleware(request: HttpRequest) -> HttpResponseBase:
        response = get_response(request)
        assert isinstance(response, HttpResponseBase)
        return compressed(request, response)

    return middleware
