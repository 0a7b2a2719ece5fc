"""King (Brazilian and Denexa rules): the worked examples of SPEC 4.8 and 5.5, the auction
(preference, passes, ultimatum, foiled auction), the payments, the first dealer by the K♥,
and the lead and K♥ rules of the negative hands, each played through the public API on
hand-made deals.

The positive hands are played out with the lowest legal card each time (a fixed,
legal policy); the deals below were chosen so that this play gives the trick counts of
the SPEC's examples, which the tests check before the scores.
"""

from __future__ import annotations

import random

import pytest

from engine import CHANCE, TERMINAL, IllegalActionError, InvalidChanceError, load_game
from engine.cards import HEARTS, SUIT_MASKS, card_name, cards_of, parse_card
from engine.chance import DEAL, DRAW, Chance
from engine.game import PlayerView
from engine.players.greedy_king import greedy_king
from engine.variants.king import KingState
from tests.engine.scripting import cards, complete_deal, deal, legal_strings, play

FULL = (1 << 52) - 1
ONE_SUIT = tuple(SUIT_MASKS)
"""Seat 0 holds every club, seat 1 every diamond, seat 2 every heart, seat 3 every spade:
in a hand without trumps the leader takes every trick, whatever is played."""

# Deals for the positive hands, seat by seat; the Beneficiary is seat 0.
UP_DEAL = (  # trumps S, seat 0 leads: tricks 5, 3, 3, 2
    "2C 5C 6C JC 7D JD KD 6H 8H QH KH 6S AS",
    "QC QD 2H 4H 7H 9H JH AH 2S 3S 4S 7S JS",
    "7C 8C 9C TC KC 5D 9D TD 3H 5S 8S QS KS",
    "3C 4C AC 2D 3D 4D 6D 8D AD 5H TH 9S TS",
)
DOWN_DEAL = (  # no trumps, seat 0 leads: tricks 0, 2, 5, 6
    "3C 4C 7C 8C 9C JC 2D 2H 5H 2S 3S 8S 9S",
    "5C QC KC 3D 4D 8D 7H 8H 9H QH 7S QS KS",
    "TC 7D QD KD 3H 6H JH KH 4S 5S 6S JS AS",
    "2C 6C AC 5D 6D 9D TD JD AD 4H TH AH TS",
)
AUCTION_DEAL = (  # no trumps, seat 0 leads: tricks 3, 4, 2, 4
    "5C 6C 8C TC 3D 9D 5H 8H AH 6S 8S KS AS",
    "2C 7C JC KC 7D KD 2H 4H 9H TH JH 9S TS",
    "3C 4C 2D 6D JD QD AD 6H QH 3S 4S 7S JS",
    "9C QC AC 4D 5D 8D TD 3H 7H KH 2S 5S QS",
)
SHORTFALL_DEAL = (  # trumps H, seat 0 leads: tricks 2, 3, 4, 4
    "2C 6C 8C QC JD QD AD 6H QH 2S 6S 9S TS",
    "3C 9C AC 2D 4D TD KD 2H 4H 5H 5S 8S JS",
    "4C 6D 7D 8D 3H 7H 8H TH AH 3S 7S KS AS",
    "5C 7C TC JC KC 3D 5D 9D 9H JH KH 4S QS",
)
DENEXA_DEAL = (  # trumps S, seat 1 leads: tricks 2, 5, 4, 2
    "2C JC 2D 8D 3H 4H 9H JH 4S 5S 6S 7S TS",
    "3C 7C 9D TD JD AD 2H 7H QH 3S JS QS AS",
    "5C 8C TC AC 3D 6D 7D QD TH KH 2S 9S KS",
    "4C 6C 9C QC KC 4D 5D KD 5H 6H 8H AH 8S",
)


def draw_to(seat: int) -> Chance:
    """The first-dealer draw: one card face up to each seat from seat 0, until ``seat``
    receives the K♥."""
    shown = [cards(c) for c in ("2C", "3C", "4C")[:seat]] + [cards("KH")]
    return Chance(DRAW, tuple(shown + [0] * (4 - len(shown))))


