"""Standings stored and updated one result at a time (league.services.standings), against
the database: the incremental snapshot equals a recomputation from every stored result, on
real tournaments (Kingen, Priffe per rubber) and on 10,000 synthetic matches."""

from __future__ import annotations

from io import StringIO
from typing import Any

from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

import pytest

from bench.synthetic import synthetic_results
from engine.variants import load_game
from league.domain.scheduling.model import Mode, PlayerId
from league.domain.scored_results import rubber_boards, standings_results_of
from league.domain.standings_maths import RankBy, compute_standings
from league.domain.standings_parts import STATE_VERSION, Accumulators, part_keys
from league.models import (
    Match,
    MatchResult,
    MatchSeat,
    Round,
    StandingsPart,
    StandingsSnapshot,
    Tournament,
    TournamentFormat,
)
from league.selectors.replays import match_replay
from league.selectors.standings import (
    result_rubbers_read,
    standings_current,
    standings_rules_of,
    stored_result_of,
    tournament_entrants,
    tournament_standings,
)
from league.services import standings as standings_service
from league.services.matches import match_finish, match_run
from league.services.ratings import ratings_enqueue
from league.services.standings import standings_apply_result, standings_recompute
from league.services.tournaments import tournament_create, tournament_round_start
from tests.league.builders import bot_tournament, builtin_competitors, club_with_organiser


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
            stored_result_of(stored),
            game=tournament.game,
            entrants=entrants,
            rules=rules,
            rubbers_of=result_rubbers_read,
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
    StandingsSnapshot.objects.filter(tournament=tournament).update(version=STATE_VERSION + 1)
    StandingsPart.objects.filter(tournament=tournament).update(data="unreadable")

    rounds_played(tournament, organiser, 1)

    snapshot = snapshot_of(tournament)
    assert (snapshot.version, snapshot.results) == (STATE_VERSION, 2)
    assert standings_current(tournament=tournament).standings == recomputed_table(tournament)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("game", "entrants", "format"),
    [
        ("kingen(players=3)", 4, TournamentFormat.ROUND_ROBIN),
        ("kingen(players=5)", 7, TournamentFormat.ROUND_ROBIN),
        ("kingen(players=3,shuffle_policy=full_shuffle)", 5, TournamentFormat.DUPLICATE),
    ],
)
def test_tables_of_three_and_five_rank_every_seat_and_equal_recomputation(
    game: str, entrants: int, format: str
) -> None:
    tournament, organiser = bot_tournament(game=game, entrants=entrants, rounds=2)
    tournament.format = format
    tournament.save()
    rounds_played(tournament, organiser, 2)
    seats = load_game(game).num_seats
    results = MatchResult.objects.filter(match__tournament=tournament)
    assert {len(r.standings_input["seats"]) for r in results} == {seats}

    current = standings_current(tournament=tournament)
    assert current.results == results.count()
    assert current.standings == recomputed_table(tournament)
    entrant_ids = tournament_entrants(tournament.pk)
    seated: dict[int, int] = {}
    for seat in MatchSeat.objects.filter(match__tournament=tournament):
        if seat.competitor_id in entrant_ids:
            seated[seat.competitor_id] = seated.get(seat.competitor_id, 0) + 1
    rows = current.standings.rows
    assert {int(r.player): r.games for r in rows} == seated  # every entrant's every game
    assert all(len(r.per_round) == 2 for r in rows)  # everyone played both rounds
    duplicate = format == TournamentFormat.DUPLICATE
    assert current.rules.rank_by is (RankBy.PERCENTAGE if duplicate else RankBy.AVERAGE)
    if duplicate:  # hand h of the round's deal compared across the round's two tables
        assert all(r.top for r in rows)
        assert sum(r.matchpoints or 0 for r in rows) > 0
    parts = stored_parts(tournament)
    assert standings_recompute(tournament=tournament) == results.count()
    assert stored_parts(tournament) == parts


