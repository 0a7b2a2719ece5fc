"""Standings: worked examples by hand, tie-breaks, duplicate matchpoints, confidence,
incremental updates equal to recomputation, and a league of 10,000 matches."""

import itertools
import json
import random

import pytest
from scipy import stats

from league.domain.ratings_maths import MarginRatingAccumulator, margin_ratings
from league.domain.scheduling.model import TRAKARL, Mode, Occupant, PlayerId
from league.domain.standings_maths import (
    HeadToHead,
    RankBy,
    ScoredMatch,
    StandingsAccumulator,
    StandingsRules,
    compute_standings,
    duplicate_scores,
    welch,
)

P = PlayerId


def result(
    match_id: int,
    round_number: int,
    seats: tuple[Occupant, ...],
    scores: tuple[int, ...],
    board: int | str | None = None,
) -> ScoredMatch:
    return ScoredMatch(
        match_id=match_id, round_number=round_number, seats=seats, scores=scores, board=board
    )


SOLO = [
    result(1, 1, (P(1), P(2), P(3), P(4)), (10, 5, 0, -15)),
    result(2, 2, (P(5), P(1), P(2), P(3)), (-5, 20, 0, -15)),
    result(3, 3, (P(4), P(5), P(1), P(2)), (10, 10, -20, 0)),
]


def test_individual_worked_example() -> None:
    """Totals: 1: 10+20-20 = 10 (3 games), 2: 5+0+0 = 5 (3), 3: 0-15 = -15 (2),
    4: -15+10 = -5 (2), 5: -5+10 = 5 (2). By average: 1 (3.33), 5 (2.5), 2 (1.67), 4, 3."""
    table = compute_standings(SOLO, StandingsRules(mode=Mode.SOLO))
    assert [r.player for r in table.rows] == [1, 5, 2, 4, 3]
    assert [r.rank for r in table.rows] == [1, 2, 3, 4, 5]
    one = table.row(P(1))
    assert (one.games, one.total, one.wins) == (3, 10, 2)  # sole top in matches 1 and 2
    assert one.average == pytest.approx(10 / 3)
    assert one.per_round == ((1, 10), (2, 20), (3, -20))
    assert table.row(P(5)).wins == 0  # 10 shared with player 4 is not a win
    assert table.partner_pairs == ()


def test_minimum_games_lists_the_others_unranked() -> None:
    table = compute_standings(SOLO, StandingsRules(mode=Mode.SOLO, min_games=3))
    assert [(r.player, r.rank) for r in table.rows] == [
        (1, 1),
        (2, 2),
        (5, None),
        (4, None),
        (3, None),
    ]


def test_head_to_head_breaks_a_tie_on_total() -> None:
    """2 and 5 both total 5. Where they met: match 2 (2: 0, 5: -5) and match 3 (2: 0,
    5: 10): 2 is 5 - 10 = -5 behind, so 5 ranks above 2."""
    table = compute_standings(SOLO, StandingsRules(mode=Mode.SOLO, rank_by=RankBy.TOTAL))
    assert [r.player for r in table.rows] == [1, 5, 2, 4, 3]
    assert table.head_to_head_of(P(2), P(5)).difference == -5
    assert table.head_to_head_of(P(5), P(2)).difference == 5


def test_opposition_then_wins_then_shared_rank() -> None:
    # 1 and 2 tie on everything but the opposition: 1 met the strong 3, 2 met the weak 4
    results = [
        result(1, 1, (P(1), None, P(3), None), (5, 0, 20, 0)),
        result(2, 1, (P(2), None, P(4), None), (5, 0, -20, 0)),
        result(3, 2, (P(5), None, P(6), None), (7, 0, 7, 0)),
    ]
    table = compute_standings(results, StandingsRules(mode=Mode.SOLO))
    order = [(r.player, r.rank) for r in table.rows]
    assert order == [(3, 1), (5, 2), (6, 2), (1, 4), (2, 5), (4, 6)]
    assert table.row(P(1)).opposition == 20
    assert table.row(P(2)).opposition == -20


PRIFFE = [
    # 1 & 3 beat 2 & 4 (settlement 6); 2 & 4 ... see the test's docstring
    result(1, 1, (P(1), P(2), P(3), P(4)), (6, -6, 6, -6)),
    result(2, 2, (P(1), P(3), P(2), P(4)), (-2, 2, -2, 2)),
    result(3, 3, (P(1), P(2), P(4), P(3)), (4, -4, 4, -4)),
]