def new_king(game_string: str = "king", first_dealer: int = 0) -> KingState:
    state = load_game(game_string).new_initial_state(seed=None)
    assert isinstance(state, KingState)
    state.apply_chance(draw_to(first_dealer))
    return state


def full_deal(fixed: tuple[str, ...], seed: int = 0) -> tuple[int, ...]:
    """Hands holding the ``fixed`` cards (by seat), the rest of the pack spread at random."""
    return complete_deal((*fixed, *[""] * (4 - len(fixed))), FULL, 13, seed)


def hands_of(seats: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(cards(text) for text in seats)


def play_out(state: KingState) -> None:
    """Play the rest of the deal with the lowest legal card each time."""
    while state.phase == "play":
        state.apply_action(state.legal_actions()[0])


def at_positive_hand(game_string: str = "king", beneficiary: int = 0) -> KingState:
    """A game whose negative hands are over (one-suit deals, played out), at the first
    positive hand, dealt by ``beneficiary``; its cards are applied by the test."""
    game = load_game(game_string)
    negatives = game.deal_count - 4
    state = new_king(game_string, (beneficiary - negatives) % 4)
    for _ in range(negatives):
        deal(state, ONE_SUIT)
        play_out(state)
    assert state.current_seat == CHANCE
    assert state.deal_number == negatives
    return state


def refused(state: KingState, text: str) -> str:
    """The rule named when ``text`` is refused; checks the state did not change."""
    before = (len(state.log), state.current_seat, state.phase, state.legal_actions())
    with pytest.raises(IllegalActionError) as info:
        state.apply_action(state.parse_action(text))
    assert (len(state.log), state.current_seat, state.phase, state.legal_actions()) == before
    return info.value.rule


# --- SPEC 4.8 example 1: the negative hands total -1300 ---------------------------------


def test_negative_hands_total_minus_1300() -> None:
    state = new_king()
    expected = []
    for number, points in enumerate((260, 260, 200, 240, 160, 180), start=1):
        deal(state, ONE_SUIT)
        dealer = state.dealer
        assert dealer == (number - 1) % 4
        if number == 5:  # the K♥ hand: its holder, void in clubs, must discard it at once
            play(state, "play 2C", "play 2D")
            assert legal_strings(state) == ["play KH"]
        play_out(state)
        scores = [0] * 4
        scores[dealer] = -points  # the dealer leads and takes every trick
        expected.append(scores)
    assert state.deal_scores == expected
    assert sum(map(sum, state.deal_scores)) == -1300
    assert state.scores() == [-420, -440, -200, -240]


def test_negative_hands_total_minus_1300_in_random_play() -> None:
    game = load_game("king")
    for seed in range(5):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        assert [sum(s) for s in state.deal_scores[:6]] == [-260, -260, -200, -240, -160, -180]
        assert [sum(s) for s in state.deal_scores[6:]] == [325] * 4
        assert sum(state.scores()) == 0


# --- SPEC 4.8 example 2: up and down without an auction ----------------------------------


def test_up_hand_scores_25_a_trick() -> None:
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    assert state.phase == "benefit"
    assert state.current_seat == 0
    assert legal_strings(state) == ["auction", "ultimatum", "up", "down"]
    play(state, "up")
    assert state.phase == "trump"
    play(state, "trump S")
    assert state.current_seat == 0  # the dealer leads (Brazil)
    play_out(state)
    assert state.tricks_won == [5, 3, 3, 2]
    assert state.deal_scores[-1] == [125, 75, 75, 50]


def test_down_hand_scores_325_less_75_a_trick() -> None:
    state = at_positive_hand()
    deal(state, hands_of(DOWN_DEAL))
    play(state, "down")
    assert state.phase == "play"
    assert state.trump == -1
    play_out(state)
    assert state.tricks_won == [0, 2, 5, 6]
    assert state.deal_scores[-1] == [325, 175, -50, -125]


# --- SPEC 4.8 example 3: the auction with preference ---------------------------------------


def test_auction_with_preference_won_by_two_down() -> None:
    state = at_positive_hand()
    deal(state, hands_of(AUCTION_DEAL))
    play(state, "auction", "bid 2up", "bid 1down", "pass")
    assert state.current_seat == 1
    assert "match" in legal_strings(state)  # seat 1 speaks before seat 2
    play(state, "match", "bid 4up")
    assert state.current_seat == 1  # seat 3 passed for good
    play(state, "match", "bid 2down", "pass")
    assert state.phase == "accept"
    assert state.current_seat == 0
    assert legal_strings(state) == ["accept", "decline"]  # worth 6 up: no foiling
    play(state, "accept")
    assert state.phase == "play"
    assert state.trump == -1
    play_out(state)
    assert state.tricks_won == [3, 4, 2, 4]  # before payment: 100, 25, 175, 25
    assert state.deal_scores[-1] == [250, 25, 25, 25]


# --- SPEC 4.8 example 4 and the payments of SPEC 4.6 -----------------------------------------


def test_failed_up_bid_pays_the_shortfall() -> None:
    state = at_positive_hand()
    deal(state, hands_of(SHORTFALL_DEAL))
    play(state, "auction", "bid 5up", "pass", "pass", "accept")
    assert state.phase == "trump"
    assert state.current_seat == 1
    play(state, "trump H")
    play_out(state)
    assert state.tricks_won == [2, 3, 4, 4]
    assert state.deal_scores[-1] == [175, -50, 100, 100]


def test_made_up_bid_pays_the_beneficiary() -> None:
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    play(state, "auction", "bid 2up", "pass", "pass", "accept", "trump S")
    play_out(state)
    assert state.tricks_won == [5, 3, 3, 2]
    assert state.deal_scores[-1] == [175, 25, 75, 50]


@pytest.mark.parametrize(
    ("down_payment", "expected"),
    [("fixed", [475, 25, -50, -125]), ("capped", [325, 175, -50, -125])],
)
def test_down_bid_payment_fixed_or_capped(down_payment: str, expected: list[int]) -> None:
    # The Beneficiary takes no trick: fixed still moves the 2 tricks bid, capped none.
    state = at_positive_hand(f"king(down_payment={down_payment})")
    deal(state, hands_of(DOWN_DEAL))
    play(state, "auction", "bid 2down", "pass", "pass", "accept")
    play_out(state)
    assert state.tricks_won == [0, 2, 5, 6]
    assert state.deal_scores[-1] == expected
    assert sum(expected) == 325


def test_declined_bid_leaves_the_hand_to_the_beneficiary_without_payment() -> None:
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    play(state, "auction", "bid 2up", "pass", "pass", "decline")
    assert state.phase == "direction"
    assert state.current_seat == 0
    play(state, "up", "trump S")
    play_out(state)
    assert state.deal_scores[-1] == [125, 75, 75, 50]


# --- SPEC 4.8 example 5: the foiled auction --------------------------------------------------


def test_foiled_auction_scores_4_3_3_3_without_play() -> None:
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    play(state, "auction", "bid 3up", "pass", "pass")
    assert legal_strings(state) == ["accept", "foil", "decline"]
    play(state, "foil")
    assert state.deal_scores[-1] == [100, 75, 75, 75]
    assert state.current_seat == CHANCE
    assert state.deal_number == 7


def test_foiling_needs_a_best_bid_worth_3_up_or_less() -> None:
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    play(state, "auction", "bid 1down", "pass", "pass")
    assert "foil" in legal_strings(state)  # 1 down is worth 3 up
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    play(state, "auction", "bid 4up", "pass", "pass")
    assert "may foil (score 4-3-3-3) only after an auction whose best bid is worth 3 up" in (
        refused(state, "foil")
    )


def test_nobody_bids_the_beneficiary_plays_or_foils() -> None:
    state = at_positive_hand()
    deal(state, hands_of(DOWN_DEAL))
    play(state, "auction", "pass", "pass", "pass")
    assert state.phase == "direction"
    assert state.current_seat == 0
    assert legal_strings(state) == ["up", "down", "foil"]
    play(state, "down")
    play_out(state)
    assert state.deal_scores[-1] == [325, 175, -50, -125]


@pytest.mark.parametrize("forfeit", [False, True])
def test_foil_without_an_auction_only_by_option(forfeit: bool) -> None:
    state = at_positive_hand(f"king(forfeit_without_auction={str(forfeit).lower()})")
    deal(state, hands_of(UP_DEAL))
    if not forfeit:
        assert "not without an auction" in refused(state, "foil")
        return
    play(state, "foil")
    assert state.deal_scores[-1] == [100, 75, 75, 75]


# --- SPEC 4.8 example 6: the quick game --------------------------------------------------------


def test_quick_game_negative_hands_total_440_420_440() -> None:
    state = new_king("king(quick_game=true)")
    for points in (440, 420, 440):
        deal(state, ONE_SUIT)
        dealer = state.dealer
        play_out(state)
        scores = [0] * 4
        scores[dealer] = -points
        assert state.deal_scores[-1] == scores
    assert state.current_seat == CHANCE
    deal(state, hands_of(UP_DEAL))
    assert state.phase == "benefit"  # then the four positive hands
    assert load_game("king(quick_game=true)").deal_count == 7


def test_quick_game_king_of_hearts_counts_as_a_heart_and_as_the_king() -> None:
    state = new_king("king(quick_game=true)")
    deal(state, ONE_SUIT)
    play_out(state)
    deal(state, ONE_SUIT)  # hearts + K♥, dealt by seat 1 who leads diamonds
    play(state, "play 2D")
    assert legal_strings(state) == ["play KH"]  # the K♥ rule of hand 5 applies
    play(state, "play KH")
    play_out(state)
    assert state.completed[0] == (1, [parse_card(c) for c in ("2D", "KH", "2S", "2C")], 1)
    assert state.deal_scores[-1] == [0, -420, 0, 0]


# --- the auction: preference, passes, bad bids -------------------------------------------------


def test_preference_lets_only_an_earlier_bidder_match() -> None:
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    play(state, "auction", "bid 1up", "bid 2up")
    assert "match" not in legal_strings(state)  # seat 3 speaks after seat 2
    assert "only a bidder who speaks before seat 2 may match" in refused(state, "match")
    play(state, "bid 3up")
    assert state.current_seat == 1
    assert "match" in legal_strings(state)
    play(state, "match")
    assert state.current_seat == 2
    legal = legal_strings(state)
    assert "match" not in legal
    assert "bid 3up" not in legal
    assert "bid 1down" not in legal
    assert "bid 4up" in legal
    assert refused(state, "bid 1down") == "a bid must be worth more than 3 up"
    play(state, "bid 4up", "pass", "pass")  # seat 3 and seat 1 pass: seat 2 wins
    assert state.phase == "accept"
    assert state.view_for(0).public["high_bidder"] == 2


def test_passes_are_final_by_default() -> None:
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    play(state, "auction", "pass", "bid 1up", "pass")
    assert state.phase == "accept"  # seat 1 passed for good: seat 2 wins
    assert state.view_for(0).public["out"] == [1, 3]


def test_passes_are_not_final_by_option() -> None:
    state = at_positive_hand("king(pass_is_final=false)")
    deal(state, hands_of(UP_DEAL))
    play(state, "auction", "pass", "bid 1up", "pass")
    assert state.phase == "auction"
    assert state.current_seat == 1
    play(state, "bid 2up", "pass", "pass")
    assert state.phase == "accept"
    assert state.view_for(0).public["high_bidder"] == 1


def test_eight_up_ends_the_auction_unless_an_earlier_bidder_matches() -> None:
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    play(state, "auction", "pass", "pass", "bid 8up")
    assert state.phase == "accept"  # nobody can beat 8 up; nobody before seat 3 is left
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    play(state, "auction", "bid 1up", "bid 8up")
    assert state.current_seat == 1
    assert legal_strings(state) == ["pass", "match"]
    play(state, "match")
    assert state.phase == "accept"  # seat 2 cannot beat or match seat 1's 8 up


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("bid 3up", "a bid must be worth more than 4 up"),
        ("bid 1down", "a bid must be worth more than 4 up"),
        ("bid 9up", "bids go up to 8 up"),
        ("bid 3down", "a down bid is at most 2 down (the limit is 8 up)"),
        ("bid 5", "a bid names up or down, e.g. 'bid 3up' or 'bid 1down'"),
        ("accept", "only the Beneficiary may accept or decline, once the auction is over"),
        ("foil", "only the Beneficiary may foil the auction, once it is over"),
        ("up", "bid, match or pass"),
    ],
)
def test_bad_bids_name_the_rule(text: str, rule: str) -> None:
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    play(state, "auction", "bid 4up")
    assert refused(state, text) == rule


