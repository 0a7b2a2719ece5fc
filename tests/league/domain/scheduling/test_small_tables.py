"""Round robin at tables of three or five, a round at a time
(league.domain.scheduling.small_tables): what a season achieves, measured on fixed seeds
(the search is deterministic)."""

from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import pytest

from league.domain.rotation import rotation_tables
from league.domain.scheduling.model import PlayerId
from league.domain.scheduling.small_tables import small_tables_round

P = PlayerId
Season = list[list[list[PlayerId | None]]]


def season(players: int, seats: int, rounds: int) -> Season:
    roster = [P(i) for i in range(1, players + 1)]
    played: Season = []
    for number in range(1, rounds + 1):
        played.append(small_tables_round(roster, seats=seats, history=played, seed=number))
    return played


def meetings(
    played: Sequence[Sequence[Sequence[int | None]]], players: int
) -> Counter[tuple[int, int]]:
    counts: Counter[tuple[int, int]] = Counter(
        dict.fromkeys(combinations(range(1, players + 1), 2), 0)
    )
    for round_ in played:
        for table in round_:
            counts.update(combinations(sorted(p for p in table if p is not None), 2))
    return counts


def spread(counter: Counter[Any]) -> tuple[int, int]:
    return min(counter.values()), max(counter.values())


def test_nine_players_at_tables_of_three_meet_everyone_exactly_once_in_four_rounds() -> None:
    played = season(9, 3, 4)
    for round_ in played:
        assert sorted(p for table in round_ for p in table if p is not None) == list(range(1, 10))
        assert all(len(table) == 3 for table in round_)
    assert spread(meetings(played, 9)) == (1, 1)  # the affine plane AG(2, 3), found
    # the simple rotation of league.domain.rotation repeats pairs and leaves others apart
    rotation = [rotation_tables(list(range(1, 10)), round_number=r, seats=3) for r in (1, 2, 3, 4)]
    assert spread(meetings(rotation, 9)) == (0, 2)


@pytest.mark.parametrize(
    ("players", "seats", "rounds", "most"),
    [(40, 3, 8, 1), (20, 5, 10, 3), (12, 3, 11, 3), (10, 5, 9, 6)],
)
def test_repeats_are_put_off(players: int, seats: int, rounds: int, most: int) -> None:
    """40 players at tables of three: 8 rounds without a pair meeting twice; the others as
    measured (everyone meets 16 of 39 others; 20 at tables of five: every pair 1-3 times)."""
    low, high = spread(meetings(season(players, seats, rounds), players))
    assert high == most
    if players <= 20:  # and everyone has met everyone at least once
        assert low >= 1


def test_first_seats_and_fillers_go_round() -> None:
    """7 players at tables of three: 9 seats, two fillers a round, never at one table;
    over 6 rounds each player has a filler at his table 3 or 4 times and deals first
    (seat 0) 2 to 4 times."""
    played = season(7, 3, 6)
    with_filler: Counter[PlayerId] = Counter()
    first: Counter[PlayerId] = Counter()
    for round_ in played:
        assert [sum(p is None for p in table) for table in round_].count(1) == 2
        for table in round_:
            assert table[0] is not None  # a filler never deals first
            first[table[0]] += 1
            if None in table:
                with_filler.update(p for p in table if p is not None)
    assert set(with_filler) == set(first) == set(range(1, 8))
    assert spread(with_filler) == (3, 4)
    assert spread(first) == (2, 4)
    assert spread(meetings(played, 7)) == (1, 2)


def test_more_fillers_than_tables_are_spread_and_bad_input_is_refused() -> None:
    tables = small_tables_round([P(i) for i in range(1, 7)], seats=5, seed=1)
    assert sorted(sum(p is None for p in table) for table in tables) == [2, 2]
    assert small_tables_round([P(1), P(2), P(3)], seats=3, seed=4) == small_tables_round(
        [P(1), P(2), P(3)], seats=3, seed=4
    )
    with pytest.raises(ValueError, match="twice"):
        small_tables_round([P(1), P(1), P(2)], seats=3)
    assert small_tables_round([], seats=3) == []
