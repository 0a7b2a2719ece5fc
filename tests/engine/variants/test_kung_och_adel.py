"""Kung och Adel rules: the worked examples of SPEC 2.10 and the source text, each played
through the public API on hand-made draws and deals."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine import CHANCE, IllegalActionError, InvalidChanceError, InvalidGameError, load_game
from engine.cards import BIT, FULL_DECK, card, card_name, cards_of
from engine.chance import DEAL, DRAW, Chance
from engine.variants.kung_och_adel import KungOchAdelState
from tests.engine.scripting import cards, legal_strings, play

SPADES = 3


def new_state(game_string: str = "kung_och_adel") -> KungOchAdelState:
    state = load_game(game_string).new_initial_state(seed=None)
    assert isinstance(state, KungOchAdelState)
    return state


def draw(state: KungOchAdelState, *drawn: str) -> None:
    """One round of the draw for ranks: a card string per seat, "" for a seat not drawing."""
    state.apply_chance(Chance(DRAW, tuple(cards(text) for text in drawn)))


def ranked_state(game_string: str = "kung_och_adel") -> KungOchAdelState:
    """Seat 0 monarch, 1 noble, 2 peasant, 3 fool (and dealer)."""
    state = new_state(game_string)
    draw(state, "AC", "KC", "QC", "JC")
    assert state.view_for(0).public["ranks"] == ["monarch", "noble", "peasant", "fool"]
    return state


def deal(state: KungOchAdelState, hands: Sequence[int]) -> None:
    state.apply_chance(Chance(DEAL, tuple(hands)))


def ranks(state: KungOchAdelState) -> list[str]:
    ranks: list[str] = state.view_for(0).public["ranks"]
    return ranks


# --- a deal whose tricks go where the test says ------------------------------------------


def scripted_hands(winners: Sequence[int]) -> tuple[list[int], list[list[int]]]:
    """Hands (spades trumps) and the card each seat plays to each trick so that trick k is
    won by ``winners[k]``. Tricks 1-3 are clubs, 4-6 diamonds, 7-9 hearts, 10-12 spades,
    each from four consecutive ranks above the 2 (the winner holds the highest); the last
    trick is the four 2s, won by whoever holds the 2 of spades."""
    assert len(winners) == 13
    plays = [[-1] * 4 for _ in range(13)]
    for trick in range(12):
        suit, group = divmod(trick, 3)
        ranks_of_group = [1 + 4 * group + i for i in range(4)]
        plays[trick][winners[trick]] = card(ranks_of_group[3], suit)
        losers = [s for s in range(4) if s != winners[trick]]
        for seat, rank in zip(losers, ranks_of_group[:3], strict=True):
            plays[trick][seat] = card(rank, suit)
    last = winners[12]
    plays[12][last] = card(0, SPADES)
    for seat, suit in zip([s for s in range(4) if s != last], range(3), strict=True):
        plays[12][seat] = card(0, suit)
    hands = [sum(BIT[plays[t][seat]] for t in range(13)) for seat in range(4)]
    return hands, plays


def split_stages(hands: Sequence[int]) -> tuple[list[int], list[int]]:
    """The six highest cards of each hand dealt in stage 1, the other seven in stage 2."""
    first = [sum(BIT[c] for c in cards_of(hand)[-6:]) for hand in hands]
    return first, [hand & ~top for hand, top in zip(hands, first, strict=True)]


def pay_tribute_back(state: KungOchAdelState) -> None:
    """Sequential tribute that changes nothing: each receiver returns the cards received."""
    while state.phase in ("tribute", "return"):
        seat = state.current_seat
        if state.phase == "tribute":
            state.apply_action(state.legal_actions()[0], seat=seat)
        else:
            received = state.view_for(seat).private["tribute_received"]
            given = state.view_for(seat).private.get("return_given", [])
            state.apply_action(state.parse_action(f"return {received[len(given)]}"), seat=seat)


def play_scripted_deal(state: KungOchAdelState, winners: Sequence[int]) -> None:
    hands, plays = scripted_hands(winners)
    first, second = split_stages(hands)
    deal(state, first)
    play(state, "trump S")
    deal(state, second)
    pay_tribute_back(state)
    assert state.hands == hands, "the tribute was given back"
    play(state, f"lead {winners[0]}")
    for trick in range(13):
        leader = state.current_seat
        for i in range(4):
            seat = (leader + i) % 4
            state.apply_action(plays[trick][seat], seat=seat)
        assert state.completed[-1][2] == winners[trick]


def winners_for(tricks: Sequence[int]) -> list[int]:
    return [seat for seat, count in enumerate(tricks) for _ in range(count)]


# --- SPEC 2.3: the initial draw ------------------------------------------------------------


def test_initial_draw_ties_are_settled_by_the_tied_players_drawing_again() -> None:
    # Liza 7, James 4, Donald 2, Anne 4; James and Anne draw again: 10 and K.
    state = new_state()
    draw(state, "7C", "4D", "2H", "4S")
    assert state.current_seat == CHANCE
    assert ranks(state) is None
    draw(state, "", "TD", "", "KH")
    assert ranks(state) == ["monarch", "peasant", "fool", "noble"]
    public = state.view_for(2).public
    assert public["draws"] == [["7C", "4D", "2H", "4S"], [None, "TD", None, "KH"]]
    assert public["quotas"] == [6, 2, 1, 4]
    assert public["rank_history"] == [["monarch", "peasant", "fool", "noble"]]
    assert state.dealer == 0
    assert state.phase == "deal"
    assert state.history[0][0] == 0  # the draw comes before the first deal


def test_a_tie_can_take_several_redraws_and_two_ties_redraw_together() -> None:
    state = new_state()
    draw(state, "9C", "9D", "3H", "3S")
    draw(state, "QC", "QD", "5H", "8S")
    draw(state, "2C", "AD", "", "")
    assert ranks(state) == ["noble", "monarch", "fool", "peasant"]


def test_only_the_tied_players_may_draw_again() -> None:
    state = new_state()
    draw(state, "7C", "4D", "2H", "4S")
    with pytest.raises(
        InvalidChanceError, match=r"seat 0 does not draw again: only tied players \(1, 3\)"
    ):
        draw(state, "8C", "TD", "", "KH")
    with pytest.raises(InvalidChanceError, match="card 4D was already drawn"):
        draw(state, "", "4D", "", "KH")
    with pytest.raises(InvalidChanceError, match="seat 3 must draw exactly one card"):
        draw(state, "", "TD", "", "")
    with pytest.raises(InvalidChanceError, match="draw for ranks, not a deal"):
        deal(state, [cards("2C"), 0, 0, 0])
    draw(state, "", "TD", "", "KH")
    assert ranks(state) == ["monarch", "peasant", "fool", "noble"]


# --- SPEC 2.7 and 2.10 examples 1-4: the rank update, after real play ------------------------


def test_made_then_failed_example_1_the_noble_who_fails_becomes_the_fool() -> None:
    state = ranked_state()
    play_scripted_deal(state, winners_for([6, 3, 3, 1]))
    assert state.tricks_won == [6, 3, 3, 1]
    # made: M, P, F keep their order on top; failed: N.
    assert ranks(state) == ["monarch", "fool", "noble", "peasant"]
    assert state.deal_scores == [[3, 0, 2, 1]]  # the rank earned by the deal
    assert state.dealer == 3
    assert state.current_seat == CHANCE


def test_made_then_failed_example_2_failing_monarch_and_noble_are_inverted() -> None:
    state = ranked_state()
    play_scripted_deal(state, winners_for([5, 3, 2, 3]))
    # made: P, F; failed: M, N inverted (N above M).
    assert ranks(state) == ["fool", "peasant", "monarch", "noble"]
    assert state.deal_scores == [[0, 1, 3, 2]]


def test_by_margin_example_3_ranks_by_tricks_over_quota() -> None:
    state = ranked_state("kung_och_adel(rank_update=by_margin)")
    play_scripted_deal(state, winners_for([6, 3, 3, 1]))
    # margins 0, -1, +1, 0 -> P, M, F, N
    assert ranks(state) == ["noble", "fool", "monarch", "peasant"]
    assert state.deal_scores == [[2, 0, 3, 1]]


def test_by_margin_example_4_equal_margins_keep_their_old_order() -> None:
    state = ranked_state("kung_och_adel(rank_update=by_margin)")
    play_scripted_deal(state, winners_for([5, 3, 2, 3]))
    # margins -1, -1, 0, +2 -> F, P, M, N (M stays above N: no inversion)
    assert ranks(state) == ["peasant", "fool", "noble", "monarch"]
    assert state.deal_scores == [[1, 0, 2, 3]]


def test_every_quota_made_exactly_keeps_the_ranks_and_the_new_fool_deals() -> None:
    state = ranked_state("kung_och_adel(deals=3)")
    play_scripted_deal(state, winners_for([6, 4, 2, 1]))
    assert ranks(state) == ["monarch", "noble", "peasant", "fool"]
    play_scripted_deal(state, winners_for([5, 3, 2, 3]))
    assert ranks(state) == ["fool", "peasant", "monarch", "noble"]
    assert state.dealer == 3
    hands, _ = scripted_hands(winners_for([0, 0, 13, 0]))
    deal(state, split_stages(hands)[0])
    assert state.dealer == 0, "the new fool deals"
    assert state.current_seat == 2, "the new monarch names trumps"
    public = state.view_for(1).public
    assert public["rank_history"] == [
        ["monarch", "noble", "peasant", "fool"],
        ["monarch", "noble", "peasant", "fool"],
        ["fool", "peasant", "monarch", "noble"],
    ]
    assert public["trick_history"] == [[6, 4, 2, 1], [5, 3, 2, 3]]
    assert public["quotas"] == [1, 2, 6, 4]
    assert state.scores() == [3 + 0, 2 + 1, 1 + 3, 0 + 2]


# --- SPEC 2.5 and 2.10 example 5: tribute -----------------------------------------------------

FOOL_HAND = "7S KH KC QH QD JC TC 9D 8H 6C 5D 4H 3C"  # one trump, no ace, two kings


def tribute_deal(game_string: str = "kung_och_adel") -> KungOchAdelState:
    """Spades trumps; the fool (seat 3) holds 7S as only trump, no aces, KH and KC."""
    state = ranked_state(game_string)
    rest = cards_of(FULL_DECK & ~cards(FOOL_HAND))
    hands = [sum(BIT[c] for c in rest[seat::3]) for seat in range(3)] + [cards(FOOL_HAND)]
    first, second = split_stages(hands)
    deal(state, first)
    play(state, "trump S")
    deal(state, second)
    return state


def test_tribute_example_5_the_fool_gives_the_trump_and_either_king() -> None:
    state = tribute_deal()
    assert state.phase == "tribute"
    assert state.current_seat == 3
    assert legal_strings(state) == ["tribute KC", "tribute KH", "tribute 7S"]
    with pytest.raises(
        IllegalActionError, match=r"the highest trumps first, .* give 7S or KH or KC"
    ):
        play(state, "tribute QH")
    with pytest.raises(IllegalActionError, match="you do not hold AS"):
        play(state, "tribute AS")
    play(state, "tribute KH")
    assert legal_strings(state) == ["tribute 7S"]
    play(state, "tribute 7S")
    assert state.view_for(0).private["tribute_received"] == ["KH", "7S"]
    assert state.view_for(3).private["tribute_given"] == ["KH", "7S"]


def test_tribute_with_enough_trumps_is_the_highest_trumps() -> None:
    state = tribute_deal()
    play(state, "tribute 7S", "tribute KC")
    # The peasant (seat 2) holds spades: their best card is their highest spade.
    peasant_spades = [c for c in cards_of(state.hands[2]) if c // 13 == SPADES]
    assert legal_strings(state) == [f"tribute {card_name(max(peasant_spades))}"]


def test_sequential_tribute_the_monarch_may_return_a_card_received() -> None:
    state = tribute_deal()
    play(state, "tribute KH", "tribute 7S")
    play(state, legal_strings(state)[0])  # the peasant's tribute
    assert state.phase == "return"
    assert state.current_seat == 0
    assert len(state.legal_actions()) == 15, "the monarch may return any of 15 cards"
    play(state, "return 7S", "return 2C")
    assert state.view_for(3).private["return_received"] == ["2C", "7S"]
    assert state.hands[3] & cards("7S 2C") == cards("7S 2C")
    assert state.current_seat == 1  # the noble returns one card to the peasant
    play(state, state.action_to_string(state.legal_actions()[0]))
    assert [h.bit_count() for h in state.hands] == [13, 13, 13, 13]
    assert state.phase == "lead"
    assert state.current_seat == 0


def test_simultaneous_tribute_returns_are_chosen_first_and_cannot_be_cards_received() -> None:
    state = tribute_deal("kung_och_adel(tribute_mode=simultaneous)")
    assert state.phase == "return"
    assert state.current_seat == 0
    assert len(state.legal_actions()) == 13, "the monarch chooses from the 13 cards dealt"
    monarch_before = state.hands[0]
    play(state, "return " + card_name(cards_of(monarch_before)[0]))
    play(state, "return " + card_name(cards_of(monarch_before)[1]))
    set_aside = cards_of(monarch_before)[:2]
    fool_view = state.view_for(3)
    assert "return_received" not in fool_view.private
    assert not fool_view.hand & sum(BIT[c] for c in set_aside)
    assert fool_view.played == 0, "cards set aside are not shown as played"
    play(state, "return " + card_name(cards_of(state.hands[1])[0]))  # the noble
    assert state.phase == "tribute"
    assert state.current_seat == 3
    play(state, "tribute KC")
    assert "return_received" not in state.view_for(3).private
    play(state, "tribute 7S")
    assert state.view_for(3).private["return_received"] == [card_name(c) for c in set_aside]
    assert state.hands[0] & cards("KC 7S") == cards("KC 7S")
    play(state, legal_strings(state)[0])  # the peasant's tribute
    assert [h.bit_count() for h in state.hands] == [13, 13, 13, 13]
    with pytest.raises(IllegalActionError, match="the monarch chooses who leads"):
        play(state, "return 7S")


# --- SPEC 2.4 and 2.10 example 6: dealing and redeals --------------------------------------


def test_card_counts_six_each_then_seven_more_and_thirteen_after_tribute() -> None:
    state = ranked_state()
    hands, _ = scripted_hands(winners_for([6, 4, 2, 1]))
    first, second = split_stages(hands)
    with pytest.raises(InvalidChanceError, match="seat 0 is dealt 13 cards, not 6"):
        deal(state, hands)
    deal(state, first)
    assert sum(h.bit_count() for h in state.hands) == 24
    assert state.view_for(0).hand_sizes == (6, 6, 6, 6)
    play(state, "trump S")
    with pytest.raises(InvalidChanceError, match=r"not 7 \(stage 2 deals 7 more to each\)"):
        deal(state, first)
    # Seat 0's stage 2 with one of its cards swapped for a card seat 1 got in stage 1.
    swapped = second[0] & ~BIT[cards_of(second[0])[0]] | BIT[cards_of(first[1])[0]]
    with pytest.raises(InvalidChanceError, match="was already dealt in stage 1"):
        deal(state, [swapped, *second[1:]])
    deal(state, second)
    assert sum(h.bit_count() for h in second) == 28
    assert state.hands == hands
    pay_tribute_back(state)
    assert [h.bit_count() for h in state.hands] == [13, 13, 13, 13]


WEAK_MONARCH = [
    cards("2C 3C 4C 5C 6C TD"),  # the monarch: nothing above a 10
    cards("AS KS QS JS 9S 8S"),
    cards("AH KH QH JH 9H 8H"),
    cards("AD KD QD JD 9D 8D"),
]


def test_the_monarch_may_order_a_redeal_only_without_a_card_above_ten() -> None:
    state = ranked_state()
    deal(state, WEAK_MONARCH)
    assert legal_strings(state) == ["trump C", "trump D", "trump H", "trump S", "redeal"]
    play(state, "redeal")
    assert state.current_seat == CHANCE
    assert state.deal_number == 1
    strong = [cards("JC 3C 4C 5C 6C TD"), *WEAK_MONARCH[1:]]
    deal(state, strong)
    assert state.view_for(2).public["redeals"] == 1
    assert "redeal" not in legal_strings(state)
    with pytest.raises(IllegalActionError, match="only while holding nothing above a 10"):
        play(state, "redeal")
    with pytest.raises(IllegalActionError, match="not your turn: seat 0 is to act"):
        state.apply_action(state.parse_action("trump S"), seat=1)
    assert state.deal_starts == [1], "a redeal belongs to the same deal"


def test_redeals_can_be_switched_off() -> None:
    state = ranked_state("kung_och_adel(allow_redeal_if_no_court=false)")
    deal(
        state,
        [
            cards("2C 3C 4C 5C 6C TD"),
            cards("AS KS QS JS 9S 8S"),
            cards("AH KH QH JH 9H 8H"),
            cards("AD KD QD JD 9D 8D"),
        ],
    )
    with pytest.raises(IllegalActionError, match="redeals are not played in this game"):
        play(state, "redeal")


def test_trumps_after_thirteen_cards_deals_thirteen_at_once_without_redeals() -> None:
    state = ranked_state("kung_och_adel(trump_choice_after_cards=13)")
    hands, _ = scripted_hands(winners_for([6, 4, 2, 1]))
    with pytest.raises(InvalidChanceError, match="seat 0 is dealt 6 cards, not 13"):
        deal(state, split_stages(hands)[0])
    deal(state, hands)
    assert state.phase == "trump"
    assert state.current_seat == 0
    assert legal_strings(state) == ["trump C", "trump D", "trump H", "trump S"]
    play(state, "trump S")
    assert state.phase == "tribute"
    assert state.current_seat == 3


def test_redeal_after_thirteen_cards_when_switched_on_looks_at_all_thirteen() -> None:
    game = "kung_och_adel(allow_redeal_if_no_court=true,trump_choice_after_cards=13)"
    state = ranked_state(game)
    low = "2C 3C 4C 5C 6C 7C 8C 9C TC 2D 3D 4D 5D"
    rest = cards_of(FULL_DECK & ~cards(low))
    deal(state, [cards(low)] + [sum(BIT[c] for c in rest[s::3]) for s in range(3)])
    assert "redeal" in legal_strings(state)


# --- SPEC 2.6: play ----------------------------------------------------------------------


def test_the_monarch_chooses_any_seat_to_lead_then_suit_must_be_followed() -> None:
    state = ranked_state()
    hands, plays = scripted_hands(winners_for([6, 4, 2, 1]))
    first, second = split_stages(hands)
    deal(state, first)
    play(state, "trump S")
    deal(state, second)
    pay_tribute_back(state)
    assert legal_strings(state) == ["lead 0", "lead 1", "lead 2", "lead 3"]
    with pytest.raises(IllegalActionError, match="not your turn: seat 0 is to act"):
        state.apply_action(state.parse_action("lead 2"), seat=2)
    play(state, "lead 2")
    assert state.current_seat == 2
    assert state.view_for(0).public["first_leader"] == 2
    play(state, "play " + card_name(plays[0][2]))  # a club
    with pytest.raises(IllegalActionError, match="must follow suit"):
        play(state, "play " + card_name(plays[3][3]))  # a diamond
    before = (list(state.hands), list(state.log))
    with pytest.raises(IllegalActionError):
        play(state, "play AH")
    assert (state.hands, state.log) == before, "a refused action changes nothing"


def test_with_eldest_leading_the_player_left_of_the_fool_leads() -> None:
    state = ranked_state("kung_och_adel(first_leader_chooser=eldest)")
    hands, _ = scripted_hands(winners_for([6, 4, 2, 1]))
    first, second = split_stages(hands)
    deal(state, first)
    play(state, "trump S")
    deal(state, second)
    pay_tribute_back(state)
    assert state.phase == "play"
    assert state.current_seat == 0


# --- SPEC 2.8: a match of a fixed number of deals ------------------------------------------


def test_a_match_ends_after_its_deals_and_scores_the_ranks_earned() -> None:
    state = ranked_state("kung_och_adel(deals=2,rank_points=1-0-0-0)")
    play_scripted_deal(state, winners_for([5, 3, 2, 3]))
    assert state.deal_scores == [[0, 0, 1, 0]]
    assert not state.is_terminal()
    play_scripted_deal(state, winners_for([0, 0, 7, 6]))
    # Ranks before: seat 2 monarch, 3 noble, 1 peasant, 0 fool; quotas 6, 4, 2, 1.
    # Seats 2 and 3 made; seats 1 and 0 failed: 2, 3, 0, 1.
    assert ranks(state) == ["peasant", "fool", "monarch", "noble"]
    assert state.is_terminal()
    assert state.scores() == [0, 0, 2, 0]
    with pytest.raises(IllegalActionError, match="the game is over"):
        play(state, "pass")


# --- game strings and action strings ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("kung_och_adel(deals=12,rank_points=3-2-1-0)", "kung_och_adel"),
        ("kung_och_adel(allow_redeal_if_no_court=true)", "kung_och_adel"),
        (
            "kung_och_adel(allow_redeal_if_no_court=false)",
            "kung_och_adel(allow_redeal_if_no_court=false)",
        ),
        (
            "kung_och_adel(trump_choice_after_cards=13,allow_redeal_if_no_court=false)",
            "kung_och_adel(trump_choice_after_cards=13)",
        ),
        (
            "kung_och_adel(tribute_mode=simultaneous,trump_choice_after_cards=13)",
            "kung_och_adel(tribute_mode=simultaneous,trump_choice_after_cards=13)",
        ),
        ("kung_och_adel(rules=riddare)", "kung_och_adel(rules=riddare)"),
        (
            "kung_och_adel(rules=riddare,allow_redeal_if_no_court=true)",
            "kung_och_adel(allow_redeal_if_no_court=true,rules=riddare)",
        ),
    ],
)
def test_canonical_game_strings(text: str, canonical: str) -> None:
    assert str(load_game(text)) == canonical
    assert str(load_game(canonical)) == canonical


def test_redeals_follow_the_trump_timing_by_default() -> None:
    assert load_game("kung_och_adel").rules.redeal_allowed
    assert not load_game("kung_och_adel(rules=riddare)").rules.redeal_allowed
    game = load_game("kung_och_adel(rules=riddare,allow_redeal_if_no_court=true)")
    assert game.rules.redeal_allowed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kung_och_adel(trump_choice_after_cards=7)", "trumps are named after 6 or after 13"),
        ("kung_och_adel(rank_points=3-2-1)", "give the points of the four ranks"),
        ("kung_och_adel(rank_points=0-1-2-3)", "a higher rank may not be worth fewer"),
        ("kung_och_adel(deals=0)", "0 is below the minimum 1"),
        ("kung_och_adel(tribute_mode=later)", "expected one of sequential, simultaneous"),
        ("kung_och_adel(rank_update=random)", "made_then_failed_inverted, by_margin"),
        ("kung_och_adel(players=5)", "unknown option 'players'"),
    ],
)
def test_bad_game_strings_are_named(text: str, message: str) -> None:
    with pytest.raises(InvalidGameError, match=message):
        load_game(text)


def test_action_strings_round_trip_and_name_their_problems() -> None:
    game = load_game("kung_och_adel")
    for text in ("tribute 7S", "return 2C", "redeal", "lead 0", "lead 3", "trump H", "play QS"):
        assert game.action_to_string(game.parse_action(text)) == text
    assert game.parse_action("tribute 10h") == game.parse_action("tribute TH")
    with pytest.raises(IllegalActionError, match="pass one card per action"):
        game.parse_action("tribute 7S KH")
    with pytest.raises(IllegalActionError, match="not a card"):
        game.parse_action("return 1X")
    with pytest.raises(IllegalActionError, match="not an action of kung_och_adel"):
        game.parse_action("lead 4")


# --- views ---------------------------------------------------------------------------------


def test_tribute_cards_are_seen_only_by_giver_and_receiver() -> None:
    state = tribute_deal()
    play(state, "tribute KC", "tribute 7S")
    peasant_best = legal_strings(state)[0]
    play(state, peasant_best)
    assert state.view_for(1).private == {"tribute_received": [peasant_best[8:]]}
    assert state.view_for(2).private == {"tribute_given": [peasant_best[8:]]}
    for seat in (1, 2):
        assert "KC" not in str(state.view_for(seat).private)
    for seat in (0, 3):
        assert peasant_best[8:] not in str(state.view_for(seat).private)
    # Before the monarch returns, the fool's view has nothing of the return.
    assert "return_received" not in state.view_for(3).private
    for seat in range(4):
        view = state.view_for(seat)
        assert view.hand == state.hands[seat]
        assert view.played == 0


def test_a_search_state_finishes_the_deal_like_the_real_game() -> None:
    state = ranked_state()
    winners = winners_for([5, 3, 2, 3])
    hands, plays = scripted_hands(winners)
    first, second = split_stages(hands)
    deal(state, first)
    play(state, "trump S")
    deal(state, second)
    pay_tribute_back(state)
    play(state, f"lead {winners[0]}")
    for i in range(4):
        state.apply_action(plays[0][(winners[0] + i) % 4])
    search = state.game.new_search_state(state.view_for(state.current_seat), state.hands)
    for target in (state, search):
        for trick in range(1, 13):
            leader = target.current_seat
            for i in range(4):
                target.apply_action(plays[trick][(leader + i) % 4])
    assert search.is_terminal()
    assert search.deal_scores[-1] == state.deal_scores[-1] == [0, 1, 3, 2]
    assert search.view_for(0).public["ranks"] == ranks(state)
