"""Individual round robin: balance of meetings, seats and byes over a season."""

from collections import Counter

import pytest

from league.domain.scheduling.balance import balance_of, lho_spread, pair_range, seat_spread
from league.domain.scheduling.model import Fill, Mode, PlayerId, Round, Table
from league.domain.scheduling.round_robin import affine_plane_16, round_robin


def ids(n: int) -> list[PlayerId]:
    return [PlayerId(100 + i) for i in range(n)]


def assert_rounds_complete(rounds: tuple[Round, ...], players: list[PlayerId]) -> None:
    for round_ in rounds:
        assert sorted(round_.players) == sorted(players)


def test_affine_plane_every_pair_once() -> None:
    meet: Counter[frozenset[int]] = Counter()
    for round_ in affine_plane_16():
        assert sorted(x for t in round_ for x in t) == list(range(16))
        for t in round_:
            meet.update(frozenset((a, b)) for a in t for b in t if a < b)
    assert len(meet) == 120
    assert set(meet.values()) == {1}


@pytest.mark.parametrize(
    ("n", "fill", "rounds", "meet_range", "method"),
    [
        (16, Fill.BYES, 5, (1, 1), "affine plane"),
        (15, Fill.BOTS, 10, (2, 2), "affine plane"),
        (12, Fill.BYES, 11, (3, 3), "Wh(12)"),
        (13, Fill.BYES, 13, (3, 3), "Wh(13)"),
        (11, Fill.BOTS, 11, (3, 3), "Wh(12)"),
    ],
)
def test_full_cycles_meet_everyone_equally(
    n: int, fill: Fill, rounds: int, meet_range: tuple[int, int], method: str
) -> None:
    players = ids(n)
    plan = round_robin(players, rounds, fill=fill, seed=1)
    assert method in plan.method
    assert_rounds_complete(plan.rounds, players)
    balance = balance_of(plan.rounds)
    assert pair_range(balance.meetings, players) == meet_range
    assert seat_spread(balance, players) <= 1
    byes = Counter(balance.byes[p] for p in players)
    assert len(byes) == 1  # everyone the same number of byes


@pytest.mark.parametrize(
    ("n", "fill", "rounds"),
    [(13, Fill.BYES, 8), (14, Fill.BYES, 6), (18, Fill.BOTS, 6), (20, Fill.BYES, 7)],
)
def test_season_balance_by_local_search(n: int, fill: Fill, rounds: int) -> None:
    """Documented spread: meetings differ by at most 2 between any two pairs, seats (dealer
    position) by at most 1 per player, left/right by at most 2, byes by at most 1."""
    players = ids(n)
    plan = round_robin(players, rounds, fill=fill, seed=3)
    assert plan.method == "local search"
    assert_rounds_complete(plan.rounds, players)
    balance = balance_of(plan.rounds)
    low, high = pair_range(balance.meetings, players)
    assert high - low <= 2
    assert seat_spread(balance, players) <= 1
    assert lho_spread(balance, players) <= 2
    byes = [balance.byes[p] for p in players]
    assert max(byes) - min(byes) <= 1
    if fill is Fill.BOTS:
        for round_ in plan.rounds:
            assert all(t.seats.count(None) <= 1 for t in round_.tables)
        games_with_bot = [balance.filler_games[p] for p in players]
        assert max(games_with_bot) - min(games_with_bot) <= 1


def test_cycles_then_the_rest_by_local_search() -> None:
    players = ids(16)
    plan = round_robin(players, 7, seed=2)
    assert "last 2 rounds by local search" in plan.method
    assert len(plan.rounds) == 7
    low, high = pair_range(balance_of(plan.rounds).meetings, players)
    assert (low, high) == (1, 2)


def test_late_joiner_and_withdrawal_replan_the_rest_of_the_season() -> None:
    """The documented rule: re-plan the remaining rounds with the played rounds as history."""
    players = ids(13)
    first = round_robin(players, 3, seed=4).rounds
    leaver, joiner = players[0], PlayerId(999)
    roster = [*players[1:], joiner]
    rest = round_robin(roster, 5, seed=5, history=first)
    assert rest.method == "local search"
    assert_rounds_complete(rest.rounds, roster)
    season = first + rest.rounds
    balance = balance_of(season)
    assert leaver not in {p for r in rest.rounds for p in r.players}
    assert balance.games[joiner] == 5 - balance.byes[joiner]
    # over the rounds everyone attended, byes stay even; the joiner's absences count as shares
    regulars = players[1:]
    assert max(balance.byes[p] for p in regulars) - min(balance.byes[p] for p in regulars) <= 1
    assert seat_spread(balance, regulars) <= 1


def test_deterministic_for_a_seed_and_refuses_the_trakarl() -> None:
    assert round_robin(ids(9), 4, seed=1) == round_robin(ids(9), 4, seed=1)
    with pytest.raises(ValueError, match="träkarl"):
        round_robin(ids(9), 4, fill=Fill.TRAKARL, seed=1)


def test_tables_are_plain_data() -> None:
    plan = round_robin(ids(8), 2, fill=Fill.BYES, seed=0)
    table = plan.rounds[0].tables[0]
    assert isinstance(table, Table)
    assert len(table.seats) == 4
    assert plan.rounds[0].tables[0].players == table.seats
    assert Mode.SOLO.value == "solo"
