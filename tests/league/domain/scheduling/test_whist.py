"""Whist tournaments: every design shipped or constructed, for every v ≡ 0, 1 (mod 4) to 40."""

from collections import Counter
from itertools import combinations

import pytest

from league.domain.scheduling.starter_search import (
    INF,
    lho_imbalance,
    orient,
    search_starter,
    starter_from_json,
    starter_to_json,
)
from league.domain.scheduling.whist import (
    SIX_RUBBER_CYCLE,
    WhistDesign,
    develop_cyclic,
    develop_one_rotational,
    primitive_root_design,
    shipped_starters,
    whist_design,
    whist_sizes,
)

SIZES = [v for v in range(4, 41) if v % 4 in (0, 1)]


def counts(design: WhistDesign) -> tuple[Counter[frozenset[int]], Counter[frozenset[int]]]:
    partners: Counter[frozenset[int]] = Counter()
    opponents: Counter[frozenset[int]] = Counter()
    for games in design.rounds:
        for a, b, c, d in games:
            partners[frozenset((a, c))] += 1
            partners[frozenset((b, d))] += 1
            for x, y in ((a, b), (b, c), (c, d), (d, a)):
                opponents[frozenset((x, y))] += 1
    return partners, opponents


def left_hand(design: WhistDesign) -> Counter[tuple[int, int]]:
    lho: Counter[tuple[int, int]] = Counter()
    for games in design.rounds:
        for game in games:
            for s in range(4):
                lho[(game[s], game[(s + 1) % 4])] += 1
    return lho


def assert_whist(design: WhistDesign) -> None:
    v = design.players
    rounds = len(design.rounds)
    assert rounds == (v - 1 if v % 4 == 0 else v)
    sat_out: Counter[int] = Counter()
    for games, out in zip(design.rounds, design.sit_outs, strict=True):
        everyone = [x for game in games for x in game] + list(out)
        assert sorted(everyone) == list(range(v)), "a round is not a partition of the players"
        assert len(games) == v // 4
        sat_out.update(out)
    assert sat_out == (Counter(range(v)) if v % 4 == 1 else Counter())
    partners, opponents = counts(design)
    for a, b in combinations(range(v), 2):
        assert partners[frozenset((a, b))] == 1, (v, a, b, "partners")
        assert opponents[frozenset((a, b))] == 2, (v, a, b, "opponents")


@pytest.mark.parametrize("v", SIZES)
def test_every_pair_partners_once_and_opposes_twice(v: int) -> None:
    assert_whist(whist_design(v))


def test_every_size_from_4_to_40_is_available() -> None:
    assert set(SIZES) <= set(whist_sizes())
    with pytest.raises(ValueError, match="no whist tournament"):
        whist_design(10)


@pytest.mark.parametrize("q", [5, 9, 13, 17, 25, 29, 37, 41, 49])
def test_primitive_root_designs_are_directed_and_ordered(q: int) -> None:
    design = primitive_root_design(q)
    assert_whist(design)
    lho = left_hand(design)
    assert all(lho[(x, y)] == 1 for x in range(q) for y in range(q) if x != y)
    seats = Counter((x, s) for games in design.rounds for g in games for s, x in enumerate(g))
    assert set(seats.values()) == {(q - 1) // 4}


def test_shipped_data_covers_the_sizes_no_construction_gives() -> None:
    shipped = shipped_starters()
    assert set(shipped) == {8, 12, 16, 20, 21, 24, 28, 32, 33, 36, 40}
    for players, (construction, modulus, starter) in shipped.items():
        assert construction == ("1-rotational" if players % 4 == 0 else "cyclic")
        assert modulus == (players - 1 if players % 4 == 0 else players)
        assert len(starter) == players // 4
        assert starter_from_json(starter_to_json(starter)) == starter


def test_single_table_and_six_rubber_cycle() -> None:
    assert_whist(whist_design(4))
    partners: Counter[frozenset[int]] = Counter()
    lho: Counter[tuple[int, int]] = Counter()
    for a, b, c, d in SIX_RUBBER_CYCLE:
        partners.update([frozenset((a, c)), frozenset((b, d))])
        lho.update([(a, b), (b, c), (c, d), (d, a)])
    assert set(partners.values()) == {2}
    assert len(partners) == 6
    assert all(lho[(x, y)] == 2 for x in range(4) for y in range(4) if x != y and (x + y) % 2)


@pytest.mark.parametrize("m", [7, 11, 15, 13, 21])
def test_starter_search_finds_valid_starters(m: int) -> None:
    starter = search_starter(m, seed=1)
    assert starter is not None
    if m % 4 == 3:
        assert sum(x == INF for g in starter for x in g) == 1
        assert_whist(develop_one_rotational(m, starter))
    else:
        assert_whist(develop_cyclic(m, starter))


def test_orientation_never_worsens_left_right_balance() -> None:
    starter = search_starter(23, seed=2)
    assert starter is not None
    flipped = tuple((g[0], g[3], g[2], g[1]) for g in starter)
    assert lho_imbalance(23, orient(23, flipped)) <= lho_imbalance(23, flipped)
    assert lho_imbalance(23, orient(23, flipped)) == lho_imbalance(23, starter)


def test_a_wrong_starter_is_caught() -> None:
    # partners {1, 3} and {2, 4} both differ by 2 mod 5: pairs differing by 1 never partner
    broken = develop_cyclic(5, ((1, 2, 3, 4),))
    with pytest.raises(AssertionError):
        assert_whist(broken)
