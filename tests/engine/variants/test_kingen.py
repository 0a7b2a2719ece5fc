"""Kingen and Dubbelkingen rules: the worked examples of SPEC 3.10 and the source text,
each played through the public API on hand-made deals."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import CHANCE, IllegalActionError, InvalidChanceError, load_game
from engine.cards import cards_of, parse_card
from engine.chance import Chance
from engine.game import TrickTakingState
from tests.engine.scripting import (
    cards,
    complete_deal,
    deal,
    legal_strings,
    new_state,
    play,
    play_randomly_until,
)

FULL = (1 << 52) - 1


def order_with_first(contract: str) -> str:
    names = ["tricks", "hearts", "kings_jacks", "queens", "king_of_hearts", "seventh_last"]
    names.remove(contract)
    return "negative_order=" + "/".join([contract, *names])


# --- SPEC 3.10 example 1: the totals -------------------------------------------------

CONTRACT_TOTALS = {
    # players, K♥ points -> totals of tricks, hearts, K&J, queens, K♥, 7 & last
    (4, 5): (13, 13, 8, 8, 5, 5),
    (4, 4): (13, 13, 8, 8, 4, 6),
    (3, 4): (17, 13, 8, 4, 4, 5),
    (5, 5): (10, 13, 8, 8, 5, 6),
}


@pytest.mark.parametrize(("players", "king_points"), list(CONTRACT_TOTALS))
def test_totals_of_each_negative_contract_and_of_the_trump_deals(
    players: int, king_points: int
) -> None:
    game = load_game(f"kingen(players={players},k_hearts_points={king_points})")
    expected = CONTRACT_TOTALS[(players, king_points)]
    hand_size = {3: 17, 4: 13, 5: 10}[players]
    for seed in range(6):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        negatives = [sum(s) for s in state.deal_scores[:6]]
        assert negatives == [-t for t in expected]
        assert sum(negatives) == -hand_size * players
        assert [sum(s) for s in state.deal_scores[6:]] == [hand_size] * players
        assert sum(state.scores()) == 0


def test_dubbelkingen_totals_are_104_negative_and_104_positive() -> None:
    game = load_game("dubbelkingen")
    for seed in range(4):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        negative = positive = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        for scores in state.deal_scores:
            total = sum(scores)
            if total > 0:
                positive += total
            else:
                negative += total
        assert (negative, positive, len(state.deal_scores)) == (-104, 104, 20)


# --- SPEC 3.10 example 2: 7 & last ---------------------------------------------------


def _play_until_winners(
    state: TrickTakingState[Any], wanted: dict[int, int], seed: int
) -> tuple[TrickTakingState[Any], list[int]]:
    """Random playouts of one deal until the given tricks (1-based) have the given winners."""
    rng = random.Random(seed)
    for _ in range(5000):
        trial = state.clone()
        assert isinstance(trial, TrickTakingState)
        while len(trial.deal_scores) < 1:
            trial.apply_action(rng.choice(trial.legal_actions()))
        winners = [w for _, _, w in trial.completed]
        if all(winners[k - 1] == seat for k, seat in wanted.items()):
            return trial, winners
    raise AssertionError("no playout found")


def test_seventh_and_last_one_player_taking_both_pays_both() -> None:
    state = new_state(f"kingen({order_with_first('seventh_last')})")
    deal(state, complete_deal(["", "", "", ""], FULL, 13, seed=1))
    done, winners = _play_until_winners(state, {7: 2, 13: 2}, seed=2)
    assert winners[6] == winners[12] == 2
    assert done.deal_scores[0] == [0, 0, -5, 0]


def test_seventh_and_last_two_players() -> None:
    state = new_state(f"kingen({order_with_first('seventh_last')})")
    deal(state, complete_deal(["", "", "", ""], FULL, 13, seed=1))
    done, _ = _play_until_winners(state, {7: 1, 13: 3}, seed=3)
    assert done.deal_scores[0] == [0, -2, 0, -3]


def test_seventh_trick_is_the_tenth_with_three_players() -> None:
    state = new_state(f"kingen(players=3,{order_with_first('seventh_last')})")
    deal(state, complete_deal(["", "", ""], FULL & ~cards("2S"), 17, seed=4))
    done, _ = _play_until_winners(state, {10: 0, 17: 1}, seed=5)
    assert done.deal_scores[0] == [-3, -2, 0]


def test_king_of_hearts_worth_four_moves_a_point_to_the_seventh_trick() -> None:
    state = new_state(f"kingen(k_hearts_points=4,{order_with_first('seventh_last')})")
    deal(state, complete_deal(["", "", "", ""], FULL, 13, seed=1))
    done, _ = _play_until_winners(state, {7: 0, 13: 1}, seed=6)
    assert done.deal_scores[0] == [-3, -3, 0, 0]


# --- SPEC 3.10 example 3: a full game sums to zero -----------------------------------


def test_full_game_negative_and_trump_deals_cancel_out() -> None:
    game = load_game("kingen(rules=iwwa)")
    state = game.new_initial_state(seed=11)
    rng = random.Random(11)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    per_seat_negative = [sum(s[seat] for s in state.deal_scores[:6]) for seat in range(4)]
    per_seat_trump = [sum(s[seat] for s in state.deal_scores[6:]) for seat in range(4)]
    assert sum(per_seat_negative) == -52
    assert sum(per_seat_trump) == 52
    assert state.scores() == [n + t for n, t in zip(per_seat_negative, per_seat_trump, strict=True)]
    assert sum(state.scores()) == 0


# --- SPEC 3.10 example 4: the heart-lead ban -----------------------------------------


@pytest.mark.parametrize("contract", ["hearts", "king_of_hearts"])
def test_heart_lead_ban_forbids_leading_a_heart_while_holding_another_suit(contract: str) -> None:
    state = new_state(f"kingen(heart_lead_ban=true,{order_with_first(contract)})")
    hearts = "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 2H 3C"
    deal(state, complete_deal(["", hearts, "", ""], FULL, 13))
    assert legal_strings(state) == ["play 3C"]
    with pytest.raises(IllegalActionError, match=r"may not lead a heart .*heart-lead ban"):
        play(state, "play AH")


def test_heart_lead_ban_allows_hearts_when_holding_only_hearts() -> None:
    state = new_state(f"kingen(heart_lead_ban=true,{order_with_first('hearts')})")
    deal(state, complete_deal(["", "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H", "", ""], FULL, 13))
    assert len(state.legal_actions()) == 13


def test_without_the_ban_a_heart_may_be_led() -> None:
    state = new_state(f"kingen({order_with_first('hearts')})")
    deal(state, complete_deal(["", "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 2H 3C", "", ""], FULL, 13))
    play(state, "play AH")


# --- SPEC 3.10 example 5 and the source's ♣Q then ♣J case -----------------------------


@pytest.mark.parametrize("rules", ["rules=iwwa", "must_follow_with_penalty_when_safe=true"])
def test_penalty_card_that_cannot_win_must_be_played(rules: str) -> None:
    state = new_state(f"kingen({rules},{order_with_first('kings_jacks')})")
    deal(state, _kings_jacks_hands())
    play(state, "play 5C", "play QC")
    assert legal_strings(state) == ["play JC"]
    prefix = "IWWA: " if rules == "rules=iwwa" else ""
    with pytest.raises(
        IllegalActionError,
        match=rf"^play KC: {prefix}must play a penalty card that cannot win the trick \(JC\)$",
    ):
        play(state, "play KC")


def test_basic_rules_let_the_player_keep_the_jack() -> None:
    state = new_state(f"kingen({order_with_first('kings_jacks')})")
    deal(state, _kings_jacks_hands())
    play(state, "play 5C", "play QC")
    assert legal_strings(state) == ["play 3C", "play JC", "play KC"]


def _kings_jacks_hands() -> tuple[int, ...]:
    seat1 = "5C AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S"
    seat2 = "QC 2S AH KH QH JH TH 9H 8H 7H 6H 5H 4H"
    seat3 = "KC JC 3C 3H 2H AD KD QD JD TD 9D 8D 7D"
    seat0 = "AC TC 9C 8C 7C 6C 4C 2C 6D 5D 4D 3D 2D"
    return tuple(cards(h) for h in (seat0, seat1, seat2, seat3))


def test_void_player_must_discard_a_penalty_card() -> None:
    state = new_state(f"kingen(rules=iwwa,{order_with_first('queens')})")
    seat1 = "2C AS KS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"
    seat2 = "QD QH AH KH JH TH 9H 8H 7H 6H 5H 4H 3H"
    seat3 = "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2H"
    seat0 = "QS AD KD JD TD 9D 8D 7D 6D 5D 4D 3D 2D"
    deal(state, tuple(cards(h) for h in (seat0, seat1, seat2, seat3)))
    play(state, "play 2C")
    assert legal_strings(state) == ["play QD", "play QH"]
    with pytest.raises(IllegalActionError, match="must discard a penalty card when void"):
        play(state, "play AH")


KING_DEAL = (
    "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
    "AH 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
    "KH 3H AS KS QS JS TS 9S 8S 7S 6S 5S 4S",
    "QH JH TH 9H 8H 7H 6H 5H 4H 2H 3S 2S AC",
)


def test_king_of_hearts_must_be_played_under_the_ace() -> None:
    state = new_state(
        f"kingen(must_follow_with_penalty_when_safe=true,{order_with_first('king_of_hearts')})"
    )
    deal(state, [cards(h) for h in KING_DEAL])
    play(state, "play AH")
    assert legal_strings(state) == ["play KH"]


def test_void_holder_of_the_king_of_hearts_must_discard_it() -> None:
    state = new_state(f"kingen(rules=iwwa,{order_with_first('king_of_hearts')})")
    deal(state, [cards(h) for h in KING_DEAL])
    play(state, "play 2C")
    assert legal_strings(state) == ["play KH"]
    play(state, "play KH", "play AC", "play 2D")
    assert state.completed[-1][2] == 3


# --- SPEC 3.10 examples 6 and 7, and the source's ♦10 case ---------------------------

TRUMP_DEAL_SEAT3 = "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"
TRUMP_DEAL_SEAT0 = "TD 9D 7D 6D 4D 3D 2D 2C 3C 5C 6C 7C 8C"


def _at_first_trump_deal(game_string: str, seat1: str, seat2: str) -> TrickTakingState[Any]:
    state = new_state(game_string)
    play_randomly_until(state, 7, random.Random(7))
    hands = [cards(TRUMP_DEAL_SEAT0), cards(seat1), cards(seat2), cards(TRUMP_DEAL_SEAT3)]
    deal(state, hands)
    assert state.dealer == 2
    return state


SEAT1_LOW_DIAMONDS = "8D 5D 4C 9H AC KC QC JC TC 9C AH KH QH"
SEAT2_LOW_DIAMONDS = "AD KD QD JD JH TH 8H 7H 6H 5H 4H 3H 2H"
SEAT1_JACK = "JD 5D 4C 9H AC KC QC JC TC 9C AH KH QH"
SEAT2_JACK = "AD KD QD 8D JH TH 8H 7H 6H 5H 4H 3H 2H"


def test_iwwa_void_player_who_cannot_overtrump_may_play_anything() -> None:
    state = _at_first_trump_deal("kingen(rules=iwwa)", SEAT1_LOW_DIAMONDS, SEAT2_LOW_DIAMONDS)
    play(state, "trump D", "play AS")
    assert legal_strings(state) == [f"play {c}" for c in ["2D", "3D", "4D", "6D", "7D", "9D", "TD"]]
    play(state, "play TD")
    assert sorted(legal_strings(state)) == sorted(f"play {c}" for c in SEAT1_LOW_DIAMONDS.split())


def test_iwwa_void_player_must_overtrump_when_able() -> None:
    state = _at_first_trump_deal("kingen(rules=iwwa)", SEAT1_JACK, SEAT2_JACK)
    play(state, "trump D", "play AS", "play TD")
    assert legal_strings(state) == ["play JD"]
    with pytest.raises(
        IllegalActionError, match=r"^play 5D: IWWA: must overtrump with a higher diamond$"
    ):
        play(state, "play 5D")


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("must_trump_anyway", ["play 5D", "play 8D"]),
        ("free", sorted(f"play {c}" for c in SEAT1_LOW_DIAMONDS.split())),
        (
            "no_undertrump",
            sorted(f"play {c}" for c in SEAT1_LOW_DIAMONDS.split() if not c.endswith("D")),
        ),
    ],
)
def test_undertrump_policies_on_the_diamond_ten(policy: str, expected: list[str]) -> None:
    rules = (
        f"trump_mode=dealer_choice,must_trump=true,must_overtrump=true,undertrump_policy={policy}"
    )
    state = _at_first_trump_deal(f"kingen({rules})", SEAT1_LOW_DIAMONDS, SEAT2_LOW_DIAMONDS)
    play(state, "trump D", "play AS", "play TD")
    assert sorted(legal_strings(state)) == expected


SEAT1_JACK_ALL = sorted(f"play {c}" for c in SEAT1_JACK.split())
SEAT1_JACK_PLAIN = sorted(f"play {c}" for c in SEAT1_JACK.split() if not c.endswith("D"))


@pytest.mark.parametrize("must_trump", ["true", "false"])
@pytest.mark.parametrize(
    ("must_overtrump", "policy", "expected"),
    [
        ("true", "must_trump_anyway", ["play JD"]),
        ("true", "free", ["play JD"]),
        ("true", "no_undertrump", ["play JD"]),
        # Not obliged to overtrump: SPEC 3.6 leaves the trumped trick to the undertrump
        # policy, whatever must_trump says (must_trump on used to force a trump here).
        ("false", "must_trump_anyway", ["play 5D", "play JD"]),
        ("false", "free", SEAT1_JACK_ALL),
        ("false", "no_undertrump", SEAT1_JACK_PLAIN),
    ],
)
def test_a_trumped_trick_with_a_higher_trump_in_hand(
    must_trump: str, must_overtrump: str, policy: str, expected: list[str]
) -> None:
    """♦ trumps, ♠ led, ♦10 on it; seat 1, void in spades, holds ♦J ♦5 and other suits."""
    rules = (
        f"trump_mode=dealer_choice,must_trump={must_trump},must_overtrump={must_overtrump},"
        f"undertrump_policy={policy}"
    )
    state = _at_first_trump_deal(f"kingen({rules})", SEAT1_JACK, SEAT2_JACK)
    play(state, "trump D", "play AS", "play TD")
    assert sorted(legal_strings(state)) == expected


@pytest.mark.parametrize(
    ("rules", "card", "message"),
    [
        ("must_overtrump=false,undertrump_policy=must_trump_anyway", "4C", "must play a diamond"),
        ("must_overtrump=false,undertrump_policy=no_undertrump", "JD", "may not play a diamond"),
        ("must_overtrump=true,undertrump_policy=free", "5D", "must overtrump"),
    ],
)
def test_a_refused_card_on_a_trumped_trick_names_the_rule(
    rules: str, card: str, message: str
) -> None:
    game_string = f"kingen(trump_mode=dealer_choice,must_trump=true,{rules})"
    state = _at_first_trump_deal(game_string, SEAT1_JACK, SEAT2_JACK)
    play(state, "trump D", "play AS", "play TD")
    with pytest.raises(IllegalActionError, match=f"^play {card}: {message}"):
        play(state, f"play {card}")


TRUMP_LEAD_SEAT3 = "JD AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S"
TRUMP_LEAD_SEAT1 = "3C 2C 2S AH KH QH JH TH 9H 8H 7H 6H 5H"


@pytest.mark.parametrize(
    ("seat0", "seat2", "expected"),
    [
        (
            "QD 3D AC KC QC JC TC 9C 8C 7C 6C 5C 4C",
            "4H 3H 2H AD KD TD 9D 8D 7D 6D 5D 4D 2D",
            ["play QD"],
        ),
        (
            "3D 2D AC KC QC JC TC 9C 8C 7C 6C 5C 4C",
            "4H 3H 2H AD KD QD TD 9D 8D 7D 6D 5D 4D",
            ["play 2D", "play 3D"],
        ),
    ],
)
def test_trump_lead_must_be_beaten_when_able(seat0: str, seat2: str, expected: list[str]) -> None:
    state = new_state("kingen(rules=iwwa)")
    play_randomly_until(state, 7, random.Random(7))
    deal(state, [cards(seat0), cards(TRUMP_LEAD_SEAT1), cards(seat2), cards(TRUMP_LEAD_SEAT3)])
    play(state, "trump D", "play JD")
    assert legal_strings(state) == expected


def test_must_follow_suit_names_the_suit() -> None:
    state = new_state(f"kingen({order_with_first('tricks')})")
    deal(state, _kings_jacks_hands())
    play(state, "play 5C")
    with pytest.raises(
        IllegalActionError, match=r"^play 2S: must follow suit \(you hold a club\)$"
    ):
        play(state, "play 2S")


def test_a_refused_action_leaves_the_state_unchanged() -> None:
    state = new_state(f"kingen({order_with_first('tricks')})")
    deal(state, _kings_jacks_hands())
    play(state, "play 5C")
    before = (list(state.hands), list(state.trick), state.current_seat, len(state.log))
    for bad in ("play 2S", "play 5C", "trump H"):
        with pytest.raises(IllegalActionError):
            play(state, bad)
    assert (list(state.hands), list(state.trick), state.current_seat, len(state.log)) == before


def test_out_of_turn_is_refused() -> None:
    state = new_state("kingen")
    deal(state, _kings_jacks_hands())
    with pytest.raises(IllegalActionError, match="not your turn: seat 1 is to act"):
        state.apply_action(parse_card("QC"), seat=2)


# --- trump determination -------------------------------------------------------------


def test_last_card_trumps_are_the_dealers_exposed_card() -> None:
    state = new_state("kingen")
    play_randomly_until(state, 7, random.Random(1))
    hands = [
        cards(TRUMP_DEAL_SEAT0),
        cards(SEAT1_LOW_DIAMONDS),
        cards(SEAT2_LOW_DIAMONDS),
        cards(TRUMP_DEAL_SEAT3),
    ]
    with pytest.raises(InvalidChanceError, match="'exposed' must be a card of the dealer"):
        deal(state, hands, exposed=parse_card("AS"))
    deal(state, hands, exposed=parse_card("JH"))
    assert state.trump == 2
    assert state.phase == "play"
    assert state.view_for(0).public["exposed"] == "JH"


def test_offered_tricks_accepted_pay_the_dealer_after_play() -> None:
    state = new_state("kingen(trump_mode=offer_tricks)")
    play_randomly_until(state, 7, random.Random(1))
    deal(
        state,
        [
            cards(TRUMP_DEAL_SEAT0),
            cards(SEAT1_LOW_DIAMONDS),
            cards(SEAT2_LOW_DIAMONDS),
            cards(TRUMP_DEAL_SEAT3),
        ],
    )
    # Dealer is seat 2; seats 3, 0, 1 may offer in turn.
    assert legal_strings(state)[:3] == ["pass", "offer 1", "offer 2"]
    play(state, "offer 2", "pass")
    with pytest.raises(IllegalActionError, match="an offer must be more than 2"):
        play(state, "offer 1")
    play(state, "offer 3")
    assert legal_strings(state) == ["accept", "reject"]
    play(state, "accept")
    assert state.current_seat == 1  # the offerer names trumps
    play(state, "trump C")
    rng = random.Random(5)
    while len(state.deal_scores) < 7:
        state.apply_action(rng.choice(state.legal_actions()))
    scores = state.deal_scores[6]
    tricks = [w for _, _, w in state.completed]
    base = [tricks.count(seat) for seat in range(4)]
    assert scores == [base[0], base[1] - 3, base[2] + 3, base[3]]


def test_offers_all_passed_leave_trumps_to_the_dealer() -> None:
    state = new_state("kingen(trump_mode=offer_tricks)")
    play_randomly_until(state, 7, random.Random(1))
    deal(state, complete_deal(["", "", "", ""], FULL, 13, seed=9))
    play(state, "pass", "pass", "pass")
    assert state.current_seat == state.dealer
    assert legal_strings(state)[0] == "trump C"


# --- Dubbelkingen ----------------------------------------------------------------------


def test_dubbelkingen_dealer_chooses_and_each_negative_at_most_twice() -> None:
    state = new_state("dubbelkingen")
    rng = random.Random(3)
    deal(state, complete_deal(["", "", "", ""], FULL, 13, seed=1))
    assert state.current_seat == 0
    assert "contract queens" in legal_strings(state)
    for _ in range(2):
        play(state, "contract queens")
        while state.current_seat != CHANCE:
            state.apply_action(rng.choice(state.legal_actions()))
        state.apply_chance(state.sample_chance(rng))
    assert "contract queens" not in legal_strings(state)
    with pytest.raises(
        IllegalActionError, match="each negative contract may be played at most twice"
    ):
        play(state, "contract queens")


def test_dubbelkingen_each_player_chooses_trumps_exactly_twice() -> None:
    game = load_game("dubbelkingen")
    for seed in range(8):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        trump_choices = [0, 0, 0, 0]
        while not state.is_terminal():
            action = rng.choice(state.legal_actions())
            if state.phase == "contract" and state.action_to_string(action).startswith("trump"):
                trump_choices[state.current_seat] += 1
            state.apply_action(action)
        assert trump_choices == [2, 2, 2, 2]
        assert state.view_for(0).public["contract_uses"] == dict.fromkeys(
            ["tricks", "hearts", "kings_jacks", "queens", "king_of_hearts", "seventh_last"], 2
        )


def test_dubbelkingen_forces_trumps_when_the_remaining_deals_need_them() -> None:
    state = new_state("dubbelkingen")
    rng = random.Random(4)
    # Seat 0 deals deals 1, 5, 9, 13, 17: choose negatives on the first three.
    for number in range(1, 14):
        state.apply_chance(state.sample_chance(rng))
        if state.dealer == 0 and number < 13:
            choice = next(a for a in legal_strings(state) if a.startswith("contract"))
            play(state, choice)
        elif state.dealer == 0:
            assert all(a.startswith("trump") for a in legal_strings(state))
            with pytest.raises(IllegalActionError, match="you must choose trumps"):
                play(
                    state,
                    "contract tricks"
                    if "contract tricks" not in legal_strings(state)
                    else "contract hearts",
                )
            return
        else:
            play(state, legal_strings(state)[0])
        while state.current_seat != CHANCE:
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("seat 0 never dealt its fourth deal")


# --- decks, dealing and early ends ----------------------------------------------------


@pytest.mark.parametrize(("players", "missing"), [(3, ["2S"]), (5, ["7S", "7C"])])
def test_three_and_five_player_decks(players: int, missing: list[str]) -> None:
    state = load_game(f"kingen(players={players})").new_initial_state(seed=1)
    assert isinstance(state, TrickTakingState)
    dealt = 0
    for hand in state.hands:
        dealt |= hand
    assert dealt.bit_count() == 52 - len(missing)
    assert all(not dealt >> parse_card(c) & 1 for c in missing)


def test_a_card_dealt_twice_is_refused() -> None:
    state = new_state("kingen")
    hands = list(complete_deal(["", "", "", ""], FULL, 13))
    hands[1] = (hands[1] & ~(1 << cards_of(hands[1])[0])) | (1 << cards_of(hands[0])[0])
    with pytest.raises(InvalidChanceError, match="is dealt twice"):
        deal(state, hands)


def test_end_when_penalties_exhausted_stops_after_the_king_of_hearts() -> None:
    state = new_state(
        f"kingen(end_when_penalties_exhausted=true,{order_with_first('king_of_hearts')})"
    )
    deal(state, complete_deal(["", "", "", ""], FULL, 13, seed=2))
    rng = random.Random(2)
    while not state.deal_scores:
        state.apply_action(rng.choice(state.legal_actions()))
    king_trick = next(
        i for i, (_, cards_, _) in enumerate(state.completed) if parse_card("KH") in cards_
    )
    assert len(state.completed) == king_trick + 1
    assert sorted(state.deal_scores[0]) == [-5, 0, 0, 0]


def test_cut_only_deals_are_reproducible_and_differ_from_full_shuffles() -> None:
    cut = [load_game("kingen").new_initial_state(seed=5) for _ in range(2)]
    shuffled = load_game("kingen(shuffle_policy=full_shuffle)").new_initial_state(seed=5)
    assert isinstance(shuffled, TrickTakingState)
    assert isinstance(cut[0], TrickTakingState)
    assert isinstance(cut[1], TrickTakingState)
    for state in (*cut, shuffled):
        rng = random.Random(1)
        while state.deal_number < 2:
            state.apply_action(rng.choice(state.legal_actions()))
    assert cut[0].hands == cut[1].hands
    assert cut[0].hands != shuffled.hands


def test_chance_event_of_the_wrong_kind_is_refused() -> None:
    state = load_game("kingen").new_initial_state(seed=None)
    with pytest.raises(InvalidChanceError, match="first dealer"):
        state.apply_chance(Chance("deal", tuple(complete_deal(["", "", "", ""], FULL, 13))))
