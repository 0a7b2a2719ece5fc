"""Priffe, the Swedish partnership game: rotating partners, misère and the träkarl.

Why this module is long: bidding, play, the four kinds of points, rubbers, the rotation of
partners and the träkarl are one game's rules with their options and interpretations, kept
beside the code that applies them.

Rules: docs/rules/priffe.md (BoardGameGeek version 153948, with Wikipedia and
kortspelsregler.com; its section *How King League plays it* gives the interpretations
below in words for players). Four players in two partnerships bid once round (clubs < spades <
diamonds < hearts < noll < spel, misère above all), play thirteen tricks, and score
trick, penalty, honour and exit points for their side (*Scoring a deal*). A rubber ends when
a side makes its second exit; each player then receives (winner total - loser total)/10
(or pays it). A game is ``rubbers_per_game`` rubbers, the partnerships rotating between
them, and ``scores()`` are the players' individual points, which always sum to zero.
Every variant of the page's *Variants* is an option here, with its default; ``players=3``
plays with a träkarl (*Three players: the träkarl*).

Seats, seating and partnerships
- A seat is a player for the whole game. Each rubber re-seats the players so that
  partners sit opposite: ``view.public["seating"]`` is the clockwise order of the current
  rubber, and the engine plays in that order (``left_of``). So in a trick the cards of
  ``TrickView.cards`` follow the seating, not the seat numbers.
- Side 0 of a rubber is the pair without seat 3, side 1 the pair with seat 3; the partner
  of seat 3 cycles 1, 2, 0, 1, ... (``seating=fixed``: seats 0 and 2 partner first), so
  every pairing comes once in three rubbers and twice in the default six.
- ``seating=random`` (the default): the game starts with a draw (a ``draw`` chance event,
  one card face up per player). The highest card (by rank, then spades > hearts >
  diamonds > clubs) deals first and partners the second highest in the first rubber; with
  a träkarl the third player partners the träkarl first. ``seating=fixed``: no draw, seat
  0 deals first.

Interpretations where the sources are silent:
- The deal is one card at a time from the dealer's left; the deal passes to the left after
  every deal. After a re-seating it passes to the next player left of the last dealer in
  the new seating. The träkarl never deals.
- Bidding: one round from forehand (left of the dealer); every player speaks once: ``pass``
  or a bid higher than the highest so far; a partner may overbid a partner.
- If nobody bids, or the highest bid is only informational (clubs or spades), the deal is a
  forced noll without declarers (``informational_only_means=suit_contract`` instead plays
  that suit as trumps, as clubs and spades were played in yeralash).
- First lead: forehand (``first_leader=left_of_bidder``: the player left of the highest
  bidder); a forced noll is led by forehand; a misère always by its bidder.
- Play: follow suit if able, otherwise any card; no obligation to trump or overtrump.
- Noll (bid or forced): thirteen tricks never split evenly, so one side always has fewer.
- Penalty points double the winners' trick points when the winners are not the declaring
  side. A forced noll has no declarers and so no penalty (``forced_noll_penalty=true``:
  its winners always score their trick points twice).
- Honours are counted from the cards dealt, never from the tricks, and score for the side
  holding them whatever the result: 2-2 nothing, 3 = 20, 4 split between partners = 40,
  4 dealt to one hand = 50 (the träkarl's hand counts as a hand). Trump contracts: A K Q J
  of trumps; spel: the four aces; noll: the four twos; misère has none.
- Misère: no side scores, the rubber's points are untouched; the deal ends as soon as the
  bidder takes a trick. Made: bidder +15 individual points, each other player -5; lost:
  bidder -15, each other +5 (booked in that deal's scores).
- Exits count trick points only (``exit1_counts_penalty`` / ``exit1_counts_honours`` add
  penalty / honour points); the second exit counts the same points, gained after the deal
  of the first exit (``exit2_strictly_greater``: more than ``exit2_increment``, else at
  least). A side cannot make both exits in one deal. Both sides are checked after every
  deal; if both make their second exit in the same deal both get the bonus. Exit bonuses
  count in the totals but never toward exits.
- The rubber ends after the deal in which a side makes its second exit; the larger total
  wins (equal totals settle 0). Individual points are booked in that deal's scores, so
  ``deal_scores`` are 0 except for misère deals and the last deal of each rubber.
- The game ends only at the end of a rubber. Its length in deals is open-ended, so
  ``game.deal_count`` is 0 and the state decides when the game is over.
- Search states (``new_search_state``) end with their deal; its result is what the deal is
  worth in settlement points: (own side's points - other side's points)/10 per player,
  exit bonuses included (settlement is linear in the sides' points), or the misère points.

The träkarl (``players=3``; *Three players: the träkarl*, dummy-whist conventions, *needs
confirmation*)
- Seat 3 is the träkarl; seats 0, 1 and 2 are the players (``game.player_seats``). It is
  dealt a hand, sits opposite its partner of the rubber, never deals and never bids.
- Its hand is exposed to everyone once the first card of a deal is led (before that lead
  if the träkarl itself leads): ``view.public["trakarl"]["hand"]``.
- Its partner plays its cards: when the träkarl is to play, ``current_seat`` is 3 and
  ``acting_seat()`` is the partner, whose view lists the träkarl's legal cards (``legal``,
  with ``to_act`` 3) and who may ``apply_action(card, seat=partner)``. ``view_for(3)``
  shows only the träkarl's own hand, so a loop that asks seat 3 still plays legally.
- The träkarl's partner may not bid misère (the träkarl would defend against its own
  player).
- The träkarl's individual points (settlement, misère) go to its partner, so the three
  players' points sum to zero; ``scores()[3]`` is always 0.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, MutableSequence, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from engine.cards import (
    BIT,
    CLUBS,
    DIAMONDS,
    FULL_DECK,
    HEARTS,
    RANK_ACE,
    RANK_JACK,
    RANK_KING,
    RANK_OF,
    RANK_QUEEN,
    RANK_TWO,
    SPADES,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    card_name,
    card_names,
    cards_of,
    rank_mask,
)
from engine.chance import DEAL, DRAW, Chance
from engine.errors import InvalidChanceError, InvalidGameError, ScoreEntryError
from engine.game import (
    CHANCE,
    FAMILY_ACTIONS,
    PASS,
    TERMINAL,
    Game,
    PartnershipUnit,
    PlayerView,
    ScoringUnit,
    SeatRole,
    State,
    TrickTakingState,
    spectator_view,
)
from engine.inference import CardInference, names_mask
from engine.options import Rules, option
from engine.solving import DealScoring
from engine.table_sheet import (
    ScoreSheet,
    SheetField,
    SheetLine,
    TableScores,
    deal_totals,
    entry_deals,
    one_choice,
    one_seat,
    seat_numbers,
    unknown_keys,
)

CLUBS_BID, SPADES_BID, DIAMONDS_BID, HEARTS_BID, NOLL, SPEL, MISERE = range(1, 8)
BID_NAMES = ("pass", "clubs", "spades", "diamonds", "hearts", "noll", "spel", "misere")
"""Bid levels 1..7 by name (0 is a pass); also the contract names."""
BID_ALIASES = {
    "klöver": CLUBS_BID,
    "klover": CLUBS_BID,
    "spader": SPADES_BID,
    "ruter": DIAMONDS_BID,
    "hjärter": HEARTS_BID,
    "hjarter": HEARTS_BID,
    "nolle": NOLL,
    "zero": NOLL,
    "play": SPEL,
    "misère": MISERE,
}
BID_TRUMP = (-1, CLUBS, SPADES, DIAMONDS, HEARTS, -1, -1, -1)
INFORMATIONAL = (CLUBS_BID, SPADES_BID)

BID_ACTIONS = FAMILY_ACTIONS
"""128 + level: ``bid clubs`` (129) .. ``bid misere`` (135)."""

TRAKARL = 3
"""The träkarl's seat when three play."""
HONOUR_RANKS = (
    rank_mask(RANK_ACE) | rank_mask(RANK_KING) | rank_mask(RANK_QUEEN) | rank_mask(RANK_JACK)
)
HONOUR_MASKS = (
    0,
    *(HONOUR_RANKS & SUIT_MASKS[suit] for suit in (CLUBS, SPADES, DIAMONDS, HEARTS)),
    rank_mask(RANK_TWO),
    rank_mask(RANK_ACE),
    0,
)
"""The four honours of each contract: A K Q J of trumps, the twos in noll, the aces in spel."""
RUBBER = ScoringUnit("rubber", "rubbers")
"""Priffe's unit of play: partnerships hold for a rubber and rotate between rubbers."""
MISERE_POINTS = (15, 5)
"""Misère: the bidder wins or loses 15 individual points, each other player 5."""


