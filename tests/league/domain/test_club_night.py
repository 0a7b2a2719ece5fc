"""The pure parts of a club night (league/domain/club_night.py): the substitute rule, the
table cards and the seating list, the hand records of a seed."""

from __future__ import annotations

from engine import Chance, load_game
from league.domain.club_night import (
    ENTRY_CODE_ALPHABET,
    hand_records,
    playable_tables,
    round_players,
    seating_list,
    table_card,
)


def test_reserves_fill_a_short_table_and_only_as_many_as_needed() -> None:
    assert round_players([1, 2, 3, 4, 5, 6, 7], [20, 21, 22], table_size=4).players == (
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        20,
    )
    assert round_players([1, 2, 3, 4], [20], table_size=4).reserves_used == ()
    assert round_players([1, 2, 3, 4, 5], [20, 1], table_size=3).reserves_used == (20,)


def test_a_table_with_a_filler_seat_is_not_played_but_one_with_the_dummy_is() -> None:
    tables: list[list[int | None]] = [[1, 2, 3, 4], [5, None, 6, 7]]
    assert playable_tables(tables) == [[1, 2, 3, 4]]
    with_dummy: list[list[int | None]] = [[1, 2, 3, None], [4, None, 5, None]]
    assert playable_tables(with_dummy, dummy=3) == [[1, 2, 3, None]]


def test_a_table_card_and_the_seating_list() -> None:
    card = table_card(
        game_string="priffe(players=3)",
        round_number=2,
        table=4,
        names=["Ann", "Bo", "Cai", "filler"],
        codes=["ACD347", "HJK79M"],
        entry_urls=[
            "https://club.example/club/table/ACD347/",
            "https://club.example/club/table/HJK79M/",
        ],
        reserve_seats=[1],
    )
    assert [(s["compass"], s["name"], s["role"]) for s in card["seats"]] == [
        ("North", "Ann", "player"),
        ("East", "Bo", "player"),
        ("South", "Cai", "player"),
        ("West", "the träkarl", "dummy"),
    ]
    assert [s["reserve"] for s in card["seats"]] == [False, True, False, False]
    assert [(side["seats"], side["code"]) for side in card["sides"]] == [
        ([0, 2], "ACD347"),
        ([1], "HJK79M"),
    ]
    assert card["first_dealer"] == {"seat": 0, "name": "Ann", "compass": "North"}
    assert card["sheet"]["open_ended"] is True
    rows = seating_list([card], byes=["Dan"])
    assert [r["name"] for r in rows] == ["Ann", "Bo", "Cai", "Dan"]
    assert rows[-1] == {"name": "Dan", "table": None, "compass": "sits out (bye)"}
    assert set(ENTRY_CODE_ALPHABET).isdisjoint("01OILZ2S5B8")


def test_hand_records_are_the_engines_deals_of_the_seed() -> None:
    game = load_game("kingen(shuffle_policy=full_shuffle)")
    records = hand_records(str(game), 11)
    state = game.new_initial_state(seed=11)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])
    dealt = [state.log[i] for i in state.deal_starts]
    assert all(isinstance(event, Chance) for event in dealt)
    assert [r["cards"] for r in records] == [
        e.to_json()["cards"] for e in dealt if isinstance(e, Chance)
    ]
    assert len(records) == game.deal_count