def test_priffe_worked_example() -> None:
    """Partners 1-3, 1-2, 1-4 in turn. Totals: 1: 6-2+4 = 8, 2: -6-2-4 = -12,
    3: 6+2-4 = 4, 4: -6+2+4 = 0."""
    table = compute_standings(PRIFFE, StandingsRules(mode=Mode.PARTNERSHIP))
    assert [(r.player, r.total) for r in table.rows] == [(1, 8), (3, 4), (4, 0), (2, -12)]
    assert [r.wins for r in table.rows] == [2, 2, 2, 0]
    pairs = {row.players: (row.games, row.points, row.wins) for row in table.partner_pairs}
    assert pairs == {
        (1, 3): (1, 12, 1),
        (1, 4): (1, 8, 1),
        (3, 4): (1, 4, 1),
        (1, 2): (1, -4, 0),
        (2, 3): (1, -8, 0),
        (2, 4): (1, -12, 0),
    }
    assert [row.players for row in table.partner_pairs][:2] == [(1, 3), (1, 4)]
    h2h = table.head_to_head_of(P(1), P(2))
    assert (h2h.games, h2h.as_partners, h2h.as_opponents, h2h.difference) == (3, 1, 2, 20)
    # 1 and 3 partnered in match 1; as opponents 3 won match 2 by 4, lost match 3 by 8
    assert table.head_to_head_of(P(3), P(1)).difference == -4
    # opposition of 1: opponents 2, 4 | 3, 4 | 2, 3 -> mean of their averages
    averages = {2: -4, 3: 4 / 3, 4: 0}
    expected = (2 * averages[2] + 2 * averages[3] + 2 * averages[4]) / 6
    assert table.row(P(1)).opposition == pytest.approx(expected)


def test_trakarl_and_bots_are_not_ranked() -> None:
    results = [result(1, 1, (P(1), P(2), TRAKARL, P(3)), (5, -5, 5, -5))]
    table = compute_standings(results, StandingsRules(mode=Mode.PARTNERSHIP))
    assert {r.player for r in table.rows} == {1, 2, 3}
    assert table.partner_pairs[0].players == (2, 3)


THREE = [
    result(1, 1, (P(1), P(2), P(3)), (6, -1, -5)),
    result(2, 2, (P(4), P(1), P(2)), (3, 3, -6)),
    result(3, 3, (P(3), P(4), None), (2, -4, 2)),  # a built-in bot holds seat 2
]


def test_tables_of_three_worked_example() -> None:
    """Kingen for three. Totals: 1: 6+3 = 9, 2: -1-6 = -7, 3: -5+2 = -3, 4: 3-4 = -1,
    two games each: averages 4.5, -3.5, -1.5, -0.5. Wins: only 1 in round 1 (round 2: 4
    and 1 share the best score; round 3: 3 shares it with the bot)."""
    table = compute_standings(THREE, StandingsRules(mode=Mode.SOLO))
    assert [(r.player, r.total, r.games) for r in table.rows] == [
        (1, 9, 2),
        (4, -1, 2),
        (3, -3, 2),
        (2, -7, 2),
    ]
    assert [r.wins for r in table.rows] == [1, 0, 0, 0]
    assert table.row(P(3)).per_round == ((1, -5), (3, 2))
    # every tablemate is an opponent: 1 met 2 twice (6 - -1 = 7, 3 - -6 = 9)
    assert table.head_to_head_of(P(1), P(2)) == HeadToHead((P(1), P(2)), 2, 0, 2, 16)
    assert table.head_to_head_of(P(4), P(3)).difference == -6
    assert table.head_to_head_of(P(1), P(4)).difference == 0
    assert (P(2), P(4)) in table.head_to_head  # met in round 2
    # pairs: 1-2, 1-3, 2-3 (round 1), 1-4, 2-4 (round 2), 3-4 (round 3); the bot is none
    assert len(table.head_to_head) == 6
    # opposition of 1: 2 (twice), 3, 4 -> (2 x -3.5 - 1.5 - 0.5) / 4
    assert table.row(P(1)).opposition == pytest.approx(-2.25)
    # opposition of 3: 1 and 2 in round 1, 4 in round 3 -> (4.5 - 3.5 - 0.5) / 3
    assert table.row(P(3)).opposition == pytest.approx(0.5 / 3)
    assert table.partner_pairs == ()