def test_only_the_beneficiary_decides_before_the_auction() -> None:
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    assert refused(state, "bid 2up") == "there is no auction now"
    assert refused(state, "trump S") == "choose up or down first; trumps are named after"
    assert refused(state, "accept") == "there is no bid to accept or decline"
    with pytest.raises(IllegalActionError, match="not your turn"):
        state.apply_action(state.parse_action("auction"), seat=1)


# --- the ultimatum -----------------------------------------------------------------------------


def test_ultimatum_taken_with_8_up_must_be_accepted() -> None:
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    play(state, "ultimatum")
    assert state.phase == "ultimatum"
    assert legal_strings(state) == ["pass", "bid 8up"]
    assert refused(state, "bid 3up") == "after the ultimatum a player may only bid 8up or pass"
    play(state, "pass", "bid 8up")
    assert state.phase == "trump"
    assert state.current_seat == 2
    play(state, "trump S")
    play_out(state)
    assert state.tricks_won == [5, 3, 3, 2]
    assert state.deal_scores[-1] == [325, 75, -125, 50]  # seat 2 pays 8 of its 3 tricks


def test_ultimatum_refused_by_everyone_is_played_down() -> None:
    state = at_positive_hand()
    deal(state, hands_of(DOWN_DEAL))
    play(state, "ultimatum", "pass", "pass", "pass")
    assert state.phase == "play"
    assert state.trump == -1
    assert state.view_for(3).public["direction"] == "down"
    play_out(state)
    assert state.deal_scores[-1] == [325, 175, -50, -125]


