"""King with point scoring and the auction: the Brazilian rules and the Denexa rules.

Why this module is long: one game's rules, its options and the interpretations the engine
makes read best in one place, beside the code that applies them; the Brazilian and the
Denexa rules share every phase but the details of the auction.

Rules: docs/rules/king.md (the Brazilian King, "King Ind": six negative hands worth
-1300 together, then four positive hands worth +1300, with the auction of the
Beneficiary's right; and *The Denexa rules*, King as published by Denexa Games); its
section *How King League plays it* gives the interpretations below in words for
players. ``king`` plays the Brazilian rules; ``king(rules=denexa)`` selects the Denexa
rules (a preset of the same family: the dealer names trumps or auctions that right for
tricks, then picks up or down). Every variant of the page's *Variants* is an option
here, with the Brazilian value as the family default and the Denexa value in the
``denexa`` preset.

Interpretations (where the sources are silent; each is an option where tables differ):

- First dealer: cards are dealt face up one at a time clockwise, seat 0 first, until the
  K♥ appears (a ``draw`` chance event whose last card is the K♥); its receiver deals
  first, or with ``k_hearts_nominates_dealer`` nominates the first dealer (an action,
  ``nominate 2``). The deal then passes to the left, so over the positive hands each
  player is the Beneficiary once. Every deal is shuffled and dealt one card at a time
  clockwise from the dealer's left.
- Negative hands in ``negative_order`` (the Brazilian and Denexa order by default: tricks,
  hearts, queens, men, king of hearts, last two). The quick game plays three hands that
  combine the 1st and 6th, 2nd and 5th, 3rd and 4th hands of that order; a card scores
  for every combined contract it belongs to (the K♥ costs 20 as a heart and 160 as the
  King), so the hands total -440, -420 and -440. A combined hand has the lead and
  forcing rules of both its contracts.
- Heart-lead rule (hands with hearts or the K♥ among their contracts): ``heart_lead_rule``
  ``never_unless_only_hearts`` (Brazil), ``after_broken`` (once a heart has been played
  in the deal) or ``free`` (Denexa).
- K♥ forcing (``k_hearts_forced``): ``on_void`` (a holder void in the
  suit led must discard it), ``on_void_or_cannot_win`` (also when following hearts after
  the A♥), ``on_void_and_on_heart_lead`` (also when following the first trick of the
  deal led with a heart: Brazil), ``none`` (Denexa). A holder who leads is bound only by
  the heart-lead rule (the forcing rules speak of following and discarding).
- Positive hands (*The positive hands*): up scores 25 a trick, down 325 - 75 a trick, from the
  tricks as adjusted by the payment; trumps follow suit only (``must_trump`` adds the
  obligation to trump when void). Without ``down_has_trump`` a down hand is played
  without trumps even if a trump was named first (``trump_before_direction``).
- The Beneficiary (the dealer) decides the hand (the direction and the trumps, in the
  order ``trump_before_direction`` gives), or says ``auction``, or ``ultimatum``, or with
  ``forfeit_without_auction`` says ``foil`` at once. ``positive_mode=no_auction`` offers
  neither auction nor ultimatum; ``positive_mode=up_only`` (a house rule of the
  SintropiaStudios servers) plays every positive hand up, with no down bids and no
  ultimatum.
- The auction (*The auction*), clockwise from the Beneficiary's left, who never bids. With
  ``positive_chooser_of_direction=auction_winner`` (Brazil) bids climb the ladder
  1 up .. 8 up where 1 down = 3 up and 2 down = 6 up (``bid 2up``, ``bid 1down``; a bid
  must be worth strictly more than the high bid); the winning bid fixes the direction and
  its maker names trumps after an accepted up bid (and after a down bid only with
  ``down_has_trump``). With ``dealer`` (Denexa) bids are numbers of tricks 1..13
  (``bid 3``); the winner names trumps and the dealer picks up or down.
- Preference (``preference``): a bidder who speaks before the high bidder, counting from
  the Beneficiary's left, may ``match`` the high bid in the same terms and takes the lead;
  the matched player must then bid higher or pass. A player who passed is out for good
  with ``pass_is_final``, else speaks again when the turn comes round. ``opener_must_bid``:
  the player left of the Beneficiary may not pass on the first turn.
- End of the auction (``auction_end``): ``all_others_pass`` when every bidder but the high
  bidder has passed since the high bid (every bidder, when nobody has bid);
  ``two_consecutive_passes`` after two passes in a row (with three bidders the same once
  somebody has bid; before any bid, two passes end it and the third bidder never speaks).
  Either way it also ends when nobody else can still bid or match: a bidder who can do
  nothing but pass is skipped without an action.
- After the auction the Beneficiary accepts or (``beneficiary_may_decline``) declines the
  high bid; after a decline, or when nobody bid, the Beneficiary decides the hand, with
  no payment. Without ``beneficiary_may_decline`` (Denexa) the high bidder wins at once.
- Foiled auction (``allow_foiled_auction``): when the best bid is worth 3
  up or less (3 tricks in trick bids; or nobody bid), the Beneficiary may ``foil``: the
  hand is not played and scores 100 for the Beneficiary and 75 for each other player.
- Ultimatum (``allow_ultimatum``): "8 up or down". The bidders, from the Beneficiary's
  left, may each ``bid 8up`` (``bid 8`` with trick bids) or pass; the first to bid wins
  with an up hand and names trumps, and pays 8 tricks; if all pass the Beneficiary plays
  the hand down, naming trumps only with ``down_has_trump``.
- Payment after the hand (*Paying for the hand*), in tricks before scoring: ``payment=by_direction``
  (Brazil): after an up hand the winner gives the bid's k tricks to the Beneficiary
  (the count may go below zero); after a down hand the winner receives k of the
  Beneficiary's tricks (``down_payment=fixed``: all k, the Beneficiary's count may go below
  zero; ``capped``: at most the tricks the Beneficiary took). ``bid_tricks_bidder_to_dealer``
  (Denexa): the winner always gives k tricks to the dealer. Every positive hand totals 325.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import (
    BIT,
    FULL_DECK,
    HEARTS,
    RANK_ACE,
    RANK_JACK,
    RANK_KING,
    RANK_QUEEN,
    SUIT_LETTERS,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    card,
    card_name,
    rank_mask,
)
from engine.chance import DEAL, DRAW, Chance
from engine.errors import InvalidChanceError, InvalidGameError, ScoreEntryError
from engine.game import (
    ACCEPT,
    CHANCE,
    FAMILY_ACTIONS,
    NO_TRUMP_ACTION,
    PASS,
    TRUMP_ACTIONS,
    Game,
    PlayerView,
    TrickTakingState,
)
from engine.inference import CardInference
from engine.options import Rules, option
from engine.solving import CardPlayRules, DealScoring
from engine.table_sheet import (
    ScoreSheet,
    SheetField,
    SheetLine,
    TableScores,
    deal_totals,
    entered,
    entry_deals,
    seat_numbers,
    unknown_keys,
)

SEATS = 4
HAND_SIZE = 13

TRICKS, HEARTS_CONTRACT, QUEENS, MEN, KING_OF_HEARTS, LAST_TWO = range(6)
NEGATIVE_CONTRACTS = ("tricks", "hearts", "queens", "men", "king_of_hearts", "last_two")
"""The six negative hands, in the Brazilian (and Denexa) order."""

KING_OF_HEARTS_CARD = card(RANK_KING, HEARTS)
ACE_OF_HEARTS_CARD = card(RANK_ACE, HEARTS)
KING_OF_HEARTS_BIT = BIT[KING_OF_HEARTS_CARD]
HEART_MASK = SUIT_MASKS[HEARTS]
QUEEN_MASK = rank_mask(RANK_QUEEN)
MEN_MASK = rank_mask(RANK_KING) | rank_mask(RANK_JACK)
PENALTY_MASK = (0, HEART_MASK, QUEEN_MASK, MEN_MASK, KING_OF_HEARTS_BIT, 0)
"""Cards that cost points in each negative contract (none in tricks and last two)."""
CARD_POINTS = (0, 20, 50, 30, 160, 0)
TRICK_POINTS = 20
LAST_TRICK_POINTS = 90
UP_TRICK_POINTS = 25
DOWN_START_POINTS = 325
DOWN_TRICK_POINTS = 75
POSITIVE_TOTAL = 325
"""What the four scores of a positive hand add up to (13 tricks of 25)."""
FOIL_SCORES = (100, 75)  # the Beneficiary's, everyone else's
FOIL_THRESHOLD = 3
"""A foiled auction needs a best bid worth at most 3 up (3 tricks)."""

UP, DOWN = 0, 1
DIRECTION_NAMES = ("up", "down")

MAX_UP_BID = 8
MAX_DOWN_BID = 2
DOWN_BID_VALUE = 3
"""One down trick is worth three up tricks on the ladder (75 points either way)."""
MAX_TRICK_BID = 13
ULTIMATUM_TRICKS = 8

BID_UP_ACTIONS = FAMILY_ACTIONS
"""128 + k: ``bid {k}up`` (k = 1..13 parse; 1..8 can be legal)."""
BID_DOWN_ACTIONS = FAMILY_ACTIONS + 16
"""144 + k: ``bid {k}down`` (k = 1..4 parse; 1..2 can be legal)."""
BID_TRICKS_ACTIONS = FAMILY_ACTIONS + 24
"""152 + k: ``bid {k}``, a number of tricks (Denexa bids), k = 1..13."""
MATCH = FAMILY_ACTIONS + 40
AUCTION = FAMILY_ACTIONS + 41
ULTIMATUM = FAMILY_ACTIONS + 42
UP_ACTION = FAMILY_ACTIONS + 43
DOWN_ACTION = FAMILY_ACTIONS + 44
FOIL = FAMILY_ACTIONS + 45
DECLINE = FAMILY_ACTIONS + 46
NOMINATE_ACTIONS = FAMILY_ACTIONS + 48
"""176 + seat: ``nominate {seat}`` (the K♥ receiver names the first dealer)."""

_TAKEN = (
    ("tricks taken", 13, TRICK_POINTS),
    ("hearts taken", 13, CARD_POINTS[1]),
    ("queens taken", 4, CARD_POINTS[2]),
    ("kings and jacks taken", 8, CARD_POINTS[3]),
    ("king of hearts taken (1 for the seat that took it)", 1, CARD_POINTS[4]),
    ("of the last two tricks taken", 2, LAST_TRICK_POINTS),
)
"""Per negative contract: what a table writes per seat, what a hand holds of it, and
what each costs."""

_WORD_ACTIONS = {
    MATCH: "match",
    AUCTION: "auction",
    ULTIMATUM: "ultimatum",
    UP_ACTION: "up",
    DOWN_ACTION: "down",
    FOIL: "foil",
    DECLINE: "decline",
}
_WORD_CODES = {name: code for code, name in _WORD_ACTIONS.items()}
TRUMP_CHOICES = (*(TRUMP_ACTIONS + s for s in range(4)), NO_TRUMP_ACTION)


def is_up_bid(action: int) -> bool:
    return BID_UP_ACTIONS < action <= BID_UP_ACTIONS + 13


def is_down_bid(action: int) -> bool:
    return BID_DOWN_ACTIONS < action <= BID_DOWN_ACTIONS + 4


def is_trick_bid(action: int) -> bool:
    return BID_TRICKS_ACTIONS < action <= BID_TRICKS_ACTIONS + 13


def is_bid(action: int) -> bool:
    return is_up_bid(action) or is_down_bid(action) or is_trick_bid(action)


def bid_tricks(action: int) -> int:
    """The number of tricks a bid names (``bid 2down`` -> 2)."""
    if is_up_bid(action):
        return action - BID_UP_ACTIONS
    if is_down_bid(action):
        return action - BID_DOWN_ACTIONS
    return action - BID_TRICKS_ACTIONS


def bid_value(action: int) -> int:
    """A bid's rank on the ladder, in up tricks (1 down = 3 up) or in tricks."""
    if is_down_bid(action):
        return DOWN_BID_VALUE * (action - BID_DOWN_ACTIONS)
    return bid_tricks(action)