def test_tables_of_five_worked_example() -> None:
    """Kingen for five, two rounds. Totals: 1: 10-6 = 4, 2: 0-4 = -4, 3: -5+2 = -3,
    4: -5+8 = 3, 5: 0+0 = 0; averages 2, -2, -1.5, 1.5, 0. Wins: 1 (round 1), 4 (round 2)."""
    results = [
        result(1, 1, (P(1), P(2), P(3), P(4), P(5)), (10, 0, -5, -5, 0)),
        result(2, 2, (P(5), P(4), P(3), P(2), P(1)), (0, 8, 2, -4, -6)),
    ]
    table = compute_standings(results, StandingsRules(mode=Mode.SOLO))
    assert [(r.player, r.total) for r in table.rows] == [(1, 4), (4, 3), (5, 0), (3, -3), (2, -4)]
    assert [r.wins for r in table.rows] == [1, 1, 0, 0, 0]
    assert table.row(P(4)).per_round == ((1, -5), (2, 8))
    assert len(table.head_to_head) == 10  # every pair met twice
    assert all(h.games == h.as_opponents == 2 for h in table.head_to_head.values())
    assert table.head_to_head_of(P(1), P(4)).difference == 15 - 14
    # opposition of 2: the four others twice each -> mean of their averages
    assert table.row(P(2)).opposition == pytest.approx((2 - 1.5 + 1.5 + 0) / 4)
    # the same by total: 1 (4) and 4 (3) keep their places
    by_total = compute_standings(results, StandingsRules(mode=Mode.SOLO, rank_by=RankBy.TOTAL))
    assert [r.player for r in by_total.rows] == [1, 4, 5, 3, 2]


def test_duplicate_tables_of_three_compare_each_hand() -> None:
    """Board 9 at two tables of three. Hand 0: 3 beats 1 (player 1: 2 of 2, player 4: 0);
    hand 1: 2 beats 0 (5: 2, 2: 0); hand 2: -3 and -3 tie (3 and 6: 1 each)."""
    results = [
        result(1, 1, (P(1), P(2), P(3)), (3, 0, -3), board=9),
        result(2, 1, (P(4), P(5), P(6)), (1, 2, -3), board=9),
    ]
    table = compute_standings(results, StandingsRules(mode=Mode.SOLO, rank_by=RankBy.PERCENTAGE))
    got = {r.player: (r.matchpoints, r.top, r.percentage) for r in table.rows}
    assert got == {
        1: (2, 2, 100.0),
        2: (0, 2, 0.0),
        3: (1, 2, 50.0),
        4: (0, 2, 0.0),
        5: (2, 2, 100.0),
        6: (1, 2, 50.0),
    }
    assert [r.player for r in table.rows][:2] == [1, 5]
    batch = {s.player: (s.matchpoints, s.top) for s in duplicate_scores(results, mode=Mode.SOLO)}
    assert batch == {p: (mp, top) for p, (mp, top, _) in got.items()}


def test_table_sizes_outside_three_to_five_and_partnerships_not_of_four_are_refused() -> None:
    with pytest.raises(ValueError, match="3 to 5 seats"):
        result(1, 1, (P(1), P(2)), (1, -1))
    with pytest.raises(ValueError, match="3 to 5 seats"):
        result(1, 1, tuple(P(i) for i in range(6)), (0,) * 6)
    with pytest.raises(ValueError, match="a score for each seat"):
        result(1, 1, (P(1), P(2), P(3)), (1, -1))
    with pytest.raises(ValueError, match="board label"):
        result(1, 1, (P(1), P(2), P(3)), (1, 0, -1), board="1:2")
    accumulator = StandingsAccumulator(StandingsRules(mode=Mode.PARTNERSHIP))
    with pytest.raises(ValueError, match="partnership result has 4 seats"):
        accumulator.apply(result(1, 1, (P(1), P(2), P(3)), (1, 0, -1)))
    assert 1 not in accumulator  # nothing was applied