# --- positive modes ----------------------------------------------------------------------------


def test_no_auction_mode_leaves_only_up_or_down() -> None:
    state = at_positive_hand("king(positive_mode=no_auction)")
    deal(state, hands_of(UP_DEAL))
    assert legal_strings(state) == ["up", "down"]
    assert refused(state, "auction") == "positive hands are not auctioned in this game"


def test_up_only_mode_has_no_down_hands_and_no_down_bids() -> None:
    state = at_positive_hand("king(positive_mode=up_only)")
    deal(state, hands_of(UP_DEAL))
    assert legal_strings(state) == [
        "trump C", "trump D", "trump H", "trump S", "trump NT", "auction",
    ]  # fmt: skip
    play(state, "auction")
    assert not any(a.endswith("down") for a in legal_strings(state))
    assert refused(state, "bid 1down") == "positive hands are played up only: no down bids"


def test_down_hand_with_trumps_by_option() -> None:
    state = at_positive_hand("king(down_has_trump=true)")
    deal(state, hands_of(DOWN_DEAL))
    play(state, "down")
    assert state.phase == "trump"
    play(state, "trump H")
    assert state.phase == "play"
    assert state.trump == HEARTS


def test_must_trump_by_option() -> None:
    for must, expected in ((False, 13), (True, 3)):
        state = at_positive_hand(f"king(must_trump={str(must).lower()})")
        hands = full_deal(("AC KC 2S", "2D 3D 4D 5D 6D 7D 8D 9D TD JD 3S 4S 5S"))
        deal(state, hands)
        play(state, "up", "trump S", "play AC")
        assert state.current_seat == 1  # void in clubs, holding three spades
        assert len(state.legal_actions()) == expected
        if must:
            assert "must trump when void" in refused(state, "play 2D")


