"""The ladder's pure parts: the matchmaker (league/domain/ladder_matchmaking.py,
docs/scheduling.md) and what its games say (league/domain/ladder_results.py)."""

from __future__ import annotations

from collections import Counter

import pytest

from league.domain.ladder_matchmaking import (
    Candidate,
    History,
    LadderShape,
    focus_order,
    pair,
    place_doubt,
    plan_tables,
    turned,
)
from league.domain.ladder_results import (
    BoardRow,
    ChallengeProblem,
    Failures,
    KnownEntrant,
    OpponentFacts,
    challenge_problem,
    duplicate_game,
    failures_after,
    failures_in_a_row,
    head_to_head,
    leaderboard_confidences,
    machine_fault,
    ranked,
    roster_changes,
    shape_of,
    table_seats,
    tables_history,
)

SHAPE = LadderShape(seats=4, concurrent_limit=2, placement_games=10)


def settled(ids: range, games: int = 50) -> list[Candidate]:
    return [Candidate(id=i, mu=20.0 + i, sigma=2.0, games=games) for i in ids]


def test_a_version_in_its_placement_games_is_seated_first_up_to_its_limit() -> None:
    newcomer = Candidate(id=99, mu=25.0, sigma=8.33, games=0)
    tables = plan_tables([*settled(range(1, 8)), newcomer], SHAPE, room=3, seed=1)
    assert [99 in t.seats for t in tables] == [True, True, False]  # its limit is 2
    assert all(t.focus == 99 for t in tables[:2])


def test_no_candidate_exceeds_its_concurrent_limit_counting_matches_in_flight() -> None:
    busy = Candidate(id=50, mu=25.0, sigma=8.0, games=0, in_flight=2)
    tables = plan_tables([*settled(range(1, 10)), busy], SHAPE, room=20, seed=2)
    load = Counter(seat for t in tables for seat in t.seats)
    assert load[50] == 0
    assert max(load.values()) <= SHAPE.concurrent_limit
    assert tables  # the others still play


def test_anchors_have_no_limit_and_are_never_the_focus() -> None:
    anchors = [Candidate(id=i, mu=25.0, sigma=1.0, games=500, anchor=True) for i in (1, 2, 3)]
    author = Candidate(id=10, mu=25.0, sigma=8.0, games=0)
    tables = plan_tables([*anchors, author], SHAPE, room=5, seed=3)
    assert len(tables) == 2  # the author's limit
    assert {t.focus for t in tables} == {10}
    assert [c.id for c in focus_order([*anchors, author], SHAPE)] == [10]


def test_opponents_are_those_of_closest_rating() -> None:
    field = [Candidate(id=i, mu=float(i), sigma=1.0, games=100) for i in range(1, 21)]
    focus = Candidate(id=100, mu=10.2, sigma=9.0, games=100)
    (table,) = plan_tables([*field, focus], SHAPE, room=1, seed=4)
    assert sorted(table.seats) == [9, 10, 11, 100]


def test_among_equal_doubts_the_widest_uncertainty_goes_first_once_placed() -> None:
    field = [Candidate(id=i, mu=25.0, sigma=float(i), games=40) for i in range(1, 9)]
    assert [c.id for c in focus_order(field, SHAPE)][:3] == [8, 7, 6]


def test_a_version_amid_close_rivals_goes_before_a_lone_one_with_a_wider_sigma() -> None:
    cluster = [Candidate(id=i, mu=30.0 + 0.2 * i, sigma=2.0, games=50) for i in (1, 2, 3)]
    lone = Candidate(id=9, mu=10.0, sigma=3.0, games=50)
    order = [c.id for c in focus_order([lone, *cluster], SHAPE)]
    assert order[-1] == 9
    assert set(order[:3]) == {1, 2, 3}
    assert place_doubt(lone, [lone, *cluster]) < 1e-6
    # two rivals 0.2 points away, all with sigma 2: each order nearly a coin toss
    assert 0.9 < place_doubt(cluster[1], cluster) < 1.0