def bid_direction(action: int) -> int:
    """UP or DOWN for a ladder bid, -1 for a bid of tricks."""
    return UP if is_up_bid(action) else DOWN if is_down_bid(action) else -1


def describe_bid(action: int) -> str:
    """``4 up``, ``2 down (6 up)``, ``3 tricks``: a bid in words."""
    k = bid_tricks(action)
    if is_up_bid(action):
        return f"{k} up"
    if is_down_bid(action):
        return f"{k} down ({bid_value(action)} up)"
    return f"{k} trick" + ("s" if k != 1 else "")


_DENEXA: dict[str, Any] = {
    "first_leader": "left_of_dealer",
    "heart_lead_rule": "free",
    "k_hearts_forced": "none",
    "down_has_trump": True,
    "positive_chooser_of_direction": "dealer",
    "trump_before_direction": True,
    "opener_must_bid": True,
    "pass_is_final": False,
    "preference": False,
    "auction_end": "two_consecutive_passes",
    "beneficiary_may_decline": False,
    "allow_ultimatum": False,
    "allow_foiled_auction": False,
    "payment": "bid_tricks_bidder_to_dealer",
}


@dataclass(frozen=True, kw_only=True, slots=True)
class KingRules(Rules):
    presets: ClassVar[dict[str, dict[str, Any]]] = {"denexa": _DENEXA}

    # --- the game and the negative hands (SPEC 4.2, 4.3, 5.1, 5.2, 8 items 13-16) ---
    first_leader: str = option(
        "dealer",
        "Who leads the first trick of a hand: dealer (Brazil) or left_of_dealer "
        "(Portugal, Denexa).",
        choices=("dealer", "left_of_dealer"),
    )
    k_hearts_nominates_dealer: bool = option(
        False, "The player who receives the K♥ in the draw nominates the first dealer."
    )
    negative_order: tuple[str, ...] = option(
        NEGATIVE_CONTRACTS,
        "Order of the six negative hands.",
        kind="names",
        choices=NEGATIVE_CONTRACTS,
    )
    quick_game: bool = option(
        False, "Quick game: combine negative hands 1+6, 2+5 and 3+4 (three negative hands)."
    )
    heart_lead_rule: str = option(
        "never_unless_only_hearts",
        "Leading hearts in the hearts and K♥ hands: never_unless_only_hearts, after_broken "
        "(once a heart has been played), free.",
        choices=("never_unless_only_hearts", "after_broken", "free"),
    )
    k_hearts_forced: str = option(
        "on_void_and_on_heart_lead",
        "When the K♥ must be played in the K♥ hand: none, on_void, on_void_or_cannot_win, "
        "on_void_and_on_heart_lead (also on the first heart lead).",
        choices=("none", "on_void", "on_void_or_cannot_win", "on_void_and_on_heart_lead"),
    )

    # --- the positive hands (SPEC 4.4, 5.3) ---
    positive_mode: str = option(
        "beneficiary_choice",
        "Positive hands: beneficiary_choice (play up or down, or auction the right), "
        "no_auction (the Beneficiary always decides), up_only (always up; auction allowed).",
        choices=("beneficiary_choice", "no_auction", "up_only"),
    )
    down_has_trump: bool = option(False, "Down hands may have a trump suit.")
    must_trump: bool = option(
        False, "In positive hands with trumps, a player void in the suit led must trump."
    )
    positive_chooser_of_direction: str = option(
        "auction_winner",
        "After an auction, who chooses up or down: auction_winner (bids are 3up, 1down on "
        "the ladder) or dealer (bids are numbers of tricks; Denexa).",
        choices=("auction_winner", "dealer"),
    )
    trump_before_direction: bool = option(
        False, "Trumps are named before up or down is chosen (Denexa)."
    )

    # --- the auction (SPEC 4.5, 5.3) ---
    opener_must_bid: bool = option(False, "The first bidder may not pass on the first turn.")
    pass_is_final: bool = option(True, "A player who passes may not bid again in that auction.")
    preference: bool = option(
        True, "An earlier bidder may match the high bid in the same terms and take the lead."
    )
    auction_end: str = option(
        "all_others_pass",
        "The auction ends when all_others_pass since the high bid, or after "
        "two_consecutive_passes.",
        choices=("all_others_pass", "two_consecutive_passes"),
    )
    beneficiary_may_decline: bool = option(
        True, "The Beneficiary may decline the final bid and play the hand."
    )
    allow_ultimatum: bool = option(True, "The Beneficiary may announce the ultimatum 8 up or down.")
    allow_foiled_auction: bool = option(
        True, "After a best bid worth 3 up or less, the Beneficiary may score 4-3-3-3 unplayed."
    )
    forfeit_without_auction: bool = option(
        False, "The Beneficiary may score 4-3-3-3 without auctioning."
    )

    # --- payment after the hand (SPEC 4.6, 5.3) ---
    payment: str = option(
        "by_direction",
        "by_direction: up, the winner gives the bid tricks to the Beneficiary; down, receives "
        "them. bid_tricks_bidder_to_dealer: always from the winner to the dealer (Denexa).",
        choices=("by_direction", "bid_tricks_bidder_to_dealer"),
    )
    down_payment: str = option(
        "fixed",
        "Down bids: fixed (all the bid tricks move) or capped (at most the Beneficiary's).",
        choices=("fixed", "capped"),
    )

    def validate(self) -> None:
        if sorted(self.negative_order) != sorted(NEGATIVE_CONTRACTS):
            raise InvalidGameError(
                "option negative_order: must list each of the six negative hands once"
            )

    @property
    def ladder(self) -> bool:
        """Bids name up or down on the Brazilian ladder (else numbers of tricks)."""
        return self.positive_chooser_of_direction == "auction_winner"

    def negative_plan(self) -> list[tuple[int, ...]]:
        """The contracts of each negative hand (two each in the quick game)."""
        order = [NEGATIVE_CONTRACTS.index(name) for name in self.negative_order]
        if self.quick_game:
            return [(order[0], order[5]), (order[1], order[4]), (order[2], order[3])]
        return [(c,) for c in order]


