"""What a seat can infer about the other hands from its view, and deals drawn from it.

A search bot sees only a :class:`~engine.view.PlayerView`. ``hand_constraints(view)``
turns it into :class:`HandConstraints`: for every seat, how many cards it holds, the
cards it is known to hold, and the cards it cannot hold; ``sample_hands`` then deals the
unseen cards at random to fit them. What is inferred, by family:

- Every family: a seat that did not follow suit is void in the suit led. The seats of a
  trick's cards follow the table order (``public["seating"]`` where players are re-seated,
  as in Priffe; else clockwise by seat number).
- Kingen and Dubbelkingen: the exposed trump indicator (``public["exposed"]``) is in the
  dealer's hand until played; and every card-play obligation of the rules in force
  (heart-lead ban, penalty cards that must be played when safe or discarded when void,
  beating a trump lead, trumping and overtrumping, the undertrump policy): a card that
  would have been illegal had the seat held some cards proves that it holds none of them.
- King: the heart-lead rule, the forced K♥ and the obligation to trump, likewise.
- Kung och Adel: the cards this seat gave in tribute or returned are in the other
  player's hand of that exchange until played; a receiver of tribute knows the giver
  paid their best cards (trumps first, highest first, then the highest other cards), so
  the giver holds no trump above the lowest trump paid (none at all if a plain card was
  paid) and no plain card ranked above the lowest plain card paid, besides the cards
  returned to them.
- Priffe: the träkarl's hand once exposed (``public["trakarl"]["hand"]``).

Inference is by rules, so it is exact: the real hands always satisfy the constraints
(the property tests in tests/bots/test_strong.py check this on random positions).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine.cards import (
    BIT,
    FULL_DECK,
    HEARTS,
    RANK_ACE,
    RANK_KING,
    RANK_OF,
    SUIT_MASKS,
    SUIT_OF,
    card,
    cards_of,
    parse_card,
)
from engine.variants.kingen import (
    CONTRACT_NAMES,
    HEARTS_CONTRACT,
    PENALTY_MASK,
    TRUMPS,
)
from engine.variants.kingen import KING_OF_HEARTS as KING_OF_HEARTS_CONTRACT
from engine.variants.kung_och_adel import TRIBUTE_COUNTS
from engine.view import PlayerView

HEART_MASK = SUIT_MASKS[HEARTS]
KING_OF_HEARTS = card(RANK_KING, HEARTS)
ACE_OF_HEARTS = card(RANK_ACE, HEARTS)


class InconsistentViewError(ValueError):
    """The view's facts do not add up (a family this module does not understand)."""


@dataclass(frozen=True, slots=True)
class HandConstraints:
    """What one seat knows of every hand at a card-play decision."""

    seat: int
    """The seat whose view this is (its hand is ``known[seat]``)."""
    sizes: tuple[int, ...]
    """How many cards each seat holds now."""
    known: tuple[int, ...]
    """Cards each seat is known to hold."""
    excluded: tuple[int, ...]
    """Cards each seat is known not to hold (never overlapping ``known``)."""
    pool: int
    """The unseen cards: in some hand, but not known to be in which."""

    @property
    def hidden_seats(self) -> tuple[int, ...]:
        """Seats holding some unseen cards."""
        return tuple(s for s, size in enumerate(self.sizes) if size > self.known[s].bit_count())


def deck_of(game: Any) -> int:
    """The cards dealt in a deal of ``game`` (Kingen drops cards for 3 or 5 players)."""
    table = getattr(getattr(game, "rules", None), "table", None)
    deck = getattr(table, "deck", FULL_DECK)
    return deck if isinstance(deck, int) else FULL_DECK


def next_seats(view: PlayerView) -> tuple[int, ...]:
    """The seat after each seat in table order (the order cards are played to a trick)."""
    n = view.num_seats
    seating = view.public.get("seating")
    if isinstance(seating, list) and sorted(seating) == list(range(n)):
        order = [0] * n
        for i, s in enumerate(seating):
            order[s] = seating[(i + 1) % n]
        return tuple(order)
    return tuple((s + 1) % n for s in range(n))


def _names_mask(names: Any) -> int:
    mask = 0
    for name in names or ():
        mask |= BIT[parse_card(name)]
    return mask