def board(match_id: int, board_no: int, seats: tuple[int, int, int, int], ns: int) -> ScoredMatch:
    """A partnership board: N/S (seats 0, 2) score ``ns`` between them, E/W the negative."""
    half = ns // 2
    return result(
        match_id, 1, tuple(P(s) for s in seats), (half, -half, ns - half, half - ns), board_no
    )


DUPLICATE = [
    board(1, 1, (1, 2, 3, 4), 40),
    board(2, 1, (5, 6, 7, 8), 40),
    board(3, 1, (9, 10, 11, 12), 10),
    board(4, 2, (1, 2, 3, 4), 50),
    board(5, 2, (5, 6, 7, 8), 20),
]


def test_duplicate_matchpoints_worked_example() -> None:
    """Board 1, N/S: 40, 40, 10 -> 3, 3, 0 of 4; E/W: -40, -40, -10 -> 1, 1, 4 of 4.
    Board 2 (two tables), N/S: 50, 20 -> 2, 0 of 2; E/W: 0, 2 of 2."""
    scores = {s.player: s for s in duplicate_scores(DUPLICATE, mode=Mode.PARTNERSHIP)}
    assert (scores[P(1)].matchpoints, scores[P(1)].top) == (5, 6)
    assert (scores[P(6)].matchpoints, scores[P(6)].top) == (3, 6)
    assert (scores[P(10)].matchpoints, scores[P(10)].top) == (4, 4)
    assert scores[P(10)].percentage == 100
    assert scores[P(9)].percentage == 0
    assert scores[P(1)].percentage == pytest.approx(500 / 6)
    # the accumulator gives the same matchpoints incrementally
    table = compute_standings(
        DUPLICATE, StandingsRules(mode=Mode.PARTNERSHIP, rank_by=RankBy.PERCENTAGE)
    )
    assert table.rows[0].player == 10
    assert (table.row(P(3)).matchpoints, table.row(P(3)).top) == (5, 6)
    assert table.row(P(8)).percentage == pytest.approx(50)


def test_neuberg_scales_a_board_played_fewer_times() -> None:
    """Board 2 had 2 results where board 1 had 3: (mp + 1)·3/2 - 1 out of 4,
    so N/S 50 -> 3.5, N/S 20 -> 0.5; E/W 0 -> 0.5, 2 -> 3.5."""
    scores = {s.player: s for s in duplicate_scores(DUPLICATE, mode=Mode.PARTNERSHIP, neuberg=True)}
    assert (scores[P(1)].matchpoints, scores[P(1)].top) == (6.5, 8)
    assert (scores[P(5)].matchpoints, scores[P(5)].top) == (3.5, 8)
    assert (scores[P(6)].matchpoints, scores[P(6)].top) == (4.5, 8)


def test_duplicate_individual_groups_are_per_hand_and_skip_own_results() -> None:
    # one table, four rotations of board 7: hand 0 scores 10, 5, 5, 0 for players 1..4
    rotations = [(1, 2, 3, 4), (2, 3, 4, 1), (3, 4, 1, 2), (4, 1, 2, 3)]
    hand0 = {1: 10, 2: 5, 3: 5, 4: 0}
    results = [
        result(i, 1, tuple(P(x) for x in seats), (hand0[seats[0]], 0, 0, 0), 7)
        for i, seats in enumerate(rotations)
    ]
    scores = {s.player: s for s in duplicate_scores(results, mode=Mode.SOLO)}
    # hand 0: 1 beats three (6 of 6); 2 and 3 beat 4, tie each other (3); 4 nothing;
    # hands 1-3: all zero, ties everywhere (3 of 6 each)
    assert [scores[P(p)].matchpoints for p in (1, 2, 3, 4)] == [6 + 9, 3 + 9, 3 + 9, 0 + 9]
    assert {scores[P(p)].top for p in (1, 2, 3, 4)} == {24}


