"""Kingen (Flemish King) for 3, 4 or 5 players, and Dubbelkingen.

Why this module is long: Kingen for three, four and five players and Dubbelkingen share
their deals, contracts and legal-card algorithm; split, each part would need the others to
be read.

Rules: docs/rules/kingen.md and docs/rules/dubbelkingen.md (pagat.com "Kingen", with the
IWWA standard rules; their sections *How King League plays it* give the interpretations
below in words for players). Six negative contracts, each a deal without trumps, then one trump deal
dealt by each player; every game sums to zero. ``kingen(rules=iwwa)`` selects the IWWA
standard rules; every other variant of the page's *Variants* is an option.

Interpretations (each is an option where a table might disagree):

- First dealer at random (a chance event), then the deal passes to the left; the player
  left of the dealer leads every deal.
- The first deal is shuffled. With ``shuffle_policy=cut_only`` (pagat's custom, the
  default) the next pack is the previous deal's tricks gathered in the order played
  (then any cards left in hand, seat by seat), cut at a random point; it is dealt in
  ``batches`` clockwise from the dealer's left, so the dealer's last card is the pack's
  last card (the trump indicator with ``trump_mode=last_card``).
- 3 and 5 players: batches 4-4-4-5 and 3-3-4 (no source gives them). 3 players drop the
  two of spades; 5 players the seven of spades and the seven of clubs.
- "7 & Last" penalises the deal's 7th trick (10th with 3 players) and its last trick;
  one player taking both pays both. ``k_hearts_points`` moves the difference to that
  7th (10th) trick, so a negative deal set always totals -52/-51/-50: with 4 players and
  K♥ = 4, the 7th and the last trick cost 3 each.
- ``trump_mode=offer_tricks``: each opponent of the dealer, from the dealer's left, may
  once offer a whole number of tricks (at least 1, more than any earlier offer, at most a
  hand's worth) or pass; the dealer accepts the highest offer (its maker then names
  trumps) or rejects it (the dealer names trumps). After play the offer is paid in
  points from the offerer to the dealer, even below zero.
- IWWA penalty obligation: subject to following suit, a penalty card that cannot win the
  trick must be played when held (``must_follow_with_penalty_when_safe`` when following,
  ``must_discard_penalty`` when void).
- The legal cards are the rules' reference algorithm (*Playing the tricks*), each
  obligation behind its option (``_play_rule``): lead anything (but no heart while
  holding another suit under ``heart_lead_ban`` in hearts and K♥); holding the suit led,
  play it (a penalty card of
  it that cannot win if ``must_follow_with_penalty_when_safe`` and one is held; a trump
  above the highest one in the trick when trumps are led, if ``must_beat_trump_lead`` and
  one is held). Void in the suit led, in a trump deal, holding trumps: if a plain suit was
  led and the trick is already trumped, play a higher trump when ``must_overtrump`` and
  one is held; otherwise (unable or not obliged to overtrump) ``undertrump_policy``
  decides alone: ``must_trump_anyway`` any trump, ``free`` any card, ``no_undertrump`` a
  card of another suit unless holding only trumps; ``must_trump`` does not apply to a
  trumped trick. Not yet trumped: a trump if ``must_trump``, else any card. Void in a
  penalty deal: a penalty card if ``must_discard_penalty`` and one is held. Anything
  else: any card.
- ``end_when_penalties_exhausted``: a deal of hearts, kings & jacks, queens or the king
  of hearts ends once every penalty card has been taken (score-neutral).
- Dubbelkingen: 20 deals for four players, five dealt by each. The dealer chooses the
  contract after seeing the cards: a negative contract (each at most twice per game) or
  a trump suit; each player chooses trumps on exactly two of their five deals. It plays
  with the IWWA-like obligations by default (``dubbelkingen(rules=basic)`` turns them off).
"""

from __future__ import annotations

import functools
import operator
import random
from collections.abc import Mapping, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import (
    BIT,
    FULL_DECK,
    HEARTS,
    RANK_JACK,
    RANK_KING,
    RANK_QUEEN,
    SUIT_LETTERS,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    above,
    below,
    card,
    card_name,
    cards_of,
    parse_card,
    rank_mask,
)
from engine.chance import DEAL, FIRST_DEALER, Chance, randbelow, shuffle
from engine.errors import InvalidChanceError, InvalidGameError, ScoreEntryError
from engine.game import (
    ACCEPT,
    FAMILY_ACTIONS,
    PASS,
    REJECT,
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
    one_choice,
    one_seat,
    seat_numbers,
    unknown_keys,
)

TRICKS, HEARTS_CONTRACT, KINGS_JACKS, QUEENS, KING_OF_HEARTS, SEVENTH_LAST, TRUMPS = range(7)
NEGATIVE_CONTRACTS = (
    "tricks",
    "hearts",
    "kings_jacks",
    "queens",
    "king_of_hearts",
    "seventh_last",
)
CONTRACT_NAMES = (*NEGATIVE_CONTRACTS, "trumps")

KING_OF_HEARTS_CARD = card(RANK_KING, HEARTS)
HEART_MASK = SUIT_MASKS[HEARTS]
PENALTY_MASK = (
    0,
    HEART_MASK,
    rank_mask(RANK_KING) | rank_mask(RANK_JACK),
    rank_mask(RANK_QUEEN),
    BIT[KING_OF_HEARTS_CARD],
    0,
    0,
)
"""Cards that cost points in each contract (none in tricks, 7 & last and trumps)."""

CONTRACT_ACTIONS = FAMILY_ACTIONS
"""128..133: ``contract tricks`` .. ``contract seventh_last`` (Dubbelkingen)."""
OFFER_ACTIONS = FAMILY_ACTIONS + 32
"""160 + k: ``offer k`` (trick offers for the right to name trumps)."""

UNDERTRUMP_POLICIES = ("must_trump_anyway", "free", "no_undertrump")


