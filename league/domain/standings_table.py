"""A tournament's standings and margin rating as the API and the pages show them: rows of
plain values (rounded as people read them, competitors by id and name), from the pure
tables of league.domain.standings_maths and league.domain.ratings_maths. The shape is
docs/api.md's (``GET /api/tournaments/{id}/standings/`` and ``.../ratings/``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from league.domain.ratings_maths import MarginRatings
from league.domain.standings_maths import Separation, Standings


def gap_json(gap: Separation | None) -> dict[str, Any] | None:
    """Whether a row's lead over the next is statistically meaningful (the confidence
    marker): the difference, its interval, the p-value."""
    if gap is None:
        return None
    return {
        "difference": round(gap.difference, 3),
        "low": None if gap.low is None else round(gap.low, 3),
        "high": None if gap.high is None else round(gap.high, 3),
        "p_value": None if gap.p_value is None else round(gap.p_value, 4),
        "significant": gap.significant,
    }


def standings_json(standings: Standings, names: Mapping[int, str]) -> dict[str, Any]:
    """The ``rows`` (ranked rows, then the entrants in ``names`` without a game, unranked,
    by name), ``partner_pairs`` and ``head_to_head`` of ``standings``, each competitor
    named by ``names`` (an entrant's id -> name; ``?`` for one not there)."""

    def name(player: int) -> str:
        return names.get(int(player), "?")

    rows: list[dict[str, Any]] = [
        {
            "rank": row.rank,
            "competitor": int(row.player),
            "name": name(row.player),
            "games": row.games,
            "total": row.total,
            "average": round(row.average, 3),
            "wins": row.wins,
            "per_round": [{"round": r, "points": p} for r, p in row.per_round],
            "opposition": round(row.opposition, 3),
            "matchpoints": row.matchpoints,
            "percentage": None if row.percentage is None else round(row.percentage, 2),
            "next_gap": gap_json(row.next_gap),
        }
        for row in standings.rows
    ]
    listed = {r["competitor"] for r in rows}
    for competitor, entrant in sorted(names.items(), key=lambda item: (item[1], item[0])):
        if competitor not in listed:
            rows.append(
                {
                    "rank": None,
                    "competitor": competitor,
                    "name": entrant,
                    "games": 0,
                    "total": 0,
                    "average": 0.0,
                    "wins": 0,
                    "per_round": [],
                    "opposition": 0.0,
                    "matchpoints": None,
                    "percentage": None,
                    "next_gap": None,
                }
            )
    pairs = [
        {
            "players": [int(p) for p in pair.players],
            "names": [name(p) for p in pair.players],
            "games": pair.games,
            "points": pair.points,
            "average": round(pair.average, 3),
            "wins": pair.wins,
        }
        for pair in standings.partner_pairs
    ]
    heads = [
        {
            "players": [int(p) for p in head.players],
            "names": [name(p) for p in head.players],
            "games": head.games,
            "as_partners": head.as_partners,
            "as_opponents": head.as_opponents,
            "difference": head.difference,
        }
        for head in standings.head_to_head.values()
    ]
    return {"rows": rows, "partner_pairs": pairs, "head_to_head": heads}


def margin_json(solved: MarginRatings, names: Mapping[int, str]) -> dict[str, Any]:
    """The ridge margin rating of partnership play: its parameters and each entrant's
    strength with its standard error and interval, strongest first."""
    return {
        "ridge": solved.ridge,
        "residual_sd": round(solved.residual_sd, 4),
        "games": solved.games,
        "rows": [
            {
                "rank": rank,
                "competitor": int(player),
                "name": names.get(int(player), "?"),
                "value": round(rating.value, 4),
                "standard_error": round(rating.standard_error, 4),
                "low": round(rating.interval()[0], 4),
                "high": round(rating.interval()[1], 4),
                "games": rating.games,
            }
            for rank, (player, rating) in enumerate(solved.ranked(), start=1)
        ],
    }
