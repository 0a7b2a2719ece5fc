"""Synthetic stored results for the benchmarks (bench.league) and the tests: random tables
of a tournament's entrants (skill plus luck), stored as finished matches with their results
(waiting to be rated, as match_finish stores them), without playing them (no events, an
empty record)."""

from __future__ import annotations

import random
from typing import Any

from django.utils import timezone

from league.models import Match, MatchResult, Round, Tournament
from league.selectors.standings import tournament_entrants
from league.services.ratings import ratings_enqueue


def synthetic_results(
    tournament: Tournament, *, count: int, seed: int, priffe: bool, first_round: int = 1
) -> list[MatchResult]:
    """``count`` stored results of random tables (skill plus luck), 20 tables a round from
    round ``first_round`` on; Priffe: two rubbers a match, partners rotating."""
    rng = random.Random(seed)
    entrants = sorted(tournament_entrants(tournament.pk))
    skill = {c: rng.gauss(0, 3) for c in entrants}
    rounds = {
        r.number: r
        for r in Round.objects.bulk_create(
            Round(tournament=tournament, number=first_round + n) for n in range(count // 20 + 1)
        )
    }
    now = timezone.now()
    matches = Match.objects.bulk_create(
        Match(
            tournament=tournament,
            round=rounds[first_round + i // 20],
            table=i % 20 + 1,
            game=tournament.game,
            seed=i,
            status="finished",
            attempts=1,
            finished_at=now,
        )
        for i in range(count)
    )
    results = []
    for i, match in enumerate(matches):
        table = rng.sample(entrants, 4)
        scores = [round(skill[c] + rng.gauss(0, 10)) for c in table]
        seats: list[dict[str, Any]] = [
            {"seat": s, "competitor": c, "score": scores[s], "outcome": "ok"}
            for s, c in enumerate(table)
        ]
        standings_input: dict[str, Any] = {"round": first_round + i // 20, "seats": seats}
        if priffe:  # two rubbers, partners rotating: (0 2 | 1 3) then (0 1 | 2 3)
            rubbers: list[dict[str, Any]] = []
            for number, seating in ((1, [0, 1, 2, 3]), (2, [0, 2, 1, 3])):
                d = rng.randint(-12, 12) + round(skill[table[seating[0]]])
                points = [0] * 4
                for s in (seating[0], seating[2]):
                    points[s] = d
                for s in (seating[1], seating[3]):
                    points[s] = -d
                rubbers.append({"number": number, "seating": seating, "points": points})
            standings_input["rubbers"] = rubbers
            for s in range(4):
                seats[s]["score"] = sum(r["points"][s] for r in rubbers)
        results.append(
            MatchResult(
                match=match,
                scores=[seat["score"] for seat in standings_input["seats"]],
                outcomes=["ok"] * 4,
                standings_input=standings_input,
                record={},
            )
        )
    stored = MatchResult.objects.bulk_create(results, batch_size=2000)
    ratings_enqueue(result.pk for result in stored)  # as match_finish does
    return stored
