"""league.domain.tablemates: a profile's partners, opponents and tablemates, counted from
plain games (the database-backed read is tests/web/test_profiles.py's)."""

from __future__ import annotations

from typing import Any

from league.domain.tablemates import (
    FinishedGame,
    Met,
    Tablemate,
    tablemates_tally,
    unit_sides,
)

ME = 1
MET = {
    1: Met("ann", "person", "ann", None),
    2: Met("bo", "person", "bo", None),
    3: Met("cy", "person", "cy", None),
    4: Met("greedy", "bot", None, 7),
    5: Met("dee", "person", "dee", None),
}


def solo(seats: dict[int, int], scores: list[int], family: str = "kingen") -> FinishedGame:
    return FinishedGame(
        seats=seats, scores=scores, family=family, partnership=False, units=None, unit_name="game"
    )


def pairs(seats: dict[int, int], units: Any) -> FinishedGame:
    return FinishedGame(
        seats=seats,
        scores=[0] * 4,
        family="priffe",
        partnership=True,
        units=units,
        unit_name="rubber",
    )


def by_name(mates: list[Tablemate]) -> dict[str, Tablemate]:
    return {mate.name: mate for mate in mates}


def test_the_partnerships_of_a_unit_are_its_opposite_seats() -> None:
    assert unit_sides([2, 0, 3, 1]) == ((2, 3), (0, 1))


def test_in_individual_play_every_other_seat_is_a_tablemate() -> None:
    games = [
        solo({0: 1, 1: 2, 2: 4}, [10, 4, 10]),
        solo({0: 2, 1: 1, 2: 3}, [-5, 3, 7]),
    ]
    tally = tablemates_tally(competitor=ME, games=games, met=MET)
    assert tally.partnership == []
    assert [m.name for m in tally.individual] == ["bo", "cy", "greedy"]  # most games first
    bo = by_name(tally.individual)["bo"]
    assert (bo.tablemate_games, bo.tablemate_points, bo.their_tablemate_points) == (2, 13, -1)
    assert (bo.tablemate_average, bo.their_tablemate_average, bo.ahead) == (6.5, -0.5, 2)
    greedy = by_name(tally.individual)["greedy"]
    assert (greedy.kind, greedy.bot, greedy.ahead) == ("bot", 7, 0)  # a tie is not ahead
    assert bo.families == {"kingen"}


def test_in_partnership_play_each_unit_counts_the_partner_and_both_opponents() -> None:
    # Rubber 1: seats 0 and 2 partner (ann with cy); rubber 2: 0 and 1 (ann with bo).
    units = [
        {"number": 1, "seating": [0, 1, 2, 3], "points": [6, -2, 4, -8]},
        {"number": 2, "seating": [0, 2, 1, 3], "points": [3, -1, 5, -7]},
    ]
    tally = tablemates_tally(competitor=ME, games=[pairs({0: 1, 1: 2, 2: 3, 3: 5}, units)], met=MET)
    assert tally.unit == "rubber"
    assert tally.individual == []
    mates = by_name(tally.partnership)
    assert (mates["cy"].partner_units, mates["cy"].opponent_units) == (1, 1)
    assert (mates["bo"].partner_units, mates["bo"].opponent_units) == (1, 1)
    assert (mates["dee"].partner_units, mates["dee"].opponent_units) == (0, 2)
    assert mates["bo"].partner_points == 3  # ann's points of the rubber they shared
    assert mates["dee"].opponent_points == 9
    assert mates["dee"].their_points_as_opponent == -15
    assert mates["dee"].opponent_average == 4.5
    assert mates["dee"].their_opponent_average == -7.5
    assert all(m.games == 1 for m in mates.values())


def test_a_dummy_seat_is_nobodys_partner_or_opponent() -> None:
    units = [{"number": 1, "seating": [0, 1, 2, 3], "points": [2, -2, 2, -2]}]
    tally = tablemates_tally(competitor=ME, games=[pairs({0: 1, 1: 2, 3: 5}, units)], met=MET)
    assert sorted(m.name for m in tally.partnership) == ["bo", "dee"]  # seat 2: the träkarl
    assert all(m.opponent_units == 1 and m.partner_units == 0 for m in tally.partnership)


def test_a_person_twice_at_one_table_meets_nobody_there() -> None:
    tally = tablemates_tally(competitor=ME, games=[solo({0: 1, 1: 1, 2: 2}, [1, 2, 3])], met=MET)
    assert tally.individual == []
    assert tally.partnership == []


def test_only_the_most_met_are_shown_ties_by_name() -> None:
    games = [solo({0: 1, 1: other}, [1, 0]) for other in (5, 3, 2, 3)]
    tally = tablemates_tally(competitor=ME, games=games, met=MET, shown=2)
    assert [m.name for m in tally.individual] == ["cy", "bo"]
