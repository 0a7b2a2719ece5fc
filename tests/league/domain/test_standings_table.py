"""league.domain.standings_table: the standings and the margin rating as rows of plain values
(what the API and the pages read; tests/api/test_ratings.py reads them over HTTP)."""

from __future__ import annotations

import pytest

from league.domain.ratings_maths import margin_ratings
from league.domain.scheduling.model import Mode, PlayerId
from league.domain.standings_maths import (
    ScoredMatch,
    Separation,
    StandingsRules,
    compute_standings,
)
from league.domain.standings_table import gap_json, margin_json, standings_json

A, B, C, D = (PlayerId(n) for n in (1, 2, 3, 4))
NAMES = {1: "ann", 2: "bo", 3: "cy", 4: "dee", 9: "eve"}


def solo_results() -> list[ScoredMatch]:
    return [
        ScoredMatch(match_id=1, round_number=1, seats=(A, B, C), scores=(10, 4, -14)),
        ScoredMatch(match_id=2, round_number=2, seats=(B, A, C), scores=(2, 8, -10)),
    ]


def test_ranked_rows_then_the_entrants_without_a_game() -> None:
    table = compute_standings(solo_results(), StandingsRules(mode=Mode.SOLO))
    shown = standings_json(table, NAMES)
    rows = shown["rows"]
    assert [(r["rank"], r["name"]) for r in rows] == [
        (1, "ann"),
        (2, "bo"),
        (3, "cy"),
        (None, "dee"),
        (None, "eve"),
    ]
    ann = rows[0]
    assert (ann["competitor"], ann["games"], ann["total"], ann["average"]) == (1, 2, 18, 9.0)
    assert ann["per_round"] == [{"round": 1, "points": 10}, {"round": 2, "points": 8}]
    assert rows[3] == {
        "rank": None,
        "competitor": 4,
        "name": "dee",
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
    heads = {tuple(h["names"]): h for h in shown["head_to_head"]}
    assert heads["ann", "bo"]["games"] == 2
    assert shown["partner_pairs"] == []


def test_a_competitor_nobody_named_is_a_question_mark() -> None:
    table = compute_standings(solo_results(), StandingsRules(mode=Mode.SOLO))
    rows = standings_json(table, {1: "ann"})["rows"]
    assert [r["name"] for r in rows] == ["ann", "?", "?"]


def test_partnership_play_lists_its_pairs_and_the_margin_rating() -> None:
    results = [
        ScoredMatch(match_id=1, round_number=1, seats=(A, B, C, D), scores=(5, -3, 5, -7)),
        ScoredMatch(match_id=2, round_number=2, seats=(A, C, B, D), scores=(2, 1, -2, -1)),
    ]
    table = compute_standings(results, StandingsRules(mode=Mode.PARTNERSHIP))
    pairs = {tuple(p["names"]): p for p in standings_json(table, NAMES)["partner_pairs"]}
    assert pairs["ann", "cy"]["points"] == 10
    assert pairs["ann", "cy"]["games"] == 1
    margin = margin_json(margin_ratings(results, mode=Mode.PARTNERSHIP, ridge=3.0), NAMES)
    assert (margin["ridge"], margin["games"]) == (3.0, 2)
    assert [r["rank"] for r in margin["rows"]] == [1, 2, 3, 4]
    assert margin["rows"][0]["name"] == "ann"
    for row in margin["rows"]:
        assert row["low"] <= row["value"] <= row["high"]


def test_a_gap_is_rounded_as_people_read_it() -> None:
    assert gap_json(None) is None
    gap = Separation(difference=1.23456, low=0.11111, high=None, p_value=0.012345, significant=True)
    assert gap_json(gap) == {
        "difference": pytest.approx(1.235),
        "low": pytest.approx(0.111),
        "high": None,
        "p_value": pytest.approx(0.0123),
        "significant": True,
    }
