"""Standings stored and updated one result at a time (league.services.standings), against
the database: the incremental snapshot equals a recomputation from every stored result, on
real tournaments (Kingen, Priffe per rubber) and on 10,000 synthetic matches."""

from __future__ import annotations

from typing import Any

import pytest

from league.models import (
    Match,
    MatchResult,
    MatchSeat,
    StandingsPart,
    StandingsSnapshot,
    Tournament,
    TournamentFormat,
)
from league.scheduling.model import Mode
from league.selectors import tournament_standings
from league.services import standings as standings_service
from league.services.matches import match_finish, match_replay, match_run
from league.services.standings import (
    Accumulators,
    StoredResult,
    standings_current,
    standings_recompute,
    standings_results_of,
    standings_rules_of,
    tournament_entrants,
)
from league.services.tournaments import tournament_round_start
from league.standings import compute_standings
from tests.league.builders import bot_tournament
from tests.league.synthetic import synthetic_results


def rounds_played(tournament: Tournament, organiser: Any, rounds: int) -> None:
    for _ in range(rounds):
        round_ = tournament_round_start(actor=organiser, tournament=tournament)
        for match in round_.matches.order_by("id"):
            assert match_run(match_id=match.pk, worker="test").outcome == "finished"


def recomputed_table(tournament: Tournament) -> Any:
    """The table computed from scratch from every stored result (no snapshot)."""
    rules = standings_rules_of(tournament)
    entrants = tournament_entrants(tournament.pk)
    results = [
        r
        for stored in MatchResult.objects.filter(match__tournament=tournament).order_by("-id")
        for r in standings_results_of(
            StoredResult.of(stored), game=tournament.game, entrants=entrants, rules=rules
        )
    ]
    return compute_standings(results, rules)


def snapshot_of(tournament: Tournament) -> StandingsSnapshot:
    return StandingsSnapshot.objects.get(tournament=tournament)


def stored_parts(tournament: Tournament) -> dict[str, Any]:
    return dict(StandingsPart.objects.filter(tournament=tournament).values_list("key", "data"))


@pytest.mark.django_db
def test_a_kingen_league_updates_its_snapshot_with_each_result_and_equals_recomputation() -> None:
    tournament, organiser = bot_tournament(entrants=6, rounds=3, bot="random")
    rounds_played(tournament, organiser, 2)
    matches = MatchResult.objects.filter(match__tournament=tournament).count()

    snapshot = snapshot_of(tournament)
    incremental = standings_current(tournament=tournament)
    parts_before = stored_parts(tournament)
    assert snapshot.results == matches == 4  # 6 entrants: 2 tables a round (bots fill)
    assert incremental.standings == recomputed_table(tournament)

    assert standings_recompute(tournament=tournament) == matches
    assert stored_parts(tournament) == parts_before
    rows = tournament_standings(tournament=tournament)["rows"]
    assert sum(r["games"] for r in rows) == 4 * 4 - sum(  # fillers are not listed
        1
        for seat in MatchSeat.objects.filter(match__tournament=tournament)
        if seat.competitor_id not in tournament_entrants(tournament.pk)
    )
    assert [r["competitor"] for r in rows][:6] == [
        int(r.player) for r in incremental.standings.rows
    ]


@pytest.mark.django_db
def test_priffe_results_carry_their_rubbers_and_rank_per_rubber() -> None:
    tournament, organiser = bot_tournament(game="priffe(rubbers_per_game=3)", entrants=4)
    tournament.format = TournamentFormat.ROTATING_PARTNERS
    tournament.save()
    rounds_played(tournament, organiser, 1)
    result = MatchResult.objects.get(match__tournament=tournament)

    rubbers = result.standings_input["rubbers"]
    assert [r["number"] for r in rubbers] == [1, 2, 3]
    for seat in range(4):  # the rubbers' points add up to the game's scores
        assert sum(r["points"][seat] for r in rubbers) == result.scores[seat]
    pairs_played = {tuple(sorted(p)) for r in rubbers for p in r["partners"]}
    assert len(pairs_played) == 6  # three rubbers: every pairing once

    standings = tournament_standings(tournament=tournament)
    assert (standings["mode"], standings["unit"]) == ("partnership", "rubber")
    seat_of = {s["competitor"]: s["seat"] for s in result.standings_input["seats"]}
    for row in standings["rows"]:
        assert row["games"] == 3
        assert row["total"] == result.scores[seat_of[row["competitor"]]]
    assert len(standings["partner_pairs"]) == 6
    assert all(pair["games"] == 1 for pair in standings["partner_pairs"])
    assert len(standings["head_to_head"]) == 6
    assert all(h["as_partners"] == 1 and h["as_opponents"] == 2 for h in standings["head_to_head"])
    assert standings_current(tournament=tournament).standings == recomputed_table(tournament)
    margin = standings_current(tournament=tournament).margin
    assert margin is not None
    assert margin.games == 3