@dataclass(frozen=True, kw_only=True, slots=True)
class PriffeRules(Rules):
    players: int = option(
        4, "4 players in two partnerships; 3 play with a träkarl (dummy).", minimum=3, maximum=4
    )
    misere_allowed: bool = option(True, "Misère may be bid, above every other bid.")
    informational_only_means: str = option(
        "forced_noll",
        "When the highest bid is clubs or spades: forced_noll (as if all passed) or "
        "suit_contract (that suit is trumps).",
        choices=("forced_noll", "suit_contract"),
    )
    first_leader: str = option(
        "forehand",
        "Who leads a bid contract: forehand (left of the dealer) or left_of_bidder. "
        "A misère is always led by its bidder.",
        choices=("forehand", "left_of_bidder"),
    )
    exit1_threshold: int = option(
        30, "A side makes first exit with this many trick points.", minimum=10, maximum=1000
    )
    exit1_counts_penalty: bool = option(False, "Penalty points count toward the exits.")
    exit1_counts_honours: bool = option(False, "Honour points count toward the exits.")
    exit2_increment: int = option(
        40,
        "Second exit: more than this many further trick points after the first exit.",
        minimum=0,
        maximum=1000,
    )
    exit2_strictly_greater: bool = option(
        True, "Second exit needs more than exit2_increment (false: at least)."
    )
    exit_bonus: tuple[int, ...] = option(
        (10, 20),
        "Bonus points for the first and the second exit (multiples of 10), e.g. 10-20.",
        kind="ints",
        minimum=0,
        maximum=1000,
    )
    forced_noll_penalty: bool = option(
        False, "The winners of a forced noll also score penalty points (their points twice)."
    )
    rubbers_per_game: int = option(
        6, "Rubbers in a game; partnerships rotate between rubbers.", minimum=1, maximum=99
    )
    seating: str = option(
        "random",
        "random: a draw chooses the first dealer and the first partnerships; "
        "fixed: seat 0 deals first and seats 0 and 2 partner first.",
        choices=("random", "fixed"),
    )

    def validate(self) -> None:
        if len(self.exit_bonus) != 2:
            raise InvalidGameError(
                "option exit_bonus: give the first and the second exit's bonus, e.g. 10-20"
            )
        if any(b % 10 for b in self.exit_bonus):
            raise InvalidGameError(
                "option exit_bonus: bonuses must be multiples of 10 (settlement divides by 10)"
            )


@dataclass(frozen=True, slots=True)
class DealSheet:
    """One deal's line on the rubber's score sheet (points by side of the rubber)."""

    deal: int
    contract: int
    forced: bool
    declarer: int
    """The highest bidder, or -1 in a forced noll."""
    tricks: tuple[int, int]
    trick_points: tuple[int, int]
    penalty_points: tuple[int, int]
    honour_points: tuple[int, int]
    bonus_points: tuple[int, int]
    misere_made: bool | None
    individual: tuple[int, ...]
    """Individual points this deal gave each seat (misère points, or the settlement)."""

    def to_public(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "deal": self.deal,
            "contract": BID_NAMES[self.contract],
            "forced": self.forced,
            "declarer": self.declarer if self.declarer >= 0 else None,
            "tricks": list(self.tricks),
        }
        if self.contract == MISERE:
            out["made"] = self.misere_made
        else:
            out["trick_points"] = list(self.trick_points)
            out["penalty_points"] = list(self.penalty_points)
            out["honour_points"] = list(self.honour_points)
            out["bonus_points"] = list(self.bonus_points)
        out["individual"] = list(self.individual)
        return out