class KingGame(Game[KingRules]):
    family = "king"
    rules_class = KingRules
    title = "King"
    preset_titles: ClassVar[Mapping[str, str]] = {"denexa": "Denexa rules"}
    examples = ("king", "king(rules=denexa)")
    short_game = "king(quick_game=true)"
    family_action_labels: ClassVar[Mapping[str, str]] = {
        "bid": "bid",
        "nominate": "nominate a player",
        "match": "match the bid",
        "auction": "open the auction",
        "ultimatum": "announce the ultimatum",
        "up": "choose up",
        "down": "choose down",
        "foil": "foil the auction",
        "decline": "decline",
    }

    @property
    def num_seats(self) -> int:
        return SEATS

    @property
    def deal_count(self) -> int:
        return 7 if self.rules.quick_game else 10

    def new_initial_state(self, seed: int | None = None) -> KingState:
        return KingState(self, seed)

    def new_search_state(self, view: PlayerView, hands: Sequence[int]) -> KingState:
        state = KingState(self, None)
        state._restore_play(view, hands)
        public = view.public
        state.contracts = tuple(NEGATIVE_CONTRACTS.index(n) for n in public["negative"])
        state.positive = not state.contracts
        if state.positive:
            state.beneficiary = public["beneficiary"]
            state.direction = DIRECTION_NAMES.index(public["direction"])
            state.winner = public.get("auction_winner", -1)
            state.paid_tricks = public.get("bid_tricks", 0)
        state._start_rules()
        return state

    def card_inference(self, view: PlayerView) -> KingInference:
        return KingInference(view)

    def family_action_name(self, action: int) -> str | None:
        if is_up_bid(action):
            return f"bid {bid_tricks(action)}up"
        if is_down_bid(action):
            return f"bid {bid_tricks(action)}down"
        if is_trick_bid(action):
            return f"bid {bid_tricks(action)}"
        if NOMINATE_ACTIONS <= action < NOMINATE_ACTIONS + SEATS:
            return f"nominate {action - NOMINATE_ACTIONS}"
        return _WORD_ACTIONS.get(action)

    def family_action_explanation(self, action: int) -> str | None:
        rules = self.rules
        if is_bid(action):
            return _bid_explanation(rules, action)
        if NOMINATE_ACTIONS <= action < NOMINATE_ACTIONS + SEATS:
            return (
                f"Name seat {action - NOMINATE_ACTIONS} as the first dealer: you drew the "
                "king of hearts, so you choose who deals first."
            )
        if action == PASS:
            text = "Pass: make no bid"
            if rules.pass_is_final:
                text += " (a pass is final: you may not bid again in this auction)"
            if rules.allow_ultimatum:
                text += (
                    ". After an ultimatum, a pass leaves the hand to the next player; if all "
                    "three pass, the Beneficiary plays it down"
                )
            return text + "."
        if action == DOWN_ACTION:
            trumps = "" if rules.down_has_trump else ", without trumps"
            return (
                f"Play this hand down{trumps}: everyone starts from {DOWN_START_POINTS} and "
                f"loses {DOWN_TRICK_POINTS} for every trick taken."
            )
        return _WORD_EXPLANATIONS.get(action)

    # --- play at a physical table (engine/table_sheet.py) -----------------------------

    def score_sheet(self) -> ScoreSheet:
        """One line a hand: a negative hand of one contract writes what each seat took of
        what it counts (tricks, hearts, queens, kings and jacks, the king of hearts, of
        the last two tricks); a combined hand (the quick game) and a positive hand write
        each seat's points (a positive hand's add up to 325)."""
        lines = []
        plan = self.rules.negative_plan()
        for deal in range(1, self.deal_count + 1):
            dealer = (deal - 1) % SEATS
            if deal <= len(plan):
                contracts = plan[deal - 1]
                title = " + ".join(NEGATIVE_CONTRACTS[c].replace("_", " ") for c in contracts)
                if len(contracts) == 1:
                    what, total, _ = _TAKEN[contracts[0]]
                    field = SheetField("taken", what, "seats", total=total)
                else:
                    field = SheetField(
                        "points",
                        "points",
                        "seats",
                        total=-sum(_TAKEN[c][1] * _TAKEN[c][2] for c in contracts),
                    )
            else:
                title = "positive hand"
                field = SheetField("points", "points", "seats", total=POSITIVE_TOTAL)
            lines.append(SheetLine(deal, title, dealer, (field,)))
        return ScoreSheet(
            game=str(self),
            seats=SEATS,
            players=self.player_seats,
            lines=tuple(lines),
            notes=(
                "Seat 0 deals the first hand; the deal passes to the left.",
                "In a positive hand the dealer is the Beneficiary; its points are written "
                "after the auction's payment.",
            ),
        )

    def table_scores(self, entry: Any) -> TableScores:
        deals = entry_deals(entry)
        sheet = self.score_sheet()
        if len(deals) != len(sheet.lines):
            raise ScoreEntryError(
                f"{entered(len(deals), 'hand')}; a game of {self.display_name} has "
                f"{len(sheet.lines)}"
            )
        plan = self.rules.negative_plan()
        scored: list[tuple[int, ...]] = []
        for line, deal in zip(sheet.lines, deals, strict=True):
            where = f"deal {line.deal} ({line.title})"
            field = line.fields[0]
            unknown_keys(deal, (field.key,), where=where)
            if field.key == "taken":
                contract = plan[line.deal - 1][0]
                what, total, points = _TAKEN[contract]
                taken = seat_numbers(
                    deal, "taken", where=where, seats=SEATS, what=what, total=total
                )
                scored.append(tuple(-points * t for t in taken))
                continue
            values = seat_numbers(
                deal,
                "points",
                where=where,
                seats=SEATS,
                what="points",
                total=field.total,
                minimum=None,
            )
            unit = UP_TRICK_POINTS if line.deal > len(plan) else 10
            if any(v % unit for v in values):
                raise ScoreEntryError(f"{where}: every score of this hand is a multiple of {unit}")
            if line.deal <= len(plan) and any(v > 0 for v in values):
                raise ScoreEntryError(f"{where}: a negative hand scores no points above 0")
            scored.append(tuple(values))
        return TableScores(tuple(scored), deal_totals(scored, SEATS), complete=True)

    def parse_family_action(self, verb: str, argument: str) -> int | None:
        if not argument:
            return _WORD_CODES.get(verb)
        if verb == "bid":
            text = argument.replace(" ", "").lower()
            for suffix, base, top in (("up", BID_UP_ACTIONS, 13), ("down", BID_DOWN_ACTIONS, 4)):
                if text.endswith(suffix):
                    number = text[: -len(suffix)]
                    if number.isdigit() and 1 <= int(number) <= top:
                        return base + int(number)
                    return None
            if text.isdigit() and 1 <= int(text) <= MAX_TRICK_BID:
                return BID_TRICKS_ACTIONS + int(text)
            return None
        if verb == "nominate" and argument.isdigit() and int(argument) < SEATS:
            return NOMINATE_ACTIONS + int(argument)
        return None