# --- SPEC 5.5: the Denexa rules ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("direction", "expected"), [("up", [125, 50, 100, 50]), ("down", [-50, 175, 25, 175])]
)
def test_denexa_bid_moves_tricks_from_the_winner_to_the_dealer(
    direction: str, expected: list[int]
) -> None:
    state = at_positive_hand("king(rules=denexa)")
    deal(state, hands_of(DENEXA_DEAL))
    assert legal_strings(state) == [
        "trump C", "trump D", "trump H", "trump S", "trump NT", "auction",
    ]  # fmt: skip
    play(state, "auction")
    assert refused(state, "pass") == "the opener must bid"
    assert refused(state, "bid 3up").startswith("a bid is a number of tricks")
    play(state, "bid 3", "pass", "pass")  # two passes in a row end it
    assert state.phase == "trump"
    assert state.current_seat == 1
    play(state, "trump S")
    assert state.phase == "direction"
    assert state.current_seat == 0
    play(state, direction)
    assert state.current_seat == 1  # the player left of the dealer leads
    play_out(state)
    assert state.tricks_won == [2, 5, 4, 2]
    assert state.deal_scores[-1] == expected


def test_denexa_passes_are_not_final_and_bids_only_climb() -> None:
    state = at_positive_hand("king(rules=denexa)")
    deal(state, hands_of(DENEXA_DEAL))
    play(state, "auction", "bid 1", "pass", "bid 2", "pass")
    assert state.current_seat == 2  # seat 2 passed but bids again
    assert "match" not in legal_strings(state)
    assert refused(state, "bid 2") == "a bid must be more than 2 tricks"
    play(state, "bid 3", "pass", "pass")
    assert state.phase == "trump"
    assert state.current_seat == 2


