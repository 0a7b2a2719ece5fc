"""A signed-in person's own parts of a shared page (api.read_cache.personal_page): the
regions every page marks in base.html (the join link, the account header with their
counts and the log-out form, their messages, their script) and, for a page with more, its
own. Each is rendered once for the request, from templates the full page includes too, so
the shared page with these in place is the page the view would have rendered for them.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string

from api.read_cache import PERSONAL_REGION

BASE_TEMPLATE = "_personal_parts.html"


def personal_parts(
    request: HttpRequest, template: str = BASE_TEMPLATE, context: dict[str, Any] | None = None
) -> dict[str, str]:
    """The person's regions, by name, as ``template`` (which marks each) renders them."""
    rendered = render_to_string(template, context or {}, request=request)
    return {found.group(1): found.group(2) for found in PERSONAL_REGION.finditer(rendered)}


def base_parts(request: HttpRequest, **_kwargs: Any) -> dict[str, str]:
    """A page whose only personal parts are base.html's."""
    return personal_parts(request)