_WORD_EXPLANATIONS = {
    MATCH: "Match the high bid word for word and take the lead with it (preference: you "
    "speak before its bidder, who must then bid higher or pass).",
    AUCTION: "Auction the right to decide this hand: the other three bid for it in turn, "
    "and the winner pays you in tricks after the play.",
    ULTIMATUM: f"Announce '{ULTIMATUM_TRICKS} up or down': each other player in turn may take "
    f"the hand at {ULTIMATUM_TRICKS} up and name trumps; if all three pass, you play the hand "
    "down.",
    UP_ACTION: f"Play this hand up: every trick scores +{UP_TRICK_POINTS} "
    f"({UP_TRICK_POINTS * HAND_SIZE} in all), with trumps or no trumps.",
    FOIL: f"Refuse to play the hand: it scores {FOIL_SCORES[0]} for you and {FOIL_SCORES[1]} "
    "for each other player, as if you had taken 4 tricks up and they 3 each.",
    ACCEPT: "Accept the best bid: its bidder plays the hand as bid and pays you in tricks "
    "after the play.",
    DECLINE: "Decline the best bid and decide the hand yourself (up or down, and trumps), "
    "with no payment.",
}
"""The Beneficiary's and the bidders' word actions, explained for people."""


def _bid_explanation(rules: KingRules, action: int) -> str:
    """A bid's meaning under ``rules``: the hand it plays and what its winner pays."""
    k = bid_tricks(action)
    tricks = f"{k} trick" + ("s" if k != 1 else "")
    if rules.payment == "bid_tricks_bidder_to_dealer":
        payment = f"after the play you give {tricks} to the dealer"
    elif is_down_bid(action):
        capped = ""
        if rules.down_payment == "capped":
            capped = " (at most as many as the Beneficiary took)"
        payment = f"after the play you take {tricks} from the Beneficiary{capped}"
    else:
        payment = f"after the play you give {tricks} to the Beneficiary"
    if is_up_bid(action):
        return (
            f"Bid {k} up: if your bid wins, the hand is played up (every trick "
            f"+{UP_TRICK_POINTS}) and you name trumps or no trumps; {payment}."
        )
    if is_down_bid(action):
        trumps = "" if rules.down_has_trump else " without trumps"
        return (
            f"Bid {k} down (worth {bid_value(action)} up on the ladder): if your bid wins, the "
            f"hand is played down{trumps} (every trick taken costs {DOWN_TRICK_POINTS}); "
            f"{payment}."
        )
    return (
        f"Bid {tricks}: if your bid wins, you name trumps and the dealer chooses up or down; "
        f"{payment}."
    )


_PACK = range(52)