def _above(c: int) -> int:
    """The cards of ``c``'s suit ranked above it."""
    return SUIT_MASKS[SUIT_OF[c]] & ~((BIT[c] << 1) - 1)


def _below(c: int) -> int:
    """The cards of ``c``'s suit ranked below it."""
    return SUIT_MASKS[SUIT_OF[c]] & (BIT[c] - 1)


class _PlayRules:
    """A family's card-play obligations read backwards: what a legal card proves."""

    def __init__(self, view: PlayerView) -> None:
        self.view = view
        self.trump = view.trump

    def on_lead(self, card_id: int, played_before: int, tricks_before: list[int]) -> int:
        """Cards the leader of a trick cannot have held, given it led ``card_id``."""
        return 0

    def on_follow(self, card_id: int, led: int, win: int, trumped: bool, leads: list[int]) -> int:
        """Cards a follower cannot have held, given it played ``card_id`` to a trick led in
        ``led`` whose winning card so far was ``win`` (a trump if ``trumped``); ``leads``
        are the suits led to the earlier tricks of the deal. Void in the suit led is
        handled by the caller."""
        return 0


class _KingenRules(_PlayRules):
    def __init__(self, view: PlayerView) -> None:
        super().__init__(view)

        rules = view.game.rules
        self.rules = rules
        name = view.public.get("contract")
        self.contract = CONTRACT_NAMES.index(name) if name in CONTRACT_NAMES else -1
        self.is_trumps = self.contract == TRUMPS and self.trump >= 0
        self.penalty = PENALTY_MASK[self.contract] if self.contract >= 0 else 0
        self.heart_ban = rules.heart_lead_ban and self.contract in (
            HEARTS_CONTRACT,
            KING_OF_HEARTS_CONTRACT,
        )

    def on_lead(self, card_id: int, played_before: int, tricks_before: list[int]) -> int:
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
                safe = SUIT_MASKS[led] & self.penalty & _below(win)
                if not bit & safe:
                    out |= safe  # a safe penalty card would have had to be played
            if (
                self.is_trumps
                and led == self.trump
                and rules.must_beat_trump_lead
                and card_id < win
            ):
                out |= _above(win)  # a higher trump would have had to be played
            return out
        if self.is_trumps:
            trumps = SUIT_MASKS[self.trump]
            is_trump = suit == self.trump
            if trumped:  # SPEC 3.6: overtrump if obliged and able, else the policy
                policy = rules.undertrump_policy
                if is_trump and card_id > win:  # overtrumped
                    if rules.must_overtrump or policy != "no_undertrump":
                        return 0
                    return FULL_DECK & ~trumps  # a trump allowed only from a hand of trumps
                if rules.must_overtrump:
                    out |= _above(win)  # holding a higher trump, this card was illegal
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


class _KingRules(_PlayRules):
    def __init__(self, view: PlayerView) -> None:
        super().__init__(view)
        rules = view.game.rules
        negative = view.public.get("negative") or ()
        self.lead_rule = ""
        if ("hearts" in negative or "king_of_hearts" in negative) and (
            getattr(rules, "heart_lead_rule", "free") != "free"
        ):
            self.lead_rule = rules.heart_lead_rule
        forced = getattr(rules, "k_hearts_forced", "none")
        self.forced = forced if "king_of_hearts" in negative and forced != "none" else ""
        self.must_trump = (
            bool(view.public.get("positive"))
            and self.trump >= 0
            and bool(getattr(rules, "must_trump", False))
        )

    def on_lead(self, card_id: int, played_before: int, tricks_before: list[int]) -> int:
        broken = self.lead_rule == "after_broken" and played_before & HEART_MASK
        if self.lead_rule and SUIT_OF[card_id] == HEARTS and not broken:
            return FULL_DECK & ~HEART_MASK  # a heart may be led only from all hearts
        return 0

    def on_follow(self, card_id: int, led: int, win: int, trumped: bool, leads: list[int]) -> int:
        suit = SUIT_OF[card_id]
        forced = self.forced
        if suit == led:
            if forced and led == HEARTS and card_id != KING_OF_HEARTS:
                if forced == "on_void_or_cannot_win" and win == ACE_OF_HEARTS:
                    return BIT[KING_OF_HEARTS]
                if forced == "on_void_and_on_heart_lead" and HEARTS not in leads:
                    return BIT[KING_OF_HEARTS]
            return 0
        out = 0
        if forced and card_id != KING_OF_HEARTS:
            out |= BIT[KING_OF_HEARTS]
        if self.must_trump and suit != self.trump:
            out |= SUIT_MASKS[self.trump]
        return out


