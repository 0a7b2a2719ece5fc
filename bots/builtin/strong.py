"""``strong``: a determinized Monte Carlo search bot for every family.

At a card-play decision the bot

1. infers from its view what each other hand must and cannot hold (hand sizes, the
   cards it has seen, voids shown by not following suit, the family's public and private
   facts and card-play obligations: see ``bots.builtin.hidden_hands``);
2. draws ``samples`` deals of the unseen cards consistent with that;
3. for each deal and each legal card, builds ``game.new_search_state(view, hands)``,
   plays the card, and plays the rest of the deal out with every seat following the
   family's greedy policy (the same deals for every card: common random numbers);
4. plays the card with the best mean result for its own seat: the deal's score, which
   for a partnership family (Priffe) is already the seat's side's result.

A fixed ``seed`` and ``samples`` make every choice reproducible: each decision draws
from a generator seeded by the seed and the position, so the same view gets the same
card whatever was asked before. ``time_budget_ms`` is only an upper bound: the search
stops early (after at least one sample) when the clock runs out, which is the one source
of nondeterminism; pass ``time_budget_ms=None`` to switch the clock off.

Every other decision (bids, trump and contract choices, offers, tribute and returns,
redeals, the first leader) is the family's greedy policy: those need states that start
before card play, which the engine's search states do not offer.

The bot reads nothing but the ``PlayerView`` it is given; if the view's facts do not add
up to a deal (a family this module does not understand), it plays the greedy card.
"""

from __future__ import annotations

import random
import time
from typing import Any, cast

from bots.builtin.hidden_hands import HandSampler, InconsistentViewError
from engine.game import CARD_ACTIONS, PlayerView, TrickView
from engine.players import GreedyPolicy, greedy_policy_of

DEFAULT_SAMPLES = 40
DEFAULT_TIME_BUDGET_MS = 1000.0


def greedy_policy(view: PlayerView) -> GreedyPolicy:
    """The family's greedy policy (any legal action for a family without one)."""
    return greedy_policy_of(view.game.family)


class StrongPlayer:
    """Determinized Monte Carlo search over sampled deals, greedy playouts."""

    name = "strong"

    def __init__(
        self,
        seed: int | None = None,
        time_budget_ms: float | None = DEFAULT_TIME_BUDGET_MS,
        samples: int = DEFAULT_SAMPLES,
    ) -> None:
        if samples < 1:
            raise ValueError("samples must be at least 1")
        self.seed = seed
        self.time_budget_ms = time_budget_ms
        self.samples = samples
        self.rng = random.Random(seed)
        self.last_samples = 0
        """How many deals the last search drew (0 when it did not search)."""

    def choose(self, view: PlayerView) -> int:
        legal = view.legal
        self.last_samples = 0
        policy = greedy_policy(view)
        if len(legal) == 1:
            return legal[0]
        if view.phase != "play" or any(a >= CARD_ACTIONS for a in legal):
            return policy(view, self.rng)
        try:
            sampler = HandSampler(view)
        except InconsistentViewError:
            return policy(view, self.rng)
        try:
            return self._search(view, sampler, policy)
        except NotImplementedError:  # a family without search states: its policy
            return policy(view, self.rng)

    def _decision_rng(self, view: PlayerView) -> random.Random:
        return random.Random(
            f"strong/{self.seed}/{view.game}/{view.deal_number}/{view.seat}/{view.to_act}/"
            f"{view.hand}/{view.played}/{view.trick}"
        )

    def _search(self, view: PlayerView, sampler: HandSampler, policy: GreedyPolicy) -> int:
        start = time.perf_counter()
        budget = self.time_budget_ms
        deadline = start + budget / 1000 if budget is not None else None
        rng = self._decision_rng(view)
        legal = view.legal
        totals = dict.fromkeys(legal, 0.0)
        game = view.game
        playout = Playout(view, policy, rng)
        drawn = 0
        for _ in range(self.samples):
            hands = sampler.sample(rng)
            root = game.new_search_state(view, hands)
            for action in legal:
                state = root.clone()
                state.apply_action(action)
                totals[action] += playout.run(state)
            drawn += 1
            if deadline is not None and time.perf_counter() > deadline:
                break
        self.last_samples = drawn
        best = max(totals.values())
        tied = [a for a in legal if totals[a] >= best - 1e-9]
        if len(tied) == 1:
            return tied[0]
        preferred = policy(view, rng)
        return preferred if preferred in tied else tied[0]


