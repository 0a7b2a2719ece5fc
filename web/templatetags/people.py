"""``{% include "web/_competitor_name.html" with name=... link=links|link_of:competitor_id %}``:
the link of a competitor's name (web.selectors.competitor_links) looked up in a page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template

register = template.Library()


@register.filter
def link_of(links: Mapping[int, Any] | None, competitor_id: int) -> Any:
    """The link of ``competitor_id`` in ``links`` (None when it has none)."""
    return (links or {}).get(competitor_id)
