"""The reads of competitors (a person's account or a bot version, one competitor each):
the list and look-ups by id.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from league.models import (
    Competitor,
)


def competitor_list(*, kind: str | None = None) -> QuerySet[Competitor]:
    """Every competitor by name; ``kind`` "person" or "bot" keeps only those."""
    competitors = Competitor.objects.order_by("name", "id")
    if kind == "person":
        competitors = competitors.filter(user__isnull=False)
    elif kind == "bot":
        competitors = competitors.filter(bot_version__isnull=False)
    return competitors


def competitor_find(*, competitor_id: int) -> Competitor | None:
    return Competitor.objects.select_related("bot_version__bot").filter(pk=competitor_id).first()


def competitors_find(*, competitor_ids: Iterable[int]) -> list[Competitor]:
    """The competitors of these ids that exist (a missing id is simply not there)."""
    return list(Competitor.objects.filter(pk__in=list(competitor_ids)))