@pytest.mark.django_db
def test_a_priffe_result_stored_without_rubbers_is_read_from_its_record() -> None:
    tournament, organiser = bot_tournament(game="priffe(rubbers_per_game=2)", entrants=4)
    rounds_played(tournament, organiser, 1)
    result = MatchResult.objects.get(match__tournament=tournament)
    rubbers = result.standings_input["rubbers"]
    table = standings_current(tournament=tournament).standings
    legacy = {k: v for k, v in result.standings_input.items() if k != "rubbers"}
    MatchResult.objects.filter(pk=result.pk).update(standings_input=legacy)

    standings_recompute(tournament=tournament)

    assert standings_current(tournament=tournament).standings == table
    result.refresh_from_db()
    assert result.standings_input["rubbers"] == rubbers


@pytest.mark.django_db
def test_a_second_completion_leaves_the_standings_alone() -> None:
    tournament, organiser = bot_tournament(entrants=4)
    rounds_played(tournament, organiser, 1)
    match = Match.objects.get(tournament=tournament)
    parts = stored_parts(tournament)

    again = match_finish(
        match_id=match.pk,
        attempt=None,
        state=match_replay(match).state,
        times={},
        stored=match.events_stored,
        reports=[],
    )

    assert again is False
    assert stored_parts(tournament) == parts
    assert snapshot_of(tournament).results == 1


@pytest.mark.django_db
def test_a_failing_update_still_stores_the_result_and_the_next_read_rebuilds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tournament, organiser = bot_tournament(entrants=4, rounds=2)
    rounds_played(tournament, organiser, 1)

    def broken(self: Accumulators, results: Any) -> None:
        raise RuntimeError("a bug in the sums")

    monkeypatch.setattr(Accumulators, "apply", broken)
    rounds_played(tournament, organiser, 1)
    monkeypatch.undo()

    assert MatchResult.objects.filter(match__tournament=tournament).count() == 2
    assert snapshot_of(tournament).version == 0  # marked to be rebuilt
    current = standings_current(tournament=tournament)
    assert current.results == 2
    assert current.standings == recomputed_table(tournament)


@pytest.mark.django_db
def test_a_snapshot_of_another_format_is_rebuilt_when_the_next_result_arrives() -> None:
    tournament, organiser = bot_tournament(entrants=4, rounds=2)
    rounds_played(tournament, organiser, 1)
    StandingsSnapshot.objects.filter(tournament=tournament).update(
        version=standings_service.STATE_VERSION + 1
    )
    StandingsPart.objects.filter(tournament=tournament).update(data="unreadable")

    rounds_played(tournament, organiser, 1)

    snapshot = snapshot_of(tournament)
    assert (snapshot.version, snapshot.results) == (standings_service.STATE_VERSION, 2)
    assert standings_current(tournament=tournament).standings == recomputed_table(tournament)


# ---------------------------------------------------------------- 10,000 matches

PLAYERS = 40
SYNTHETIC_MATCHES = 10_000


@pytest.mark.django_db
@pytest.mark.slow
@pytest.mark.parametrize(
    ("priffe", "count"), [(False, SYNTHETIC_MATCHES), (True, 2_000)], ids=["kingen", "priffe"]
)
def test_ten_thousand_matches_incremental_through_the_snapshot_equals_recomputation(
    priffe: bool, count: int
) -> None:
    """10,000 Kingen results (2,000 Priffe matches of two rubbers each) are applied the way
    the service applies them (the parts a result touches read, the result added, those parts
    written back) against a copy of the stored parts that goes through the database's JSON
    every 2,500 results, and the last 20 through ``standings_apply_result`` itself; the full
    recomputation must then give the same parts and the same table."""
    game = "priffe(rubbers_per_game=2)" if priffe else "kingen"
    tournament, _ = bot_tournament(game=game, entrants=PLAYERS, rounds=1000)
    stored = synthetic_results(tournament, count=count, seed=7, priffe=priffe)
    rules = standings_rules_of(tournament)
    assert rules.mode is (Mode.PARTNERSHIP if priffe else Mode.SOLO)
    entrants = tournament_entrants(tournament.pk)
    snapshot = standings_service._snapshot_locked(tournament)

    parts: dict[str, Any] = {}
    for index, result in enumerate(stored[:-20], start=1):
        results = standings_results_of(
            StoredResult.of(result), game=game, entrants=entrants, rules=rules
        )
        keys = standings_service._part_keys(results, rules)
        accumulators = Accumulators.from_parts(rules, {k: parts[k] for k in keys if k in parts})
        accumulators.apply(results)
        parts.update(accumulators.to_parts())
        if index % 2500 == 0 or index == count - 20:
            standings_service._parts_store(tournament.pk, parts)
            parts = stored_parts(tournament)
    standings_service._snapshot_save(snapshot, rules, results=count - 20)
    for result in stored[-20:]:
        result.match.tournament = tournament
        standings_service.standings_apply_result(match_result=result)
    assert snapshot_of(tournament).results == count
    incremental = stored_parts(tournament)
    incremental_table = standings_current(tournament=tournament).standings

    assert standings_recompute(tournament=tournament) == count

    assert stored_parts(tournament) == incremental
    assert standings_current(tournament=tournament).standings == incremental_table
    rows = incremental_table.rows
    assert len(rows) == PLAYERS
    if priffe:
        assert all(r.games % 2 == 0 for r in rows)  # two rubbers a match
        assert len(incremental_table.partner_pairs) == PLAYERS * (PLAYERS - 1) // 2