@dataclass(frozen=True, slots=True)
class TableSize:
    """What the number of players fixes (SPEC 3.2 and 3.4)."""

    hand_size: int
    deck: int
    batches: tuple[int, ...]
    queen_points: int
    k_hearts_points: int
    seventh_trick: int
    seventh_points: int
    last_points: int


TABLE_SIZES = {
    3: TableSize(17, FULL_DECK & ~BIT[card(0, 3)], (4, 4, 4, 5), 1, 4, 10, 3, 2),
    4: TableSize(13, FULL_DECK, (4, 4, 5), 2, 5, 7, 2, 3),
    5: TableSize(10, FULL_DECK & ~BIT[card(5, 3)] & ~BIT[card(5, 0)], (3, 3, 4), 2, 5, 7, 3, 3),
}

_IWWA = {
    "trump_mode": "dealer_choice",
    "heart_lead_ban": True,
    "must_discard_penalty": True,
    "must_follow_with_penalty_when_safe": True,
    "must_beat_trump_lead": True,
    "must_trump": True,
    "must_overtrump": True,
    "undertrump_policy": "free",
}


@dataclass(frozen=True, kw_only=True, slots=True)
class KingenRules(Rules):
    presets: ClassVar[dict[str, dict[str, Any]]] = {"iwwa": _IWWA}

    players: int = option(4, "Number of players: 3, 4 or 5.", minimum=3, maximum=5)
    batches: tuple[int, ...] = option(
        (),
        "Deal in these batches, e.g. 4-4-5 or 3-2-2-2-2-2 (default by number of players).",
        kind="ints",
        minimum=1,
        maximum=17,
    )
    shuffle_policy: str = option(
        "cut_only",
        "cut_only: between deals the tricks are gathered and cut, not shuffled; full_shuffle.",
        choices=("cut_only", "full_shuffle"),
    )
    negative_order: tuple[str, ...] = option(
        NEGATIVE_CONTRACTS,
        "Order of the six negative contracts.",
        kind="names",
        choices=NEGATIVE_CONTRACTS,
    )
    k_hearts_points: int = option(
        0,
        "Points of the king of hearts: 4 or 5 (default 5; 4 with 3 players). "
        "The difference moves to the 7th trick of 7 & last.",
        minimum=0,
        maximum=5,
    )
    trump_mode: str = option(
        "last_card",
        "How trumps are chosen: last_card (dealer's last card), dealer_choice, offer_tricks.",
        choices=("last_card", "dealer_choice", "offer_tricks"),
    )
    heart_lead_ban: bool = option(
        False, "In hearts and king of hearts, no heart may be led while holding another suit."
    )
    must_discard_penalty: bool = option(
        False, "In contracts with penalty cards, a void player must discard a penalty card."
    )
    must_follow_with_penalty_when_safe: bool = option(
        False, "When following, play a penalty card of the suit led if it cannot win the trick."
    )
    must_beat_trump_lead: bool = option(
        False, "When trumps are led, beat the highest trump if able."
    )
    must_trump: bool = option(False, "A player void in a plain suit led must trump if able.")
    must_overtrump: bool = option(
        False, "If the trick is trumped, a void player must overtrump if able."
    )
    undertrump_policy: str = option(
        "free",
        "Void, trick trumped, cannot overtrump: must_trump_anyway, free, no_undertrump.",
        choices=UNDERTRUMP_POLICIES,
    )
    end_when_penalties_exhausted: bool = option(
        False, "End a penalty-card deal once every penalty card has been taken."
    )

    @property
    def table(self) -> TableSize:
        return TABLE_SIZES[self.players]

    def validate(self) -> None:
        table = self.table
        if self.batches and sum(self.batches) != table.hand_size:
            raise InvalidGameError(
                f"option batches: {'-'.join(map(str, self.batches))} deals "
                f"{sum(self.batches)} cards each, but {self.players} players hold {table.hand_size}"
            )
        if self.k_hearts_points not in (0, 4, 5):
            raise InvalidGameError("option k_hearts_points: the king of hearts is worth 4 or 5")
        if sorted(self.negative_order) != sorted(NEGATIVE_CONTRACTS):
            raise InvalidGameError(
                "option negative_order: must list each of the six negative contracts once"
            )
        # Values equal to the defaults of this table size are stored as the defaults, so
        # that the game string stays canonical.
        if self.batches == table.batches:
            object.__setattr__(self, "batches", ())
        if self.k_hearts_points == table.k_hearts_points:
            object.__setattr__(self, "k_hearts_points", 0)

    @property
    def deal_batches(self) -> tuple[int, ...]:
        return self.batches or self.table.batches

    @property
    def king_points(self) -> int:
        return self.k_hearts_points or self.table.k_hearts_points


@dataclass(frozen=True, kw_only=True, slots=True)
class DubbelkingenRules(KingenRules):
    """Dubbelkingen keeps Kingen's options but plays with IWWA-like obligations by default."""

    presets: ClassVar[dict[str, dict[str, Any]]] = {
        "basic": {k: False for k, v in _IWWA.items() if isinstance(v, bool)}
    }

    heart_lead_ban: bool = option(
        True, "In hearts and king of hearts, no heart may be led while holding another suit."
    )
    must_discard_penalty: bool = option(
        True, "In contracts with penalty cards, a void player must discard a penalty card."
    )
    must_follow_with_penalty_when_safe: bool = option(
        True, "When following, play a penalty card of the suit led if it cannot win the trick."
    )
    must_beat_trump_lead: bool = option(
        True, "When trumps are led, beat the highest trump if able."
    )
    must_trump: bool = option(True, "A player void in a plain suit led must trump if able.")
    must_overtrump: bool = option(
        True, "If the trick is trumped, a void player must overtrump if able."
    )

    def validate(self) -> None:
        if self.players != 4:
            raise InvalidGameError("option players: Dubbelkingen is played by 4 players")
        if self.trump_mode != "last_card" or self.negative_order != NEGATIVE_CONTRACTS:
            raise InvalidGameError(
                "options trump_mode and negative_order do not apply to Dubbelkingen: "
                "the dealer chooses the contract"
            )
        KingenRules.validate(self)