def test_denexa_dealer_names_trumps_then_picks_down_keeping_them() -> None:
    state = at_positive_hand("king(rules=denexa)")
    deal(state, hands_of(DENEXA_DEAL))
    play(state, "trump H")
    assert state.phase == "direction"
    assert legal_strings(state) == ["up", "down"]
    play(state, "down")
    assert state.phase == "play"
    assert state.trump == HEARTS


def test_denexa_is_a_canonical_preset() -> None:
    assert str(load_game("king(rules=denexa)")) == "king(rules=denexa)"
    assert str(load_game("king(first_leader=left_of_dealer,rules=denexa)")) == "king(rules=denexa)"
    assert str(load_game("king(rules=denexa,pass_is_final=true)")) == (
        "king(pass_is_final=true,rules=denexa)"
    )
    assert str(load_game("king(first_leader=dealer)")) == "king"


# --- the first dealer and the leader -------------------------------------------------------------


def test_k_hearts_receiver_deals_first_and_the_dealer_leads() -> None:
    state = new_king(first_dealer=3)
    deal(state, ONE_SUIT)
    assert state.dealer == 3
    assert state.current_seat == 3
    assert state.view_for(0).public["k_hearts_receiver"] == 3


def test_left_of_dealer_leads_by_option() -> None:
    state = new_king("king(first_leader=left_of_dealer)", first_dealer=3)
    deal(state, ONE_SUIT)
    assert state.dealer == 3
    assert state.current_seat == 0


def test_k_hearts_receiver_nominates_the_dealer_by_option() -> None:
    state = new_king("king(k_hearts_nominates_dealer=true)", first_dealer=2)
    assert state.phase == "nominate"
    assert state.current_seat == 2
    assert legal_strings(state) == [f"nominate {s}" for s in range(4)]
    with pytest.raises(IllegalActionError, match="not your turn"):
        state.apply_action(state.parse_action("nominate 1"), seat=1)
    play(state, "nominate 1")
    assert state.current_seat == CHANCE
    deal(state, ONE_SUIT)
    assert state.dealer == 1


def test_seeded_draw_ends_with_the_king_of_hearts() -> None:
    for seed in range(20):
        state = load_game("king").new_initial_state(seed=seed)
        draw = state.log[0]
        assert isinstance(draw, Chance)
        assert draw.kind == DRAW
        receiver = next(s for s, held in enumerate(draw.cards) if held >> parse_card("KH") & 1)
        assert state.dealer == receiver
        assert sum(h.bit_count() for h in draw.cards) % 4 == (receiver + 1) % 4


