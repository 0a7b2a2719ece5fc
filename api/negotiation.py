"""Content negotiation that reads ``?format=`` as the schema writes it: an enum of the
view's formats (``json``, ``ndjson``), so an empty ``?format=`` is a format no renderer
has, answered 404 as DRF answers ``?format=xml``, not taken for absent."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.http import Http404
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request


class EmptyFormatRefused(DefaultContentNegotiation):
    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[Any, str]:
        override = self.settings.URL_FORMAT_OVERRIDE
        if format_suffix is None and override and request.query_params.get(override) == "":
            raise Http404("no format named ''")
        return super().select_renderer(request, renderers, format_suffix)
