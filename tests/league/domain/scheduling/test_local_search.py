"""The local search: its documented bounds, history, attendance, byes and fillers."""

import random

import pytest

from league.domain.scheduling.balance import balance_of, pair_range
from league.domain.scheduling.local_search import (
    bye_baseline,
    plan_round,
    plan_rounds,
    table_layout,
)
from league.domain.scheduling.model import TRAKARL, Fill, Mode, PlayerId, Round, Table


def ids(n: int, start: int = 1) -> list[PlayerId]:
    return [PlayerId(i) for i in range(start, start + n)]


@pytest.mark.parametrize("n", range(12, 25))
def test_an_evening_of_four_rounds_reaches_the_lower_bound(n: int) -> None:
    """Documented bound: 12-24 players, 4 rounds: no partner and no opponent twice, byes even."""
    players = ids(n)
    result = plan_rounds(players, 4, mode=Mode.PARTNERSHIP, seed=n)
    assert result.at_lower_bound, (result.cost, result.lower_bound)
    balance = balance_of(result.rounds)
    assert pair_range(balance.partners, players)[1] == 1
    assert pair_range(balance.opponents, players)[1] == 1
    byes = [balance.byes[p] for p in players]
    assert max(byes) - min(byes) <= 1
    assert sum(byes) == 4 * (n % 4)


@pytest.mark.parametrize(("n", "rounds"), [(16, 5), (20, 6), (18, 6), (24, 7)])
def test_longer_evenings_from_the_notes_reach_the_bound(n: int, rounds: int) -> None:
    result = plan_rounds(ids(n), rounds, mode=Mode.PARTNERSHIP, seed=1)
    assert result.at_lower_bound


def test_individual_mode_16_players_meet_everyone_once() -> None:
    players = ids(16)
    result = plan_rounds(players, 5, mode=Mode.SOLO, seed=3)
    assert result.at_lower_bound
    assert pair_range(balance_of(result.rounds).meetings, players) == (1, 1)


def test_a_season_with_changing_attendance_never_repeats_a_partner() -> None:
    """Documented bound with history: while unpartnered pairs remain, no partnership repeats,
    nobody opposes anyone a third time, and byes (absences counted as shares) stay even."""
    club = ids(24)
    rng = random.Random(7)
    history: list[Round] = []
    for evening in range(4):
        present = sorted(rng.sample(club, rng.randint(13, 23)))
        result = plan_rounds(present, 4, mode=Mode.PARTNERSHIP, seed=evening, history=history)
        history.extend(result.rounds)
        assert {p for r in result.rounds for p in r.players} == set(present)
    balance = balance_of(history)
    assert pair_range(balance.partners, club)[1] == 1
    assert pair_range(balance.opponents, club)[1] <= 2
    shares = bye_baseline(club, history)
    assert max(shares.values()) - min(shares.values()) <= 1.5


def test_history_is_continued_not_restarted() -> None:
    players = ids(16)
    first = plan_rounds(players, 3, mode=Mode.PARTNERSHIP, seed=1).rounds
    second = plan_rounds(players, 3, mode=Mode.PARTNERSHIP, seed=2, history=first).rounds
    assert pair_range(balance_of(first + second).partners, players)[1] == 1


def test_same_seed_same_schedule_and_another_seed_another() -> None:
    a = plan_rounds(ids(16), 4, mode=Mode.SOLO, seed=5)
    b = plan_rounds(ids(16), 4, mode=Mode.SOLO, seed=5)
    c = plan_rounds(ids(16), 4, mode=Mode.SOLO, seed=6)
    assert a == b
    assert a.rounds != c.rounds


def test_cost_never_below_the_lower_bound() -> None:
    for n, rounds in ((9, 5), (10, 4), (13, 6)):
        result = plan_rounds(ids(n), rounds, mode=Mode.PARTNERSHIP, seed=1, moves=5_000)
        assert result.cost >= result.lower_bound - 1e-9


def test_trakarls_never_share_a_table_and_are_spread() -> None:
    players = ids(18)  # 18 = 5 tables with two träkarls
    result = plan_rounds(players, 6, mode=Mode.PARTNERSHIP, fill=Fill.TRAKARL, seed=2)
    for round_ in result.rounds:
        assert len(round_.tables) == 5
        assert not round_.byes
        assert [sum(s is TRAKARL for s in t.seats) for t in round_.tables].count(1) == 2
    balance = balance_of(result.rounds)
    assert balance.filler_pairs_at_table == 0
    assert max(balance.filler_partner[p] for p in players) <= 1


def test_bots_fill_individual_tables_one_per_table() -> None:
    players = ids(15)
    result = plan_rounds(players, 5, mode=Mode.SOLO, fill=Fill.BOTS, seed=2)
    for round_ in result.rounds:
        assert [t.seats.count(None) for t in round_.tables].count(1) == 1
    assert pair_range(balance_of(result.rounds).meetings, players) == (1, 1)


def test_layouts_and_refusals() -> None:
    assert table_layout(18, Fill.BYES) == (4, 0, 2)
    assert table_layout(18, Fill.BOTS) == (5, 2, 0)
    with pytest.raises(ValueError, match="träkarl"):
        plan_rounds(ids(9), 2, mode=Mode.SOLO, fill=Fill.TRAKARL, seed=0)
    with pytest.raises(ValueError, match="cannot fill a table"):
        plan_rounds(ids(3), 2, mode=Mode.SOLO, seed=0)
    with pytest.raises(ValueError, match="3 träkarls"):
        plan_rounds(ids(5), 2, mode=Mode.PARTNERSHIP, fill=Fill.TRAKARL, seed=0)


def test_absence_counts_as_a_share_of_a_bye() -> None:
    a, b, c, d, e, late = ids(6)
    history = [Round((Table((a, b, c, d)),), (e,)), Round((Table((b, c, d, e)),), (a,))]
    shares = bye_baseline([a, b, c, d, e, late], history)
    assert shares[a] == 1
    assert shares[e] == 1
    assert shares[b] == 0
    assert shares[late] == pytest.approx(2 / 5)
    result = plan_rounds([a, b, c, d, e, late], 1, mode=Mode.SOLO, seed=0, history=history)
    assert set(result.rounds[0].byes) <= {b, c, d, late}


def test_round_by_round_from_the_current_roster() -> None:
    players = ids(9)
    history: list[Round] = []
    for k in range(4):
        roster = players if k < 2 else players[1:]  # the first player withdraws after round 2
        history.append(plan_round(roster, mode=Mode.SOLO, seed=k, history=history))
    balance = balance_of(history)
    assert balance.games[players[0]] + balance.byes[players[0]] == 2
    assert all(players[0] not in r.players for r in history[2:])
    # 8 players at two tables from round 3: 12 meetings each over 7 others by round 4
    assert pair_range(balance.meetings, players[1:])[1] <= 3
    assert max(balance.byes[p] for p in players[1:]) == 1
