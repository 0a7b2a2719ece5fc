"""The Content-Security-Policy of every answer: scripts, styles, images, fonts and
connections from this server only, no inline script or style, no plugin, no other base
URL, forms posted here only, and no framing by any page.

The pages are written for it: every script is a file of ours (a page's data travels in
``<script type="application/json">`` islands and ``data-`` attributes, which are not
run), no ``on...=`` handler or ``style=""`` attribute is in the markup, and htmx is told
not to add its indicator ``<style>`` (base.html's ``htmx-config``). A view that sets a
policy of its own keeps it (the API docs', api/docs.py). A read-cache hit gets it from
api/read_cache.py's ``Outer``, as if it had passed here. docs/operations.md,
*Content-Security-Policy*.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

HEADER = "Content-Security-Policy"
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",  # data: for the images CSS and SVG carry inline
        "font-src 'self'",
        "connect-src 'self'",  # fetches and the WebSockets, to this host only
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class ContentSecurityPolicyMiddleware:
    """Adds CONTENT_SECURITY_POLICY to every answer that has no policy of its own."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.process_response(request, self.get_response(request))

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        response.headers.setdefault(HEADER, CONTENT_SECURITY_POLICY)
        return response