@pytest.mark.django_db
def test_an_update_reads_and_writes_the_parts_of_its_result_in_five_statements() -> None:
    """The savepoint, the UPDATE that counts the result and locks the snapshot, the query
    for the parts and the entrants, the upsert of the changed parts, the release."""
    tournament, _ = bot_tournament(game="priffe(rubbers_per_game=2)", entrants=8, rounds=10)
    synthetic_results(tournament, count=1, seed=3, priffe=True)
    standings_recompute(tournament=tournament)  # a current snapshot of the first result
    (second,) = synthetic_results(tournament, count=1, seed=4, priffe=True, first_round=70)
    second.match.tournament = tournament
    with CaptureQueriesContext(connection) as queries:
        standings_apply_result(match_result=second)
    statements = [q["sql"].split()[0].upper() for q in queries.captured_queries]
    assert statements == ["SAVEPOINT", "UPDATE", "SELECT", "INSERT", "RELEASE"]
    assert snapshot_of(tournament).results == 2
    assert standings_current(tournament=tournament).standings == recomputed_table(tournament)


@pytest.mark.django_db
def test_the_recompute_standings_command_rebuilds_the_same_parts() -> None:
    tournament, organiser = bot_tournament(game="kingen(players=5)", entrants=5)
    rounds_played(tournament, organiser, 1)
    parts = stored_parts(tournament)
    StandingsPart.objects.filter(tournament=tournament).delete()
    out = StringIO()

    call_command("recompute_standings", tournament=tournament.pk, stdout=out)

    assert out.getvalue() == f"tournament {tournament.pk}: standings of 1 results\n"
    assert stored_parts(tournament) == parts
    with pytest.raises(CommandError, match="no tournament"):
        call_command("recompute_standings", tournament=tournament.pk + 1000)


def stored_priffe_result(
    tournament: Tournament, round_: Round, table: int, competitors: list[Any], rubbers: list[Any]
) -> MatchResult:
    """A finished duplicate Priffe match (not played: its result only), seats 0-3 held by
    ``competitors``; ``rubbers``: (deals, points per seat) with the seatings of
    ``seating=fixed`` (rubber 1: 0 and 2 partners, rubber 2: 0 and 1)."""
    match = Match.objects.create(
        tournament=tournament,
        round=round_,
        table=table,
        game=tournament.game,
        seed=1,
        status="finished",
        attempts=1,
        finished_at=timezone.now(),
    )
    seatings = ([0, 1, 2, 3], [0, 2, 1, 3])
    totals = [sum(points[s] for _, points in rubbers) for s in range(4)]
    standings_input = {
        "round": round_.number,
        "seats": [
            {"seat": s, "competitor": c.pk, "score": totals[s], "outcome": "ok"}
            for s, c in enumerate(competitors)
        ],
        "rubbers": [
            {"number": n, "deals": deals, "seating": seatings[n - 1], "points": points}
            for n, (deals, points) in enumerate(rubbers, start=1)
        ],
    }
    result = MatchResult.objects.create(
        match=match, scores=totals, outcomes=["ok"] * 4, standings_input=standings_input, record={}
    )
    standings_apply_result(match_result=result)  # as match_finish does
    ratings_enqueue([result.pk])
    return result


