"""``solver``: the way the best bridge programs play, for every family.

At a card-play decision the bot

1. infers from its view what each other hand must and cannot hold, and draws deals of the
   unseen cards consistent with it (``bots.builtin.hidden_hands``, as ``strong`` does);
2. solves each drawn deal exactly with the double-dummy solver (engine/double_dummy.py):
   every legal card's value for its seat with all hands known (the compiled solver keeps
   its transposition table from one drawn deal to the next, so the later ones are
   cheaper);
3. keeps the cards with the best mean value over the deals drawn, and when several are
   tied (frequent in the individual games, where "the seat against the other three
   together" makes many cards equally bad), lets ``strong``'s search choose among them
   with what is left of the time budget.

It draws deals until ``samples`` are solved or ``time_budget_ms`` is spent (at least one).
A solve that would need more than ``node_limit`` nodes (with a clock and no fixed
limit: the nodes that fit, at the speed measured on the bot's earlier solves, in a
sixteenth of the budget for the first deal and in what is left of four fifths of the
budget for the others; a deal early in play whose search would take longer) is given
up, and the decision is made by ``strong``'s search instead, with what is left of the
budget; so is any decision where the view does not add up to a deal.
Every other decision (bids, contracts, trumps, tribute, offers) is ``strong``'s, which is
the family's greedy policy: no other policy has been measured better.

A fixed ``seed`` makes the deals drawn reproducible; the clock is the one source of
nondeterminism (``time_budget_ms=None`` switches it off).
"""

from __future__ import annotations

import random
import time
from dataclasses import replace

from bots.builtin.hidden_hands import HandSampler, InconsistentViewError
from bots.builtin.strong import DEFAULT_TIME_BUDGET_MS, StrongPlayer, greedy_policy
from engine.double_dummy import NotSolvableError, SearchLimitError, last_nodes, solve
from engine.game import CARD_ACTIONS, PlayerView

DEFAULT_SAMPLES = 24
DEFAULT_NODE_LIMIT = 400_000
"""Without a clock: about a tenth of a second of the compiled search on this project's
machines."""
NODES_PER_MS = 2500
"""With a clock, the first guess of the search's speed: a solve may search as many
nodes as fit in what is left of its share of the budget at the speed measured on this
bot's earlier solves (the compiled search does 0.5 to 4 million nodes a second, by the
machine's load), so that a decision whose solve would not fit goes to ``strong`` in
time."""
MIN_NODE_LIMIT = 20_000
SOLVE_SHARE = 0.8
"""With a clock: the share of the budget the solves may take; ``strong`` chooses among tied
cards with the rest."""
FIRST_SOLVE_SHARE = 1 / 16
"""With a clock: the first deal's solve may take this share of the budget. A position
whose solve does not fit is one where enough solved deals would not fit in the budget
either, and its decision goes to ``strong`` with the rest of the budget (15/16; it was
half: early in a deal, where every solve is cut, the bot was ``strong`` at half its
clock, docs/benchmarks.md)."""