class KingenGame(Game[KingenRules]):
    family = "kingen"
    rules_class = KingenRules
    double = False
    title = "Kingen"
    preset_titles: ClassVar[Mapping[str, str]] = {"iwwa": "IWWA rules"}
    examples: ClassVar[tuple[str, ...]] = ("kingen", "kingen(rules=iwwa)", "kingen(players=3)")
    fixed_deals_options = "shuffle_policy=full_shuffle"
    family_action_labels: ClassVar[Mapping[str, str]] = {
        "contract": "choose a contract",
        "offer": "offer tricks",
    }

    @property
    def num_seats(self) -> int:
        return self.rules.players

    @property
    def deal_count(self) -> int:
        return 20 if self.double else 6 + self.rules.players

    @property
    def deals_fixed_by_seed(self) -> bool:
        """Cut-only deals are the previous deal's tricks, gathered and cut: only a full
        shuffle makes every deal the seed's."""
        return self.rules.shuffle_policy == "full_shuffle"

    def new_initial_state(self, seed: int | None = None) -> KingenState:
        return KingenState(self, seed)

    def new_search_state(self, view: PlayerView, hands: Sequence[int]) -> KingenState:
        state = KingenState(self, None)
        state._restore_play(view, hands)
        contract = view.public["contract"]
        state.contract = CONTRACT_NAMES.index(contract)
        state.trump_chooser = view.public.get("trump_chooser", -1)
        state.transfer = view.public.get("transfer", 0)
        if self.double:
            uses = view.public["contract_uses"]
            state.contract_uses = [uses[name] for name in NEGATIVE_CONTRACTS]
            state.trumps_chosen = list(view.public["trumps_chosen"])
        state._start_rules()
        return state

    @property
    def deck(self) -> int:
        return self.rules.table.deck

    def card_inference(self, view: PlayerView) -> KingenInference:
        return KingenInference(view)

    def family_action_name(self, action: int) -> str | None:
        if CONTRACT_ACTIONS <= action < CONTRACT_ACTIONS + 6:
            return "contract " + NEGATIVE_CONTRACTS[action - CONTRACT_ACTIONS]
        if OFFER_ACTIONS < action <= OFFER_ACTIONS + 17:
            return f"offer {action - OFFER_ACTIONS}"
        return None

    def family_action_explanation(self, action: int) -> str | None:
        if CONTRACT_ACTIONS <= action < CONTRACT_ACTIONS + 6:
            return _contract_explanation(self.rules, action - CONTRACT_ACTIONS)
        if OFFER_ACTIONS < action <= OFFER_ACTIONS + 17:
            k = action - OFFER_ACTIONS
            return (
                f"Offer the dealer {_count(k, 'trick')} for the right to name trumps: if the "
                f"dealer accepts, you name trumps and pay the dealer {_count(k, 'point')} "
                "after the deal."
            )
        if TRUMP_ACTIONS <= action < TRUMP_ACTIONS + 4:
            suit = SUIT_NAMES[action - TRUMP_ACTIONS]
            return (
                f"Make {suit}s trumps for this trump deal: a {suit} beats any card of another "
                "suit, and every trick you win scores +1."
            )
        return _OFFER_EXPLANATIONS.get(action)

    # --- play at a physical table (engine/table_sheet.py) -----------------------------

    def score_sheet(self) -> ScoreSheet:
        """One line a deal: the contract (fixed order in Kingen; the dealer's choice in
        Dubbelkingen), what each seat took of what the contract counts (tricks, hearts,
        kings and jacks, queens, the king of hearts), or for 7 & Last who took the two
        penalised tricks; a trump deal's tricks (and the offer paid, with trick offers)."""
        n = self.num_seats
        plan = None if self.double else _plan(self.rules.negative_order, n)
        lines = []
        for deal in range(1, self.deal_count + 1):
            dealer = (deal - 1) % n
            if plan is None:
                contract = -1
                title = "the dealer's choice"
            else:
                contract = plan[deal - 1]
                title = CONTRACT_TITLES[contract] if contract != TRUMPS else "Troef (trumps)"
            lines.append(SheetLine(deal, title, dealer, self._sheet_fields(contract)))
        notes = [
            "Seat 0 deals the first deal; the deal passes to the left.",
            "Enter for each seat what it took of what the contract counts.",
        ]
        if self.double:
            notes.append(
                "Write the contract the dealer chose: each negative contract twice, and "
                "each player chooses trumps on two of their five deals."
            )
        return ScoreSheet(
            game=str(self),
            seats=n,
            players=self.player_seats,
            lines=tuple(lines),
            notes=tuple(notes),
        )

    def _sheet_fields(self, contract: int) -> tuple[SheetField, ...]:
        table = self.rules.table
        if contract == SEVENTH_LAST:
            return (
                SheetField("seventh", f"took trick {table.seventh_trick}", "seat"),
                SheetField("last", "took the last trick", "seat"),
            )
        if contract >= 0:
            what, total = _TAKEN[contract]
            fields = [SheetField("taken", what, "seats", total=total or table.hand_size)]
            if contract == TRUMPS and self.rules.trump_mode == "offer_tricks":
                fields.append(
                    SheetField("offer_seat", "seat whose offer was accepted", "seat", optional=True)
                )
                fields.append(
                    SheetField(
                        "offer",
                        "tricks offered",
                        "choice",
                        optional=True,
                        choices=tuple(str(k) for k in range(1, 18)),
                    )
                )
            return tuple(fields)
        return (
            SheetField("contract", "contract", "choice", choices=CONTRACT_NAMES),
            SheetField("taken", "what each seat took", "seats"),
            SheetField("seventh", "7 & Last: took the 7th trick", "seat", optional=True),
            SheetField("last", "7 & Last: took the last trick", "seat", optional=True),
        )

    def table_scores(self, entry: Any) -> TableScores:
        deals = entry_deals(entry)
        if len(deals) != self.deal_count:
            raise ScoreEntryError(
                f"{entered(len(deals))}; a game of {self.display_name} has {self.deal_count}"
            )
        n = self.num_seats
        rules = self.rules
        table = rules.table
        plan = None if self.double else _plan(rules.negative_order, n)
        uses = [0] * 6
        trumps_chosen = [0] * n
        scored: list[tuple[int, ...]] = []
        for number, deal in enumerate(deals, start=1):
            dealer = (number - 1) % n
            named = one_choice(deal, "contract", where=f"deal {number}", choices=CONTRACT_NAMES)
            if plan is None:
                if named is None:
                    raise ScoreEntryError(
                        f"deal {number}: name the 'contract' the dealer chose "
                        f"({', '.join(CONTRACT_NAMES)})"
                    )
                contract = CONTRACT_NAMES.index(named)
            else:
                contract = plan[number - 1]
                if named is not None and named != CONTRACT_NAMES[contract]:
                    raise ScoreEntryError(
                        f"deal {number}: the contract of deal {number} is "
                        f"{CONTRACT_NAMES[contract]}, not {named} (the contracts come in a "
                        "fixed order)"
                    )
            where = f"deal {number} ({CONTRACT_NAMES[contract]})"
            if contract == TRUMPS:
                trumps_chosen[dealer] += 1
            else:
                uses[contract] += 1
            if self.double and contract != TRUMPS and uses[contract] > 2:
                raise ScoreEntryError(
                    f"{where}: {CONTRACT_NAMES[contract]} is chosen a third time; each "
                    "negative contract is played twice"
                )
            if self.double and trumps_chosen[dealer] > 2:
                raise ScoreEntryError(
                    f"{where}: seat {dealer} chooses trumps a third time; each player "
                    "chooses trumps on two of their deals"
                )
            scored.append(tuple(self._deal_scored(deal, contract, dealer, where, table)))
        return TableScores(tuple(scored), deal_totals(scored, n), complete=True)

    def _deal_scored(
        self, deal: Mapping[str, Any], contract: int, dealer: int, where: str, table: TableSize
    ) -> list[int]:
        n = self.num_seats
        seats = range(n)
        if contract == SEVENTH_LAST:
            unknown_keys(deal, ("contract", "seventh", "last"), where=where)
            scores = [0] * n
            scores[one_seat(deal, "seventh", where=where, seats=seats)] -= (
                table.seventh_points + table.k_hearts_points - self.rules.king_points
            )
            scores[one_seat(deal, "last", where=where, seats=seats)] -= table.last_points
            return scores
        offer_keys = ("offer_seat", "offer") if contract == TRUMPS else ()
        unknown_keys(deal, ("contract", "taken", *offer_keys), where=where)
        what, total = _TAKEN[contract]
        taken = seat_numbers(
            deal, "taken", where=where, seats=n, what=what, total=total or table.hand_size
        )
        if contract in (TRICKS, TRUMPS) and any(t > table.hand_size for t in taken):
            raise ScoreEntryError(f"{where}: no seat can take more than {table.hand_size} tricks")
        if contract == TRUMPS:
            scores = list(taken)
            if "offer" in deal or "offer_seat" in deal:
                if self.rules.trump_mode != "offer_tricks":
                    raise ScoreEntryError(f"{where}: no tricks are offered under these rules")
                offerer = one_seat(deal, "offer_seat", where=where, seats=seats)
                offer = deal.get("offer")
                if (
                    not isinstance(offer, int)
                    or isinstance(offer, bool)
                    or not (1 <= offer <= table.hand_size)
                ):
                    raise ScoreEntryError(
                        f"{where}: 'offer' must be the tricks offered, 1 to {table.hand_size}"
                    )
                if offerer == dealer:
                    raise ScoreEntryError(f"{where}: the dealer makes no offer")
                scores[offerer] -= offer
                scores[dealer] += offer
            return scores
        points = (1, 1, 1, table.queen_points, self.rules.king_points)[contract]
        return [-points * t for t in taken]

    def parse_family_action(self, verb: str, argument: str) -> int | None:
        if verb == "contract" and argument.lower() in NEGATIVE_CONTRACTS:
            return CONTRACT_ACTIONS + NEGATIVE_CONTRACTS.index(argument.lower())
        if verb == "offer" and argument.isdigit() and 1 <= int(argument) <= 17:
            return OFFER_ACTIONS + int(argument)
        return None