@dataclass(frozen=True, slots=True)
class Rubber:
    """A rubber's running score by side (side 0 is the pair without seat 3)."""

    number: int
    seating: tuple[int, ...]
    partners: tuple[tuple[int, int], tuple[int, int]]
    trick_points: tuple[int, int] = (0, 0)
    penalty_points: tuple[int, int] = (0, 0)
    honour_points: tuple[int, int] = (0, 0)
    bonus_points: tuple[int, int] = (0, 0)
    exits: tuple[int, int] = (0, 0)
    first_exit_at: tuple[int, int] = (-1, -1)
    """Each side's exit points when it made first exit (-1 before)."""
    sheets: tuple[DealSheet, ...] = ()
    settlement: tuple[int, ...] | None = None
    """Each seat's individual points once the rubber is over."""

    @property
    def totals(self) -> tuple[int, int]:
        t, p, h, b = self.trick_points, self.penalty_points, self.honour_points, self.bonus_points
        return (t[0] + p[0] + h[0] + b[0], t[1] + p[1] + h[1] + b[1])

    def to_public(self, rules: PriffeRules) -> dict[str, Any]:
        return {
            "number": self.number,
            "seating": list(self.seating),
            "partners": [list(self.partners[0]), list(self.partners[1])],
            "trick_points": list(self.trick_points),
            "penalty_points": list(self.penalty_points),
            "honour_points": list(self.honour_points),
            "bonus_points": list(self.bonus_points),
            "totals": list(self.totals),
            "exit_points": [exit_points(self, rules, side) for side in (0, 1)],
            "exits": list(self.exits),
            "first_exit_at": [x if x >= 0 else None for x in self.first_exit_at],
            "deals": len(self.sheets),
            "settlement": list(self.settlement) if self.settlement is not None else None,
        }


def exit_points(rubber: Rubber, rules: PriffeRules, side: int) -> int:
    """The points of ``side`` that count toward the exits (trick points by default)."""
    points = rubber.trick_points[side]
    if rules.exit1_counts_penalty:
        points += rubber.penalty_points[side]
    if rules.exit1_counts_honours:
        points += rubber.honour_points[side]
    return points


def honour_points_of(held: tuple[int, int], *, one_hand: bool) -> tuple[int, int]:
    """Each side's honour points from the honours it holds (SPEC 6.7): 2-2 nothing, 3 = 20,
    4 = 40, or 50 when all four were dealt to one hand."""
    points = [0, 0]
    for side in (0, 1):
        if held[side] == 4:
            points[side] = 50 if one_hand else 40
        elif held[side] == 3:
            points[side] = 20
    return (points[0], points[1])


def side_deal_scored(
    rules: PriffeRules,
    rubber: Rubber,
    *,
    contract: int,
    forced: bool,
    declarer_side: int,
    tricks: tuple[int, int],
    honours: tuple[int, int],
) -> tuple[Rubber, list[int], list[int], list[int]]:
    """A deal of a side contract (not misère) added to ``rubber``: the rubber after it
    (points, exits), and the deal's trick, penalty and exit bonus points by side.
    ``declarer_side`` is -1 in a forced noll; ``tricks`` and ``honours`` are by side."""
    if contract == NOLL:
        winner = 0 if tricks[0] < tricks[1] else 1
        points = 10 * (7 - tricks[winner])
    else:
        winner = 0 if tricks[0] > tricks[1] else 1
        points = 10 * (tricks[winner] - 6)
    trick_points = [0, 0]
    trick_points[winner] = points
    penalty = [0, 0]
    if (forced and rules.forced_noll_penalty) or (declarer_side >= 0 and declarer_side != winner):
        penalty[winner] = points
    rubber = replace(
        rubber,
        trick_points=_plus(rubber.trick_points, trick_points),
        penalty_points=_plus(rubber.penalty_points, penalty),
        honour_points=_plus(rubber.honour_points, honours),
    )
    bonus = [0, 0]
    exits = list(rubber.exits)
    first_exit_at = list(rubber.first_exit_at)
    for side in (0, 1):
        counted = exit_points(rubber, rules, side)
        if exits[side] == 0 and counted >= rules.exit1_threshold:
            exits[side] = 1
            first_exit_at[side] = counted
            bonus[side] = rules.exit_bonus[0]
        elif exits[side] == 1:
            gain = counted - first_exit_at[side]
            if gain > rules.exit2_increment or (
                gain == rules.exit2_increment and not rules.exit2_strictly_greater
            ):
                exits[side] = 2
                bonus[side] = rules.exit_bonus[1]
    rubber = replace(
        rubber,
        bonus_points=_plus(rubber.bonus_points, bonus),
        exits=(exits[0], exits[1]),
        first_exit_at=(first_exit_at[0], first_exit_at[1]),
    )
    return rubber, trick_points, penalty, bonus


def _table_rubber(number: int, seating: tuple[int, ...]) -> Rubber:
    """A new rubber of ``seating`` (partners opposite), as a state seats it."""
    partners = (
        (min(seating[0], seating[2]), max(seating[0], seating[2])),
        (seating[1], seating[3]),
    )
    return Rubber(number, seating, partners)


