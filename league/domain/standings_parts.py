"""The stored standings' parts: a tournament's standings accumulator (and, for partnership
play, the margin rating's) as small JSON parts keyed by what they hold, and back.

league.selectors.standings reads the parts and league.services.standings writes them (one
``StandingsPart`` row each); this module says what they are: which accumulators there are
for a tournament's rules, which parts a result touches, and the format's version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from league.domain.ratings_maths import MarginRatingAccumulator
from league.domain.scheduling.model import Mode
from league.domain.scored_results import ResultFields
from league.domain.standings_maths import ScoredMatch, StandingsAccumulator, StandingsRules

STATE_VERSION = 2
"""The format of the parts; a snapshot of another version is rebuilt. 2: per-round points
in blocks of rounds (``r:P:B``), opponents read from the head-to-head records, duplicate
boards as labels, duplicate Priffe by matchpoints."""
MARGIN_RIDGE = 3.0
"""The ridge of the margin rating in Priffe (settlement points per rubber; luck-heavy)."""


def rules_json(rules: StandingsRules) -> dict[str, Any]:
    return {
        "mode": rules.mode.value,
        "rank_by": rules.rank_by.value,
        "min_games": rules.min_games,
        "confidence": rules.confidence,
    }


@dataclass
class Accumulators:
    """The standings accumulator and, for partnership play, the margin rating's; built
    from stored parts (all of them, or the ones a result touches)."""

    rules: StandingsRules
    standings: StandingsAccumulator
    margin: MarginRatingAccumulator | None
    """The ridge margin rating, for partnership play (Priffe)."""

    @classmethod
    def empty(cls, rules: StandingsRules) -> Accumulators:
        return cls.from_parts(rules, {})

    @classmethod
    def from_parts(cls, rules: StandingsRules, parts: Mapping[str, Any]) -> Accumulators:
        standings = {k: v for k, v in parts.items() if not k.startswith("m")}
        margin = None
        if rules.mode is Mode.PARTNERSHIP:
            margin = MarginRatingAccumulator.from_parts(
                rules.mode,
                {k: v for k, v in parts.items() if k.startswith("m")},
                ridge=MARGIN_RIDGE,
            )
        return cls(rules, StandingsAccumulator.from_parts(rules, standings), margin)

    def apply(self, results: Sequence[ScoredMatch]) -> None:
        for result in results:
            self.standings.apply(result)
            if self.margin is not None:
                self.margin.apply(result)

    def add(self, results: Sequence[ResultFields]) -> None:
        """:meth:`apply` of results given by their fields (:func:`result_fields`)."""
        standings = self.standings.add
        margin = self.margin.add if self.margin is not None else None
        for match_id, round_number, seats, scores, board in results:
            standings(match_id, round_number, seats, scores, board)
            if margin is not None:
                margin(match_id, seats, scores)

    def to_parts(self) -> dict[str, Any]:
        parts = self.standings.to_parts()
        if self.margin is not None:
            parts.update(self.margin.to_parts())
        return parts


def part_keys(results: Sequence[ScoredMatch], rules: StandingsRules) -> set[str]:
    keys: set[str] = set()
    for result in results:
        keys |= StandingsAccumulator.part_keys(result, rules.mode)
        if rules.mode is Mode.PARTNERSHIP:
            keys |= MarginRatingAccumulator.part_keys(result)
    return keys
