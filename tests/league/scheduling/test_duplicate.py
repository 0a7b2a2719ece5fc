"""Duplicate plans: same boards at every table, seats rotated."""

from collections import Counter
from itertools import combinations

import pytest

from league.domain.scheduling.duplicate import (
    PARTNERSHIP_ROTATING_6,
    PARTNERSHIP_SWAP,
    SOLO_BALANCED_12,
    SOLO_ROTATIONS,
    deal_seed,
    default_seatings,
    duplicate_plan,
)
from league.domain.scheduling.model import Mode, PlayerId, Round, Table
from league.domain.scheduling.round_robin import round_robin


def test_rotations_give_every_competitor_every_hand_once() -> None:
    counts = Counter((s[h], h) for s in SOLO_ROTATIONS for h in range(4))
    assert set(counts.values()) == {1}
    assert len(counts) == 16


def test_the_twelve_seatings_balance_hands_and_neighbours() -> None:
    assert len(set(SOLO_BALANCED_12)) == 12
    hands = Counter((s[h], h) for s in SOLO_BALANCED_12 for h in range(4))
    assert set(hands.values()) == {3}
    neighbours = Counter((s[h], s[(h + 1) % 4]) for s in SOLO_BALANCED_12 for h in range(4))
    assert len(neighbours) == 12
    assert set(neighbours.values()) == {4}


def test_partnership_seatings() -> None:
    for seating in PARTNERSHIP_SWAP:
        assert {seating[0] % 2, seating[2] % 2} == {seating[0] % 2}  # partners stay together
    sides = Counter((s[h], h % 2) for s in PARTNERSHIP_SWAP for h in range(4))
    assert set(sides.values()) == {1}  # each competitor holds each side's cards once
    partnerships = Counter(frozenset((s[0], s[2])) for s in PARTNERSHIP_ROTATING_6)
    partnerships.update(frozenset((s[1], s[3])) for s in PARTNERSHIP_ROTATING_6)
    assert set(partnerships.values()) == {2}
    assert len(partnerships) == 6
    six_sides = Counter((s[h], h % 2) for s in PARTNERSHIP_ROTATING_6 for h in range(4))
    assert set(six_sides.values()) == {3}
    assert default_seatings(Mode.PARTNERSHIP) == PARTNERSHIP_SWAP
    assert default_seatings(Mode.SOLO) == SOLO_ROTATIONS


def test_plan_plays_the_same_boards_at_every_table() -> None:
    players = [PlayerId(i) for i in range(1, 9)]
    rounds = round_robin(players, 2, seed=1).rounds
    plays = duplicate_plan(rounds, boards_per_round=3, seed=42)
    assert len(plays) == 2 * 2 * 3 * 4  # rounds x tables x boards x rotations
    boards = Counter(p.board for p in plays)
    assert sorted(boards) == [1, 2, 3, 4, 5, 6]
    assert set(boards.values()) == {8}
    for board in boards:
        same = [p for p in plays if p.board == board]
        assert len({p.deal_seed for p in same}) == 1
        assert {p.table for p in same} == {0, 1}
        # within a table, each competitor holds each hand of the board once
        for table in (0, 1):
            held = Counter((p.seats[h], h) for p in same if p.table == table for h in range(4))
            assert set(held.values()) == {1}
    assert len({p.deal_seed for p in plays}) == 6


def test_deal_seeds_are_stable_and_distinct() -> None:
    assert deal_seed(42, 1) == deal_seed(42, 1)
    assert deal_seed(42, 1) == 3123876369365109204
    assert len({deal_seed(s, b) for s, b in combinations(range(30), 2)}) == 435
    assert 0 <= deal_seed(0, 0) < 2**63


def test_rejects_bad_input() -> None:
    rounds = [Round((Table((PlayerId(1), PlayerId(2), PlayerId(3), PlayerId(4))),))]
    with pytest.raises(ValueError, match="at least one board"):
        duplicate_plan(rounds, boards_per_round=0, seed=1)
    with pytest.raises(ValueError, match="permutation"):
        duplicate_plan(rounds, boards_per_round=1, seed=1, seatings=[(0, 0, 1, 2)])