def test_a_places_doubt_falls_as_ratings_part_and_grows_with_their_sigmas() -> None:
    def doubt(gap: float, sigma: float) -> float:
        a = Candidate(id=1, mu=25.0 + gap, sigma=sigma, games=50)
        b = Candidate(id=2, mu=25.0, sigma=sigma, games=50)
        return place_doubt(a, [a, b])

    assert doubt(0.0, 2.0) == pytest.approx(0.5)
    assert doubt(0.0, 2.0) > doubt(1.0, 2.0) > doubt(4.0, 2.0) > doubt(12.0, 2.0)
    assert doubt(4.0, 2.0) < doubt(4.0, 6.0) < 0.5


def test_the_seat_least_held_is_given_and_partners_rotate() -> None:
    history = History(
        seat_counts={(1, 0): 5, (2, 1): 5},
        partnerships={pair(1, 3): 4, pair(2, 4): 4, pair(1, 2): 4, pair(3, 4): 4},
    )
    shape = LadderShape(seats=4, partnership=True, concurrent_limit=4)
    field = [Candidate(id=i, mu=25.0, sigma=8.0 - i, games=0) for i in (1, 2, 3, 4)]
    (table,) = plan_tables(field, shape, room=1, history=history, seed=5)
    assert table.seats[0] != 1
    assert table.seats[1] != 2
    assert {pair(table.seats[0], table.seats[2]), pair(table.seats[1], table.seats[3])} == {
        pair(1, 4),
        pair(2, 3),
    }


def test_duplicate_pairs_share_a_seed_and_turn_the_seats() -> None:
    shape = LadderShape(seats=4, partnership=True, duplicate=True, concurrent_limit=4)
    tables = plan_tables(settled(range(1, 5), games=0), shape, room=2, seed=6)
    first, second = tables
    assert first.deal_group == second.deal_group
    assert second.seats == turned(first.seats, shape)
    # partnerships kept, sides swapped: partners of seat 0 sit at 1 and 3 now
    assert {first.seats[0], first.seats[2]} == {second.seats[1], second.seats[3]}
    assert len(plan_tables(settled(range(1, 5)), shape, room=1, seed=6)) == 0  # a pair or none


def test_too_few_free_players_plan_nothing_and_the_same_seed_plans_the_same() -> None:
    assert plan_tables(settled(range(1, 4)), SHAPE, room=4) == []
    field = settled(range(1, 13), games=3)
    assert plan_tables(field, SHAPE, room=5, seed=7) == plan_tables(field, SHAPE, room=5, seed=7)


def test_a_leaderboard_says_how_sure_each_position_is() -> None:
    rows = [
        BoardRow(id=1, mu=30.0, sigma=1.0, games=50),
        BoardRow(id=2, mu=30.0, sigma=1.0, games=50),
        BoardRow(id=3, mu=20.0, sigma=1.0, games=50),
    ]
    sure = leaderboard_confidences(rows)
    assert sure[0] == pytest.approx(0.5)
    assert sure[1] is not None
    assert sure[1] > 0.999
    assert sure[2] is None
    assert leaderboard_confidences([]) == []


def test_ranked_rows_carry_their_rank_and_confidence() -> None:
    rows = ranked(
        [
            {"competitor": 1, "mu": 20.0, "sigma": 2.0, "conservative": 14.0, "games": 9},
            {"competitor": 2, "mu": 30.0, "sigma": 1.0, "conservative": 27.0, "games": 9},
        ]
    )
    assert [(r["competitor"], r["rank"]) for r in rows] == [(2, 1), (1, 2)]
    assert rows[0]["confidence"] > 0.99
    assert rows[1]["confidence"] is None


def test_head_to_head_counts_wins_ties_and_losses_per_opponent() -> None:
    games = [((1, 2, 3, 4), (10, 5, 10, 20)), ((2, 1, 3, 4), (0, 1, 1, 1))]
    lines = {line["competitor"]: line for line in head_to_head(games, 1, {2: "two"})}
    assert (lines[2]["games"], lines[2]["won"], lines[2]["name"]) == (2, 2, "two")
    assert (lines[3]["tied"], lines[4]["lost"], lines[4]["tied"]) == (2, 1, 1)