_OFFER_EXPLANATIONS = {
    PASS: "Make no offer: you do not speak again before the dealer answers.",
    ACCEPT: "Accept the highest offer: its maker names trumps and pays you the offered tricks "
    "as points after the deal.",
    REJECT: "Turn the offers down: you name trumps yourself, and nobody pays you.",
}
"""The trick offer's answers (``trump_mode=offer_tricks``), explained for people."""

_TAKEN = (
    ("tricks taken", 0),
    ("hearts taken", 13),
    ("kings and jacks taken", 8),
    ("queens taken", 4),
    ("king of hearts taken (1 for the seat that took it)", 1),
    ("", 0),
    ("tricks taken", 0),
)
"""What a table writes per seat for each contract, and what a deal holds of it (0: a
hand's worth of tricks, which depends on the number of players)."""

CONTRACT_TITLES = (
    "Slagen (no tricks)",
    "Harten (no hearts)",
    "Heer & Zot (no kings or jacks)",
    "Vrouwen (no queens)",
    "Hartenheer (no king of hearts)",
    "7 & Laatste (not the 7th or the last trick)",
)
"""The negative contracts' names for people, in the order of NEGATIVE_CONTRACTS."""


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _contract_explanation(rules: KingenRules, contract: int) -> str:
    """What a negative contract costs under ``rules`` (the points of the table's size)."""
    table = rules.table
    seventh = table.seventh_points + table.k_hearts_points - rules.king_points
    costs = (
        "every trick you win costs 1 point",
        "every heart in your tricks costs 1 point",
        "every king and every jack in your tricks costs 1 point",
        f"every queen in your tricks costs {_count(table.queen_points, 'point')}",
        f"the king of hearts costs {_count(rules.king_points, 'point')} to whoever takes it",
        f"the {table.seventh_trick}th trick costs {_count(seventh, 'point')} and the last "
        f"trick {_count(table.last_points, 'point')}",
    )
    return (
        f"Choose {CONTRACT_TITLES[contract]} for this deal: no trumps, and "
        f"{costs[contract]}. Each negative contract may be chosen at most twice a game."
    )