@pytest.mark.parametrize(
    ("shown", "problem"),
    [
        (("KH", "2C", "", ""), "the K♥ must be the last card drawn"),
        (("2C 3C 4C", "5C", "6C KH", "7C"), "seat 0 is shown 3 cards in the draw, not 2"),
        (("2C", "3C", "4C", "5C"), "the draw goes on until the K♥ appears"),
    ],
)
def test_a_wrong_draw_is_refused(shown: tuple[str, ...], problem: str) -> None:
    state = load_game("king").new_initial_state(seed=None)
    with pytest.raises(InvalidChanceError, match=problem):
        state.apply_chance(Chance(DRAW, tuple(cards(s) for s in shown)))
    with pytest.raises(InvalidChanceError, match="the game starts with a draw"):
        state.apply_chance(Chance(DEAL, ONE_SUIT))


def test_a_wrong_deal_is_refused() -> None:
    state = new_king()
    twice = (SUIT_MASKS[0], SUIT_MASKS[0], SUIT_MASKS[2], SUIT_MASKS[3])
    with pytest.raises(InvalidChanceError, match="dealt twice"):
        deal(state, twice)
    short = (SUIT_MASKS[0] >> 1, SUIT_MASKS[1], SUIT_MASKS[2], SUIT_MASKS[3])
    with pytest.raises(InvalidChanceError, match="seat 0 is dealt 12 cards, not 13"):
        deal(state, short)
    deal(state, ONE_SUIT)
    assert state.phase == "play"


# --- the negative hands: heart leads and the K♥ ------------------------------------------------


def order_with_first(contract: str) -> str:
    names = ["tricks", "hearts", "queens", "men", "king_of_hearts", "last_two"]
    names.remove(contract)
    return "negative_order=" + "/".join([contract, *names])


HEART_LEAD_DEAL = ("AC KC 2H 3H", "9H 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD")
"""Seat 0 leads the ace of clubs; seat 1, void in clubs, throws a heart."""


@pytest.mark.parametrize(
    ("rule", "lead_hearts_at_first", "lead_hearts_after"),
    [
        ("never_unless_only_hearts", False, False),
        ("after_broken", False, True),
        ("free", True, True),
    ],
)
@pytest.mark.parametrize("contract", ["hearts", "king_of_hearts"])
def test_heart_lead_rules(
    contract: str, rule: str, lead_hearts_at_first: bool, lead_hearts_after: bool
) -> None:
    state = new_king(f"king({order_with_first(contract)},heart_lead_rule={rule})")
    deal(state, full_deal(HEART_LEAD_DEAL))
    assert ("play 2H" in legal_strings(state)) is lead_hearts_at_first
    if not lead_hearts_at_first:
        assert refused(state, "play 2H").startswith("may not lead a heart while holding")
    play(state, "play AC", "play 9H")
    while state.trick:
        state.apply_action(state.legal_actions()[0])
    assert state.current_seat == 0
    assert state.completed[0][2] == 0
    assert ("play 2H" in legal_strings(state)) is lead_hearts_after


def test_heart_lead_allowed_when_holding_only_hearts() -> None:
    state = new_king(f"king({order_with_first('hearts')})", first_dealer=2)
    deal(state, ONE_SUIT)
    assert state.current_seat == 2
    assert len(legal_strings(state)) == 13


K_HEARTS_DEAL = ("AH 2H 2C", "KH 3H 4H 2D 3D 4D 5D 6D 7D 8D 9D TD JD")
"""Seat 0 may lead clubs or hearts; seat 1 holds the K♥ and two low hearts, no club."""


@pytest.mark.parametrize(
    ("rule", "on_void", "on_first_heart_lead", "under_the_ace"),
    [
        ("none", False, False, False),
        ("on_void", True, False, False),
        ("on_void_or_cannot_win", True, False, True),
        ("on_void_and_on_heart_lead", True, True, True),
    ],
)
def test_k_hearts_forcing_rules(
    rule: str, on_void: bool, on_first_heart_lead: bool, under_the_ace: bool
) -> None:
    game_string = f"king({order_with_first('king_of_hearts')},heart_lead_rule=free,"
    game_string += f"k_hearts_forced={rule})"
    for lead, forced in (("2C", on_void), ("2H", on_first_heart_lead), ("AH", under_the_ace)):
        state = new_king(game_string)
        deal(state, full_deal(K_HEARTS_DEAL))
        play(state, f"play {lead}")
        assert (legal_strings(state) == ["play KH"]) is forced, lead
        if forced:
            assert refused(state, "play 3H" if lead != "2C" else "play 2D").startswith("must ")


