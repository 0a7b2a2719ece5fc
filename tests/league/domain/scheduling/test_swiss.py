"""Swiss for tables of four: grouping by standings, rematches only when forced."""

import random

import pytest

from league.domain.scheduling.balance import balance_of, pair_range
from league.domain.scheduling.model import TRAKARL, Fill, Mode, PlayerId, Round
from league.domain.scheduling.swiss import swiss_round


def ids(n: int) -> list[PlayerId]:
    return [PlayerId(i + 1) for i in range(n)]


def test_first_round_seats_the_standings_top_down() -> None:
    players = ids(12)
    round_ = swiss_round(players, mode=Mode.SOLO)
    assert [sorted(t.players) for t in round_.tables] == [
        players[0:4],
        players[4:8],
        players[8:12],
    ]


def test_second_round_avoids_the_first_rounds_tables() -> None:
    players = ids(16)
    first = swiss_round(players, mode=Mode.SOLO)
    second = swiss_round(players, mode=Mode.SOLO, history=[first])
    assert pair_range(balance_of([first, second]).meetings, players)[1] == 1
    # the leader's table takes the best players who have not met: 1, 5 (6 and 7 met 5), 9, 13
    assert sorted(second.tables[0].players) == [1, 5, 9, 13]


@pytest.mark.parametrize("mode", [Mode.SOLO, Mode.PARTNERSHIP])
def test_three_rounds_without_rematches_and_tables_close_in_standings(mode: Mode) -> None:
    players = ids(24)
    rng = random.Random(3)
    history: list[Round] = []
    order = list(players)
    for _ in range(3):
        round_ = swiss_round(order, mode=mode, history=history)
        history.append(round_)
        position = {p: i for i, p in enumerate(order)}
        top = sorted(position[p] for p in round_.tables[0].players)
        assert top[0] == 0
        assert top[-1] <= 12
        rng.shuffle(order)  # new standings
    balance = balance_of(history)
    assert pair_range(balance.meetings, players)[1] == 1
    if mode is Mode.PARTNERSHIP:
        assert pair_range(balance.partners, players)[1] == 1


def test_rematches_when_the_field_forces_them_but_never_a_partner_twice() -> None:
    players = ids(8)
    history: list[Round] = []
    for _ in range(5):
        history.append(swiss_round(players, mode=Mode.PARTNERSHIP, history=history))
    balance = balance_of(history)
    assert pair_range(balance.meetings, players)[1] >= 2  # 8 players cannot avoid it
    assert pair_range(balance.partners, players)[1] == 1  # 5 rounds, 7 possible partners


def test_byes_go_to_the_fewest_byes_then_the_lowest_ranked() -> None:
    players = ids(10)
    first = swiss_round(players, mode=Mode.SOLO)
    assert set(first.byes) == {9, 10}
    second = swiss_round(players, mode=Mode.SOLO, history=[first])
    assert set(second.byes) == {7, 8}


def test_fillers_sit_at_the_bottom_tables() -> None:
    round_ = swiss_round(ids(10), mode=Mode.PARTNERSHIP, fill=Fill.TRAKARL)
    assert [sum(s is TRAKARL for s in t.seats) for t in round_.tables] == [0, 1, 1]
    bots = swiss_round(ids(9), mode=Mode.SOLO, fill=Fill.BOTS)
    assert [t.seats.count(None) for t in bots.tables] == [0, 1, 1, 1][-len(bots.tables) :]
    with pytest.raises(ValueError, match="fillers"):
        swiss_round(ids(5), mode=Mode.SOLO, fill=Fill.BOTS)


def test_deterministic() -> None:
    players = ids(20)
    a = swiss_round(players, mode=Mode.PARTNERSHIP)
    assert a == swiss_round(players, mode=Mode.PARTNERSHIP)