_PLAY_RULES: dict[str, type[_PlayRules]] = {
    "kingen": _KingenRules,
    "dubbelkingen": _KingenRules,
    "king": _KingRules,
}


def _family_known(view: PlayerView, known: list[int], excluded: list[int]) -> None:
    """Add the family's public and private facts about hands (see the module docstring)."""
    family = view.game.family
    public = view.public
    gone = view.played | view.hand
    if family in ("kingen", "dubbelkingen"):
        exposed = public.get("exposed")
        if exposed:
            c = parse_card(exposed)
            if not BIT[c] & gone:
                known[view.dealer] |= BIT[c]
    elif family == "priffe":
        trakarl = public.get("trakarl")
        if isinstance(trakarl, dict) and trakarl.get("hand") is not None:
            known[trakarl["seat"]] |= _names_mask(trakarl["hand"])
    elif family == "kung_och_adel":
        _kung_och_adel_known(view, known, excluded)


def _kung_och_adel_known(view: PlayerView, known: list[int], excluded: list[int]) -> None:
    by_rank = view.public.get("seats_by_rank")
    if not by_rank:
        return
    private = view.private
    gone = view.played | view.hand
    me = view.seat
    for giver_rank, receiver_rank, _ in TRIBUTE_COUNTS:
        giver, receiver = by_rank[giver_rank], by_rank[receiver_rank]
        if me == giver:
            other, passed = receiver, _names_mask(private.get("tribute_given"))
        elif me == receiver:
            other, passed = giver, _names_mask(private.get("return_given"))
        else:
            continue
        known[other] |= passed & ~gone
        if me == receiver:
            paid = _names_mask(private.get("tribute_received"))
            if paid:
                excluded[other] |= _tribute_excludes(paid, view.trump) & ~passed


def _tribute_excludes(paid: int, trump: int) -> int:
    """Cards the payer of tribute ``paid`` cannot have kept: it paid its best cards."""
    trumps = SUIT_MASKS[trump] if trump >= 0 else 0
    paid_trumps = paid & trumps
    plain = paid & ~trumps
    if not plain:
        return _above((paid_trumps & -paid_trumps).bit_length() - 1)
    lowest = min(RANK_OF[c] for c in cards_of(plain))
    out = trumps
    for s in range(4):
        if SUIT_MASKS[s] != trumps:
            out |= SUIT_MASKS[s] & ~((1 << (13 * s + lowest + 1)) - 1)
    return out


def hand_constraints(view: PlayerView) -> HandConstraints:
    """Everything ``view`` tells about the hands; InconsistentViewError if it does not add up."""
    n = view.num_seats
    seat = view.seat
    known = [0] * n
    excluded = [0] * n
    known[seat] = view.hand
    _family_known(view, known, excluded)
    nxt = next_seats(view)
    rules_class = _PLAY_RULES.get(view.game.family, _PlayRules)
    rules = rules_class(view)
    trump = view.trump
    played_before = 0
    leads: list[int] = []
    tricks: list[tuple[int, tuple[int, ...]]] = [(t.leader, t.cards) for t in view.tricks]
    if view.trick:
        tricks.append((view.leader, view.trick))
    for leader, cards in tricks:
        player = leader
        first = cards[0]
        led = SUIT_OF[first]
        excluded[player] |= rules.on_lead(first, played_before, leads)
        win, trumped = first, False
        for c in cards[1:]:
            player = nxt[player]
            suit = SUIT_OF[c]
            out = rules.on_follow(c, led, win, trumped, leads)
            if suit != led:
                out |= SUIT_MASKS[led]
            excluded[player] |= out
            if trumped:
                if suit == trump and c > win:
                    win = c
            elif suit == led:
                if c > win:
                    win = c
            elif suit == trump:
                win, trumped = c, True
        leads.append(led)
        for c in cards:
            played_before |= BIT[c]
    sizes = tuple(view.hand_sizes)
    held = 0
    for s in range(n):
        if known[s] & held or known[s] & view.played:
            raise InconsistentViewError(f"seat {s}'s known cards are held or played elsewhere")
        held |= known[s]
        if known[s].bit_count() > sizes[s]:
            raise InconsistentViewError(f"seat {s} is known to hold more cards than it has")
        if known[s].bit_count() == sizes[s]:
            excluded[s] = FULL_DECK & ~known[s]
        excluded[s] &= ~known[s]
    pool = deck_of(view.game) & ~view.played & ~held
    missing = sum(sizes) - sum(k.bit_count() for k in known)
    if pool.bit_count() != missing:
        raise InconsistentViewError(
            f"{pool.bit_count()} unseen cards for {missing} places in the other hands"
        )
    return HandConstraints(seat, sizes, tuple(known), tuple(excluded), pool)