def test_k_hearts_not_forced_on_a_later_heart_lead() -> None:
    # The holder leads the first heart (a leader is bound only by the lead rule); the
    # next heart lead does not force the K♥.
    game_string = f"king({order_with_first('king_of_hearts')},heart_lead_rule=free)"
    state = new_king(game_string)
    hearts = ("KH 2H 4H", "AH 3H", "5H 6H", "7H 8H 9H TH JH QH")
    deal(state, full_deal(hearts))
    assert "play 2H" in legal_strings(state)
    play(state, "play 2H", "play AH", "play 6H", "play 7H")
    assert state.current_seat == 1
    play(state, "play 3H", "play 5H", "play 8H")
    assert legal_strings(state) == ["play 4H", "play KH"]


def test_k_hearts_forcing_messages() -> None:
    state = new_king(f"king({order_with_first('king_of_hearts')},heart_lead_rule=free)")
    deal(state, full_deal(K_HEARTS_DEAL))
    play(state, "play 2C")
    assert refused(state, "play 2D") == "must discard the K♥ when void in the suit led"
    state = new_king(f"king({order_with_first('king_of_hearts')},heart_lead_rule=free)")
    deal(state, full_deal(K_HEARTS_DEAL))
    play(state, "play 2H")
    assert refused(state, "play 3H") == "must play the K♥ the first time hearts are led"
    assert refused(state, "play 2D") == "must follow suit (you hold a heart)"


# --- search states and the greedy player -----------------------------------------------------


def test_search_state_from_a_view_reaches_the_same_result() -> None:
    state = at_positive_hand()
    deal(state, hands_of(SHORTFALL_DEAL))
    play(state, "auction", "bid 5up", "pass", "pass", "accept", "trump H")
    for _ in range(9):
        state.apply_action(state.legal_actions()[0])
    seat = state.current_seat
    search = state.game.new_search_state(state.view_for(seat), state.hands)
    assert isinstance(search, KingState)
    assert search.legal_actions() == state.legal_actions()
    while search.phase == "play":
        search.apply_action(search.legal_actions()[0])
    play_out(state)
    assert search.deal_scores[-1] == state.deal_scores[-1] == [175, -50, 100, 100]
    assert search.is_terminal()


def view_at_auction(hand: str) -> PlayerView:
    """The first bidder's view at the opening of an auction, holding ``hand``."""
    state = at_positive_hand()
    deal(state, full_deal(("", hand)))
    play(state, "auction")
    return state.view_for(1)


@pytest.mark.parametrize(
    ("hand", "bid"),
    [
        ("AS KS QS JS TS 9S 8S AH KH AD KD AC KC", "bid 1up"),
        ("2S 3S 4S 5S 2H 3H 4H 5H 2D 3D 4D 2C 3C", "bid 1down"),
        ("QS JS 9S QH JH 9H QD JD 9D QC JC 9C 8C", "pass"),
    ],
)
def test_greedy_bids_up_on_high_cards_down_on_low_cards_else_passes(hand: str, bid: str) -> None:
    view = view_at_auction(hand)
    assert view.game.action_to_string(greedy_king(view, random.Random(0))) == bid


@pytest.mark.parametrize("game_string", ["king", "king(rules=denexa)", "king(quick_game=true)"])
def test_greedy_plays_whole_games(game_string: str) -> None:
    game = load_game(game_string)
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.current_seat
            state.apply_action(greedy_king(state.view_for(seat), rng), seat=seat)
        assert state.current_seat == TERMINAL
        assert sum(state.scores()) == 0


def test_view_of_the_beneficiary_in_json() -> None:
    state = at_positive_hand()
    deal(state, hands_of(UP_DEAL))
    data = state.view_for(0).to_json()
    assert data["hand"] == [card_name(c) for c in cards_of(cards(UP_DEAL[0]))]
    assert data["legal"] == ["auction", "ultimatum", "up", "down"]
    assert data["public"]["beneficiary"] == 0
    assert data["public"]["auction"] == []
    assert state.view_for(1).to_json()["legal"] == []
