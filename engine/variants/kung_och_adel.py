"""Kung och Adel ("King and Noble"): four ranks, trick quotas, tribute, promotion.

Why this module is long: the ranks, trumps, tribute, play and promotion are the phases of
one deal, each with its options; they read best together, beside the interpretations below.

Rules: docs/rules/kung_och_adel.md (pagat.com "Kung och Adel", contributed by Johan Liu;
its section *How King League plays it* gives the interpretations below in words for
players). Four players
without partnerships hold the ranks monarch, noble, peasant and fool, with quotas of 6,
4, 2 and 1 tricks. The fool deals; the monarch names trumps (or orders a redeal of a
hand with nothing above a 10); the fool gives the monarch their two best cards and the
peasant the noble their best card, each receiving as many unwanted cards back; the
monarch chooses who leads; after 13 tricks the ranks change by who made their quota.
Every variant of the page's *Variants* is an option; ``kung_och_adel(rules=riddare)`` selects
the variant of the page "Riddare, bonde, kung eller tölp?" (trumps after all 13 cards,
simultaneous tribute).

Interpretations (where the sources are silent; each is an option where tables differ):

- Initial ranks (*Ranks at the start*): every seat draws one card face up (a chance event of kind
  ``draw``); only the players tied with each other draw again, as often as needed, each
  tie settled among the tied players only. Drawn cards stay out of the pack; in the
  (astronomically unlikely) case that fewer cards remain than players still to draw, the
  drawn cards are shuffled back first.
- Dealing (*Dealing and trumps*): the pack is shuffled for every deal and every redeal; cards go
  one at a time clockwise from ``deal_start`` (default the fool's left, after the Japanese
  translation). With a full shuffle the start seat changes nothing in play; it fixes
  how a seed's shuffled pack maps to the hands. Stage 1 gives 6 cards each (one chance
  event), stage 2 seven more each (another chance event); the stage-2 cards are the 28
  left, in a fresh random order (the same distribution as dealing on from the pack).
  With ``trump_choice_after_cards=13`` there is nothing to decide between the stages, so
  the deal is one chance event of 13 cards each.
- Redeal: only the monarch may order one, any number of times, only while their cards
  hold nothing above a 10 (no J, Q, K or A); a redeal reshuffles all 52 cards. With
  trumps chosen after 13 cards no source says whether redeals exist: by default they do
  not; ``allow_redeal_if_no_court=true`` allows one when the monarch's 13 cards hold
  nothing above a 10. There are no no-trump deals: the monarch always names a suit.
- Tribute (*Tribute*): "best" = trumps first, highest first, then the highest other cards
  whatever their suit; the engine computes which cards are forced and offers the giver a
  choice only among cards of equal rank at the cut (never among trumps, whose ranks all
  differ). Action codes must fit below 1024 (the log packs ``seat << 10 | action``), so a
  two-card tribute or return cannot be one action: every card passed is its own action,
  ``tribute 7S`` then ``tribute KH``, ``return 2C`` then ``return 3D`` (the fool and the
  monarch act twice in a row).
- Sequential tribute (default): the fool pays, then the peasant; then the monarch returns
  two cards and the noble one, each having seen the tribute (a received card may be
  returned). Simultaneous tribute: the monarch and the noble first set aside their
  returns from their 13 dealt cards (so a received card can never be returned), then the
  fool and the peasant pay, and each pair's cards change hands once the tribute is paid.
  Tribute and returned cards are seen only by the two players of the exchange: they are
  in ``view.private`` of those two seats only, and the receiver of a return sees it only
  once it is given.
- First leader (*Play*): the monarch names a seat, themself included: ``lead 2`` (the
  seat number, as everywhere in records). ``first_leader_chooser=eldest`` skips the choice
  and the player left of the fool leads.
- Game end (*New ranks*): the game has none, so a match plays ``deals`` deals (default 12)
  and each deal gives every seat the ``rank_points`` of the rank it *earned* by the deal
  (its rank after the update; default monarch 3, noble 2, peasant 1, fool 0). Points for
  the rank held during the deal would pay the first deal for the random draw and make the
  last deal's play worthless (its result would never be scored); points for the rank
  earned pay each deal for its own result, and holding a high rank is still what is
  rewarded, deal after deal. Every deal hands out the same total (6 by default).
- Ranks and quotas of every deal are public: ``view.public`` has the current ``ranks``
  and ``quotas`` per seat, ``seats_by_rank``, the ``rank_history`` (the ranks of each deal
  from the draw on, then the ranks after the last completed deal) and the tricks of each
  completed deal (``trick_history``); the state keeps the same in ``rank_history`` and
  ``trick_history`` for records.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from engine.cards import (
    BIT,
    FULL_DECK,
    RANK_OF,
    RANK_TEN,
    SUIT_LETTERS,
    SUIT_MASKS,
    SUIT_NAMES,
    above,
    card_name,
    cards_of,
    highest,
    parse_card,
    rank_mask,
)
from engine.chance import DEAL, DRAW, Chance
from engine.errors import (
    IllegalActionError,
    InvalidCardError,
    InvalidChanceError,
    InvalidGameError,
    ScoreEntryError,
)
from engine.game import CHANCE, FAMILY_ACTIONS, TRUMP_ACTIONS, Game, PlayerView, TrickTakingState
from engine.inference import CardInference, names_mask
from engine.options import Rules, option
from engine.solving import DealScoring
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

MONARCH, NOBLE, PEASANT, FOOL = range(4)
RANK_NAMES = ("monarch", "noble", "peasant", "fool")
QUOTAS = (6, 4, 2, 1)
"""Tricks each rank must take (SPEC 2.7); they sum to 13, every trick of a deal."""

TRIBUTE_ACTIONS = FAMILY_ACTIONS
"""128 + card: ``tribute 7S`` (the fool or the peasant passes one card of tribute)."""
RETURN_ACTIONS = FAMILY_ACTIONS + 64
"""192 + card: ``return 2C`` (the monarch or the noble passes one card back)."""
REDEAL_ACTION = FAMILY_ACTIONS + 128
"""256: ``redeal`` (the monarch, holding nothing above a 10, orders a new deal)."""
LEAD_ACTIONS = FAMILY_ACTIONS + 132
"""260 + seat: ``lead 2`` (the monarch names the seat that leads the first trick)."""

STAGE_ONE_CARDS = 6
HAND_SIZE = 13
COURT_CARDS = FULL_DECK & ~sum(rank_mask(r) for r in range(RANK_TEN + 1))
"""Every card above a 10 (J, Q, K, A): holding one, the monarch may not order a redeal."""

TRIBUTE_COUNTS = ((FOOL, MONARCH, 2), (PEASANT, NOBLE, 1))
"""(giver, receiver, cards) of each exchange, by rank."""

RANK_UPDATES = ("made_then_failed_inverted", "by_margin")


@dataclass(frozen=True, kw_only=True, slots=True)
class KungOchAdelRules(Rules):
    presets: ClassVar[dict[str, dict[str, Any]]] = {
        "riddare": {"trump_choice_after_cards": 13, "tribute_mode": "simultaneous"}
    }

    trump_choice_after_cards: int = option(
        6,
        "The monarch names trumps after seeing 6 cards (pagat) or all 13 (variant).",
        minimum=6,
        maximum=13,
    )
    allow_redeal_if_no_court: bool | None = option(
        None,
        "The monarch may order a redeal while holding nothing above a 10 "
        "(default: true when trumps are named after 6 cards, false after 13).",
        kind="bool",
    )
    tribute_mode: str = option(
        "sequential",
        "sequential: the monarch and noble return cards after seeing the tribute; "
        "simultaneous: they choose before, and cannot return a card received.",
        choices=("sequential", "simultaneous"),
    )
    rank_update: str = option(
        "made_then_failed_inverted",
        "made_then_failed_inverted: who made their quota keep their order on top, who failed "
        "go below in reversed order; by_margin: ordered by tricks over quota, ties keep order.",
        choices=RANK_UPDATES,
    )
    deal_start: str = option(
        "left_of_dealer",
        "Who receives the first card of a deal: left_of_dealer (the fool's left) or dealer.",
        choices=("left_of_dealer", "dealer"),
    )
    first_leader_chooser: str = option(
        "monarch",
        "monarch: the monarch chooses who leads the first trick; "
        "eldest: the player left of the fool leads.",
        choices=("monarch", "eldest"),
    )
    deals: int = option(
        12, "Deals in a match (the game itself has no end).", minimum=1, maximum=1000
    )
    rank_points: tuple[int, ...] = option(
        (3, 2, 1, 0),
        "Points per deal for the rank earned by it: monarch-noble-peasant-fool.",
        kind="ints",
        minimum=0,
        maximum=1000,
    )

    def validate(self) -> None:
        if self.trump_choice_after_cards not in (STAGE_ONE_CARDS, HAND_SIZE):
            raise InvalidGameError(
                "option trump_choice_after_cards: trumps are named after 6 or after 13 cards"
            )
        points = self.rank_points
        if len(points) != 4:
            raise InvalidGameError(
                "option rank_points: give the points of the four ranks, e.g. 3-2-1-0"
            )
        if any(a < b for a, b in itertools.pairwise(points)):
            raise InvalidGameError(
                "option rank_points: a higher rank may not be worth fewer points than a lower one"
            )
        # The value that this trump timing implies is stored as the default, so that the
        # game string stays canonical.
        if self.allow_redeal_if_no_court == self._redeal_by_default:
            object.__setattr__(self, "allow_redeal_if_no_court", None)

    @property
    def _redeal_by_default(self) -> bool:
        return self.trump_choice_after_cards == STAGE_ONE_CARDS

    @property
    def redeal_allowed(self) -> bool:
        allowed = self.allow_redeal_if_no_court
        return self._redeal_by_default if allowed is None else allowed


def updated_order(order: Sequence[int], tricks: Sequence[int], rule: str) -> list[int]:
    """The seats from monarch to fool after a deal (SPEC 2.7).

    ``order`` lists the seats from monarch to fool during the deal, ``tricks`` the
    tricks each seat took. ``made_then_failed_inverted``: the players who made their quota,
    in their old order, then those who failed, in reversed old order. ``by_margin``: by
    tricks over quota, highest first, equal margins in their old order.
    """
    margins = {seat: tricks[seat] - QUOTAS[rank] for rank, seat in enumerate(order)}
    if rule == "by_margin":
        return sorted(order, key=lambda seat: -margins[seat])  # stable: ties keep old order
    made = [seat for seat in order if margins[seat] >= 0]
    failed = [seat for seat in order if margins[seat] < 0]
    return made + failed[::-1]


def tribute_choices(hand: int, trump: int, count: int) -> int:
    """The cards one of which must be given next when ``count`` cards of tribute are due.

    The best cards are the highest trumps, then the highest other cards whatever their
    suit. Every card above the cut is forced; cards of the same rank as the cut (never
    trumps: they all differ in rank) are the giver's free choice. Giving any card of the
    result and asking again for ``count - 1`` yields exactly the legal tributes.
    """
    trumps = hand & SUIT_MASKS[trump]
    if trumps.bit_count() >= count:
        best = 0
        for _ in range(count):
            top = BIT[highest(trumps & ~best)]
            best |= top
        return best
    needed = count - trumps.bit_count()
    others = hand & ~trumps
    chosen = trumps
    for rank in range(12, -1, -1):
        same = others & rank_mask(rank)
        if same:
            chosen |= same
            needed -= same.bit_count()
            if needed <= 0:
                break
    return chosen


def _entered_ranks(deal: Mapping[str, Any], key: str, where: str) -> list[int]:
    """The ranks of ``key``, one per seat, each rank once."""
    names = deal.get(key)
    if (
        not isinstance(names, list)
        or len(names) != 4
        or not all(isinstance(n, str) and n in RANK_NAMES for n in names)
    ):
        raise ScoreEntryError(
            f"{where}: '{key}' must list the rank of each of the 4 seats ({', '.join(RANK_NAMES)})"
        )
    missing = [n for n in RANK_NAMES if n not in names]
    if missing:
        raise ScoreEntryError(f"{where}: every rank is held once; nobody is {', '.join(missing)}")
    return [RANK_NAMES.index(n) for n in names]


class KungOchAdelGame(Game[KungOchAdelRules]):
    family = "kung_och_adel"
    rules_class = KungOchAdelRules
    title = "Kung och Adel"
    length_option = "deals"
    fixed_deals_options = "deals=1,allow_redeal_if_no_court=false"
    family_action_labels: ClassVar[Mapping[str, str]] = {
        "tribute": "pass a card in tribute",
        "return": "return a card",
        "redeal": "ask for a redeal",
        "lead": "choose who leads",
    }
    private_action_verbs = ("tribute", "return")
    """Tribute and returned cards pass face down: only the giver and receiver know them."""

    @property
    def num_seats(self) -> int:
        return 4

    @property
    def deal_count(self) -> int:
        return self.rules.deals

    @property
    def deals_fixed_by_seed(self) -> bool:
        """Only a game of one deal without redeals: later deals go round from the fool and
        follow the tribute, both decided by the play of the deals before; a redeal ordered
        by the monarch draws a new pack."""
        return self.rules.deals == 1 and not self.rules.redeal_allowed

    def new_initial_state(self, seed: int | None = None) -> KungOchAdelState:
        return KungOchAdelState(self, seed)

    def new_search_state(self, view: PlayerView, hands: Sequence[int]) -> KungOchAdelState:
        state = KungOchAdelState(self, None)
        public = view.public
        state.ranks = [RANK_NAMES.index(name) for name in public["ranks"]]
        state.rank_history = [
            [RANK_NAMES.index(n) for n in ranks] for ranks in public["rank_history"]
        ]
        state.trick_history = [list(tricks) for tricks in public["trick_history"]]
        leader = public["first_leader"]
        state.first_leader = leader if leader is not None else -1
        state._restore_play(view, hands)
        return state

    # --- play at a physical table (engine/table_sheet.py) -----------------------------

    def score_sheet(self) -> ScoreSheet:
        """One line a deal: the rank each seat earned by it (monarch, noble, peasant,
        fool: each once); optionally the tricks each seat took, and on the first line the
        ranks drawn before it, so that the new ranks are checked against the quotas."""
        fields = (
            SheetField("ranks", "rank earned", "ranks", choices=RANK_NAMES),
            SheetField("tricks", "tricks taken", "seats", total=HAND_SIZE, optional=True),
        )
        first = (
            SheetField(
                "ranks_before",
                "rank drawn before the first deal",
                "ranks",
                choices=RANK_NAMES,
                optional=True,
            ),
            *fields,
        )
        lines = tuple(
            SheetLine(deal, f"deal {deal}", -1, first if deal == 1 else fields)
            for deal in range(1, self.deal_count + 1)
        )
        points = self.rules.rank_points
        return ScoreSheet(
            game=str(self),
            seats=4,
            players=self.player_seats,
            lines=lines,
            totals_sum=sum(points) * self.deal_count,
            dealer_rule="the fool (the lowest card of the draw before the first deal)",
            notes=(
                "The fool deals; the monarch names trumps.",
                "Each deal scores the rank earned by it: "
                + ", ".join(f"{name} {p}" for name, p in zip(RANK_NAMES, points, strict=True))
                + ".",
            ),
        )

    def table_scores(self, entry: Any) -> TableScores:
        deals = entry_deals(entry)
        if len(deals) != self.deal_count:
            raise ScoreEntryError(
                f"{entered(len(deals))}; a game of {self.display_name} has {self.deal_count}"
            )
        points = self.rules.rank_points
        before: list[int] | None = None
        scored: list[tuple[int, ...]] = []
        for number, deal in enumerate(deals, start=1):
            where = f"deal {number}"
            allowed = ("ranks", "tricks", "ranks_before") if number == 1 else ("ranks", "tricks")
            unknown_keys(deal, allowed, where=where)
            if number == 1 and "ranks_before" in deal:
                before = _entered_ranks(deal, "ranks_before", where)
            ranks = _entered_ranks(deal, "ranks", where)
            if "tricks" in deal:
                tricks = seat_numbers(
                    deal, "tricks", where=where, seats=4, what="tricks", total=HAND_SIZE
                )
                if before is not None:
                    order = [before.index(rank) for rank in range(4)]
                    new_order = updated_order(order, tricks, self.rules.rank_update)
                    expected = [new_order.index(seat) for seat in range(4)]
                    if expected != ranks:
                        raise ScoreEntryError(
                            f"{where}: with these tricks the new ranks are "
                            f"{', '.join(RANK_NAMES[r] for r in expected)}, not "
                            f"{', '.join(RANK_NAMES[r] for r in ranks)}"
                        )
            scored.append(tuple(points[rank] for rank in ranks))
            before = ranks
        return TableScores(tuple(scored), deal_totals(scored, 4), complete=True)

    def card_inference(self, view: PlayerView) -> KungOchAdelInference:
        return KungOchAdelInference(view)

    def family_action_name(self, action: int) -> str | None:
        if TRIBUTE_ACTIONS <= action < TRIBUTE_ACTIONS + 52:
            return "tribute " + card_name(action - TRIBUTE_ACTIONS)
        if RETURN_ACTIONS <= action < RETURN_ACTIONS + 52:
            return "return " + card_name(action - RETURN_ACTIONS)
        if action == REDEAL_ACTION:
            return "redeal"
        if LEAD_ACTIONS <= action < LEAD_ACTIONS + 4:
            return f"lead {action - LEAD_ACTIONS}"
        return None

    def family_action_explanation(self, action: int) -> str | None:
        rules = self.rules
        if TRIBUTE_ACTIONS <= action < TRIBUTE_ACTIONS + 52:
            # The card is not named: a replay of a running match shows this to everyone.
            return (
                "Give a card face down in tribute: the fool gives the monarch two cards and "
                "the peasant the noble one, and they must be the giver's best cards (trumps "
                "first, highest first; then the highest other cards)."
            )
        if RETURN_ACTIONS <= action < RETURN_ACTIONS + 52:
            seen = (
                ", even one you were just given"
                if rules.tribute_mode == "sequential"
                else " (you choose before you see the tribute)"
            )
            return (
                "Give a card back face down to the player who pays you tribute: any card "
                f"you like{seen}."
            )
        if action == REDEAL_ACTION:
            return (
                f"Ask for a redeal: your first {rules.trump_choice_after_cards} cards hold "
                "nothing higher than a 10, so the fool gathers the cards, shuffles and deals "
                "again."
            )
        if LEAD_ACTIONS <= action < LEAD_ACTIONS + 4:
            return (
                f"Choose seat {action - LEAD_ACTIONS} to lead the first trick (the monarch may "
                "choose any player, themself included)."
            )
        if TRUMP_ACTIONS <= action < TRUMP_ACTIONS + 4:
            suit = SUIT_NAMES[action - TRUMP_ACTIONS]
            return (
                f"Make {suit}s trumps for this deal, judged from your first "
                f"{rules.trump_choice_after_cards} cards: a {suit} beats any card of another "
                "suit, and trumps are the best cards to give in tribute."
            )
        return None

    def parse_family_action(self, verb: str, argument: str) -> int | None:
        if verb in ("tribute", "return") and argument:
            if len(argument.split()) > 1:
                raise IllegalActionError(
                    f"pass one card per action ({verb} {argument.split()[0]}, then the next)",
                    f"{verb} {argument}",
                )
            try:
                passed = parse_card(argument)
            except InvalidCardError as exc:
                raise IllegalActionError(str(exc), f"{verb} {argument}") from None
            return (TRIBUTE_ACTIONS if verb == "tribute" else RETURN_ACTIONS) + passed
        if verb == "redeal" and not argument:
            return REDEAL_ACTION
        if verb == "lead" and argument in ("0", "1", "2", "3"):
            return LEAD_ACTIONS + int(argument)
        return None


class ExchangeStep(NamedTuple):
    """One turn of the tribute: ``giver`` passes ``cards`` cards to ``receiver``."""

    kind: str  # "tribute" or "return"
    giver: int
    receiver: int
    cards: int


class KungOchAdelState(TrickTakingState[KungOchAdelGame]):
    __slots__ = (
        "draw_keys",
        "draw_rounds",
        "drawn",
        "exchange",
        "exchange_step",
        "first_leader",
        "given_in_step",
        "rank_history",
        "ranks",
        "redeals",
        "return_given",
        "return_received",
        "rules",
        "tribute_given",
        "tribute_received",
        "trick_history",
    )

    def __init__(self, game: KungOchAdelGame, seed: int | None) -> None:
        super().__init__(game, seed)
        self.rules = game.rules
        n = self.num_seats
        self.phase = "draw"
        self.draw_keys: list[list[int]] = [[] for _ in range(n)]
        """The ranks each seat drew, in order (only tied seats draw again)."""
        self.draw_rounds: list[list[int]] = []
        """Each draw: the card of each seat, -1 for a seat that did not draw."""
        self.drawn = 0  # cards out of the drawing pack
        self.ranks: list[int] = []  # rank of each seat (0 monarch .. 3 fool)
        self.rank_history: list[list[int]] = []
        self.trick_history: list[list[int]] = []
        self.redeals = 0
        self.first_leader = -1
        self.exchange: list[ExchangeStep] = []
        self.exchange_step = 0
        self.given_in_step = 0
        self.tribute_given = [0] * n
        self.tribute_received = [0] * n
        self.return_given = [0] * n
        self.return_received = [0] * n
        self.plain_play = True  # the only rule of card play is to follow suit
        if self.rng is not None:
            self._resolve_chance()

    # --- ranks --------------------------------------------------------------------

    def seats_by_rank(self) -> list[int]:
        order = [0] * self.num_seats
        for seat, rank in enumerate(self.ranks):
            order[rank] = seat
        return order

    def seat_of(self, rank: int) -> int:
        return self.ranks.index(rank)

    # --- chance -------------------------------------------------------------------

    def _drawing_seats(self) -> list[int]:
        """The seats to draw now: everyone at first, then the seats tied with another."""
        keys = self.draw_keys
        return [s for s in range(self.num_seats) if sum(k == keys[s] for k in keys) > 1]

    def _draw_pack(self, drawers: int) -> int:
        pack = FULL_DECK & ~self.drawn
        return pack if pack.bit_count() >= drawers else FULL_DECK

    def _stage_one_cards(self) -> int:
        return self.rules.trump_choice_after_cards

    def _sample_chance(self, rng: random.Random) -> Chance:
        n = self.num_seats
        if self.phase == "draw":
            drawers = self._drawing_seats()
            picks = rng.sample(cards_of(self._draw_pack(len(drawers))), len(drawers))
            cards = [0] * n
            for seat, pick in zip(drawers, picks, strict=True):
                cards[seat] = BIT[pick]
            return Chance(DRAW, tuple(cards))
        if self.phase == "deal_rest":
            pack = cards_of(FULL_DECK & ~self._held())
            size = HAND_SIZE - STAGE_ONE_CARDS
        else:
            pack = cards_of(FULL_DECK)
            size = self._stage_one_cards()
        rng.shuffle(pack)
        dealer = self.seat_of(FOOL)
        start = (dealer + 1) % n if self.rules.deal_start == "left_of_dealer" else dealer
        hands = [0] * n
        for offset in range(n):  # one card at a time, clockwise from the start seat
            hands[(start + offset) % n] = sum(map(BIT.__getitem__, pack[offset : size * n : n]))
        return Chance(DEAL, tuple(hands))

    def _held(self) -> int:
        held = 0
        for hand in self.hands:
            held |= hand
        return held

    def _apply_chance(self, event: Chance) -> None:
        phase = self.phase
        if phase == "draw":
            self._apply_draw(event)
            return
        if event.kind != DEAL:
            raise InvalidChanceError(f"a deal is due, not a {event.kind}")
        if event.exposed >= 0:
            raise InvalidChanceError("no card is exposed in Kung och Adel")
        if len(event.cards) != self.num_seats:
            raise InvalidChanceError(f"a deal gives cards to {self.num_seats} seats")
        rest = phase == "deal_rest"
        size = HAND_SIZE - STAGE_ONE_CARDS if rest else self._stage_one_cards()
        already = self._held() if rest else 0
        union = 0
        for seat, cards in enumerate(event.cards):
            if cards >> 52:
                raise InvalidChanceError(f"seat {seat} is dealt a card that is not in the pack")
            if cards.bit_count() != size:
                raise InvalidChanceError(
                    f"seat {seat} is dealt {cards.bit_count()} cards, not {size}"
                    + (" (stage 2 deals 7 more to each)" if rest else "")
                )
            if cards & union:
                raise InvalidChanceError(f"card {card_name(highest(cards & union))} is dealt twice")
            if cards & already:
                raise InvalidChanceError(
                    f"card {card_name(highest(cards & already))} was already dealt in stage 1"
                )
            union |= cards
        if rest:
            self.hands = [hand | cards for hand, cards in zip(self.hands, event.cards, strict=True)]
            self._start_exchange()
            return
        if phase == "deal":
            self._start_deal()
        else:  # a redeal of the same deal
            self.redeals += 1
        self.hands = list(event.cards)
        self.phase = "trump"
        self.current_seat = self.seat_of(MONARCH)

    def _apply_draw(self, event: Chance) -> None:
        if event.kind != DRAW:
            raise InvalidChanceError(f"the game starts with a draw for ranks, not a {event.kind}")
        n = self.num_seats
        if len(event.cards) != n:
            raise InvalidChanceError(f"a draw gives cards to {n} seats")
        drawers = self._drawing_seats()
        pack = self._draw_pack(len(drawers))
        union = 0
        for seat, cards in enumerate(event.cards):
            if seat not in drawers:
                if cards:
                    raise InvalidChanceError(
                        f"seat {seat} does not draw again: only tied players "
                        f"({', '.join(map(str, drawers))}) do"
                    )
                continue
            if cards.bit_count() != 1:
                raise InvalidChanceError(f"seat {seat} must draw exactly one card")
            if cards & ~FULL_DECK:
                raise InvalidChanceError(f"seat {seat} draws a card that is not in the pack")
            if cards & union:
                raise InvalidChanceError(f"card {card_name(highest(cards))} is drawn twice")
            if not cards & pack:
                raise InvalidChanceError(f"card {card_name(highest(cards))} was already drawn")
            union |= cards
        if pack == FULL_DECK:
            self.drawn = 0
        self.drawn |= union
        self.draw_rounds.append([highest(cards) if cards else -1 for cards in event.cards])
        for seat in drawers:
            self.draw_keys[seat].append(RANK_OF[highest(event.cards[seat])])
        if self._drawing_seats():
            return
        order = sorted(range(n), key=lambda s: self.draw_keys[s], reverse=True)
        self.ranks = [order.index(seat) for seat in range(n)]
        self.rank_history = [list(self.ranks)]
        self.phase = "deal"

    def _start_deal(self) -> None:
        n = self.num_seats
        self.deal_number += 1
        self.dealer = self.seat_of(FOOL)
        self.redeals = 0
        self.trump = -1
        self.first_leader = -1
        self.exchange = []
        self.exchange_step = 0
        self.given_in_step = 0
        self.tribute_given = [0] * n
        self.tribute_received = [0] * n
        self.return_given = [0] * n
        self.return_received = [0] * n
        self.completed = []
        self.trick = []
        self.tricks_won = [0] * n
        self.dealt = 0  # nothing is played before the tricks (set aside is not played)

    # --- actions ------------------------------------------------------------------

    def _bidding_actions(self) -> list[int]:
        phase = self.phase
        if phase == "trump":
            actions = [TRUMP_ACTIONS + s for s in range(4)]
            if self._may_redeal():
                actions.append(REDEAL_ACTION)
            return actions
        if phase in ("tribute", "return"):
            base = self._pass_base()
            return [base + c for c in cards_of(self._passable())]
        if phase == "lead":
            return [LEAD_ACTIONS + s for s in range(self.num_seats)]
        return []

    def _may_redeal(self) -> bool:
        return self.rules.redeal_allowed and not self.hands[self.current_seat] & COURT_CARDS

    def _pass_base(self) -> int:
        return TRIBUTE_ACTIONS if self.phase == "tribute" else RETURN_ACTIONS

    def _passable(self) -> int:
        """The cards the seat to act may pass now."""
        hand = self.hands[self.current_seat]
        if self.phase == "return":
            return hand
        step = self.exchange[self.exchange_step]
        return tribute_choices(hand, self.trump, step.cards - self.given_in_step)

    def _apply_bid(self, action: int) -> None:
        if action not in self.legal_actions():
            raise self._illegal(self._why_not(action), action)
        phase = self.phase
        if phase == "trump":
            if action == REDEAL_ACTION:
                self.phase = "redeal"
                self.current_seat = CHANCE
                return
            self.trump = action - TRUMP_ACTIONS
            if self.rules.trump_choice_after_cards == STAGE_ONE_CARDS:
                self.phase = "deal_rest"
                self.current_seat = CHANCE
            else:
                self._start_exchange()
        elif phase in ("tribute", "return"):
            self._pass_card(action - self._pass_base())
        elif phase == "lead":
            self._begin_tricks(action - LEAD_ACTIONS)

    def _why_not(self, action: int) -> str:
        phase = self.phase
        if phase == "trump":
            if action == REDEAL_ACTION:
                if not self.rules.redeal_allowed:
                    return "redeals are not played in this game"
                return "the monarch may order a redeal only while holding nothing above a 10"
            return "the monarch must name a trump suit" + (
                " or order a redeal" if self._may_redeal() else ""
            )
        if phase in ("tribute", "return"):
            base = self._pass_base()
            if not base <= action < base + 52:
                step = self.exchange[self.exchange_step]
                giver, receiver = (RANK_NAMES[self.ranks[s]] for s in (step.giver, step.receiver))
                return f"the {giver} must now pass a card to the {receiver} ({phase} ...)"
            passed = action - base
            if not self.hands[self.current_seat] >> passed & 1:
                return f"you do not hold {card_name(passed)}"
            choices = " or ".join(card_name(c) for c in reversed(cards_of(self._passable())))
            return (
                "tribute is your best cards, the highest trumps first, then the highest "
                f"cards: give {choices}"
            )
        if phase == "lead":
            return "the monarch chooses who leads the first trick: lead 0, 1, 2 or 3"
        return f"no action is expected now (phase {phase})"

    # --- tribute ------------------------------------------------------------------

    def _start_exchange(self) -> None:
        """After the 13 cards: the tribute steps, in the order of the tribute mode."""
        steps = []
        returns = []
        for giver_rank, receiver_rank, count in TRIBUTE_COUNTS:
            giver, receiver = self.seat_of(giver_rank), self.seat_of(receiver_rank)
            steps.append(ExchangeStep("tribute", giver, receiver, count))
            returns.append(ExchangeStep("return", receiver, giver, count))
        simultaneous = self.rules.tribute_mode == "simultaneous"
        self.exchange = returns + steps if simultaneous else steps + returns
        self.exchange_step = 0
        self.given_in_step = 0
        self._enter_step()

    def _enter_step(self) -> None:
        if self.exchange_step == len(self.exchange):
            if self.rules.first_leader_chooser == "monarch":
                self.phase = "lead"
                self.current_seat = self.seat_of(MONARCH)
            else:
                self._begin_tricks((self.dealer + 1) % self.num_seats)
            return
        step = self.exchange[self.exchange_step]
        self.phase = step.kind
        self.current_seat = step.giver

    def _pass_card(self, passed: int) -> None:
        step = self.exchange[self.exchange_step]
        bit = BIT[passed]
        giver, receiver = step.giver, step.receiver
        self.hands[giver] ^= bit
        simultaneous = self.rules.tribute_mode == "simultaneous"
        if step.kind == "tribute":
            self.hands[receiver] |= bit
            self.tribute_given[giver] |= bit
            self.tribute_received[receiver] |= bit
        else:
            self.return_given[giver] |= bit
            if not simultaneous:  # set aside face down until the tribute is paid
                self.hands[receiver] |= bit
                self.return_received[receiver] |= bit
        self.given_in_step += 1
        if self.given_in_step < step.cards:
            return
        if simultaneous and step.kind == "tribute":
            returned = self.return_given[receiver]
            self.hands[giver] |= returned
            self.return_received[giver] = returned
        self.exchange_step += 1
        self.given_in_step = 0
        self._enter_step()

    # --- play ---------------------------------------------------------------------

    def _begin_tricks(self, leader: int) -> None:
        self.first_leader = leader
        self._start_play(leader)

    def _play_rule(self) -> tuple[int, str]:
        hand = self.hands[self.current_seat]
        if self.trick:
            same = hand & SUIT_MASKS[self.led_suit]
            if same:
                return same, self.REASON_FOLLOW
        return hand, ""

    def _after_trick(self, winner: int) -> None:
        order = self.seats_by_rank()
        tricks = list(self.tricks_won)
        new_order = updated_order(order, tricks, self.rules.rank_update)
        self.ranks = [new_order.index(seat) for seat in range(self.num_seats)]
        self.rank_history.append(list(self.ranks))
        self.trick_history.append(tricks)
        points = self.rules.rank_points
        self._finish_deal([points[rank] for rank in self.ranks])

    # --- what the double-dummy solver reads -------------------------------------

    def solver_scoring(self, seat: int) -> DealScoring:
        # The rank earned depends on every seat's tricks; with the default rank update
        # only on who made their quota, so each count is capped at the seat's quota.
        by_margin = self.rules.rank_update == "by_margin"
        caps = tuple(self.tricks_per_deal if by_margin else QUOTAS[rank] for rank in self.ranks)

        order = self.seats_by_rank()
        rule = self.rules.rank_update
        points = self.rules.rank_points

        def outcome(counts: tuple[int, ...]) -> int:
            # what _after_trick books for the seat, from the same pure function
            return points[updated_order(order, counts, rule).index(seat)]

        return DealScoring(
            side=(seat,), counters=tuple(range(self.num_seats)), caps=caps, outcome=outcome
        )

    # --- views --------------------------------------------------------------------

    def contract_name(self) -> str:
        return f"trumps ({SUIT_LETTERS[self.trump]})" if self.trump >= 0 else ""

    def view_for(self, seat: int) -> PlayerView:
        names = [[RANK_NAMES[r] for r in ranks] for ranks in self.rank_history]
        public: dict[str, Any] = {
            "ranks": [RANK_NAMES[r] for r in self.ranks] if self.ranks else None,
            "quotas": [QUOTAS[r] for r in self.ranks] if self.ranks else None,
            "seats_by_rank": self.seats_by_rank() if self.ranks else None,
            "rank_history": names,
            "trick_history": [list(t) for t in self.trick_history],
            "draws": [
                [card_name(c) if c >= 0 else None for c in drawn] for drawn in self.draw_rounds
            ],
            "redeals": self.redeals,
            "first_leader": self.first_leader if self.first_leader >= 0 else None,
        }
        private: dict[str, Any] = {}
        for key, masks in (
            ("tribute_given", self.tribute_given),
            ("tribute_received", self.tribute_received),
            ("return_given", self.return_given),
            ("return_received", self.return_received),
        ):
            if masks[seat]:
                private[key] = [card_name(c) for c in cards_of(masks[seat])]
        return self._view(seat, public, private)


class KungOchAdelInference(CardInference):
    """What a Kung och Adel view proves about the hands: the cards this seat gave in
    tribute or returned are in the other player's hand of that exchange until played; a
    receiver of tribute knows the giver paid their best cards (trumps first, highest
    first, then the highest other cards), so the giver holds no trump above the lowest
    trump paid (none at all if a plain card was paid) and no plain card ranked above the
    lowest plain card paid, besides the cards returned to them."""

    def known_cards(self, known: MutableSequence[int], excluded: MutableSequence[int]) -> None:
        view = self.view
        by_rank = view.public.get("seats_by_rank")
        if not by_rank:
            return
        private = view.private
        gone = view.played | view.hand
        me = view.seat
        for giver_rank, receiver_rank, _ in TRIBUTE_COUNTS:
            giver, receiver = by_rank[giver_rank], by_rank[receiver_rank]
            if me == giver:
                other, passed = receiver, names_mask(private.get("tribute_given"))
            elif me == receiver:
                other, passed = giver, names_mask(private.get("return_given"))
            else:
                continue
            known[other] |= passed & ~gone
            if me == receiver:
                paid = names_mask(private.get("tribute_received"))
                if paid:
                    excluded[other] |= tribute_excludes(paid, view.trump) & ~passed


def tribute_excludes(paid: int, trump: int) -> int:
    """Cards the payer of tribute ``paid`` cannot have kept: it paid its best cards."""
    trumps = SUIT_MASKS[trump] if trump >= 0 else 0
    paid_trumps = paid & trumps
    plain = paid & ~trumps
    if not plain:
        return above((paid_trumps & -paid_trumps).bit_length() - 1)
    lowest = min(RANK_OF[c] for c in cards_of(plain))
    out = trumps
    for s in range(4):
        if SUIT_MASKS[s] != trumps:
            out |= SUIT_MASKS[s] & ~((1 << (13 * s + lowest + 1)) - 1)
    return out