class KingState(TrickTakingState[KingGame]):
    __slots__ = (
        "auction",
        "beneficiary",
        "contracts",
        "direction",
        "direction_chooser",
        "first_dealer",
        "foil_open",
        "high_bid",
        "high_bidder",
        "k_hearts_forced",
        "k_hearts_receiver",
        "lead_rule",
        "out",
        "paid_tricks",
        "pass_run",
        "passed_since_bid",
        "plan",
        "positive",
        "rules",
        "trump_chooser",
        "trump_named",
        "ultimatum",
        "winner",
    )

    def __init__(self, game: KingGame, seed: int | None) -> None:
        super().__init__(game, seed)
        rules = game.rules
        self.rules = rules
        self.plan = [*rules.negative_plan(), *[()] * SEATS]
        self.first_dealer = -1
        self.k_hearts_receiver = -1
        self.contracts: tuple[int, ...] = ()
        self.positive = False
        self.lead_rule = ""  # the heart-lead rule in force this deal, "" for none
        self.k_hearts_forced = ""  # the K♥ forcing rule in force this deal, "" for none
        self._reset_positive(-1)
        self.phase = "first_dealer"
        if self.rng is not None:
            self._resolve_chance()

    def _reset_positive(self, beneficiary: int) -> None:
        self.beneficiary = beneficiary
        self.auction: list[tuple[int, int]] = []  # (seat, action) in this hand's auction
        self.high_bid = -1
        self.high_bidder = -1
        self.out = 0  # bidders out of the auction (final passes), as a seat mask
        self.passed_since_bid = 0  # seats that passed since the high bid, as a mask
        self.pass_run = 0  # passes in a row
        self.ultimatum = False
        self.winner = -1
        self.paid_tricks = 0
        self.direction = UP if self.rules.positive_mode == "up_only" else -1
        self.trump_named = False
        self.trump_chooser = beneficiary
        self.direction_chooser = beneficiary
        self.foil_open = False

    # --- chance -------------------------------------------------------------------

    def _sample_chance(self, rng: random.Random) -> Chance:
        draw = rng.random
        pack = sorted(_PACK, key=lambda _: draw())  # a uniform shuffle, twice as fast
        if self.phase == "first_dealer":
            drawn = [0] * SEATS
            for i, c in enumerate(pack[: pack.index(KING_OF_HEARTS_CARD) + 1]):
                drawn[i % SEATS] |= BIT[c]
            return Chance(DRAW, tuple(drawn))
        left = (self.first_dealer + self.deal_number + 1) % SEATS
        hands = [0] * SEATS
        for i in range(SEATS):
            hands[(left + i) % SEATS] = sum(map(BIT.__getitem__, pack[i::SEATS]))
        return Chance(DEAL, tuple(hands))

    def _apply_chance(self, event: Chance) -> None:
        if self.phase == "first_dealer":
            self._apply_draw(event)
            return
        if event.kind != DEAL:
            raise InvalidChanceError(f"a deal is due, not {event.kind}")
        if len(event.cards) != SEATS:
            raise InvalidChanceError(f"a deal gives cards to {SEATS} seats")
        if event.exposed >= 0:
            raise InvalidChanceError("no card is exposed in King")
        union = 0
        for seat, hand in enumerate(event.cards):
            if hand.bit_count() != HAND_SIZE:
                raise InvalidChanceError(
                    f"seat {seat} is dealt {hand.bit_count()} cards, not {HAND_SIZE}"
                )
            if hand & union:
                raise InvalidChanceError(
                    f"card {card_name((hand & union).bit_length() - 1)} is dealt twice"
                )
            union |= hand
        if union & ~FULL_DECK:
            raise InvalidChanceError("a card is not in the deck")
        number = self.deal_number + 1
        self.deal_number = number
        dealer = (self.first_dealer + number - 1) % SEATS
        self.dealer = dealer
        self.hands = list(event.cards)
        self.dealt = union
        self.trump = -1
        self.completed = []
        self.trick = []
        self.tricks_won = [0] * SEATS
        self.contracts = self.plan[number - 1]
        self.positive = not self.contracts
        if self.positive:
            self._start_positive()
        else:
            self._reset_positive(-1)
            self._start_play(self._first_leader())

    def _apply_draw(self, event: Chance) -> None:
        if event.kind != DRAW:
            raise InvalidChanceError(
                "the game starts with a draw: cards dealt face up until the K♥ appears"
            )
        if len(event.cards) != SEATS or event.exposed >= 0:
            raise InvalidChanceError(f"a draw shows the cards dealt face up to {SEATS} seats")
        union = 0
        for hand in event.cards:
            if hand & union:
                raise InvalidChanceError(
                    f"card {card_name((hand & union).bit_length() - 1)} is drawn twice"
                )
            union |= hand
        if not union & KING_OF_HEARTS_BIT:
            raise InvalidChanceError("the draw goes on until the K♥ appears")
        total = union.bit_count()
        receiver = (total - 1) % SEATS
        if not event.cards[receiver] & KING_OF_HEARTS_BIT:
            raise InvalidChanceError(
                f"the K♥ must be the last card drawn: with {total} cards drawn one at a time "
                f"from seat 0 it goes to seat {receiver}"
            )
        for seat, hand in enumerate(event.cards):
            expected = len(range(seat, total, SEATS))
            if hand.bit_count() != expected:
                raise InvalidChanceError(
                    f"seat {seat} is shown {hand.bit_count()} cards in the draw, not {expected}"
                )
        self.k_hearts_receiver = receiver
        if self.rules.k_hearts_nominates_dealer:
            self.phase = "nominate"
            self.current_seat = receiver
        else:
            self.first_dealer = receiver
            self.phase = "deal"

    # --- the positive hands ---------------------------------------------------------

    def _first_leader(self) -> int:
        if self.rules.first_leader == "dealer":
            return self.dealer
        return (self.dealer + 1) % SEATS

    def _start_positive(self) -> None:
        self._reset_positive(self.dealer)
        self.foil_open = self.rules.forfeit_without_auction
        self.phase = "benefit"
        self.current_seat = self.dealer

    def _pending_decision(self) -> str:
        """What is still to settle before play: "trump", "direction" or ""."""
        need_direction = self.direction < 0
        need_trump = not self.trump_named and (self.direction != DOWN or self.rules.down_has_trump)
        if self.rules.trump_before_direction:
            return "trump" if need_trump else "direction" if need_direction else ""
        return "direction" if need_direction else "trump" if need_trump else ""

    def _advance(self) -> None:
        """Ask for the next decision of the hand, or start the play."""
        pending = self._pending_decision()
        if pending == "trump":
            self.phase = "trump"
            self.current_seat = self.trump_chooser
        elif pending == "direction":
            self.phase = "direction"
            self.current_seat = self.direction_chooser
        else:
            if self.direction == DOWN and not self.rules.down_has_trump:
                self.trump = -1
            self._start_play(self._first_leader())

    def _decision_actions(self) -> list[int]:
        pending = self._pending_decision()
        if pending == "trump":
            return list(TRUMP_CHOICES)
        if pending == "direction":
            return [UP_ACTION, DOWN_ACTION]
        return []

    def _auctions_allowed(self) -> bool:
        return self.rules.positive_mode != "no_auction"

    def _ultimatum_allowed(self) -> bool:
        return self.rules.allow_ultimatum and self.rules.positive_mode == "beneficiary_choice"

    def _top_bid(self) -> int:
        """The bid the ultimatum asks for: 8 up (8 tricks with trick bids)."""
        if self.rules.ladder:
            return BID_UP_ACTIONS + ULTIMATUM_TRICKS
        return BID_TRICKS_ACTIONS + ULTIMATUM_TRICKS

    def _bidders(self) -> tuple[int, int, int]:
        """The three bidders in preference order, from the Beneficiary's left."""
        b = self.beneficiary
        return ((b + 1) % SEATS, (b + 2) % SEATS, (b + 3) % SEATS)

    def _has_preference(self, seat: int, over: int) -> bool:
        b = self.beneficiary
        return (seat - b) % SEATS < (over - b) % SEATS

    def _raises(self, seat: int) -> list[int]:
        """The bids and the match open to ``seat`` now (not the pass)."""
        rules = self.rules
        high = bid_value(self.high_bid) if self.high_bid >= 0 else 0
        actions: list[int]
        if rules.ladder:
            actions = [BID_UP_ACTIONS + k for k in range(high + 1, MAX_UP_BID + 1)]
            if rules.positive_mode != "up_only":
                actions += [
                    BID_DOWN_ACTIONS + k
                    for k in range(1, MAX_DOWN_BID + 1)
                    if DOWN_BID_VALUE * k > high
                ]
        else:
            actions = [BID_TRICKS_ACTIONS + k for k in range(high + 1, MAX_TRICK_BID + 1)]
        if (
            rules.preference
            and self.high_bidder >= 0
            and self._has_preference(seat, self.high_bidder)
        ):
            actions.append(MATCH)
        return actions

    def _bidding_actions(self) -> list[int]:
        phase = self.phase
        if phase == "benefit":
            actions = self._decision_actions()
            if self._auctions_allowed():
                actions.append(AUCTION)
                if self._ultimatum_allowed():
                    actions.append(ULTIMATUM)
        elif phase in ("trump", "direction"):
            actions = self._decision_actions()
        elif phase == "auction":
            actions = self._raises(self.current_seat)
            if not (self.rules.opener_must_bid and not self.auction):
                actions.append(PASS)
        elif phase == "ultimatum":
            actions = [PASS, self._top_bid()]
        elif phase == "accept":
            actions = [ACCEPT]
            if self.rules.beneficiary_may_decline:
                actions.append(DECLINE)
        elif phase == "nominate":
            return [NOMINATE_ACTIONS + s for s in range(SEATS)]
        else:
            return []
        if self.foil_open:
            actions.append(FOIL)
        actions.sort()
        return actions

    def _apply_bid(self, action: int) -> None:
        if action not in self._bidding_actions():
            raise self._illegal(self._why_not(action), action)
        phase = self.phase
        seat = self.current_seat
        if action == FOIL:
            self._foil()
            return
        self.foil_open = False
        if phase == "nominate":
            self.first_dealer = action - NOMINATE_ACTIONS
            self.phase = "deal"
            self.current_seat = CHANCE  # the first deal is due
        elif phase == "auction":
            self._auction_step(seat, action)
        elif phase == "ultimatum":
            self.auction.append((seat, action))
            if action != PASS:
                self.direction = UP
                self._award(seat, action)
            elif seat == self._bidders()[-1]:
                self.direction = DOWN  # nobody took the ultimatum: the Beneficiary plays down
                self._advance()
            else:
                self.current_seat = (seat + 1) % SEATS
        elif phase == "accept":
            if action == ACCEPT:
                self._award(self.high_bidder, self.high_bid)
            else:
                self._advance()  # declined: the Beneficiary decides the hand
        elif action == AUCTION:
            self.phase = "auction"
            self.current_seat = self._bidders()[0]
        elif action == ULTIMATUM:
            self.ultimatum = True
            self.phase = "ultimatum"
            self.current_seat = self._bidders()[0]
        else:  # the hand's own decisions: trumps, up or down
            if action in (UP_ACTION, DOWN_ACTION):
                self.direction = UP if action == UP_ACTION else DOWN
            else:
                self.trump = -1 if action == NO_TRUMP_ACTION else action - TRUMP_ACTIONS
                self.trump_named = True
            self._advance()

    def _auction_step(self, seat: int, action: int) -> None:
        self.auction.append((seat, action))
        bit = 1 << seat
        if action == PASS:
            self.pass_run += 1
            self.passed_since_bid |= bit
            if self.rules.pass_is_final:
                self.out |= bit
        else:
            if action != MATCH:
                self.high_bid = action
            self.high_bidder = seat
            self.pass_run = 0
            self.passed_since_bid = 0
        nxt = -1 if self._auction_over() else self._next_bidder(seat)
        if nxt >= 0:
            self.current_seat = nxt
        else:
            self._end_auction()

    def _auction_over(self) -> bool:
        if self.rules.auction_end == "two_consecutive_passes" and self.pass_run >= 2:
            return True
        silent = self.out | self.passed_since_bid
        return all(s == self.high_bidder or silent >> s & 1 for s in self._bidders())

    def _next_bidder(self, seat: int) -> int:
        """The next bidder clockwise who may speak, or -1 (the auction is over)."""
        for _ in range(SEATS - 1):
            seat = (seat + 1) % SEATS
            if seat == self.beneficiary:
                seat = (seat + 1) % SEATS
            if seat == self.high_bidder:
                return -1
            if self.out >> seat & 1:
                continue
            if self.high_bidder >= 0 and not self._raises(seat):
                continue  # nothing to say but pass: skipped
            return seat
        return -1

    def _end_auction(self) -> None:
        rules = self.rules
        if self.high_bidder < 0:
            self.foil_open = rules.allow_foiled_auction
            self._advance()  # nobody bid: the Beneficiary decides the hand
            return
        foilable = rules.allow_foiled_auction and bid_value(self.high_bid) <= FOIL_THRESHOLD
        if rules.beneficiary_may_decline or foilable:
            self.foil_open = foilable
            self.phase = "accept"
            self.current_seat = self.beneficiary
        else:
            self._award(self.high_bidder, self.high_bid)

    def _award(self, winner: int, bid: int) -> None:
        """The auction is won: the winner names trumps; the bid sets or leaves the direction."""
        self.winner = winner
        self.paid_tricks = bid_tricks(bid)
        direction = bid_direction(bid)
        if direction >= 0:
            self.direction = direction
        self.trump_chooser = winner
        self._advance()

    def _foil(self) -> None:
        own, others = FOIL_SCORES
        scores = [others] * SEATS
        scores[self.beneficiary] = own
        self._finish_deal(scores)

    def _why_not(self, action: int) -> str:
        phase = self.phase
        rules = self.rules
        legal = ", ".join(self.game.action_to_string(a) for a in self._bidding_actions())
        if phase == "nominate":
            return "the player who drew the K♥ must nominate the first dealer (nominate 0..3)"
        if action in (ACCEPT, DECLINE):
            if phase == "accept":
                return "the Beneficiary must accept the high bid (declining is not allowed)"
            if phase in ("auction", "ultimatum"):
                return "only the Beneficiary may accept or decline, once the auction is over"
            return "there is no bid to accept or decline"
        if action == FOIL:
            if phase in ("auction", "ultimatum"):
                return "only the Beneficiary may foil the auction, once it is over"
            if not rules.allow_foiled_auction and not rules.forfeit_without_auction:
                return "the foiled auction (4-3-3-3) is not played in this game"
            return (
                "the Beneficiary may foil (score 4-3-3-3) only after an auction whose best bid "
                f"is worth {FOIL_THRESHOLD} up or less"
                + ("" if rules.forfeit_without_auction else ", not without an auction")
            )
        if phase == "auction":
            return self._why_not_bid(action)
        if phase == "ultimatum":
            top = self.game.action_to_string(self._top_bid())
            return f"after the ultimatum a player may only {top} or pass"
        if phase == "accept":
            return f"the auction is over: the Beneficiary answers the high bid ({legal})"
        if is_bid(action) or action in (MATCH, PASS):
            return "there is no auction now"
        if action in (AUCTION, ULTIMATUM):
            if phase != "benefit":
                return "only the Beneficiary may open the auction, before deciding the hand"
            if not self._auctions_allowed():
                return "positive hands are not auctioned in this game"
            if rules.positive_mode == "up_only":
                return "no ultimatum when positive hands are played up only"
            return "the ultimatum (8 up or down) is not played in this game"
        if action == DOWN_ACTION and rules.positive_mode == "up_only":
            return "positive hands are played up only"
        if action in (UP_ACTION, DOWN_ACTION):
            if self.direction >= 0:
                return f"the hand is already played {DIRECTION_NAMES[self.direction]}"
            return "trumps are named first, then up or down"
        if action in TRUMP_CHOICES:
            if self.trump_named:
                return "trumps are already named"
            if self.direction == DOWN:
                return "down hands are played without trumps"
            return "choose up or down first; trumps are named after"
        who = "the Beneficiary" if phase == "benefit" else f"seat {self.current_seat}"
        return f"{who} must choose one of: {legal}"

    def _why_not_bid(self, action: int) -> str:
        rules = self.rules
        if action == PASS:
            return "the opener must bid"
        if action == MATCH:
            if not rules.preference:
                return "matching (preference) is not played in this game"
            if self.high_bidder < 0:
                return "there is no bid to match"
            return (
                f"only a bidder who speaks before seat {self.high_bidder} may match its bid "
                "(preference)"
            )
        if not is_bid(action):
            return "bid, match or pass"
        if rules.ladder and is_trick_bid(action):
            return "a bid names up or down, e.g. 'bid 3up' or 'bid 1down'"
        if not rules.ladder and not is_trick_bid(action):
            return "a bid is a number of tricks, e.g. 'bid 3' (the dealer chooses up or down)"
        if is_down_bid(action) and rules.positive_mode == "up_only":
            return "positive hands are played up only: no down bids"
        if is_up_bid(action) and bid_tricks(action) > MAX_UP_BID:
            return f"bids go up to {MAX_UP_BID} up"
        if is_down_bid(action) and bid_tricks(action) > MAX_DOWN_BID:
            return f"a down bid is at most {MAX_DOWN_BID} down (the limit is {MAX_UP_BID} up)"
        if self.high_bid >= 0:
            if rules.ladder:
                return f"a bid must be worth more than {describe_bid(self.high_bid)}"
            return f"a bid must be more than {describe_bid(self.high_bid)}"
        return "bid, match or pass"

    # --- play -----------------------------------------------------------------------

    def _start_play(self, leader: int) -> None:
        super()._start_play(leader)
        self._start_rules()

    def _start_rules(self) -> None:
        rules = self.rules
        contracts = self.contracts
        self.lead_rule = ""
        self.k_hearts_forced = ""
        if self.positive:
            self.plain_play = not (rules.must_trump and self.trump >= 0)
            return
        if (HEARTS_CONTRACT in contracts or KING_OF_HEARTS in contracts) and (
            rules.heart_lead_rule != "free"
        ):
            self.lead_rule = rules.heart_lead_rule
        if KING_OF_HEARTS in contracts and rules.k_hearts_forced != "none":
            self.k_hearts_forced = rules.k_hearts_forced
        self.plain_play = not (self.lead_rule or self.k_hearts_forced)

    def _play_rule(self) -> tuple[int, str]:
        hand = self.hands[self.current_seat]
        if not self.trick:
            if self.lead_rule:
                other = hand & ~HEART_MASK
                if (
                    other
                    and other != hand
                    and not (self.lead_rule == "after_broken" and self.played & HEART_MASK)
                ):
                    return other, "heart_lead"
            return hand, ""
        led = self.led_suit
        same = hand & SUIT_MASKS[led]
        forced = self.k_hearts_forced if hand & KING_OF_HEARTS_BIT else ""
        if same:
            if forced and led == HEARTS and same != KING_OF_HEARTS_BIT:
                if forced == "on_void_or_cannot_win" and self.win_card == ACE_OF_HEARTS_CARD:
                    return KING_OF_HEARTS_BIT, "k_hearts_cannot_win"
                if forced == "on_void_and_on_heart_lead" and not self._hearts_led_before():
                    return KING_OF_HEARTS_BIT, "k_hearts_heart_lead"
            return same, self.REASON_FOLLOW
        if forced and hand != KING_OF_HEARTS_BIT:
            return KING_OF_HEARTS_BIT, "k_hearts_void"
        if self.positive and self.trump >= 0 and self.rules.must_trump:
            trumps = hand & SUIT_MASKS[self.trump]
            if trumps and trumps != hand:
                return trumps, "must_trump"
        return hand, ""

    def _hearts_led_before(self) -> bool:
        return any(cards[0] // 13 == HEARTS for _, cards, _ in self.completed)

    def _explain(self, reason: str, card_id: int) -> str:
        trump = SUIT_NAMES[self.trump] if self.trump >= 0 else ""
        messages = {
            "heart_lead": "may not lead a heart while holding another suit"
            + (" until a heart has been played" if self.lead_rule == "after_broken" else ""),
            "k_hearts_void": "must discard the K♥ when void in the suit led",
            "k_hearts_heart_lead": "must play the K♥ the first time hearts are led",
            "k_hearts_cannot_win": "must play the K♥ when it cannot win the trick",
            "must_trump": f"must trump when void in the suit led (you hold a {trump})",
        }
        led = self.led_suit
        if self.trick and card_id // 13 != led and self.hands[self.current_seat] & SUIT_MASKS[led]:
            return super()._explain(self.REASON_FOLLOW, card_id)
        message = messages.get(reason)
        return message if message is not None else super()._explain(reason, card_id)

    def _after_trick(self, winner: int) -> None:
        if self.positive:
            self._score_positive()
        else:
            self._score_negative()

    def _score_negative(self) -> None:
        scores = [0] * SEATS
        won: list[int] = []
        for contract in self.contracts:
            if contract == TRICKS:
                for seat, taken in enumerate(self.tricks_won):
                    scores[seat] -= TRICK_POINTS * taken
            elif contract == LAST_TWO:
                scores[self.completed[-2][2]] -= LAST_TRICK_POINTS
                scores[self.completed[-1][2]] -= LAST_TRICK_POINTS
            else:
                won = won or self.won_masks()
                penalty, points = PENALTY_MASK[contract], CARD_POINTS[contract]
                for seat in range(SEATS):
                    scores[seat] -= points * (won[seat] & penalty).bit_count()
        self._finish_deal(scores)

    def adjusted_tricks(self) -> list[int]:
        """Each seat's tricks after the auction's payment (SPEC 4.6, 5.3)."""
        tricks = list(self.tricks_won)
        winner, owed = self.winner, self.paid_tricks
        if winner >= 0 and owed:
            giver, taker = winner, self.beneficiary
            if self.rules.payment == "by_direction" and self.direction == DOWN:
                giver, taker = self.beneficiary, winner
                if self.rules.down_payment == "capped":
                    owed = min(owed, tricks[giver])
            tricks[giver] -= owed
            tricks[taker] += owed
        return tricks

    def _score_positive(self) -> None:
        tricks = self.adjusted_tricks()
        if self.direction == UP:
            scores = [UP_TRICK_POINTS * t for t in tricks]
        else:
            scores = [DOWN_START_POINTS - DOWN_TRICK_POINTS * t for t in tricks]
        self._finish_deal(scores)

    # --- what the double-dummy solver reads ---------------------------------------

    def solver_play_rules(self) -> CardPlayRules:
        if self.positive:
            must_trump = self.rules.must_trump and self.trump >= 0
            return CardPlayRules(
                trump_rules=must_trump, must_trump=must_trump, undertrump="must_trump_anyway"
            )
        forced = self.k_hearts_forced
        return CardPlayRules(
            lead_ban_suit=HEARTS if self.lead_rule else -1,
            lead_ban_until_broken=self.lead_rule == "after_broken",
            forced_card=KING_OF_HEARTS_CARD if forced else -1,
            forced_on_void=bool(forced),
            forced_when_beaten_by=(ACE_OF_HEARTS_CARD if forced == "on_void_or_cannot_win" else -1),
            forced_on_first_lead=forced == "on_void_and_on_heart_lead",
        )

    def solver_scoring(self, seat: int) -> DealScoring:
        if self.positive:
            # The score is a function of the seat's own tricks, and (the winner of a down
            # auction with a capped payment) of the Beneficiary's, up to what is owed.
            counters = [-1] * SEATS
            counters[seat] = 0
            caps = [HAND_SIZE]
            if seat == self.winner and self.beneficiary != seat and self.paid_tricks:
                counters[self.beneficiary] = 1
                caps.append(self.paid_tricks)
            beneficiary = self.beneficiary

            def outcome(counts: tuple[int, ...]) -> int:
                tricks = [0] * SEATS
                tricks[seat] = counts[0]
                if len(counts) > 1:
                    tricks[beneficiary] = counts[1]
                return self._score_with_tricks(seat, tricks)

            return DealScoring(
                side=(seat,), counters=tuple(counters), caps=tuple(caps), outcome=outcome
            )
        card_points = [0] * 52
        trick_points = [0] * HAND_SIZE
        for contract in self.contracts:
            if contract == TRICKS:
                trick_points = [p - TRICK_POINTS for p in trick_points]
            elif contract == LAST_TWO:
                trick_points[-1] -= LAST_TRICK_POINTS
                trick_points[-2] -= LAST_TRICK_POINTS
            else:
                for c in range(52):
                    if BIT[c] & PENALTY_MASK[contract]:
                        card_points[c] -= CARD_POINTS[contract]
        return DealScoring(
            side=(seat,), card_points=tuple(card_points), trick_points=tuple(trick_points)
        )

    def _score_tricks(self) -> None:
        self._score_positive()

    # --- views ----------------------------------------------------------------------

    def contract_name(self) -> str:
        if self.contracts:
            return "+".join(NEGATIVE_CONTRACTS[c] for c in self.contracts)
        if not self.positive or self.direction < 0 or self.phase != "play":
            return ""
        trumps = f"trumps {SUIT_LETTERS[self.trump]}" if self.trump >= 0 else "no trumps"
        return f"{DIRECTION_NAMES[self.direction]}, {trumps}"

    def view_for(self, seat: int) -> PlayerView:
        action = self.game.action_to_string
        public: dict[str, Any] = {
            "negative": [NEGATIVE_CONTRACTS[c] for c in self.contracts],
            "positive": self.positive,
        }
        if self.k_hearts_receiver >= 0:
            public["k_hearts_receiver"] = self.k_hearts_receiver
        if self.first_dealer >= 0:
            public["first_dealer"] = self.first_dealer
        if self.positive:
            public["beneficiary"] = self.beneficiary
            public["auction"] = [{"seat": s, "action": action(a)} for s, a in self.auction]
            public["ultimatum"] = self.ultimatum
            if self.high_bidder >= 0:
                public["high_bid"] = action(self.high_bid)
                public["high_bidder"] = self.high_bidder
            public["out"] = [s for s in range(SEATS) if self.out >> s & 1]
            if self.winner >= 0:
                public["auction_winner"] = self.winner
                public["bid_tricks"] = self.paid_tricks
            public["direction"] = DIRECTION_NAMES[self.direction] if self.direction >= 0 else None
            public["trump_named"] = self.trump_named
            public["trump_chooser"] = self.trump_chooser
            public["direction_chooser"] = self.direction_chooser
        return self._view(seat, public)


class KingInference(CardInference):
    """What a King view proves about the hands: the heart-lead rule, the forced K♥ and
    the obligation to trump, read backwards."""

    def __init__(self, view: PlayerView) -> None:
        super().__init__(view)
        game = view.game
        assert isinstance(game, KingGame)
        rules = game.rules
        negative = view.public.get("negative") or ()
        self.lead_rule = ""
        if ("hearts" in negative or "king_of_hearts" in negative) and (
            rules.heart_lead_rule != "free"
        ):
            self.lead_rule = rules.heart_lead_rule
        forced = rules.k_hearts_forced
        self.forced = forced if "king_of_hearts" in negative and forced != "none" else ""
        self.must_trump = bool(view.public.get("positive")) and self.trump >= 0 and rules.must_trump

    def on_lead(self, card_id: int, played_before: int, leads: list[int]) -> int:
        broken = self.lead_rule == "after_broken" and played_before & HEART_MASK
        if self.lead_rule and SUIT_OF[card_id] == HEARTS and not broken:
            return FULL_DECK & ~HEART_MASK  # a heart may be led only from all hearts
        return 0

    def on_follow(self, card_id: int, led: int, win: int, trumped: bool, leads: list[int]) -> int:
        suit = SUIT_OF[card_id]
        forced = self.forced
        if suit == led:
            if forced and led == HEARTS and card_id != KING_OF_HEARTS_CARD:
                if forced == "on_void_or_cannot_win" and win == ACE_OF_HEARTS_CARD:
                    return KING_OF_HEARTS_BIT
                if forced == "on_void_and_on_heart_lead" and HEARTS not in leads:
                    return KING_OF_HEARTS_BIT
            return 0
        out = 0
        if forced and card_id != KING_OF_HEARTS_CARD:
            out |= KING_OF_HEARTS_BIT
        if self.must_trump and suit != self.trump:
            out |= SUIT_MASKS[self.trump]
        return out