class DubbelkingenGame(KingenGame):
    family = "dubbelkingen"
    rules_class = DubbelkingenRules
    double = True
    title = "Dubbelkingen"
    preset_titles: ClassVar[Mapping[str, str]] = {"basic": "basic rules"}
    examples = ("dubbelkingen",)


@functools.cache
def _deal_positions(
    batches: tuple[int, ...], n: int
) -> tuple[tuple[tuple[operator.itemgetter[Any], ...], ...], ...]:
    """``[dealer][cut]``: for each seat but the last (which gets the rest), a getter of the
    cards it is dealt from the pack as it was before the cut (cut 0: not cut). Batches go
    clockwise from the dealer's left, so the dealer receives the last card of the cut pack."""
    size = sum(batches) * n
    getters = []
    for dealer in range(n):
        positions: list[list[int]] = [[] for _ in range(n)]
        pos = 0
        for batch in batches:
            for i in range(1, n + 1):
                positions[(dealer + i) % n].extend(range(pos, pos + batch))
                pos += batch
        getters.append(
            tuple(
                tuple(
                    operator.itemgetter(*((p + cut) % size for p in seat))
                    for seat in positions[:-1]
                )
                for cut in range(size)
            )
        )
    return tuple(getters)


@functools.cache
def _plan(negative_order: tuple[str, ...], n: int) -> tuple[int, ...]:
    """The contract of each deal of a single game: the negative ones, then one trump deal
    dealt by each player."""
    return tuple(NEGATIVE_CONTRACTS.index(name) for name in negative_order) + (TRUMPS,) * n


