"""The API's documentation pages, served offline: Swagger UI at /api/docs/ and ReDoc at
/api/redoc/, both from the pinned drf-spectacular-sidecar static files
(SPECTACULAR_SETTINGS's SIDECAR entries), never from a CDN.

Their Content-Security-Policy lets a browser load nothing but this server's own files
and data: images: Swagger UI's start-up script is a file of its own (the split view), so
no inline script is allowed. ReDoc's "API docs by Redocly" footer asks for its logo from
cdn.redoc.ly; the policy refuses it and ReDoc leaves the image out.
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView

API_DOCS_CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",  # the pages' <style>, ReDoc's styled components
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",  # the schema, and Swagger UI's "Try it out"
        "worker-src 'self' blob:",  # ReDoc's search index
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class _OwnFilesOnly:
    """Adds the Content-Security-Policy to every response of the view."""

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        response["Content-Security-Policy"] = API_DOCS_CONTENT_SECURITY_POLICY
        return response


class ApiSwaggerView(_OwnFilesOnly, SpectacularSwaggerSplitView):
    """Swagger UI; its start-up script comes from ``?script``, not inline."""


class ApiRedocView(_OwnFilesOnly, SpectacularRedocView):
    """ReDoc, without the Google Fonts of drf-spectacular's template."""

    template_name = "api/redoc.html"