class SolverPlayer:
    """Sampled deals, each solved double dummy; the best mean card."""

    name = "solver"

    def __init__(
        self,
        seed: int | None = None,
        time_budget_ms: float | None = DEFAULT_TIME_BUDGET_MS,
        samples: int = DEFAULT_SAMPLES,
        node_limit: int | None = None,
    ) -> None:
        if samples < 1:
            raise ValueError("samples must be at least 1")
        self.seed = seed
        self.time_budget_ms = time_budget_ms
        self.samples = samples
        self.fixed_limit = node_limit is not None or time_budget_ms is None
        self.node_limit = DEFAULT_NODE_LIMIT if node_limit is None else node_limit
        self.nodes_per_ms = float(NODES_PER_MS)
        """The search speed measured on this bot's solves (with a clock)."""
        self.cut: tuple[int, int] = (-1, 0)
        """The deal and the number of cards played when a solve was last cut short: with
        a clock and no fixed limit, the decisions of the trick after it go straight to
        ``strong`` with the whole budget (a solve from there would be cut too)."""
        self.rng = random.Random(seed)
        self.fallback = StrongPlayer(seed, time_budget_ms=time_budget_ms)
        self.last_samples = 0
        """How many deals the last decision solved (0: it did not solve)."""

    def choose(self, view: PlayerView) -> int:
        legal = view.legal
        self.last_samples = 0
        if len(legal) == 1:
            return legal[0]
        if view.phase != "play" or any(a >= CARD_ACTIONS for a in legal):
            self.fallback.time_budget_ms = self.time_budget_ms
            return self.fallback.choose(view)
        played = view.played.bit_count()
        deal, cut_at = self.cut
        if not self.fixed_limit and deal == view.deal_number and played < cut_at + view.num_seats:
            # a solve was cut short less than a trick ago: this one would be too
            self.fallback.time_budget_ms = self.time_budget_ms
            return self.fallback.choose(view)
        started = time.perf_counter()
        try:
            sampler = HandSampler(view)
            return self._search(view, sampler)
        except SearchLimitError:
            self.cut = (view.deal_number, played)
            return self._fall_back(view, started)
        except (InconsistentViewError, NotSolvableError, NotImplementedError):
            return self._fall_back(view, started)

    def _fall_back(self, view: PlayerView, started: float) -> int:
        budget = self.time_budget_ms
        if budget is not None:  # strong gets what is left of the budget
            spent = (time.perf_counter() - started) * 1000
            self.fallback.time_budget_ms = max(budget - spent, 1.0)
        return self.fallback.choose(view)

    def _measure(self, started: float) -> None:
        """Update the measured search speed from the solve that began at ``started``."""
        elapsed_ms = (time.perf_counter() - started) * 1000
        nodes = last_nodes[0]
        if nodes >= 10_000 and elapsed_ms > 0:
            self.nodes_per_ms = 0.7 * self.nodes_per_ms + 0.3 * (nodes / elapsed_ms)

    def _search(self, view: PlayerView, sampler: HandSampler) -> int:
        start = time.perf_counter()
        budget = self.time_budget_ms
        rng = random.Random(
            f"solver/{self.seed}/{view.game}/{view.deal_number}/{view.seat}/{view.to_act}/"
            f"{view.hand}/{view.played}/{view.trick}"
        )
        legal = view.legal
        totals = dict.fromkeys(legal, 0.0)
        game = view.game
        solved = 0
        # most of the clock for the solves, the rest for strong among the tied cards
        solve_deadline = start + SOLVE_SHARE * budget / 1000 if budget is not None else None
        for _ in range(self.samples):
            state = game.new_search_state(view, sampler.sample(rng))
            limit = self.node_limit
            if not self.fixed_limit and solve_deadline is not None and budget is not None:
                left_ms = (solve_deadline - time.perf_counter()) * 1000
                if not solved:
                    left_ms = min(left_ms, budget * FIRST_SOLVE_SHARE)
                limit = max(MIN_NODE_LIMIT, int(left_ms * self.nodes_per_ms))
            solve_started = time.perf_counter()
            try:
                values = solve(state, node_limit=limit)
            except SearchLimitError:
                self._measure(solve_started)
                if not solved:
                    raise
                break
            self._measure(solve_started)
            for action in legal:
                totals[action] += values[action]
            solved += 1
            if solve_deadline is not None and time.perf_counter() > solve_deadline:
                break
        self.last_samples = solved
        best = max(totals.values())
        tied = [a for a in legal if totals[a] >= best - 1e-9]
        if len(tied) == 1:
            return tied[0]
        if budget is not None:
            spent = (time.perf_counter() - start) * 1000
            if spent >= budget:
                preferred = greedy_policy(view)(view, rng)
                return preferred if preferred in tied else tied[0]
            self.fallback.time_budget_ms = budget - spent
        return self.fallback.choose(replace(view, legal=tuple(tied)))
