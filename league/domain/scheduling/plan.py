"""What a season scheduler returns."""

from __future__ import annotations

from dataclasses import dataclass

from league.domain.scheduling.local_search import SearchResult
from league.domain.scheduling.model import Round


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """Rounds for a season (or the rest of one) and how they were made."""

    rounds: tuple[Round, ...]
    method: str
    """E.g. ``"whist design Wh(12) (1-rotational on Z_11+inf)"`` or ``"local search"``."""
    search: SearchResult | None = None
    """The local search's cost and lower bound, when it planned some of the rounds."""