@pytest.mark.django_db
def test_duplicate_priffe_gives_each_side_matchpoints_where_the_cards_were_the_same() -> None:
    """Three tables play round 1 with one seed. Rubber 1 (partners 0-2 against 1-3) is
    board "1" at every table; rubber 2 (partners 0-1 against 2-3) is board "1.5" at A and
    B, whose first rubbers lasted 5 deals, and "1.7" at C (7 deals: other cards).

    Board "1", side 0-2 totals A 8, B 12, C -6: B 4 of 4, A 2, C 0; side 1-3 (A -8,
    B -12, C 6): C 4, A 2, B 0. Board "1.5", side 0-1 A 4, B -2: A 2 of 2, B 0; side 2-3
    (A -4, B 2): B 2, A 0. Board "1.7": C alone, nothing to compare (top 0). Each player
    gets his side's matchpoints in each rubber:
    A: seat 0: 2+2 = 4 of 6, seat 1: 2+2 = 4 of 6, seat 2: 2+0 = 2 of 6, seat 3: 2 of 6;
    B: 4+0 = 4, 0+0 = 0, 4+2 = 6, 0+2 = 2 of 6; C: 0, 4, 0, 4 of 4."""
    club, organiser = club_with_organiser()
    players = builtin_competitors(12, "random")
    tournament = tournament_create(
        actor=organiser,
        club=club,
        name="Duplicate Priffe",
        game="priffe(rubbers_per_game=2)",
        format=TournamentFormat.DUPLICATE,
        entrants=players,
    )
    round_ = Round.objects.create(tournament=tournament, number=1)
    a, b, c = players[0:4], players[4:8], players[8:12]
    stored_priffe_result(tournament, round_, 1, a, [(5, [4, -4, 4, -4]), (6, [2, 2, -2, -2])])
    stored_priffe_result(tournament, round_, 2, b, [(5, [6, -6, 6, -6]), (3, [-1, -1, 1, 1])])
    stored_priffe_result(tournament, round_, 3, c, [(7, [-3, 3, -3, 3]), (4, [5, 5, -5, -5])])

    current = standings_current(tournament=tournament)
    assert (current.rules.mode, current.rules.rank_by) == (Mode.PARTNERSHIP, RankBy.PERCENTAGE)
    got = {int(r.player): (r.matchpoints, r.top) for r in current.standings.rows}
    expected = [(4, 6), (4, 6), (2, 6), (2, 6)]  # table A
    expected += [(4, 6), (0, 6), (6, 6), (2, 6)]  # table B
    expected += [(0, 4), (4, 4), (0, 4), (4, 4)]  # table C
    assert got == {p.pk: mp_top for p, mp_top in zip(players, expected, strict=True)}
    assert current.standings.row(PlayerId(players[6].pk)).percentage == 100.0  # B's seat 2
    assert current.standings.row(PlayerId(players[1].pk)).percentage == pytest.approx(200 / 3)
    assert current.standings.rows[0].percentage == 100.0
    assert current.results == 3
    assert current.standings == recomputed_table(tournament)
    parts = stored_parts(tournament)
    assert {k for k in parts if k.startswith("g:")} == {
        "g:1:0",
        "g:1:1",
        "g:1.5:0",
        "g:1.5:1",
        "g:1.7:0",
        "g:1.7:1",
    }
    standings_recompute(tournament=tournament)
    assert stored_parts(tournament) == parts
    api = tournament_standings(tournament=tournament)
    assert (api["mode"], api["rank_by"]) == ("partnership", "percentage")
    assert {r["competitor"]: r["matchpoints"] for r in api["rows"]}[players[6].pk] == 6


def test_rubber_boards_name_the_cards_dealt() -> None:
    rubbers = [{"number": 1, "deals": 5}, {"number": 2, "deals": 12}, {"number": 3, "deals": 4}]
    assert rubber_boards(7, rubbers) == ["7", "7.5", "7.5.12"]
    legacy = [{"number": 1}, {"number": 2}, {"number": 3}]  # stored before "deals"
    assert rubber_boards(7, legacy) == ["7", None, None]
    many = [{"number": n, "deals": 10 + n} for n in range(1, 31)]
    boards = rubber_boards(3, many)
    assert boards[13] == "3." + ".".join(str(10 + n) for n in range(1, 14))  # 41 characters
    assert all(len(board or "") <= 3 + 1 + 24 for board in boards[14:])  # digests from here
    assert len(set(boards)) == 30


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
            stored_result_of(result),
            game=game,
            entrants=entrants,
            rules=rules,
            rubbers_of=result_rubbers_read,
        )
        keys = part_keys(results, rules)
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