class _Deal:
    """Deals the pool to the hidden seats, honouring exclusions (a b-matching kept
    feasible by Hall's condition on every set of seats, tracked as slacks)."""

    def __init__(self, constraints: HandConstraints, relax: bool = False) -> None:
        self.constraints = constraints
        seats = constraints.hidden_seats
        self.seats = seats
        need = [constraints.sizes[s] - constraints.known[s].bit_count() for s in seats]
        self.need = need
        k = len(seats)
        excluded = [0 if relax else constraints.excluded[s] & constraints.pool for s in seats]
        self.excluded = excluded
        self.constrained = any(excluded)
        # Eligibility class of each card: the set of seat indices (bits) that may hold it.
        full = (1 << k) - 1
        self.card_class: dict[int, int] = {}
        demand = [0] * (1 << k)
        for c in cards_of(constraints.pool):
            cls = full
            for i in range(k):
                if excluded[i] >> c & 1:
                    cls &= ~(1 << i)
            self.card_class[c] = cls
            demand[cls] += 1
        # slack[S] = need(S) - #cards whose class is a subset of S; feasible iff all >= 0.
        self.slack = []
        for subset in range(1 << k):
            capacity = sum(need[i] for i in range(k) if subset >> i & 1)
            inside = sum(demand[cls] for cls in range(1 << k) if cls & ~subset == 0)
            self.slack.append(capacity - inside)
        self.feasible = all(x >= 0 for x in self.slack)

    def sample(self, rng: random.Random) -> list[int]:
        constraints = self.constraints
        hands = list(constraints.known)
        seats = self.seats
        cards = cards_of(constraints.pool)
        rng.shuffle(cards)
        if not self.constrained:
            start = 0
            for seat, count in zip(seats, self.need, strict=True):
                for c in cards[start : start + count]:
                    hands[seat] |= BIT[c]
                start += count
            return hands
        need = list(self.need)
        slack = list(self.slack)
        k = len(seats)
        subsets = range(1 << k)
        for c in cards:
            cls = self.card_class[c]
            options = []
            weights = []
            for i in range(k):
                if not cls >> i & 1 or not need[i]:
                    continue
                # Giving c to seat i lowers the slack of every S with i in S and cls not in S.
                bit = 1 << i
                if all(slack[s] > 0 for s in subsets if s & bit and cls & ~s):
                    options.append(i)
                    weights.append(need[i])
            if not options:  # unreachable while the slacks are kept feasible
                raise InconsistentViewError("no seat can take a card")
            i = options[0] if len(options) == 1 else rng.choices(options, weights)[0]
            bit = 1 << i
            for s in subsets:
                if s & bit:
                    slack[s] -= 1
                if cls & ~s == 0:
                    slack[s] += 1
            need[i] -= 1
            hands[seats[i]] |= BIT[c]
        return hands


class HandSampler:
    """Draws full deals consistent with a view: ``sampler.sample(rng)`` -> every seat's hand.

    The unseen cards go one at a time, in random order, to a seat that may hold them,
    chosen with weight equal to the room left in its hand (uniform over deals when nothing
    is excluded) among the seats that keep the rest of the deal possible.
    """

    def __init__(self, view: PlayerView) -> None:
        self.constraints = hand_constraints(view)
        deal = _Deal(self.constraints)
        if not deal.feasible:
            raise InconsistentViewError("no deal satisfies the inferred constraints")
        self._deal = deal

    def sample(self, rng: random.Random) -> list[int]:
        return self._deal.sample(rng)
