"""Priffe rules: the worked examples of SPEC 6.11 and the rules of SPEC 6.4-6.9, each
played through the public API on hand-made deals.

With ``seating=fixed`` seat 0 deals first and the first rubber's partnerships are seats 0
and 2 ("NS", side 0) against seats 1 and 3 ("EW", side 1); seat 1 is forehand and bids
first, the dealer last.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from engine import CHANCE, TERMINAL, IllegalActionError, InvalidChanceError, load_game
from engine.cards import FULL_DECK, card_name, cards_of, parse_card
from engine.chance import DEAL, DRAW, Chance
from engine.variants.priffe import MISERE, PriffeState
from tests.engine.scripting import cards, complete_deal, deal, legal_strings, play

NS, EW = 0, 1


def table(options: str = "") -> PriffeState:
    """A fixed-seating game without a seed: the test applies the deals."""
    game = load_game(f"priffe(seating=fixed{',' + options if options else ''})")
    state = game.new_initial_state(seed=None)
    assert isinstance(state, PriffeState)
    return state


def new_deal(state: PriffeState, fixed: list[str], seed: int = 0) -> None:
    """Deal the cards named for each seat, the rest of the pack at random."""
    deal(state, complete_deal(fixed, FULL_DECK, 13, seed=seed))


def bid(state: PriffeState, *bids: str) -> None:
    play(state, *(b if b == "pass" else f"bid {b}" for b in bids))


def side_tricks(state: PriffeState, partners: tuple[int, int]) -> int:
    return sum(1 for _, _, winner in state.completed if winner in partners)


def play_out(
    state: PriffeState, accept: Callable[[PriffeState], bool], seed: int = 0
) -> PriffeState:
    """Random legal play of the current deal, retried until its end satisfies ``accept``."""
    rng = random.Random(seed)
    for _ in range(20000):
        trial = state.clone()
        assert isinstance(trial, PriffeState)
        deals = len(trial.deal_scores)
        while len(trial.deal_scores) == deals:
            trial.apply_action(rng.choice(trial.legal_actions()))
        if accept(trial):
            return trial
    raise AssertionError("no playout of the deal ends as wanted")


def play_with_tricks(state: PriffeState, side: int, tricks: int, seed: int = 0) -> PriffeState:
    """Play the deal out so that ``side`` (of the current rubber) takes ``tricks`` tricks."""
    partners = state.rubber.partners[side]
    return play_out(state, lambda s: side_tricks(s, partners) == tricks, seed)


def sheet(state: PriffeState) -> dict[str, Any]:
    last = state.view_for(0).public["last_deal"]
    assert isinstance(last, dict)
    return last


def rubber(state: PriffeState, index: int = -1) -> dict[str, Any]:
    rubbers = state.view_for(0).public["rubbers"]
    assert isinstance(rubbers, list)
    result = rubbers[index]
    assert isinstance(result, dict)
    return result


# --- bidding (SPEC 6.4, 6.5) ---------------------------------------------------------


def test_bidding_is_one_round_from_forehand_each_bid_higher() -> None:
    state = table()
    new_deal(state, ["", "", "", ""])
    assert (state.phase, state.dealer, state.current_seat) == ("bid", 0, 1)
    assert legal_strings(state) == [
        "pass",
        "bid clubs",
        "bid spades",
        "bid diamonds",
        "bid hearts",
        "bid noll",
        "bid spel",
        "bid misere",
    ]
    bid(state, "diamonds")
    assert state.current_seat == 2
    assert legal_strings(state) == ["pass", "bid hearts", "bid noll", "bid spel", "bid misere"]
    bid(state, "pass", "noll")
    assert state.current_seat == 0  # the dealer speaks last
    bid(state, "pass")
    assert state.phase == "play"
    assert state.view_for(0).public["contract"] == "noll"
    assert state.view_for(0).public["declarer"] == 3
    assert state.current_seat == 1  # forehand leads


def test_a_bid_must_be_higher_than_the_highest_so_far() -> None:
    state = table()
    new_deal(state, ["", "", "", ""])
    bid(state, "hearts")
    before = (list(state.bids), state.current_seat)
    with pytest.raises(IllegalActionError, match="a bid must be higher than hearts"):
        bid(state, "diamonds")
    with pytest.raises(IllegalActionError, match="a bid must be higher than hearts"):
        bid(state, "hearts")
    assert (state.bids, state.current_seat) == before


def test_partner_may_overbid_partner() -> None:
    state = table()
    new_deal(state, ["", "", "", ""])
    bid(state, "diamonds", "pass", "hearts", "pass")
    public = state.view_for(0).public
    assert (public["contract"], public["declarer"], public["declaring_side"]) == ("hearts", 3, EW)
    assert state.trump == parse_card("2H") // 13


@pytest.mark.parametrize(
    ("contract", "trump"), [("diamonds", "D"), ("hearts", "H"), ("spel", None), ("noll", None)]
)
def test_red_bids_name_trumps_and_spel_and_noll_have_none(contract: str, trump: str | None) -> None:
    state = table()
    new_deal(state, ["", "", "", ""])
    bid(state, contract, "pass", "pass", "pass")
    assert state.view_for(0).to_json()["trump"] == trump


def test_all_pass_is_a_forced_noll_without_declarers() -> None:
    state = table()
    new_deal(state, ["", "", "", ""])
    bid(state, "pass", "pass", "pass", "pass")
    public = state.view_for(2).public
    assert (public["contract"], public["forced"], public["declarer"]) == ("noll", True, None)
    assert state.view_for(2).contract == "noll (forced)"
    assert state.current_seat == 1  # forehand leads


def test_clubs_and_spades_only_inform_partner_so_the_deal_is_a_forced_noll() -> None:
    state = table()
    new_deal(state, ["", "", "", ""])
    bid(state, "clubs", "spades", "pass", "pass")
    public = state.view_for(0).public
    assert (public["contract"], public["forced"], public["declarer"]) == ("noll", True, None)
    assert state.trump == -1


def test_option_informational_bids_played_as_suit_contracts() -> None:
    state = table("informational_only_means=suit_contract")
    new_deal(state, ["", "", "", ""])
    bid(state, "clubs", "spades", "pass", "pass")
    public = state.view_for(0).public
    assert (public["contract"], public["forced"], public["declarer"]) == ("spades", False, 2)
    assert state.trump == 3


def test_misere_outbids_everything_and_its_bidder_leads() -> None:
    state = table()
    new_deal(state, ["", "", "", ""])
    bid(state, "spel", "misere")
    assert legal_strings(state) == ["pass"]
    bid(state, "pass", "pass")
    assert state.view_for(0).public["contract"] == "misere"
    assert state.current_seat == 2


def test_option_misere_not_allowed() -> None:
    state = table("misere_allowed=false")
    new_deal(state, ["", "", "", ""])
    assert "bid misere" not in legal_strings(state)
    with pytest.raises(IllegalActionError, match="misère is not allowed at this table"):
        bid(state, "misere")


def test_option_first_lead_left_of_the_highest_bidder() -> None:
    state = table("first_leader=left_of_bidder")
    new_deal(state, ["", "", "", ""])
    bid(state, "pass", "hearts", "pass", "pass")
    assert state.current_seat == 3
    forced = table("first_leader=left_of_bidder")
    new_deal(forced, ["", "", "", ""])
    bid(forced, "pass", "pass", "pass", "pass")
    assert forced.current_seat == 1  # no bidder: forehand


def test_actions_out_of_phase_name_the_rule() -> None:
    state = table()
    new_deal(state, ["AS", "", "", ""])
    with pytest.raises(IllegalActionError, match="bid a contract"):
        play(state, "play AS")
    bid(state, "pass", "pass", "pass", "pass")
    with pytest.raises(IllegalActionError, match="a card must be played now"):
        bid(state, "hearts")


# --- play (SPEC 6.6) ----------------------------------------------------------------


def test_follow_suit_is_the_only_rule() -> None:
    state = table()
    all_hearts = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
    new_deal(state, [all_hearts, "AS", "", "2S 3S 2D"])
    bid(state, "spel", "pass", "pass", "pass")
    play(state, "play AS")  # forehand leads
    play(state, state.action_to_string(state.legal_actions()[0]))
    assert state.current_seat == 3
    before = state.hands[3]
    with pytest.raises(IllegalActionError, match="must follow suit"):
        play(state, "play 2D")
    assert state.hands[3] == before
    assert [card_name(c) for c in state.legal_actions() if c // 13 != 3] == []
    play(state, "play 3S")  # not obliged to beat the ace
    # Seat 0 holds no spade: any card, no obligation to trump.
    assert state.legal_actions() == cards_of(cards(all_hearts))


# --- SPEC 6.11 worked examples -------------------------------------------------------


def test_example_1_hearts_made_with_nine_tricks_and_three_honours() -> None:
    state = table()
    new_deal(state, ["AH KH AS KS AD KD", "QH", "JH AC KC QS QD", ""], seed=1)
    bid(state, "pass", "hearts", "pass", "pass")
    done = play_with_tricks(state, NS, 9)
    line = sheet(done)
    assert line["trick_points"] == [30, 0]
    assert line["honour_points"] == [20, 0]
    assert line["penalty_points"] == [0, 0]


def test_example_2_spel_defeated_the_defenders_score_penalty_points() -> None:
    state = table()
    new_deal(state, ["AS KS KH KD", "AH QS", "AD KC QC", "AC QH"], seed=2)
    bid(state, "spel", "pass", "pass", "pass")
    done = play_with_tricks(state, NS, 8)
    line = sheet(done)
    assert line["trick_points"] == [20, 0]
    assert line["penalty_points"] == [20, 0]
    assert line["honour_points"] == [0, 0]  # aces split 2-2
    assert rubber(done)["totals"] == [40, 0]


def test_example_3_noll_made_by_its_declarers() -> None:
    state = table()
    new_deal(state, ["2C 3C", "2D 2H", "2S 3D", ""], seed=3)
    bid(state, "pass", "noll", "pass", "pass")
    done = play_with_tricks(state, NS, 4)
    line = sheet(done)
    assert (line["trick_points"], line["penalty_points"]) == ([30, 0], [0, 0])
    assert line["honour_points"] == [0, 0]  # the twos split 2-2


def test_example_3_noll_lost_the_other_side_scores_double() -> None:
    state = table()
    new_deal(state, ["2C 3C", "2D 2H", "2S 3D", ""], seed=3)
    bid(state, "pass", "noll", "pass", "pass")
    done = play_with_tricks(state, NS, 8)
    line = sheet(done)
    assert (line["trick_points"], line["penalty_points"]) == ([0, 20], [0, 20])


def test_example_4_forced_noll_scores_without_penalty() -> None:
    state = table()
    new_deal(state, ["", "", "", ""], seed=4)
    bid(state, "pass", "pass", "pass", "pass")
    done = play_with_tricks(state, NS, 6)
    line = sheet(done)
    assert (line["trick_points"], line["penalty_points"]) == ([10, 0], [0, 0])
    assert line["forced"] is True


def test_option_forced_noll_penalty() -> None:
    state = table("forced_noll_penalty=true")
    new_deal(state, ["", "", "", ""], seed=4)
    bid(state, "pass", "pass", "pass", "pass")
    line = sheet(play_with_tricks(state, NS, 6))
    assert (line["trick_points"], line["penalty_points"]) == ([10, 0], [10, 0])


def test_example_5_first_exit_at_thirty_trick_points() -> None:
    state = table()
    new_deal(state, ["AH KH", "QH JH", "", ""], seed=5)
    bid(state, "pass", "hearts", "pass", "pass")
    done = play_with_tricks(state, NS, 9)
    line = sheet(done)
    assert (line["trick_points"], line["bonus_points"]) == ([30, 0], [10, 0])
    assert rubber(done)["exits"] == [1, 0]
    assert rubber(done)["totals"] == [40, 0]


@pytest.mark.parametrize(("option", "exits"), [("", [0, 0]), ("exit1_counts_penalty=true", [1, 0])])
def test_example_5_penalty_points_never_count_toward_exits(option: str, exits: list[int]) -> None:
    state = table(option)
    new_deal(state, ["AS KS KH KD", "AH QS", "AD KC QC", "AC QH"], seed=2)
    bid(state, "spel", "pass", "pass", "pass")
    done = play_with_tricks(state, NS, 8)
    assert sheet(done)["trick_points"] == [20, 0]
    assert sheet(done)["penalty_points"] == [20, 0]
    assert rubber(done)["exits"] == exits


@pytest.mark.parametrize(("option", "exits"), [("", [0, 0]), ("exit1_counts_honours=true", [1, 0])])
def test_example_5_honour_points_never_count_toward_exits(option: str, exits: list[int]) -> None:
    state = table(option)
    new_deal(state, ["AH KH QH JH", "", "", ""], seed=6)
    bid(state, "pass", "hearts", "pass", "pass")
    done = play_with_tricks(state, NS, 7)
    assert sheet(done)["trick_points"] == [10, 0]
    assert sheet(done)["honour_points"] == [50, 0]
    assert rubber(done)["exits"] == exits


def test_example_6_settlement_is_the_difference_of_the_totals_over_ten() -> None:
    """NS 150, EW 90: each NS player +6, each EW player -6; then partners rotate."""
    state = table()
    # Deal 1 (dealer 0): NS hearts, 9 tricks: 30 + first exit 10 + honours 3 = 20.
    new_deal(state, ["AH KH", "", "QH", ""], seed=11)
    bid(state, "pass", "hearts", "pass", "pass")
    state = play_with_tricks(state, NS, 9, seed=1)
    assert rubber(state)["totals"] == [60, 0]
    # Deal 2 (dealer 1): EW hearts, 10 tricks: 40 + first exit 10 + four honours split 40.
    new_deal(state, ["", "AH KH", "", "QH JH"], seed=12)
    bid(state, "pass", "hearts", "pass", "pass")  # seat 3
    state = play_with_tricks(state, EW, 10, seed=2)
    assert rubber(state)["totals"] == [60, 90]
    # Deal 3 (dealer 2): NS hearts, 8 tricks: 20 (20 after the first exit); honours 2-2.
    new_deal(state, ["AH KH", "QH JH", "", ""], seed=13)
    bid(state, "pass", "hearts", "pass", "pass")
    state = play_with_tricks(state, NS, 8, seed=3)
    assert rubber(state)["totals"] == [80, 90]
    assert rubber(state)["exits"] == [1, 1]
    assert state.scores() == [0, 0, 0, 0]
    # Deal 4 (dealer 3): NS hearts, 9 tricks: 30 (50 > 40 after the first exit: second
    # exit, 20) and three honours 20: NS 150, EW 90.
    new_deal(state, ["AH", "QH", "KH JH", ""], seed=14)
    bid(state, "hearts", "pass", "pass", "pass")  # seat 0
    state = play_with_tricks(state, NS, 9, seed=4)
    finished = rubber(state, 0)
    assert finished["totals"] == [150, 90]
    assert finished["exits"] == [2, 1]
    assert finished["settlement"] == [6, -6, 6, -6]
    assert state.deal_scores == [[0] * 4, [0] * 4, [0] * 4, [6, -6, 6, -6]]
    assert state.scores() == [6, -6, 6, -6]
    # The next rubber seats 0 with 1 and 2 with 3; the deal passes to the left of seat 3.
    public = state.view_for(0).public
    assert (public["rubber"], public["partners"], public["seating"]) == (
        2,
        [[0, 1], [2, 3]],
        [0, 2, 1, 3],
    )
    assert rubber(state)["totals"] == [0, 0]
    new_deal(state, ["", "", "", ""])
    assert state.dealer == 0
    assert state.current_seat == 2  # forehand: left of seat 0 in the new seating


def test_example_7_misere_lost_on_the_fifth_trick() -> None:
    state = table()
    new_deal(state, ["", "", "", ""], seed=7)
    bid(state, "pass", "misere", "pass", "pass")
    done = play_out(state, lambda s: len(s.completed) == 5)
    winners = [winner for _, _, winner in done.completed]
    assert 2 not in winners[:4]
    assert winners[4] == 2  # the deal ends at the bidder's first trick
    assert all(h.bit_count() == 8 for h in done.hands)
    assert done.deal_scores[-1] == [5, 5, -15, 5]
    assert sheet(done)["made"] is False
    assert rubber(done)["totals"] == [0, 0]  # misère is outside the team scores
    assert done.current_seat == CHANCE


def test_misere_made_when_the_bidder_takes_no_trick() -> None:
    state = table()
    low = "2C 3C 4C 5C 2D 3D 4D 2H 3H 4H 2S 3S 4S"  # the lowest three of every suit
    new_deal(state, ["", low, "", ""])
    bid(state, "misere", "pass", "pass", "pass")
    assert state.current_seat == 1
    rng = random.Random(8)
    while state.current_seat != CHANCE:
        state.apply_action(rng.choice(state.legal_actions()))
    assert len(state.completed) == 13
    assert state.deal_scores[-1] == [-5, 15, -5, -5]
    assert sum(state.scores()) == 0


# --- honours (SPEC 6.7) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("contract", "fixed", "honours"),
    [
        ("hearts", ["AH KH QH JH", "", "", ""], [50, 0]),
        ("hearts", ["AH KH", "", "QH JH", ""], [40, 0]),
        ("diamonds", ["", "AD KD QD", "", "JD"], [0, 40]),
        ("diamonds", ["AD", "KD QD", "", "JD"], [0, 20]),
        ("spel", ["", "AC AD AH AS", "", ""], [0, 50]),
        ("spel", ["AC", "AD", "AH", "AS"], [0, 0]),
        ("noll", ["2C 2D 2H", "2S", "", ""], [20, 0]),
    ],
)
def test_honours_split_three_four_split_and_four_in_one_hand(
    contract: str, fixed: list[str], honours: list[int]
) -> None:
    state = table()
    new_deal(state, fixed, seed=9)
    bid(state, contract, "pass", "pass", "pass")
    done = play_out(state, lambda s: True)
    assert sheet(done)["honour_points"] == honours


def test_honours_are_counted_from_the_deal_not_from_the_tricks() -> None:
    state = table()
    new_deal(state, ["2C 2D", "", "2H", ""], seed=10)
    bid(state, "noll", "pass", "pass", "pass")
    ns_twos = cards("2C 2D 2H")

    def ew_took_two_ns_twos(s: PriffeState) -> bool:
        won = s.won_masks()
        return ((won[1] | won[3]) & ns_twos).bit_count() >= 2

    done = play_out(state, ew_took_two_ns_twos)
    assert sheet(done)["honour_points"] == [20, 0]  # NS were dealt three of the twos


# --- exits and the rubber (SPEC 6.8) ----------------------------------------------


STRONG_NS_ACES_SPLIT = ["AC AD KC KD KH KS", "AH", "QC QD QH QS JC JD", "AS"]


def _first_exit_then(state: PriffeState, tricks: int) -> PriffeState:
    new_deal(state, STRONG_NS_ACES_SPLIT, seed=20)
    bid(state, "pass", "spel", "pass", "pass")  # seat 2: 9 tricks, 30, first exit
    state = play_with_tricks(state, NS, 9)
    assert sheet(state)["bonus_points"] == [10, 0]
    new_deal(state, STRONG_NS_ACES_SPLIT, seed=21)
    bid(state, "spel", "pass", "pass", "pass")  # seat 2 again (dealer 1)
    return play_with_tricks(state, NS, tricks)


def test_second_exit_needs_more_than_forty_further_trick_points() -> None:
    state = _first_exit_then(table(), 10)  # +40: not more than 40
    assert rubber(state)["exits"] == [1, 0]
    assert rubber(state)["first_exit_at"] == [30, None]
    new_deal(state, STRONG_NS_ACES_SPLIT, seed=22)
    bid(state, "pass", "spel", "pass", "pass")  # seat 0 (dealer 2)
    state = play_with_tricks(state, NS, 7)
    finished = rubber(state, 0)
    assert finished["exits"] == [2, 0]
    assert finished["bonus_points"] == [30, 0]
    assert finished["totals"] == [110, 0]
    assert state.scores() == [11, -11, 11, -11]


def test_option_second_exit_at_exactly_forty() -> None:
    state = _first_exit_then(table("exit2_strictly_greater=false"), 10)
    finished = rubber(state, 0)
    assert finished["exits"] == [2, 0]
    assert finished["totals"] == [100, 0]


def test_the_rubber_winner_has_the_larger_total_not_the_second_exit() -> None:
    state = table("rubbers_per_game=1")
    # NS: noll, 4 tricks: 30, first exit; EW hold all four twos in one hand: 50.
    new_deal(state, ["", "2C 2D 2H 2S", "", ""], seed=30)
    bid(state, "pass", "noll", "pass", "pass")
    state = play_with_tricks(state, NS, 4)
    # EW: noll, 6 tricks: 10, and the twos again: 50.
    new_deal(state, ["", "", "", "2C 2D 2H 2S"], seed=31)
    bid(state, "pass", "noll", "pass", "pass")  # seat 3
    state = play_with_tricks(state, EW, 6)
    # NS: noll, 2 tricks: 50 > 40 further, second exit; the twos go to EW a third time.
    low = ["3C 3D 3H 3S 4C 4D 4H 4S 5C 5D 5H 5S 6C", "6D 6H 6S 7C 7D 7H 7S 8C 8D 8H 8S 9C 9D"]
    new_deal(state, [low[0], "2C 2D 2H 2S", low[1], ""], seed=32)
    bid(state, "pass", "noll", "pass", "pass")  # seat 0
    state = play_with_tricks(state, NS, 2)
    assert state.is_terminal()
    finished = rubber(state)
    assert finished["exits"] == [2, 0]
    assert finished["totals"] == [30 + 10 + 50 + 20, 50 + 10 + 50 + 50]
    assert state.scores() == [-5, 5, -5, 5]  # (160 - 110) / 10 to EW


def test_partnerships_rotate_so_everyone_partners_everyone_twice() -> None:
    state = load_game("priffe(seating=fixed)").new_initial_state(seed=40)
    assert isinstance(state, PriffeState)
    rng = random.Random(40)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    rubbers = state.view_for(0).public["rubbers"]
    assert [r["partners"] for r in rubbers] == [
        [[0, 2], [1, 3]],
        [[0, 1], [2, 3]],
        [[1, 2], [0, 3]],
    ] * 2
    misere = [0] * 4
    for line in (s for r in state.rubbers for s in r.sheets if s.contract == MISERE):
        misere = [a + b for a, b in zip(misere, line.individual, strict=True)]
    settled = [0] * 4
    for r in rubbers:
        share = (r["totals"][0] - r["totals"][1]) // 10
        for seat in range(4):
            settled[seat] += share if seat in r["partners"][0] else -share
        assert sum(r["settlement"]) == 0
    assert state.scores() == [m + s for m, s in zip(misere, settled, strict=True)]


def test_play_goes_round_the_rubber_seating() -> None:
    state = load_game("priffe(seating=fixed)").new_initial_state(seed=42)
    assert isinstance(state, PriffeState)
    rng = random.Random(42)
    while state.rubber.number < 2 or state.phase != "play":
        state.apply_action(rng.choice(state.legal_actions()))
    seating = state.view_for(0).public["seating"]
    assert seating == [0, 2, 1, 3]  # partners 0 and 1 sit opposite, as do 2 and 3
    start = seating.index(state.current_seat)
    for i in range(4):
        assert state.current_seat == seating[(start + i) % 4]
        state.apply_action(state.legal_actions()[0])


def test_the_game_ends_with_its_last_rubber() -> None:
    state = load_game("priffe(rubbers_per_game=2)").new_initial_state(seed=41)
    rng = random.Random(41)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert state.current_seat == TERMINAL
    assert len(state.view_for(0).public["rubbers"]) == 2
    assert state.game.deal_count == 0  # open-ended
    assert sum(state.scores()) == 0


# --- seating and chance --------------------------------------------------------------


@pytest.mark.parametrize(
    ("drawn", "dealer", "partners"),
    [
        (["AS", "2C", "KH", "3D"], 0, [[0, 2], [1, 3]]),
        (["AS", "KH", "2C", "3D"], 0, [[0, 1], [2, 3]]),
        (["3D", "KH", "2C", "AH"], 3, [[0, 2], [1, 3]]),
        (["AH", "2C", "3D", "AS"], 3, [[1, 2], [0, 3]]),  # rank ties: spades first
    ],
)
def test_the_draw_seats_the_highest_dealer_opposite_the_second_highest(
    drawn: list[str], dealer: int, partners: list[list[int]]
) -> None:
    state = load_game("priffe").new_initial_state(seed=None)
    assert state.phase == "draw"
    state.apply_chance(Chance(DRAW, tuple(cards(c) for c in drawn)))
    assert state.view_for(1).public["partners"] == partners
    assert state.view_for(1).public["draw"] == drawn
    state.apply_chance(Chance(DEAL, complete_deal(["", "", "", ""], FULL_DECK, 13)))
    assert state.dealer == dealer


def test_with_a_trakarl_the_lowest_draw_partners_the_trakarl() -> None:
    state = load_game("priffe(players=3)").new_initial_state(seed=None)
    state.apply_chance(Chance(DRAW, (cards("5C"), cards("KD"), cards("QS"), 0)))
    assert state.view_for(0).public["partners"] == [[1, 2], [0, 3]]


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (
            Chance(DRAW, (cards("AS KS"), cards("2C"), cards("3C"), cards("4C"))),
            "seat 0 draws 2 cards, not one",
        ),
        (Chance(DRAW, (cards("AS"), cards("AS"), cards("3C"), cards("4C"))), "drawn twice"),
        (Chance(DEAL, complete_deal(["", "", "", ""], FULL_DECK, 13)), "starts with a draw"),
    ],
)
def test_a_bad_draw_is_refused(event: Chance, message: str) -> None:
    state = load_game("priffe").new_initial_state(seed=None)
    with pytest.raises(InvalidChanceError, match=message):
        state.apply_chance(event)
    assert state.phase == "draw"


def test_the_trakarl_draws_no_card() -> None:
    state = load_game("priffe(players=3)").new_initial_state(seed=None)
    with pytest.raises(InvalidChanceError, match="seat 3: the träkarl draws no card"):
        state.apply_chance(Chance(DRAW, (cards("AS"), cards("2C"), cards("3C"), cards("4C"))))


def test_a_bad_deal_is_refused() -> None:
    hands = complete_deal(["", "", "", ""], FULL_DECK, 13)
    short = (hands[0] & (hands[0] - 1), *hands[1:])  # the lowest card left out
    twice = (hands[0], hands[1] ^ (hands[1] & -hands[1]) | (hands[0] & -hands[0]), *hands[2:])
    for event, message in [
        (Chance(DEAL, short), "seat 0 is dealt 12 cards, not 13"),
        (Chance(DEAL, twice), "is dealt twice"),
        (Chance(DEAL, hands, exposed=parse_card("AS")), "no card is exposed"),
        (Chance(DEAL, hands[:3]), "4 hands"),
    ]:
        state = table()
        with pytest.raises(InvalidChanceError, match=message):
            state.apply_chance(event)
        assert state.deal_number == 0


# --- the träkarl (SPEC 6.9) --------------------------------------------------------


def trakarl_table() -> PriffeState:
    state = load_game("priffe(players=3,seating=fixed)").new_initial_state(seed=None)
    assert isinstance(state, PriffeState)
    return state


def test_the_trakarl_neither_bids_nor_deals() -> None:
    state = trakarl_table()
    dealers = []
    for number in range(4):
        new_deal(state, ["", "", "", ""], seed=number)
        dealers.append(state.dealer)
        speakers = []
        while state.phase == "bid":
            speakers.append(state.current_seat)
            bid(state, "pass")
        assert sorted(speakers) == [0, 1, 2]
        state = play_out(state, lambda s: True, seed=number)
    assert state.rubber.number == 1  # still the first seating: 0, 1, 2, träkarl
    assert dealers == [0, 1, 2, 0]


def test_the_trakarl_is_played_by_its_partner_and_shown_after_the_first_lead() -> None:
    state = trakarl_table()  # the träkarl (3) partners seat 1; seat 2 leads after dealer 1
    new_deal(state, ["", "", "", ""], seed=1)
    state = play_out(state, lambda s: True)  # deal 1, dealt by seat 0
    new_deal(state, ["", "", "", ""], seed=2)  # dealt by seat 1
    trakarl_hand = state.hands[3]
    bid(state, "pass", "pass", "pass")  # seats 2, 0, 1
    assert state.current_seat == 2
    assert state.view_for(1).public["trakarl"] == {"seat": 3, "partner": 1, "hand": None}
    state.apply_action(state.legal_actions()[0], seat=2)
    assert state.current_seat == 3
    assert state.acting_seat() == 1
    shown = state.view_for(0).public["trakarl"]["hand"]
    assert shown == [card_name(c) for c in cards_of(trakarl_hand)]
    controller = state.view_for(1)
    assert controller.to_act == 3
    assert controller.legal
    assert set(controller.legal) <= set(cards_of(trakarl_hand))
    assert state.view_for(0).legal == ()
    with pytest.raises(IllegalActionError, match="not your turn"):
        state.apply_action(controller.legal[0], seat=0)
    state.apply_action(controller.legal[0], seat=1)
    assert state.hands[3] == trakarl_hand & ~(1 << controller.legal[0])
    assert state.history[-1][1] == 3  # logged as the träkarl's play


def test_when_the_trakarl_leads_its_hand_is_shown_before_the_lead() -> None:
    state = trakarl_table()  # seating 0, 1, 2, träkarl
    for number in range(2):  # dealt by seats 0 and 1
        new_deal(state, ["", "", "", ""], seed=number)
        state = play_out(state, lambda s: True)
    new_deal(state, ["", "", "", ""], seed=3)  # dealt by seat 2: the träkarl is forehand
    assert state.current_seat == 0  # the träkarl does not bid
    bid(state, "pass", "pass", "pass")
    assert state.view_for(0).public["contract"] == "noll"
    assert state.current_seat == 3  # but it leads
    assert state.acting_seat() == 1
    shown = state.view_for(2).public["trakarl"]["hand"]
    assert shown == [card_name(c) for c in cards_of(state.hands[3])]


def test_the_trakarls_partner_may_not_bid_misere() -> None:
    state = trakarl_table()
    new_deal(state, ["", "", "", ""])
    assert state.current_seat == 1  # the träkarl's partner in the first rubber
    assert "bid misere" not in legal_strings(state)
    with pytest.raises(IllegalActionError, match="träkarl's partner may not bid misère"):
        bid(state, "misere")
    bid(state, "pass")
    assert "bid misere" in legal_strings(state)  # seat 2


def test_the_trakarls_points_go_to_its_partner() -> None:
    state = load_game("priffe(players=3,rubbers_per_game=1)").new_initial_state(seed=5)
    assert isinstance(state, PriffeState)
    rng = random.Random(5)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    finished = state.rubbers[0]
    partner = finished.partners[1][0]
    share = (finished.totals[0] - finished.totals[1]) // 10
    expected = [share, share, share, 0]
    expected[partner] = -2 * share
    assert list(finished.settlement or ()) == expected
    assert state.scores()[3] == 0
    assert sum(state.scores()) == 0


# --- views ---------------------------------------------------------------------------


def test_a_partners_cards_are_hidden_like_an_opponents() -> None:
    state = table()
    new_deal(state, ["", "", "", ""])
    bid(state, "hearts", "pass", "pass", "pass")
    play(state, state.action_to_string(state.legal_actions()[0]))
    for seat in range(4):
        text = json.dumps(state.view_for(seat).to_json())
        for other in range(4):
            for c in cards_of(state.hands[other]):
                assert (f'"{card_name(c)}"' in text) == (other == seat)


# --- search states and action strings -----------------------------------------------


def test_a_search_state_values_the_deal_in_settlement_points() -> None:
    state = table()
    new_deal(state, ["AH KH QH", "", "", ""], seed=50)
    bid(state, "pass", "hearts", "pass", "pass")
    rng = random.Random(50)
    for _ in range(9):
        state.apply_action(rng.choice(state.legal_actions()))
    view = state.view_for(state.current_seat)
    search = state.game.new_search_state(view, state.hands)
    assert search.legal_actions() == state.legal_actions()
    deals = len(state.deal_scores)
    while len(state.deal_scores) == deals:
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        search.apply_action(action)
    assert search.is_terminal()
    line = sheet(state)
    points = [
        sum(
            line[k][side]
            for k in ("trick_points", "penalty_points", "honour_points", "bonus_points")
        )
        for side in (NS, EW)
    ]
    worth = (points[NS] - points[EW]) // 10
    assert search.deal_scores[-1] == [worth, -worth, worth, -worth]
    assert state.deal_scores[-1] == [0, 0, 0, 0]  # the real game settles at the rubber's end


def test_action_strings_round_trip_and_swedish_names_are_understood() -> None:
    game = load_game("priffe")
    for level, name in enumerate(
        ["clubs", "spades", "diamonds", "hearts", "noll", "spel", "misere"], start=1
    ):
        assert game.action_to_string(128 + level) == f"bid {name}"
        assert game.parse_action(f"bid {name}") == 128 + level
    assert game.parse_action("bid hjärter") == game.parse_action("bid hearts")
    assert game.parse_action("bid Klöver") == game.parse_action("bid clubs")
    assert game.parse_action("bid misère") == game.parse_action("bid misere")
    with pytest.raises(IllegalActionError, match="not an action of priffe"):
        game.parse_action("bid grand")
