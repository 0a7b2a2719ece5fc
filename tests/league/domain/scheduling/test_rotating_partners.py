"""Rotating partners for Priffe: designs, the träkarl, the six-rubber cycle, near-designs."""

from itertools import combinations

import pytest

from league.domain.scheduling.balance import balance_of, lho_spread, pair_range, seat_spread
from league.domain.scheduling.model import TRAKARL, Fill, PlayerId, Round
from league.domain.scheduling.rotating_partners import rotating_partners


def ids(n: int) -> list[PlayerId]:
    return [PlayerId(1000 + 7 * i) for i in range(n)]


def assert_complete(rounds: tuple[Round, ...], players: list[PlayerId]) -> None:
    for round_ in rounds:
        assert sorted(round_.players) == sorted(players)


@pytest.mark.parametrize("n", [v for v in range(4, 41) if v % 4 in (0, 1)])
def test_designs_partner_once_oppose_twice_with_balanced_seats(n: int) -> None:
    players = ids(n)
    plan = rotating_partners(players, seed=n)
    assert_complete(plan.rounds, players)
    balance = balance_of(plan.rounds)
    if n == 4:
        assert "six-rubber" in plan.method
        assert len(plan.rounds) == 6
        assert pair_range(balance.partners, players) == (2, 2)
        assert pair_range(balance.opponents, players) == (4, 4)
        assert lho_spread(balance, players) == 0
    else:
        assert f"Wh({n})" in plan.method
        assert len(plan.rounds) == (n - 1 if n % 4 == 0 else n)
        assert pair_range(balance.partners, players) == (1, 1)
        assert pair_range(balance.opponents, players) == (2, 2)
        assert {balance.byes[p] for p in players} == ({0} if n % 4 == 0 else {1})
        # documented: left/right differ by at most 2 (a pair opposes twice), dealer seats by 1
        assert lho_spread(balance, players) <= 2
    assert seat_spread(balance, players) <= 1


@pytest.mark.parametrize("n", [3, 7, 11, 15, 19, 23])
def test_a_trakarl_completes_the_design(n: int) -> None:
    players = ids(n)
    plan = rotating_partners(players, fill=Fill.TRAKARL, seed=1)
    assert_complete(plan.rounds, players)
    balance = balance_of(plan.rounds)
    for round_ in plan.rounds:
        assert sum(seat is TRAKARL for t in round_.tables for seat in t.seats) == 1
        assert not round_.byes
    if n == 3:
        assert "six-rubber" in plan.method
        assert [balance.filler_partner[p] for p in players] == [2, 2, 2]
    else:
        assert f"Wh({n + 1})" in plan.method
        assert pair_range(balance.partners, players) == (1, 1)
        assert pair_range(balance.opponents, players) == (2, 2)
        # every human partners the träkarl once and sits at its table three times
        assert {balance.filler_partner[p] for p in players} == {1}
        assert {balance.filler_games[p] for p in players} == {3}


@pytest.mark.parametrize("n", [6, 10, 14, 7, 11])
def test_near_designs_with_byes_stay_within_the_documented_bound(n: int) -> None:
    """Documented: in N - 1 rounds nobody partners anyone twice, opponents meet at most 3
    times, byes differ by at most 1."""
    players = ids(n)
    plan = rotating_partners(players, seed=2, moves=60_000)
    assert plan.method == "local search"
    assert len(plan.rounds) == n - 1
    assert_complete(plan.rounds, players)
    balance = balance_of(plan.rounds)
    assert pair_range(balance.partners, players)[1] == 1
    assert pair_range(balance.opponents, players)[1] <= 3
    byes = [balance.byes[p] for p in players]
    assert max(byes) - min(byes) <= 1


def test_two_trakarls_never_meet() -> None:
    players = ids(14)
    plan = rotating_partners(players, fill=Fill.TRAKARL, seed=3, moves=60_000)
    balance = balance_of(plan.rounds)
    assert balance.filler_pairs_at_table == 0
    assert pair_range(balance.partners, players)[1] == 1
    partnered = [balance.filler_partner[p] for p in players]  # 26 träkarl games, 14 players
    assert (min(partnered), max(partnered)) == (1, 2)


def test_more_rounds_repeat_the_cycle_and_fewer_take_its_start() -> None:
    players = ids(8)
    long = rotating_partners(players, 14, seed=0)
    balance = balance_of(long.rounds)
    assert pair_range(balance.partners, players) == (2, 2)
    # two cycles: the second may reverse tables, so left and right even out
    assert sum(balance.lho_imbalance(a, b) == 0 for a, b in combinations(players, 2)) >= 20
    short = rotating_partners(players, 3, seed=0)
    assert pair_range(balance_of(short.rounds).partners, players)[1] == 1


def test_history_replans_by_local_search_and_errors() -> None:
    players = ids(12)
    first = rotating_partners(players, 4, seed=0).rounds
    rest = rotating_partners([*players[:-1], PlayerId(5)], 3, seed=0, history=first)
    assert rest.method == "local search"
    with pytest.raises(ValueError, match="number of rounds"):
        rotating_partners(players, seed=0, history=first)
    with pytest.raises(ValueError, match="träkarl"):
        rotating_partners(ids(3), seed=0)