class PlayoutView:
    """The view a seat gets during a playout: the fields of a ``PlayerView``, mutable so
    that one object serves a whole playout (building a frozen view per card would take
    half the search's time). Policies read it exactly like a ``PlayerView``."""

    __slots__ = (
        "contract",
        "deal_count",
        "deal_number",
        "deal_scores",
        "dealer",
        "game",
        "hand",
        "hand_sizes",
        "leader",
        "legal",
        "phase",
        "played",
        "private",
        "public",
        "scores",
        "seat",
        "to_act",
        "trick",
        "tricks",
        "tricks_won",
        "trump",
    )

    def __init__(self, root: PlayerView) -> None:
        self.game = root.game
        self.phase = "play"
        self.deal_number = root.deal_number
        self.deal_count = root.deal_count
        self.dealer = root.dealer
        self.contract = root.contract
        self.trump = root.trump
        self.scores = root.scores
        self.deal_scores = root.deal_scores
        self.public = root.public
        self.private = root.private
        self.seat = root.seat
        self.to_act = root.to_act
        self.hand = root.hand
        self.hand_sizes = root.hand_sizes
        self.leader = root.leader
        self.trick = root.trick
        self.tricks = root.tricks
        self.tricks_won = root.tricks_won
        self.played = root.played
        self.legal = root.legal

    @property
    def num_seats(self) -> int:
        return int(self.game.num_seats)


class Playout:
    """Plays a search state to the end of its deal with the greedy policy at every seat.

    The playout view's fields that change during card play are refreshed from the state
    before every decision; the ones that cannot change during a deal's card play (the
    contract, scores, public facts) are the root view's. Only the searching seat gets the
    root view's ``private`` facts; the other seats' are unknown to it and left empty.
    """

    def __init__(self, view: PlayerView, policy: GreedyPolicy, rng: random.Random) -> None:
        self.root = view
        self.policy = policy
        self.rng = rng
        self.me = view.seat
        self.game = view.game
        self.public_changes = (
            view.game.playout_public(view.public, [0] * view.num_seats) is not None
        )
        """Whether the public facts show cards in hand (Priffe's träkarl): then they are
        brought up to date before every decision (the game says how)."""
        self.base_tricks = view.tricks

    def run(self, state: Any) -> float:
        """Play ``state`` (a search state) out; the deal's score of the searching seat."""
        policy = self.policy
        rng = self.rng
        view = PlayoutView(self.root)
        as_view = cast(PlayerView, view)
        tricks = list(self.base_tricks)
        me = self.me
        root_private = self.root.private
        public_changes = self.public_changes
        game = self.game
        public = self.root.public
        bit_count = int.bit_count
        while state.current_seat >= 0:
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply_action(legal[0])
                continue
            seat = state.acting_seat()
            hands: list[int] = state.hands
            completed = state.completed
            if len(completed) > len(tricks):
                for leader, cards, winner in completed[len(tricks) :]:
                    tricks.append(TrickView(leader, tuple(cards), winner))
                view.tricks = tuple(tricks)
            if public_changes:
                view.public = game.playout_public(public, hands) or public
            view.seat = seat
            view.to_act = state.current_seat
            view.hand = hands[seat]
            view.hand_sizes = tuple(map(bit_count, hands))
            view.leader = state.leader
            view.trick = tuple(state.trick)
            view.tricks_won = tuple(state.tricks_won)
            view.played = state.played
            view.legal = tuple(legal)
            view.private = root_private if seat == me else {}
            state.apply_action(policy(as_view, rng))
        return float(state.deal_scores[-1][me])