def test_history_tables_seats_and_failures() -> None:
    history = tables_history([{0: 1, 1: 2, 2: 3, 3: 4}, {0: 3, 1: 2, 2: 1, 3: 4}], partnership=True)
    assert history.meetings[pair(1, 3)] == 2
    assert history.partnerships[pair(1, 3)] == 2
    assert history.partnerships[pair(2, 4)] == 2
    assert history.seat_counts[(1, 0)] == 1
    assert table_seats(4, (0, 1, 3), (7, 8, 9)) == [7, 8, None, 9]
    assert failures_in_a_row(2, "crash") == 3
    assert failures_in_a_row(2, "init_failure") == 3
    assert failures_in_a_row(2, "timeout") == 0
    assert machine_fault([{"message": "uploaded bots cannot run here: no bubblewrap"}])
    assert not machine_fault([{"message": "RuntimeError: oops"}, {}])


def test_a_challenge_takes_builtins_own_versions_and_those_whose_owners_allow_it() -> None:
    facts = {
        1: OpponentFacts("greedy", bot=True, builtin=True, own=False, allowed=False),
        2: OpponentFacts("mine v1", bot=True, builtin=False, own=True, allowed=False),
        3: OpponentFacts("open", bot=True, builtin=False, own=False, allowed=True),
        4: OpponentFacts("closed", bot=True, builtin=False, own=False, allowed=False),
        5: OpponentFacts("ann", bot=False, builtin=False, own=False, allowed=False),
    }
    assert challenge_problem(seats=4, opponents=[1, 2, 3], facts=facts) is None
    closed = challenge_problem(seats=4, opponents=[1, 2, 4], facts=facts)
    assert closed == ChallengeProblem("not_allowed", name="closed")
    assert closed.not_allowed
    not_a_bot = challenge_problem(seats=4, opponents=[1, 2, 5], facts=facts)
    assert not_a_bot == ChallengeProblem("not_a_bot", competitor=5)
    assert not not_a_bot.not_allowed
    too_few = challenge_problem(seats=4, opponents=[1, 2], facts=facts)
    assert too_few == ChallengeProblem("opponent_count", needed=3, given=2)


def test_the_roster_plays_each_bots_newest_version_with_the_owners_choices() -> None:
    known = [
        KnownEntrant(
            id=1, bot=10, competitor=100, playing=True, opted_out=True, challengeable=False
        ),
        KnownEntrant(
            id=2, bot=20, competitor=200, playing=True, opted_out=False, challengeable=True
        ),
    ]
    changes = roster_changes({10: 101, 20: 200, 30: 300}, known)
    assert changes.joining == [(10, 101, True, False), (30, 300, False, True)]
    assert changes.superseded == [1]


def test_k_failures_in_a_row_suspend_and_a_clean_match_resets_the_count() -> None:
    state = Failures(0, [])
    for match in (1, 2):
        state = failures_after(
            state, outcome="crash", fault={"match": match}, limit=3, playing=True
        )
        assert not state.suspend
    assert failures_after(state, outcome="ok", fault={}, limit=3, playing=True).count == 0
    state = failures_after(state, outcome="init_failure", fault={"match": 3}, limit=3, playing=True)
    assert (state.count, state.suspend, len(state.faults)) == (3, True, 3)
    assert [f["match"] for f in state.faults] == [1, 2, 3]


@pytest.mark.parametrize(
    ("game", "paired"),
    [
        ("kingen", "kingen(shuffle_policy=full_shuffle)"),
        ("kingen(players=5)", "kingen(players=5,shuffle_policy=full_shuffle)"),
        ("dubbelkingen", "dubbelkingen(shuffle_policy=full_shuffle)"),
        ("kung_och_adel", "kung_och_adel(allow_redeal_if_no_court=false,deals=1)"),
        ("kingen(shuffle_policy=full_shuffle)", None),  # paired already
        ("king", None),
        ("priffe", None),
    ],
)
def test_a_game_whose_deals_depend_on_the_play_names_the_variant_played_in_pairs(
    game: str, paired: str | None
) -> None:
    assert duplicate_game(game) == paired
    # a ladder of the game is paired exactly when no other variant is named; of that one, always
    assert shape_of(game, concurrent_limit=2, placement_games=10).duplicate == (paired is None)
    if paired is not None:
        assert shape_of(paired, concurrent_limit=2, placement_games=10).duplicate
