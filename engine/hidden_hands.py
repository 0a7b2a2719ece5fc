"""What a seat can infer about the other hands from its view, and deals drawn from it.

A search bot sees only a :class:`~engine.game.PlayerView`. ``hand_constraints(view)``
turns it into :class:`HandConstraints`: for every seat, how many cards it holds, the
cards it is known to hold, and the cards it cannot hold; ``sample_hands`` then deals the
unseen cards at random to fit them. What is inferred:

- Every family: a seat that did not follow suit is void in the suit led. The seats of a
  trick's cards follow the table order (``public["seating"]`` where players are re-seated,
  as in Priffe; else clockwise by seat number).
- What the family's rules prove, asked of the game (``game.card_inference(view)``,
  engine/inference.py; each family's class in engine/variants/ says what it infers):
  facts about hands (Kingen's exposed trump indicator, Priffe's exposed träkarl, Kung och
  Adel's tribute) and the card-play obligations read backwards (a card that would have
  been illegal had the seat held some cards proves it holds none of them). Nothing here
  knows a family by name.

Inference is by rules, so it is exact: the real hands always satisfy the constraints
(the property tests in tests/bots/test_strong.py check this on random positions).

``search_state(view, rng)`` is what a search bot wants from all this: a full state at the
view's decision, the other hands drawn at random to fit the view (``HandSampler``), that
the bot may clone, play out and score (``state.deal_scores[-1]`` after the deal). With
``engine.protocol_view.view_from_json`` a bot builds the view from the protocol's request first.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine.cards import BIT, FULL_DECK, SUIT_MASKS, SUIT_OF, cards_of
from engine.game import Game, PlayerView, State


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


def deck_of(game: Game[Any]) -> int:
    """The cards dealt in a deal of ``game``, as the game says (Kingen drops cards for 3
    or 5 players)."""
    return game.deck


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


def hand_constraints(view: PlayerView) -> HandConstraints:
    """Everything ``view`` tells about the hands; InconsistentViewError if it does not add up."""
    n = view.num_seats
    seat = view.seat
    known = [0] * n
    excluded = [0] * n
    known[seat] = view.hand
    rules = view.game.card_inference(view)  # the family's facts and obligations
    rules.known_cards(known, excluded)
    nxt = next_seats(view)
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


def search_state(
    view: PlayerView, rng: random.Random, sampler: HandSampler | None = None
) -> State[Any]:
    """A state at ``view``'s card-play decision whose hidden hands are a deal drawn at
    random to fit the view (pass a ``sampler`` made once per decision to draw many); it
    ends after the current deal (engine.game.Game.new_search_state)."""
    hands = (sampler or HandSampler(view)).sample(rng)
    return view.game.new_search_state(view, hands)