def test_welch_by_hand_and_t_tables() -> None:
    """A: 10, 12, 14 (mean 12, var 4); B: 4, 6, 8, 6 (mean 6, var 8/3).
    SE² = 4/3 + 2/3 = 2; df = 2² / ((4/3)²/2 + (2/3)²/3) = 3.857...; the p-value is
    scipy.stats' Welch test, the interval its Student's t quantile (the same to 1e-12)."""
    separation = welch((3, 12.0, 4.0), (4, 6.0, 8 / 3))
    assert separation is not None
    df = 4 / ((4 / 3) ** 2 / 2 + (2 / 3) ** 2 / 3)
    half = float(stats.t.ppf(0.975, df)) * 2**0.5
    test = stats.ttest_ind_from_stats(12.0, 2.0, 3, 6.0, (8 / 3) ** 0.5, 4, equal_var=False)
    assert separation.difference == 6
    assert separation.low == pytest.approx(6 - half, abs=1e-12)
    assert separation.high == pytest.approx(6 + half, abs=1e-12)
    assert separation.p_value == pytest.approx(float(test.pvalue), abs=1e-12)
    assert separation.significant
    # t tables: two samples of 6, 11 and 31 with equal variances have df 10, 20 and 60
    for n, confidence, quantile in (
        (6, 0.95, 2.228139),
        (11, 0.95, 2.085963),
        (31, 0.99, 2.660283),
    ):
        equal = welch((n, 3.0, n / 2), (n, 0.0, n / 2), confidence)  # SE = 1
        assert equal is not None
        assert equal.high is not None
        assert equal.high - 3.0 == pytest.approx(quantile, abs=1e-6)
    assert welch((1, 5.0, 0.0), (4, 1.0, 1.0)) == welch((1, 5.0, 0.0), (4, 1.0, 1.0))
    too_few = welch((1, 5.0, 0.0), (4, 1.0, 1.0))
    assert too_few is not None
    assert not too_few.significant


def test_confidence_marks_adjacent_rows() -> None:
    results = [
        result(i, i, (P(1), None, None, None), (x, 0, 0, 0)) for i, x in enumerate((10, 12, 14))
    ]
    results += [
        result(10 + i, i, (P(2), None, None, None), (x, 0, 0, 0))
        for i, x in enumerate((4, 6, 8, 6))
    ]
    results += [
        result(20 + i, i, (P(3), None, None, None), (x, 0, 0, 0))
        for i, x in enumerate((0, 9, 3, 6))
    ]
    table = compute_standings(results, StandingsRules(mode=Mode.SOLO))
    assert [r.player for r in table.rows] == [1, 2, 3]
    gap = table.rows[0].next_gap
    assert gap is not None
    assert gap.significant
    assert gap.difference == 6
    close = table.rows[1].next_gap  # 6 vs 4.5 with a spread of 3.9: luck
    assert close is not None
    assert not close.significant
    assert table.rows[2].next_gap is None