class KingenState(TrickTakingState[KingenGame]):
    __slots__ = (
        "contract",
        "contract_uses",
        "deal_positions",
        "deals_dealt",
        "deck",
        "double",
        "exposed",
        "first_dealer",
        "hand_size",
        "king_points",
        "offers",
        "plain_contracts",
        "plan",
        "rules",
        "sampled",
        "seventh_points",
        "table",
        "transfer",
        "trump_chooser",
        "trumps_chosen",
    )

    def __init__(self, game: KingenGame, seed: int | None) -> None:
        super().__init__(game, seed)
        rules = game.rules
        self.rules = rules
        self.double = game.double
        table = self.table = rules.table
        self.hand_size = table.hand_size
        self.deck = table.deck
        self.deal_positions = _deal_positions(rules.deal_batches, self.num_seats)
        self.sampled: Chance | None = None  # the chance event this state drew last
        self.first_dealer = -1
        self.contract = -1
        self.exposed = -1
        self.offers: list[tuple[int, int]] = []  # (seat, tricks offered or 0 = pass) this deal
        self.trump_chooser = -1
        self.transfer = 0  # points the trump chooser pays the dealer after play
        self.contract_uses = [0] * 6
        self.trumps_chosen = [0] * self.num_seats
        self.deals_dealt = [0] * self.num_seats
        self.phase = "first_dealer"
        self.plan = _plan(rules.negative_order, self.num_seats)  # the contract of each deal
        # For each contract: is following suit its only rule of play? (see plain_play)
        trumps_plain = (
            not (rules.must_beat_trump_lead or rules.must_trump or rules.must_overtrump)
            and rules.undertrump_policy == "free"
        )
        penalty_plain = not (
            rules.heart_lead_ban
            or rules.must_discard_penalty
            or rules.must_follow_with_penalty_when_safe
        )
        self.plain_contracts = tuple(
            trumps_plain if c == TRUMPS else penalty_plain if PENALTY_MASK[c] else True
            for c in range(len(CONTRACT_NAMES))
        )
        kh = rules.king_points
        self.seventh_points = table.seventh_points + table.k_hearts_points - kh
        self.king_points = kh
        self.tricks_per_deal = table.hand_size
        self.watch_every_trick = rules.end_when_penalties_exhausted
        if self.rng is not None:
            self._resolve_chance()

    # --- chance -------------------------------------------------------------------

    def _sample_chance(self, rng: random.Random) -> Chance:
        n = self.num_seats
        if self.phase == "first_dealer":
            return Chance(FIRST_DEALER, seat=rng.randrange(n))
        number = self.deal_number
        if number == 0 or self.rules.shuffle_policy == "full_shuffle":
            pack = cards_of(self.deck)
            shuffle(rng, pack)  # rng.shuffle(pack), faster
            cut = 0
        else:
            pack = []  # the tricks in the order played, then any cards left in hand
            for _, trick, _ in self.completed:
                pack += trick
            for hand in self.hands:
                if hand:
                    pack += cards_of(hand)
            cut = 1 + randbelow(rng, len(pack) - 1)  # rng.randrange(1, len(pack)), faster
        # Written for speed (dealing costs as much as a tenth of a random-play deal): the
        # bit of every card of the pack from one C-level getter; each seat's share of them
        # (getters that take the cut into account) summed: the bits are distinct, so the
        # sum is their union; the last seat gets the rest of the deck (all of it is dealt).
        bits = operator.itemgetter(*pack)(BIT)
        dealer = (self.first_dealer + number) % n
        hands = [sum(take(bits)) for take in self.deal_positions[dealer][cut]]
        hands.append(self.deck ^ sum(hands))
        exposed = pack[cut - 1] if self._shows_last_card(number + 1) else -1
        event = self.sampled = Chance(DEAL, tuple(hands), exposed)
        return event

    def _shows_last_card(self, deal_number: int) -> bool:
        return (
            not self.double
            and self.plan[deal_number - 1] == TRUMPS
            and self.rules.trump_mode == "last_card"
        )

    def _apply_chance(self, event: Chance) -> None:
        n = self.num_seats
        if self.phase == "first_dealer":
            if event.kind != FIRST_DEALER:
                raise InvalidChanceError("the game starts by choosing the first dealer")
            if not 0 <= event.seat < n:
                raise InvalidChanceError(f"first dealer must be a seat from 0 to {n - 1}")
            self.first_dealer = event.seat
            self.phase = "deal"
            return
        number = self.deal_number + 1
        dealer = (self.first_dealer + number - 1) % n
        if event is not self.sampled:  # a deal this state drew itself needs no checking
            self._check_deal(event, number, dealer)
        self.sampled = None
        self.deal_number = number
        self.dealer = dealer
        self.deals_dealt[dealer] += 1
        self.hands = list(event.cards)
        self.exposed = event.exposed
        self.offers = []
        self.trump_chooser = -1
        self.transfer = 0
        self.trump = -1
        self.completed = []
        self.trick = []
        left = (dealer + 1) % n
        if self.double:
            self.contract = -1
            self.phase = "contract"
            self.current_seat = dealer
            return
        self.contract = self.plan[number - 1]
        if self.contract != TRUMPS:
            self._start_play(left)
            return
        mode = self.rules.trump_mode
        if mode == "last_card":
            self.trump = SUIT_OF[event.exposed]
            self._start_play(left)
        elif mode == "dealer_choice":
            self.trump_chooser = dealer
            self.phase = "trump"
            self.current_seat = dealer
        else:
            self.phase = "offer"
            self.current_seat = left

    def _check_deal(self, event: Chance, number: int, dealer: int) -> None:
        """InvalidChanceError unless ``event`` is a possible deal number ``number``."""
        n = self.num_seats
        if event.kind != DEAL:
            raise InvalidChanceError(f"a deal is due, not {event.kind}")
        if len(event.cards) != n:
            raise InvalidChanceError(f"a deal gives cards to {n} seats")
        union = 0
        for seat, hand in enumerate(event.cards):
            if hand.bit_count() != self.hand_size:
                raise InvalidChanceError(
                    f"seat {seat} is dealt {hand.bit_count()} cards, not {self.hand_size}"
                )
            if hand & union:
                raise InvalidChanceError(
                    f"card {card_name((hand & union).bit_length() - 1)} is dealt twice"
                )
            union |= hand
        if union != self.deck:
            extra = union & ~self.deck
            if extra:
                raise InvalidChanceError(
                    f"card {card_name(extra.bit_length() - 1)} is not in this deck"
                )
        if self._shows_last_card(number):
            if event.exposed < 0 or not event.cards[dealer] >> event.exposed & 1:
                raise InvalidChanceError(
                    "this deal's trumps are the dealer's last card: 'exposed' must be a card "
                    f"of the dealer (seat {dealer})"
                )
        elif event.exposed >= 0:
            raise InvalidChanceError("no card is exposed in this deal")

    # --- actions ------------------------------------------------------------------

    def _bidding_actions(self) -> list[int]:
        phase = self.phase
        if phase == "trump":
            return [TRUMP_ACTIONS + s for s in range(4)]
        if phase == "offer":
            best = max((o for _, o in self.offers), default=0)
            return [PASS, *(OFFER_ACTIONS + k for k in range(best + 1, self.hand_size + 1))]
        if phase == "accept":
            return [ACCEPT, REJECT]
        if phase == "contract":
            return self._contract_choices()[0]
        return []

    def _contract_choices(self) -> tuple[list[int], str]:
        """Dubbelkingen: the dealer's legal choices, and why a refused one is refused."""
        seat = self.current_seat
        trumps_left = 2 - self.trumps_chosen[seat]
        turns_left = 5 - self.deals_dealt[seat] + 1
        choices = []
        if turns_left > trumps_left:
            choices = [CONTRACT_ACTIONS + c for c in range(6) if self.contract_uses[c] < 2]
        if trumps_left > 0:
            choices += [TRUMP_ACTIONS + s for s in range(4)]
        if turns_left <= trumps_left:
            why = (
                "you must choose trumps: your remaining deals are needed for your two trump choices"
            )
        elif trumps_left == 0:
            why = "you have already chosen trumps twice; choose a negative contract"
        else:
            why = "each negative contract may be played at most twice"
        return choices, why

    def _apply_bid(self, action: int) -> None:
        phase = self.phase
        if action not in self.legal_actions():
            raise self._illegal(self._why_not(action), action)
        n = self.num_seats
        seat = self.current_seat
        if phase == "trump":
            self.trump = action - TRUMP_ACTIONS
            self._start_play((self.dealer + 1) % n)
        elif phase == "offer":
            self.offers.append((seat, 0 if action == PASS else action - OFFER_ACTIONS))
            nxt = (seat + 1) % n
            if nxt != self.dealer:
                self.current_seat = nxt
            elif any(o for _, o in self.offers):
                self.phase = "accept"
                self.current_seat = self.dealer
            else:
                self.trump_chooser = self.dealer
                self.phase = "trump"
                self.current_seat = self.dealer
        elif phase == "accept":
            if action == ACCEPT:
                offerer, offer = max(self.offers, key=lambda so: so[1])
                self.trump_chooser = offerer
                self.transfer = offer
            else:
                self.trump_chooser = self.dealer
            self.phase = "trump"
            self.current_seat = self.trump_chooser
        elif phase == "contract":
            if action >= CONTRACT_ACTIONS:
                self.contract = action - CONTRACT_ACTIONS
                self.contract_uses[self.contract] += 1
            else:
                self.contract = TRUMPS
                self.trump = action - TRUMP_ACTIONS
                self.trumps_chosen[seat] += 1
            self._start_play((self.dealer + 1) % n)

    def _why_not(self, action: int) -> str:
        phase = self.phase
        if phase == "contract":
            if (
                CONTRACT_ACTIONS <= action < CONTRACT_ACTIONS + 6
                or TRUMP_ACTIONS <= action < TRUMP_ACTIONS + 4
            ):
                return self._contract_choices()[1]
            return "the dealer must choose a contract or a trump suit"
        if phase == "trump":
            return "the trump suit must be named now"
        if phase == "offer":
            best = max((o for _, o in self.offers), default=0)
            if OFFER_ACTIONS < action <= OFFER_ACTIONS + 17:
                top = self.hand_size
                return f"an offer must be more than {best} and at most {top} tricks"
            return "offer a number of tricks for the right to name trumps, or pass"
        if phase == "accept":
            return "the dealer must accept or reject the highest offer"
        return f"no action is expected now (phase {phase})"

    # --- play ---------------------------------------------------------------------

    def _start_play(self, leader: int) -> None:
        super()._start_play(leader)
        self._start_rules()

    def _start_rules(self) -> None:
        self.plain_play = self.plain_contracts[self.contract]

    def _play_rule(self) -> tuple[int, str]:
        hand = self.hands[self.current_seat]
        rules = self.rules
        contract = self.contract
        if not self.trick:
            if rules.heart_lead_ban and contract in (HEARTS_CONTRACT, KING_OF_HEARTS):
                other = hand & ~HEART_MASK
                if other and other != hand:
                    return other, "heart_lead"
            return hand, ""
        same = hand & SUIT_MASKS[self.led_suit]
        if same:
            if rules.must_follow_with_penalty_when_safe and PENALTY_MASK[contract]:
                safe = same & PENALTY_MASK[contract] & (BIT[self.win_card] - 1)
                if safe and safe != same:
                    return safe, "penalty_follow"
            if contract == TRUMPS and self.led_suit == self.trump and rules.must_beat_trump_lead:
                higher = same & ~((BIT[self.win_card] << 1) - 1)
                if higher and higher != same:
                    return higher, "beat_trump_lead"
            return same, "follow"
        if contract == TRUMPS:  # void in the suit led (SPEC 3.6's algorithm, literally)
            trumps = hand & SUIT_MASKS[self.trump]
            if not trumps:
                return hand, ""
            if self.trumped:  # a plain suit led and already trumped
                if rules.must_overtrump:
                    higher = trumps & ~((BIT[self.win_card] << 1) - 1)
                    if higher:
                        return higher, "overtrump"
                # Cannot or need not overtrump: the undertrump policy decides (must_trump
                # does not apply to a trumped trick).
                if rules.undertrump_policy == "must_trump_anyway":
                    return trumps, "undertrump_forced"
                if rules.undertrump_policy == "no_undertrump":
                    other = hand & ~trumps
                    return (other, "no_undertrump") if other else (hand, "")
                return hand, ""
            if rules.must_trump:
                return trumps, "must_trump"
            return hand, ""
        if rules.must_discard_penalty:
            penalty = hand & PENALTY_MASK[contract]
            if penalty and penalty != hand:
                return penalty, "discard_penalty"
        return hand, ""

    def _explain(self, reason: str, card_id: int) -> str:
        trump = SUIT_NAMES[self.trump] if self.trump >= 0 else ""
        legal = " ".join(card_name(c) for c in cards_of(self.legal_play_mask()))
        messages = {
            "heart_lead": "may not lead a heart while holding another suit (heart-lead ban)",
            "penalty_follow": f"must play a penalty card that cannot win the trick ({legal})",
            "discard_penalty": f"must discard a penalty card when void ({legal})",
            "beat_trump_lead": "must beat the highest trump when trumps are led",
            "must_trump": f"must trump when void in the suit led (you hold a {trump})",
            "overtrump": f"must overtrump with a higher {trump}",
            "undertrump_forced": f"must play a {trump} on a trumped trick (you hold one)",
            "no_undertrump": (
                f"may not play a {trump} on a trumped trick while holding another suit"
            ),
        }
        message = messages.get(reason)
        if message is None:
            return super()._explain(reason, card_id)
        return f"IWWA: {message}" if self.game.preset == "iwwa" else message

    def _after_trick(self, winner: int) -> None:
        if len(self.completed) < self.hand_size:
            penalty = PENALTY_MASK[self.contract]  # end_when_penalties_exhausted
            if not penalty or self.played & penalty != penalty:
                return
        self._score_deal()

    def _score_deal(self) -> None:
        n = self.num_seats
        contract = self.contract
        won = self.won_masks() if PENALTY_MASK[contract] and contract != KING_OF_HEARTS else []
        if contract == TRICKS:
            scores = [-t for t in self.tricks_won]
        elif contract == QUEENS:
            points = self.table.queen_points
            scores = [-points * (w & PENALTY_MASK[QUEENS]).bit_count() for w in won]
        elif contract == KING_OF_HEARTS:
            scores = [0] * n
            for _, cards, winner in self.completed:
                if KING_OF_HEARTS_CARD in cards:
                    scores[winner] = -self.king_points
                    break
        elif contract == SEVENTH_LAST:
            scores = [0] * n
            scores[self.completed[self.table.seventh_trick - 1][2]] -= self.seventh_points
            scores[self.completed[-1][2]] -= self.table.last_points
        elif contract == TRUMPS:
            scores = list(self.tricks_won)
            if self.transfer:
                scores[self.trump_chooser] -= self.transfer
                scores[self.dealer] += self.transfer
        else:
            scores = [-(w & PENALTY_MASK[contract]).bit_count() for w in won]
        self._finish_deal(scores)

    # --- what the double-dummy solver reads -----------------------------------------

    def solver_play_rules(self) -> CardPlayRules:
        rules = self.rules
        contract = self.contract
        penalty = PENALTY_MASK[contract]
        heart_ban = rules.heart_lead_ban and contract in (HEARTS_CONTRACT, KING_OF_HEARTS)
        trumps = contract == TRUMPS
        return CardPlayRules(
            lead_ban_suit=HEARTS if heart_ban else -1,
            follow_penalty=penalty if rules.must_follow_with_penalty_when_safe else 0,
            beat_trump_lead=trumps and rules.must_beat_trump_lead,
            trump_rules=trumps,
            must_trump=rules.must_trump,
            must_overtrump=rules.must_overtrump,
            undertrump=rules.undertrump_policy,
            discard_penalty=penalty if rules.must_discard_penalty else 0,
        )

    def solver_scoring(self, seat: int) -> DealScoring:
        contract = self.contract
        table = self.table
        last = self.hand_size - 1
        card_points = [0] * 52
        trick_points = [0] * self.hand_size
        base = 0
        if contract == TRICKS:
            trick_points = [-1] * self.hand_size
        elif contract == SEVENTH_LAST:
            trick_points[table.seventh_trick - 1] -= self.seventh_points
            trick_points[last] -= table.last_points
        elif contract == TRUMPS:
            trick_points = [1] * self.hand_size
            if seat == self.trump_chooser:
                base -= self.transfer
            if seat == self.dealer:
                base += self.transfer
        else:
            points = {
                QUEENS: table.queen_points,
                KING_OF_HEARTS: self.king_points,
            }.get(contract, 1)
            for c in cards_of(PENALTY_MASK[contract]):
                card_points[c] = -points
        return DealScoring(
            side=(seat,),
            card_points=tuple(card_points),
            trick_points=tuple(trick_points),
            base=base,
        )

    # --- views --------------------------------------------------------------------

    def contract_name(self) -> str:
        if self.contract < 0:
            return ""
        if self.contract == TRUMPS:
            return f"trumps ({SUIT_LETTERS[self.trump]})" if self.trump >= 0 else "trumps"
        return NEGATIVE_CONTRACTS[self.contract]

    def view_for(self, seat: int) -> PlayerView:
        public: dict[str, Any] = {
            "contract": CONTRACT_NAMES[self.contract] if self.contract >= 0 else None
        }
        if self.exposed >= 0:
            public["exposed"] = card_name(self.exposed)
        if self.offers:
            public["offers"] = [{"seat": s, "offer": o} for s, o in self.offers]
        if self.trump_chooser >= 0:
            public["trump_chooser"] = self.trump_chooser
        if self.transfer:
            public["transfer"] = self.transfer
        if self.double:
            public["contract_uses"] = dict(zip(NEGATIVE_CONTRACTS, self.contract_uses, strict=True))
            public["trumps_chosen"] = list(self.trumps_chosen)
        return self._view(seat, public)


