"""A signed-in person's own parts of a shared page (api.read_cache.personal_page): the
regions every page marks in base.html (the join link, the account header with their
counts and the log-out form, their messages, their script) and, for a page with more, its
own. Each is rendered for the request from templates the full page includes too, so the
shared page with these in place is the page the view would have rendered for them.

base.html's regions are the same on every page a person reads: where the read cache hands
them in already kept (api.kept_parts.BaseRegions), only the page's own are rendered.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string

from api.kept_parts import BASE_REGIONS_ATTRIBUTE, BaseRegions
from api.read_cache import PERSONAL_REGION

BASE_TEMPLATE = "_personal_parts.html"


def _regions(template: str, context: dict[str, Any], request: HttpRequest) -> dict[str, str]:
    """The regions ``template`` marks, by name, as it renders them for ``request``."""
    rendered = render_to_string(template, context, request=request)
    return {found.group(1): found.group(2) for found in PERSONAL_REGION.finditer(rendered)}


def base_regions(request: HttpRequest) -> dict[str, str]:
    """base.html's regions of the person: the kept ones the read cache handed in, else
    rendered (and handed back to be kept)."""
    handed = getattr(request, BASE_REGIONS_ATTRIBUTE, None)
    if isinstance(handed, BaseRegions) and handed.kept is not None:
        return dict(handed.kept)
    regions = _regions(BASE_TEMPLATE, {}, request)
    if isinstance(handed, BaseRegions):
        handed.rendered = dict(regions)
    return regions


def personal_parts(
    request: HttpRequest, template: str, context: dict[str, Any] | None = None
) -> dict[str, str]:
    """The person's regions, by name: base.html's and those ``template`` marks (the
    page's own, rendered with ``context``)."""
    regions = base_regions(request)
    own = _regions(template, context or {}, request)
    if own.keys() & regions.keys():
        raise ValueError(
            f"{template} marks a region of base.html's: {sorted(own.keys() & regions.keys())}"
        )
    return regions | own


def base_parts(request: HttpRequest, **_kwargs: Any) -> dict[str, str]:
    """A page whose only personal parts are base.html's."""
    return base_regions(request)