def random_results(
    count: int, *, seed: int, mode: Mode, boards: bool = False, table: int = 4
) -> list[ScoredMatch]:
    """Random tables of ``table`` seats (3 to 5 in individual games), ten a round; with
    ``boards``, six results a board; rounds from 0 to ``count // 10`` (several blocks of
    per-round points)."""
    rng = random.Random(seed)
    players = [P(i) for i in range(1, 41)]
    out = []
    for i in range(count):
        seats: list[Occupant] = list(rng.sample(players, table))
        if rng.random() < 0.05:
            seats[rng.randrange(table)] = TRAKARL if mode is Mode.PARTNERSHIP else None
        scores: tuple[int, ...]
        if mode is Mode.PARTNERSHIP:
            d = rng.randint(-12, 12)
            scores = (d, -d, d, -d)
        else:
            scores = tuple(rng.randint(-40, 60) for _ in range(table))
        out.append(result(i, i // 10, tuple(seats), scores, (i // 6) if boards else None))
    return out


@pytest.mark.parametrize(
    ("mode", "rank_by", "boards", "table"),
    [
        (Mode.SOLO, RankBy.AVERAGE, False, 4),
        (Mode.PARTNERSHIP, RankBy.TOTAL, False, 4),
        (Mode.SOLO, RankBy.PERCENTAGE, True, 4),
        (Mode.PARTNERSHIP, RankBy.PERCENTAGE, True, 4),
        (Mode.SOLO, RankBy.AVERAGE, False, 3),
        (Mode.SOLO, RankBy.PERCENTAGE, True, 3),
        (Mode.SOLO, RankBy.TOTAL, False, 5),
        (Mode.SOLO, RankBy.PERCENTAGE, True, 5),
    ],
)
def test_incremental_updates_equal_recomputation(
    mode: Mode, rank_by: RankBy, boards: bool, table: int
) -> None:
    results = random_results(600, seed=5, mode=mode, boards=boards, table=table)
    rules = StandingsRules(mode=mode, rank_by=rank_by, min_games=20)
    accumulator = StandingsAccumulator(rules)
    shuffled = list(results)
    random.Random(1).shuffle(shuffled)
    for i, r in enumerate(shuffled, start=1):
        assert accumulator.apply(r)
        if i in (1, 97, 600):
            assert accumulator.table() == compute_standings(shuffled[:i], rules)
    assert accumulator.table() == compute_standings(results, rules)  # any order, same table
    assert not accumulator.apply(results[0])  # a second completion is a no-op
    assert accumulator.table() == compute_standings(results, rules)


@pytest.mark.parametrize(
    ("mode", "rank_by", "boards", "table"),
    [
        (Mode.SOLO, RankBy.AVERAGE, False, 4),
        (Mode.PARTNERSHIP, RankBy.AVERAGE, False, 4),
        (Mode.SOLO, RankBy.PERCENTAGE, True, 4),
        (Mode.PARTNERSHIP, RankBy.PERCENTAGE, True, 4),
        (Mode.SOLO, RankBy.AVERAGE, False, 3),
        (Mode.SOLO, RankBy.PERCENTAGE, True, 5),
    ],
)
def test_results_applied_to_the_parts_they_touch_give_the_whole_state(
    mode: Mode, rank_by: RankBy, boards: bool, table: int
) -> None:
    """What league.services.standings does: for each result, read only its parts (and,
    on a duplicate board, the sheets of those compared with it) through JSON, apply it,
    write those parts back. The parts end up equal to the recomputation's, whatever the
    order of the results."""
    results = random_results(1400, seed=13, mode=mode, boards=boards, table=table)
    rules = StandingsRules(mode=mode, rank_by=rank_by)
    stored: dict[str, object] = {}
    margins: dict[str, object] = {}
    for r in results:
        keys = StandingsAccumulator.part_keys(r, mode)
        parts = {k: stored[k] for k in keys if k in stored}
        parts |= {k: stored[k] for k in StandingsAccumulator.holder_keys(parts) if k in stored}
        accumulator = StandingsAccumulator.from_parts(rules, json.loads(json.dumps(parts)))
        accumulator.apply(r)
        stored |= json.loads(json.dumps(accumulator.to_parts()))
        # the margin rating (league.domain.ratings_maths), tables of three to five
        margin_keys = MarginRatingAccumulator.part_keys(r)
        margin = MarginRatingAccumulator.from_parts(
            mode, json.loads(json.dumps({k: margins[k] for k in margin_keys if k in margins}))
        )
        margin.apply(r)
        margins |= json.loads(json.dumps(margin.to_parts()))

    shuffled = list(results)
    random.Random(3).shuffle(shuffled)
    whole = StandingsAccumulator(rules).apply_all(shuffled)
    assert stored == json.loads(json.dumps(whole.to_parts()))
    assert any(key.startswith("r:") and key.endswith(":2") for key in stored)  # rounds 128-140
    assert StandingsAccumulator.from_parts(rules, stored).table() == whole.table()
    assert MarginRatingAccumulator.from_parts(mode, margins).solve() == margin_ratings(
        results, mode=mode
    )


def test_duplicate_accumulator_matches_the_batch_scores() -> None:
    results = random_results(300, seed=9, mode=Mode.SOLO, boards=True)
    table = compute_standings(results, StandingsRules(mode=Mode.SOLO, rank_by=RankBy.PERCENTAGE))
    batch = {s.player: s for s in duplicate_scores(results, mode=Mode.SOLO)}
    for row in table.rows:
        assert (row.matchpoints, row.top) == (batch[row.player].matchpoints, batch[row.player].top)


def test_a_league_of_ten_thousand_matches() -> None:
    results = random_results(10_000, seed=11, mode=Mode.SOLO)
    table = compute_standings(results, StandingsRules(mode=Mode.SOLO, min_games=100))
    assert sum(r.games for r in table.rows) == sum(
        1 for r in results for s in r.seats if isinstance(s, int)
    )
    assert sum(r.total for r in table.rows) == sum(
        x for r in results for s, x in zip(r.seats, r.scores, strict=True) if isinstance(s, int)
    )
    ranked = [r for r in table.rows if r.rank is not None]
    assert len(ranked) == 40
    assert all(a.average >= b.average for a, b in itertools.pairwise(ranked))