class KingenInference(CardInference):
    """What a Kingen or Dubbelkingen view proves about the hands: the exposed trump
    indicator is in the dealer's hand until played; and every card-play obligation of the
    rules in force (heart-lead ban, penalty cards that must be played when safe or
    discarded when void, beating a trump lead, trumping and overtrumping, the undertrump
    policy) read backwards."""

    def __init__(self, view: PlayerView) -> None:
        super().__init__(view)
        game = view.game
        assert isinstance(game, KingenGame)
        rules = self.rules = game.rules
        name = view.public.get("contract")
        self.contract = CONTRACT_NAMES.index(name) if name in CONTRACT_NAMES else -1
        self.is_trumps = self.contract == TRUMPS and self.trump >= 0
        self.penalty = PENALTY_MASK[self.contract] if self.contract >= 0 else 0
        self.heart_ban = rules.heart_lead_ban and self.contract in (HEARTS_CONTRACT, KING_OF_HEARTS)

    def known_cards(self, known: MutableSequence[int], excluded: MutableSequence[int]) -> None:
        view = self.view
        exposed = view.public.get("exposed")
        if exposed:
            c = parse_card(exposed)
            if not BIT[c] & (view.played | view.hand):
                known[view.dealer] |= BIT[c]

    def on_lead(self, card_id: int, played_before: int, leads: list[int]) -> int:
        if self.heart_ban and SUIT_OF[card_id] == HEARTS:
            return FULL_DECK & ~HEART_MASK  # a heart may be led only from all hearts
        return 0

    def on_follow(self, card_id: int, led: int, win: int, trumped: bool, leads: list[int]) -> int:
        rules = self.rules
        suit = SUIT_OF[card_id]
        bit = BIT[card_id]
        out = 0
        if suit == led:
            if rules.must_follow_with_penalty_when_safe and self.penalty:
                safe = SUIT_MASKS[led] & self.penalty & below(win)
                if not bit & safe:
                    out |= safe  # a safe penalty card would have had to be played
            if (
                self.is_trumps
                and led == self.trump
                and rules.must_beat_trump_lead
                and card_id < win
            ):
                out |= above(win)  # a higher trump would have had to be played
            return out
        if self.is_trumps:
            trumps = SUIT_MASKS[self.trump]
            is_trump = suit == self.trump
            if trumped:  # overtrump if obliged and able, else the undertrump policy
                policy = rules.undertrump_policy
                if is_trump and card_id > win:  # overtrumped
                    if rules.must_overtrump or policy != "no_undertrump":
                        return 0
                    return FULL_DECK & ~trumps  # a trump allowed only from a hand of trumps
                if rules.must_overtrump:
                    out |= above(win)  # holding a higher trump, this card was illegal
                if is_trump and policy == "no_undertrump":
                    out |= FULL_DECK & ~trumps  # undertrumped: held nothing else
                if not is_trump and policy == "must_trump_anyway":
                    out |= trumps
                return out
            if rules.must_trump and not is_trump:
                out |= trumps
            return out
        if rules.must_discard_penalty and self.penalty and not bit & self.penalty:
            out |= self.penalty
        return out