def _flag(deal: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> bool:
    value = deal.get(key, None if required else False)
    if not isinstance(value, bool):
        raise ScoreEntryError(f"{where}: '{key}' must be true or false")
    return value


def _sides(
    deal: Mapping[str, Any], key: str, where: str, *, total: int, what: str
) -> tuple[int, int]:
    values = seat_numbers(
        deal, key, where=where, seats=2, what=what, total=total, per="side (A, B)"
    )
    return (values[0], values[1])


def seating_for(partner_of_last: int) -> tuple[int, ...]:
    """The clockwise order of a rubber in which seat 3 partners ``partner_of_last``."""
    a, b = (s for s in range(3) if s != partner_of_last)
    return (a, partner_of_last, b, 3)


def draw_key(c: int) -> int:
    """Rank of a drawn card for seating: by rank, then spades > hearts > diamonds > clubs."""
    return RANK_OF[c] * 4 + SUIT_OF[c]


_BID_TITLES = {
    CLUBS_BID: "Klöver (clubs)",
    SPADES_BID: "Spader (spades)",
    DIAMONDS_BID: "Ruter (diamonds)",
    HEARTS_BID: "Hjärter (hearts)",
    NOLL: "Noll",
    SPEL: "Spel",
    MISERE: "Misère",
}
_BID_EXPLANATIONS = {
    NOLL: "Noll: no trumps, and your side tries to take fewer tricks than the other side.",
    SPEL: "Spel: no trumps, and your side tries to take most tricks.",
}
"""What Priffe's bids mean for people (docs/rules/priffe.md, *Bidding*)."""


def _suit_bid_explanation(level: int, *, signal: bool) -> str:
    suit = SUIT_NAMES[(CLUBS, SPADES, DIAMONDS, HEARTS)[level - CLUBS_BID]]
    if signal:
        return (
            f"{_BID_TITLES[level]}: a signal to your partner about your hand; at this table, "
            f"if nothing higher is bid, {suit}s are trumps and your side tries to take most "
            "tricks."
        )
    return f"{_BID_TITLES[level]}: {suit}s are trumps, and your side tries to take most tricks."


class PriffeGame(Game[PriffeRules]):
    family = "priffe"
    rules_class = PriffeRules
    title = "Priffe"
    examples = ("priffe", "priffe(players=3)")
    length_option = "rubbers_per_game"
    match_unit = RUBBER
    scoring_unit = RUBBER
    partnerships_rotate = True
    dummy_name = "the träkarl"
    family_action_labels: ClassVar[Mapping[str, str]] = {"bid": "bid"}

    @property
    def num_seats(self) -> int:
        return 4

    @property
    def deal_count(self) -> int:
        """0: open-ended (the game ends with its last rubber)."""
        return 0

    @property
    def trakarl(self) -> int:
        """The träkarl's seat, or -1 when four play."""
        return TRAKARL if self.rules.players == 3 else -1

    @property
    def seat_roles(self) -> tuple[SeatRole, ...]:
        """Four players, or three and the träkarl (a dummy) at seat 3."""
        return tuple(
            SeatRole.DUMMY if seat == self.trakarl else SeatRole.PLAYER for seat in range(4)
        )

    @property
    def partnership_play(self) -> bool:
        """Ranked per rubber, as two partnerships (partners opposite in its seating)."""
        return True

    def partnership_units(self, state: State[Any]) -> list[PartnershipUnit]:
        """The rubbers of the finished game, from its public view: beyond the common fields
        the partner ``partners`` seats, the side ``totals`` and each seat's ``settlement``;
        a seat's ``points`` are its individual points of the rubber's deals (settlement
        and misère)."""
        rubbers = spectator_view(state.view_for(0)).public["rubbers"]
        deal_scores = list(state.deal_scores)
        out: list[PartnershipUnit] = []
        first = 0
        for rubber in rubbers:
            count = int(rubber["deals"])
            deals = deal_scores[first : first + count]
            first += count
            seats = range(len(rubber["seating"]))
            out.append(
                {
                    "number": rubber["number"],
                    "deals": count,
                    "seating": list(rubber["seating"]),
                    "partners": [list(p) for p in rubber["partners"]],
                    "totals": list(rubber["totals"]),
                    "settlement": rubber["settlement"],
                    "points": [sum(deal[seat] for deal in deals) for seat in seats],
                }
            )
        return out

    # --- play at a physical table (engine/table_sheet.py) -----------------------------

    def table_contracts(self) -> tuple[str, ...]:
        """The contracts a table may write: the playable bids (clubs and spades only
        where they are played as trumps), misère where it may be bid."""
        names = ["diamonds", "hearts", "noll", "spel"]
        if self.rules.informational_only_means == "suit_contract":
            names = ["clubs", "spades", *names]
        if self.rules.misere_allowed:
            names.append("misere")
        return tuple(names)

    def score_sheet(self) -> ScoreSheet:
        """One line a deal, rubber after rubber until the game's last rubber ends (a
        rubber ends with a side's second exit, so the number of deals is open): the
        contract, its declarer (none in a forced noll), the tricks of each side and the
        honours each side held (and whether all four were in one hand); a misère writes
        whether it was made. The sides of each rubber are in ``notes``: the players move
        so that partners sit opposite."""
        fields = (
            SheetField("contract", "contract", "choice", choices=self.table_contracts()),
            SheetField("forced", "forced noll (everybody passed)", "flag", optional=True),
            SheetField("declarer", "declarer (highest bidder)", "seat", optional=True),
            SheetField("tricks", "tricks of each side", "sides", total=13),
            SheetField("honours", "honours held by each side", "sides", total=4),
            SheetField("one_hand", "all four honours in one hand", "flag", optional=True),
            SheetField("made", "misère: made (no trick taken)", "flag", optional=True),
        )
        notes = ["Side A is the pair without seat 3, side B the pair with it."]
        partner = 1
        for number in range(1, min(self.rules.rubbers_per_game, 3) + 1):
            seating = seating_for(partner)
            a = sorted((seating[0], seating[2]))
            notes.append(
                f"Rubber {number} (and every third after it): side A seats {a[0]} and "
                f"{a[1]}, side B seats {seating[1]} and {seating[3]}."
            )
            partner = (partner + 1) % 3
        notes.append("Seat 0 deals first; the deal passes to the left among the players.")
        return ScoreSheet(
            game=str(self),
            seats=4,
            players=self.player_seats,
            lines=(SheetLine(1, "rubber 1, deal 1", 0, fields),),
            open_ended=True,
            totals_allowed=False,
            notes=tuple(notes),
        )

    def table_scores(self, entry: Any) -> TableScores:
        deals = entry_deals(entry)
        if not deals:
            raise ScoreEntryError("no deal entered")
        rules = self.rules
        contracts = self.table_contracts()
        players = self.player_seats
        trakarl = self.trakarl
        partner = 1
        seating = seating_for(partner)
        rubber = _table_rubber(1, seating)
        units: list[dict[str, Any]] = []
        scored: list[tuple[int, ...]] = []
        first_deal = 0
        for number, deal in enumerate(deals, start=1):
            if len(units) == rules.rubbers_per_game:
                raise ScoreEntryError(
                    f"deal {number}: the game ended with deal {number - 1} (the second exit "
                    f"of rubber {len(units)}); {len(deals)} deals are entered"
                )
            where = f"deal {number} (rubber {rubber.number})"
            unknown_keys(
                deal,
                ("contract", "forced", "declarer", "tricks", "honours", "one_hand", "made"),
                where=where,
            )
            named = one_choice(deal, "contract", where=where, choices=contracts)
            if named is None:
                raise ScoreEntryError(f"{where}: name the 'contract' ({', '.join(contracts)})")
            contract = BID_NAMES.index(named)
            forced = _flag(deal, "forced", where)
            side_of = [0] * 4
            side_of[seating[1]] = side_of[seating[3]] = 1
            individual = [0] * 4
            if forced:
                if contract != NOLL or "declarer" in deal:
                    raise ScoreEntryError(f"{where}: a forced noll is a noll without declarer")
                declarer = -1
            else:
                declarer = one_seat(deal, "declarer", where=where, seats=players)
            if contract == MISERE:
                if "tricks" in deal or "honours" in deal or _flag(deal, "one_hand", where):
                    raise ScoreEntryError(
                        f"{where}: a misère writes only its declarer and whether it was 'made'"
                    )
                made = _flag(deal, "made", where, required=True)
                win, lose = MISERE_POINTS
                individual = [-lose if made else lose] * 4
                individual[declarer] = win if made else -win
            else:
                if _flag(deal, "made", where):
                    raise ScoreEntryError(f"{where}: 'made' is for a misère only")
                tricks = _sides(deal, "tricks", where, total=13, what="tricks")
                honours = _sides(deal, "honours", where, total=4, what="honours held")
                one_hand = _flag(deal, "one_hand", where)
                if one_hand and 4 not in honours:
                    raise ScoreEntryError(
                        f"{where}: all four honours in one hand, but no side holds all four"
                    )
                rubber, _, _, _ = side_deal_scored(
                    rules,
                    rubber,
                    contract=contract,
                    forced=forced,
                    declarer_side=side_of[declarer] if declarer >= 0 else -1,
                    tricks=tricks,
                    honours=honour_points_of(honours, one_hand=one_hand),
                )
                if 2 in rubber.exits:
                    share = (rubber.totals[0] - rubber.totals[1]) // 10
                    individual = [share if side == 0 else -share for side in side_of]
            if trakarl >= 0:
                opposite = seating[(seating.index(trakarl) + 2) % 4]
                individual[opposite] += individual[trakarl]
                individual[trakarl] = 0
            scored.append(tuple(individual))
            if 2 in rubber.exits:
                deals_of = scored[first_deal:]
                units.append(
                    {
                        "number": rubber.number,
                        "deals": len(deals_of),
                        "seating": list(seating),
                        "partners": [list(p) for p in rubber.partners],
                        "totals": list(rubber.totals),
                        "settlement": individual,
                        "points": [sum(d[s] for d in deals_of) for s in range(4)],
                    }
                )
                first_deal = len(scored)
                partner = (partner + 1) % 3
                seating = seating_for(partner)
                rubber = _table_rubber(rubber.number + 1, seating)
        if len(units) < rules.rubbers_per_game:
            raise ScoreEntryError(
                f"the game is not over: no side has won rubber {rubber.number} of "
                f"{rules.rubbers_per_game} yet"
            )
        return TableScores(tuple(scored), deal_totals(scored, 4), complete=True, units=tuple(units))

    def new_initial_state(self, seed: int | None = None) -> PriffeState:
        if self.rules.players == 3:
            return TrakarlPriffeState(self, seed)
        return PriffeState(self, seed)

    def new_search_state(self, view: PlayerView, hands: Sequence[int]) -> PriffeState:
        public = view.public
        state = (
            TrakarlPriffeState(self, None) if self.rules.players == 3 else PriffeState(self, None)
        )
        rubber = public["rubbers"][-1]
        state._seat_rubber(rubber["number"], seating_for(rubber["partners"][1][0]))
        state.rubber = replace(
            state.rubber,
            trick_points=_pair(rubber["trick_points"]),
            penalty_points=_pair(rubber["penalty_points"]),
            honour_points=_pair(rubber["honour_points"]),
            bonus_points=_pair(rubber["bonus_points"]),
            exits=_pair(rubber["exits"]),
            first_exit_at=_pair([-1 if x is None else x for x in rubber["first_exit_at"]]),
        )
        state._restore_play(view, hands)
        state.contract = BID_NAMES.index(public["contract"])
        state.forced = public["forced"]
        declarer = public["declarer"]
        state.declarer = -1 if declarer is None else declarer
        state.bids = [(b["seat"], BID_NAMES.index(b["bid"])) for b in public["bids"]]
        state.watch_every_trick = state.contract == MISERE
        state.plain_play = True
        dealt = list(hands)
        for trick in view.tricks:
            state._return_trick_cards(dealt, trick.leader, trick.cards)
        state._return_trick_cards(dealt, view.leader, view.trick)
        state.dealt_hands = tuple(dealt)
        return state

    def playout_public(self, public: dict[str, Any], hands: Sequence[int]) -> dict[str, Any] | None:
        """The träkarl's hand, shown to all once exposed, as it is in ``hands``."""
        trakarl = public.get("trakarl")
        if not isinstance(trakarl, dict):
            return None
        return {**public, "trakarl": {**trakarl, "hand": card_names(hands[trakarl["seat"]])}}

    def card_inference(self, view: PlayerView) -> PriffeInference:
        return PriffeInference(view)

    def family_action_name(self, action: int) -> str | None:
        if BID_ACTIONS + CLUBS_BID <= action <= BID_ACTIONS + MISERE:
            return "bid " + BID_NAMES[action - BID_ACTIONS]
        return None

    def family_action_explanation(self, action: int) -> str | None:
        if action == PASS:
            return "Pass: make no bid (everyone speaks once, so you will not bid this deal)."
        if BID_ACTIONS + CLUBS_BID <= action <= BID_ACTIONS + MISERE:
            level = action - BID_ACTIONS
            if level in (CLUBS_BID, SPADES_BID):
                if self.rules.informational_only_means == "suit_contract":
                    return _suit_bid_explanation(level, signal=True)
                return (
                    f"{_BID_TITLES[level]}: a signal to your partner about your hand, not a "
                    "contract. If nothing higher than a signal is bid, the deal is played as a "
                    "forced noll."
                )
            if level in (DIAMONDS_BID, HEARTS_BID):
                return _suit_bid_explanation(level, signal=False)
            if level == MISERE:
                win, lose = MISERE_POINTS
                return (
                    f"{_BID_TITLES[level]}: you alone try to take no trick at all, and the "
                    "other three play together against you. You lead; you lose as soon as "
                    f"you take a trick. It is worth {win} points to you, {lose} from each "
                    "other player (or the other way round)."
                )
            return _BID_EXPLANATIONS[level]
        return None

    def parse_family_action(self, verb: str, argument: str) -> int | None:
        if verb != "bid":
            return None
        name = argument.lower()
        if name in BID_NAMES[1:]:
            return BID_ACTIONS + BID_NAMES.index(name)
        if name in BID_ALIASES:
            return BID_ACTIONS + BID_ALIASES[name]
        return None


class PriffeState(TrickTakingState[PriffeGame]):
    __slots__ = (
        "bids",
        "contract",
        "dealt_hands",
        "declarer",
        "draw",
        "first_dealer",
        "forced",
        "last_sheet",
        "partner_of_last",
        "rubber",
        "rubbers",
        "rules",
        "side_of",
        "trakarl",
    )

    def __init__(self, game: PriffeGame, seed: int | None) -> None:
        super().__init__(game, seed)
        rules = game.rules
        self.rules = rules
        self.trakarl = game.trakarl
        self.draw: tuple[int, ...] = ()
        self.first_dealer = 0
        self.bids: list[tuple[int, int]] = []  # (seat, bid level or 0 for a pass)
        self.contract = 0
        self.forced = False
        self.declarer = -1
        self.dealt_hands: tuple[int, ...] = ()
        self.rubbers: list[Rubber] = []  # finished rubbers
        self.last_sheet: DealSheet | None = None
        self.partner_of_last = 1
        self.side_of: tuple[int, ...] = (0, 1, 0, 1)
        self.rubber: Rubber
        self.plain_play = True  # Priffe's only card-play rule is to follow suit
        self._seat_rubber(1, seating_for(1))
        self.phase = "draw" if rules.seating == "random" else "deal"
        if self.rng is not None:
            self._resolve_chance()

    # --- seating and partnerships ---------------------------------------------------

    def _seat_rubber(self, number: int, seating: tuple[int, ...]) -> None:
        """Seat the players for rubber ``number`` (partners opposite in ``seating``)."""
        self.partner_of_last = seating[1]
        side_of = [0] * 4
        side_of[seating[1]] = side_of[seating[3]] = 1
        self.side_of = tuple(side_of)
        order = [0] * 4
        for i, seat in enumerate(seating):
            order[seat] = seating[(i + 1) % 4]
        self.left_of = tuple(order)
        partners = (
            (min(seating[0], seating[2]), max(seating[0], seating[2])),
            (seating[1], seating[3]),
        )
        self.rubber = Rubber(number, seating, partners)

    def partner_of(self, seat: int) -> int:
        """``seat``'s partner in the current rubber (the seat opposite)."""
        return self.left_of[self.left_of[seat]]

    def _next_live_seat(self, seat: int) -> int:
        """The next seat clockwise that is a player (the träkarl neither deals nor bids)."""
        seat = self.left_of[seat]
        return self.left_of[seat] if seat == self.trakarl else seat

    def _upcoming_dealer(self) -> int:
        return self.first_dealer if self.deal_number == 0 else self._next_live_seat(self.dealer)

    def acting_seat(self) -> int:
        if self.current_seat == self.trakarl >= 0:
            return self.partner_of(self.trakarl)
        return self.current_seat

    # --- chance ---------------------------------------------------------------------

    def _sample_chance(self, rng: random.Random) -> Chance:
        pack = cards_of(FULL_DECK)
        rng.shuffle(pack)
        if self.phase == "draw":
            draws = [0] * 4
            for seat, c in zip(self.game.player_seats, pack, strict=False):
                draws[seat] = BIT[c]
            return Chance(DRAW, tuple(draws))
        hands = [0] * 4
        seat = self.left_of[self._upcoming_dealer()]
        for c in pack:
            hands[seat] |= BIT[c]
            seat = self.left_of[seat]
        return Chance(DEAL, tuple(hands))

    def _apply_chance(self, event: Chance) -> None:
        if self.phase == "draw":
            self._apply_draw(event)
            return
        if event.kind != DEAL:
            raise InvalidChanceError(f"a deal is due, not {event.kind}")
        if event.exposed >= 0:
            raise InvalidChanceError("no card is exposed in a Priffe deal")
        if len(event.cards) != 4:
            raise InvalidChanceError("a deal gives cards to 4 hands")
        union = 0
        for seat, hand in enumerate(event.cards):
            if hand >> 52:
                raise InvalidChanceError(f"seat {seat} is dealt a card that is not in the deck")
            if hand.bit_count() != 13:
                raise InvalidChanceError(f"seat {seat} is dealt {hand.bit_count()} cards, not 13")
            if hand & union:
                raise InvalidChanceError(
                    f"card {card_name((hand & union).bit_length() - 1)} is dealt twice"
                )
            union |= hand
        self.dealer = self._upcoming_dealer()
        self.deal_number += 1
        self.hands = list(event.cards)
        self.dealt_hands = tuple(event.cards)
        self.bids = []
        self.contract = 0
        self.forced = False
        self.declarer = -1
        self.trump = -1
        self.completed = []
        self.trick = []
        self.tricks_won = [0] * 4
        self.phase = "bid"
        self.current_seat = self._next_live_seat(self.dealer)

    def _apply_draw(self, event: Chance) -> None:
        if event.kind != DRAW:
            raise InvalidChanceError("the game starts with a draw for seats and the first deal")
        if len(event.cards) != 4:
            raise InvalidChanceError("a draw gives one card to each of the 4 seats")
        union = 0
        for seat, drawn in enumerate(event.cards):
            wanted = 0 if seat == self.trakarl else 1
            if drawn >> 52:
                raise InvalidChanceError(f"seat {seat} draws a card that is not in the deck")
            if drawn.bit_count() != wanted:
                raise InvalidChanceError(
                    f"seat {seat}: the träkarl draws no card"
                    if wanted == 0
                    else f"seat {seat} draws {drawn.bit_count()} cards, not one"
                )
            if drawn & union:
                raise InvalidChanceError(f"card {card_name(drawn.bit_length() - 1)} is drawn twice")
            union |= drawn
        players = self.game.player_seats
        ranked = sorted(players, key=lambda s: draw_key(event.cards[s].bit_length() - 1))
        first, second = ranked[-1], ranked[-2]
        partner_of_last = (
            first + second - TRAKARL
            if TRAKARL in (first, second)
            else next(s for s in range(3) if s not in (first, second))
        )
        self.draw = tuple(event.cards)
        self.first_dealer = first
        self._seat_rubber(1, seating_for(partner_of_last))
        self.phase = "deal"

    # --- bidding --------------------------------------------------------------------

    def _bidding_actions(self) -> list[int]:
        if self.phase != "bid":
            return []
        highest = max((level for _, level in self.bids), default=0)
        top = MISERE if self._may_bid_misere(self.current_seat) else SPEL
        return [PASS, *(BID_ACTIONS + level for level in range(highest + 1, top + 1))]

    def _may_bid_misere(self, seat: int) -> bool:
        return self.rules.misere_allowed and (
            self.trakarl < 0 or seat != self.partner_of(self.trakarl)
        )

    def _apply_bid(self, action: int) -> None:
        if self.phase != "bid":
            raise self._illegal(f"no action is expected now (phase {self.phase})", action)
        if action != PASS and not BID_ACTIONS + CLUBS_BID <= action <= BID_ACTIONS + MISERE:
            raise self._illegal("bid a contract (e.g. bid hearts) or pass", action)
        seat = self.current_seat
        level = 0 if action == PASS else action - BID_ACTIONS
        if level:
            highest = max((lv for _, lv in self.bids), default=0)
            if level == MISERE and not self.rules.misere_allowed:
                raise self._illegal("misère is not allowed at this table", action)
            if level == MISERE and not self._may_bid_misere(seat):
                raise self._illegal(
                    "the träkarl's partner may not bid misère "
                    "(the träkarl would play against its own partner)",
                    action,
                )
            if level <= highest:
                raise self._illegal(f"a bid must be higher than {BID_NAMES[highest]}", action)
        self.bids.append((seat, level))
        nxt = self._next_live_seat(seat)
        if nxt != self._next_live_seat(self.dealer):
            self.current_seat = nxt
            return
        self._settle_contract()

    def _settle_contract(self) -> None:
        """After the last bid: the contract, the declarer and the first leader."""
        highest = max((level for _, level in self.bids), default=0)
        forehand = self.left_of[self.dealer]  # leads even if it is the träkarl
        informational_played = self.rules.informational_only_means == "suit_contract"
        if highest == 0 or (highest in INFORMATIONAL and not informational_played):
            self.contract, self.forced, self.declarer = NOLL, True, -1
        else:
            self.contract = highest
            self.declarer = next(seat for seat, level in self.bids if level == highest)
        self.trump = BID_TRUMP[self.contract]
        if self.contract == MISERE:
            leader = self.declarer
        elif self.declarer >= 0 and self.rules.first_leader == "left_of_bidder":
            leader = self.left_of[self.declarer]
        else:
            leader = forehand
        self._start_play(leader)
        self.plain_play = True
        self.watch_every_trick = self.contract == MISERE

    # --- play -----------------------------------------------------------------------

    def _play_rule(self) -> tuple[int, str]:
        hand = self.hands[self.current_seat]
        if self.trick:
            same = hand & SUIT_MASKS[self.led_suit]
            if same:
                return same, self.REASON_FOLLOW
        return hand, ""

    def _after_trick(self, winner: int) -> None:
        if len(self.completed) == 13 or winner == self.declarer:  # the latter: misère lost
            self._score_deal()

    def _return_trick_cards(self, hands: list[int], leader: int, cards: Sequence[int]) -> None:
        seat = leader
        for c in cards:
            hands[seat] |= BIT[c]
            seat = self.left_of[seat]

    def _score_deal(self) -> None:
        side_of = self.side_of
        tricks = [0, 0]
        for seat, won in enumerate(self.tricks_won):
            tricks[side_of[seat]] += won
        rubber = self.rubber
        zero = (0, 0)
        if self.contract == MISERE:
            made = self.tricks_won[self.declarer] == 0
            win, lose = MISERE_POINTS
            individual = [-lose if made else lose] * 4
            individual[self.declarer] = win if made else -win
            sheet = DealSheet(
                self.deal_number,
                MISERE,
                False,
                self.declarer,
                (tricks[0], tricks[1]),
                zero,
                zero,
                zero,
                zero,
                made,
                tuple(self._credit_trakarl(individual)),
            )
            self._book(sheet, rubber)
            return
        declarer_side = side_of[self.declarer] if self.declarer >= 0 else -1
        honours = self._honour_points()
        rubber, trick_points, penalty, bonus = side_deal_scored(
            self.rules,
            rubber,
            contract=self.contract,
            forced=self.forced,
            declarer_side=declarer_side,
            tricks=(tricks[0], tricks[1]),
            honours=honours,
        )
        individual = [0] * 4
        if self.stop_after_deal:  # a search state: the deal's worth in settlement points
            mine = [trick_points[s] + penalty[s] + honours[s] + bonus[s] for s in (0, 1)]
            individual = self._credit_trakarl(
                [(mine[side_of[s]] - mine[1 - side_of[s]]) // 10 for s in range(4)]
            )
        elif 2 in rubber.exits:
            individual = self._settlement(rubber.totals)
        sheet = DealSheet(
            self.deal_number,
            self.contract,
            self.forced,
            self.declarer,
            (tricks[0], tricks[1]),
            (trick_points[0], trick_points[1]),
            (penalty[0], penalty[1]),
            honours,
            (bonus[0], bonus[1]),
            None,
            tuple(individual),
        )
        self._book(sheet, rubber)

    def _honour_points(self) -> tuple[int, int]:
        """Honour points of each side, from the cards dealt (SPEC 6.7)."""
        mask = HONOUR_MASKS[self.contract]
        held = [0, 0]
        one_hand = False
        for seat, hand in enumerate(self.dealt_hands):
            count = (hand & mask).bit_count()
            held[self.side_of[seat]] += count
            one_hand = one_hand or count == 4
        return honour_points_of((held[0], held[1]), one_hand=one_hand)

    def _settlement(self, totals: tuple[int, int]) -> list[int]:
        """Each seat's individual points at the end of a rubber: +-(winner - loser)/10."""
        share = (totals[0] - totals[1]) // 10
        return self._credit_trakarl([share if side == 0 else -share for side in self.side_of])

    def _credit_trakarl(self, points: list[int]) -> list[int]:
        """The träkarl's individual points belong to its partner."""
        if self.trakarl >= 0:
            points[self.partner_of(self.trakarl)] += points[self.trakarl]
            points[self.trakarl] = 0
        return points

    def _book(self, sheet: DealSheet, rubber: Rubber) -> None:
        """Write the deal on the sheet; end the rubber, and the game, when due."""
        rubber = replace(rubber, sheets=(*rubber.sheets, sheet))
        self.rubber = rubber
        self.last_sheet = sheet
        self.deal_scores.append(list(sheet.individual))
        for seat, points in enumerate(sheet.individual):
            self.totals[seat] += points
        if self.stop_after_deal:
            self.phase = "over"
            self.current_seat = TERMINAL
            return
        if 2 in rubber.exits:
            self.rubber = replace(rubber, settlement=sheet.individual)
            self.rubbers.append(self.rubber)
            if len(self.rubbers) == self.rules.rubbers_per_game:
                self.phase = "over"
                self.current_seat = TERMINAL
                return
            self._seat_rubber(rubber.number + 1, seating_for((self.partner_of_last + 1) % 3))
        self.phase = "deal"
        self.current_seat = CHANCE

    # --- what the double-dummy solver reads -----------------------------------------

    def solver_scoring(self, seat: int) -> DealScoring:
        # A deal is worth a function of one count: the tricks of the seat's side, or in
        # misère the declarer's (one is enough to lose it). Scored by _score_deal itself.
        side_of = self.side_of
        mine = side_of[seat]
        side = tuple(s for s in range(4) if side_of[s] == mine)
        if self.contract == MISERE:
            declarer = self.declarer
            counters = tuple(0 if s == declarer else -1 for s in range(4))
            caps: tuple[int, ...] = (1,)
        else:
            declarer = side[0]
            counters = tuple(0 if side_of[s] == mine else -1 for s in range(4))
            caps = (self.tricks_per_deal,)
        other = next(s for s in range(4) if side_of[s] != side_of[declarer])
        total = self.tricks_per_deal

        def outcome(counts: tuple[int, ...]) -> int:
            tricks = [0] * 4
            tricks[declarer] = counts[0]
            if self.contract != MISERE:
                tricks[other] = total - counts[0]
            return self._score_with_tricks(seat, tricks)

        return DealScoring(side=side, counters=counters, caps=caps, outcome=outcome)

    def _score_tricks(self) -> None:
        self._score_deal()

    # --- views ----------------------------------------------------------------------

    def trakarl_exposed(self) -> bool:
        """Is the träkarl's hand on the table (from the first lead of the deal's play)?"""
        return (
            self.trakarl >= 0
            and self.phase == "play"
            and bool(self.completed or self.trick or self.current_seat == self.trakarl)
        )

    def contract_name(self) -> str:
        if not self.contract:
            return ""
        name = BID_NAMES[self.contract]
        return f"{name} (forced)" if self.forced else name

    def _legal_for_view(self, seat: int) -> tuple[int, ...]:
        if seat == self.current_seat or seat == self.acting_seat():
            return tuple(self.legal_actions())
        return ()

    def view_for(self, seat: int) -> PlayerView:
        declarer = self.declarer if self.declarer >= 0 else None
        rubbers = [r.to_public(self.rules) for r in self.rubbers]
        if self.phase != "over":
            rubbers.append(self.rubber.to_public(self.rules))
        public: dict[str, Any] = {
            "seating": list(self.rubber.seating),
            "partners": [list(p) for p in self.rubber.partners],
            "rubber": self.rubber.number,
            "rubbers": rubbers,
            "sheet": [sheet.to_public() for sheet in self.rubber.sheets],
            "last_deal": self.last_sheet.to_public() if self.last_sheet else None,
            "individual": list(self.totals),
            "bids": [{"seat": s, "bid": BID_NAMES[level]} for s, level in self.bids],
            "contract": BID_NAMES[self.contract] if self.contract else None,
            "forced": self.forced,
            "declarer": declarer,
            "declaring_side": self.side_of[declarer] if declarer is not None else None,
        }
        if self.draw:
            public["draw"] = [card_name(d.bit_length() - 1) if d else None for d in self.draw]
        if self.trakarl >= 0:
            public["trakarl"] = {
                "seat": self.trakarl,
                "partner": self.partner_of(self.trakarl),
                "hand": card_names(self.hands[self.trakarl]) if self.trakarl_exposed() else None,
            }
        return self._view(seat, public)


class TrakarlPriffeState(PriffeState):
    """Three players and a träkarl: the träkarl's partner plays its cards."""

    __slots__ = ()

    def apply_action(self, action: int, seat: int | None = None) -> None:
        if seat is not None and seat == self.acting_seat():
            seat = self.current_seat
        super().apply_action(action, seat)


def _plus(a: tuple[int, int], b: Sequence[int]) -> tuple[int, int]:
    return (a[0] + b[0], a[1] + b[1])


def _pair(values: Sequence[int]) -> tuple[int, int]:
    return (values[0], values[1])


class PriffeInference(CardInference):
    """What a Priffe view proves about the hands: the träkarl's hand once exposed."""

    def known_cards(self, known: MutableSequence[int], excluded: MutableSequence[int]) -> None:
        trakarl = self.view.public.get("trakarl")
        if isinstance(trakarl, dict) and trakarl.get("hand") is not None:
            known[trakarl["seat"]] |= names_mask(trakarl["hand"])
