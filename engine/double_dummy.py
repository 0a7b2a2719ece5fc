"""A double-dummy solver for the card play of every family: each legal card's exact value.

Why this module is long: the position the solver reads, the legal-card rules and the
pure-Python search are one algorithm that the compiled search (engine/_dds.c) repeats
line for line; kept together, the two can be compared side by side.

    from engine.double_dummy import solve
    values = solve(state)          # {card: value} for the seat that acts now

The position is a card-play state with every hand known (a real game's state, or a
search state built from a view and sampled hands). The value of a card is what the acting
seat (``state.acting_seat()``: a dummy's cards are played by its partner) scores from the
rest of the deal if it plays that card and then

- in partnership play (Priffe), both sides play perfectly: minimax as in bridge, the
  dummy's cards in its partner's hands;
- in the individual games, the seat plays perfectly and the other seats together play to
  hold its score as low as they can: the value is what the seat can guarantee itself.

Values are in the game's own points for the whole deal (the tricks already played
included), as the game describes its scoring (engine/solving.py: ``DealScoring``); the
legal cards follow its ``CardPlayRules``. The solver only reads the state.

The search is alpha-beta over the remaining cards with a transposition table at the
start of every trick, cards that are equivalent (adjacent once played cards are ignored,
worth the same points, bound by the same rules) searched once, the best card of a stored
position tried first, and a bound on what the remaining cards can still be worth. It runs
in the compiled module ``engine._dds`` when that was built (``pip install ./engine`` and the
league's ``pip install -e .`` build it where a C compiler is found) and in pure Python
otherwise, with the same results; the first solve without it warns once
(``compiled_unavailable_reason``), and ``python -m engine solver`` says which one runs.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import pairwise
from math import gcd
from typing import Any

from engine.cards import BIT, SUIT_MASKS, SUIT_OF
from engine.game import State, TrickTakingState
from engine.solving import UNDERTRUMP_CODES, CardPlayRules, DealScoring

try:  # the compiled solver, when it was built
    from engine import _dds  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the machine
    _dds = None

INFINITY = 1 << 40


class NotSolvableError(ValueError):
    """The state is not at a card-play decision the solver can read."""


class SearchLimitError(RuntimeError):
    """The search needed more nodes than ``node_limit`` allowed."""


@dataclass(frozen=True, slots=True)
class Problem:
    """A position in the solver's terms (plain ints, masks and tuples)."""

    num_seats: int
    left_of: tuple[int, ...]
    hands: tuple[int, ...]
    trump: int
    leader: int
    trick: tuple[int, ...]
    trick_index: int
    tricks_total: int
    played: int
    suits_led: int
    rules: CardPlayRules
    side_mask: int
    scorer_mask: int
    card_points: tuple[int, ...]
    trick_points: tuple[int, ...]
    counters: tuple[int, ...]
    caps: tuple[int, ...]
    counts: tuple[int, ...]
    table: tuple[int, ...]
    linear_map: tuple[int, ...]
    """Non-empty when a single monotone count was turned into linear points: the value of
    the deal for each final count (then ``table`` is unused)."""
    linear_count: int
    """With ``linear_map``: the count so far; the search adds +-1 per trick of it."""
    linear_sign: int
    done: int
    """The points already certain (tricks played, ``base``)."""
    scale: int = 1
    """The searched points are the game's divided by this (the greatest common divisor
    of every point the rest of the deal can add): fewer distinct values for the
    null-window searches to cross. ``_final`` multiplies back."""


def problem_of(state: State[Any]) -> Problem:
    """The position of ``state`` for the acting seat; NotSolvableError if not card play."""
    if not isinstance(state, TrickTakingState) or state.phase != "play" or state.current_seat < 0:
        raise NotSolvableError("the position is not at a card to play")
    seat = state.acting_seat()
    try:
        scoring = state.solver_scoring(seat)
    except NotImplementedError as exc:
        raise NotSolvableError(str(exc)) from None
    return _build(state, scoring)


def _build(state: TrickTakingState[Any], scoring: DealScoring) -> Problem:
    n = state.num_seats
    total = state.tricks_per_deal
    side_mask = sum(1 << s for s in scoring.side)
    card_points = tuple(scoring.card_points)
    trick_points = tuple(scoring.trick_points) + (0,) * (total - len(scoring.trick_points))
    counters = scoring.counters or (-1,) * n
    caps = tuple(scoring.caps)
    done = scoring.base
    raw = [0] * len(caps)
    suits_led = 0
    for index, (_, cards, winner) in enumerate(state.completed):
        suits_led |= 1 << SUIT_OF[cards[0]]
        if side_mask >> winner & 1:
            done += sum(card_points[c] for c in cards) + trick_points[index]
    for s in range(n):
        if counters[s] >= 0:
            raw[counters[s]] += state.tricks_won[s]
    counts = tuple(min(c, cap) for c, cap in zip(raw, caps, strict=True))
    table = scoring.outcome_table()
    scorer_mask = side_mask
    linear_map: tuple[int, ...] = ()
    linear_count = 0
    linear_sign = 1
    if len(caps) == 1 and not any(card_points) and not any(trick_points):
        values = [table[min(c, caps[0])] for c in range(total + 1)]
        rising = all(a <= b for a, b in pairwise(values))
        falling = all(a >= b for a, b in pairwise(values))
        if rising or falling:
            # f(count) monotone: search the count itself (additive, so the transposition
            # table needs no counts), then map the count to the value.
            linear_map = tuple(values)
            linear_count = raw[0]
            linear_sign = 1 if rising else -1
            scorer_mask = sum(1 << s for s in range(n) if counters[s] == 0)
            card_points = (0,) * 52
            trick_points = (linear_sign,) * total
            counters = (-1,) * n
            caps = ()
            counts = ()
            table = (0,)
    if not caps:
        done += table[0] if not linear_map else 0
        table = (0,)
    scale = 0
    for v in (*card_points, *trick_points, *table):
        scale = gcd(scale, v)
    scale = scale or 1
    if scale > 1:
        card_points = tuple(v // scale for v in card_points)
        trick_points = tuple(v // scale for v in trick_points)
        table = tuple(v // scale for v in table)
    return Problem(
        num_seats=n,
        left_of=tuple(state.left_of),
        hands=tuple(state.hands),
        trump=state.trump,
        leader=state.leader,
        trick=tuple(state.trick),
        trick_index=len(state.completed),
        tricks_total=total,
        played=state.played,
        suits_led=suits_led,
        rules=state.solver_play_rules(),
        side_mask=side_mask,
        scorer_mask=scorer_mask,
        card_points=card_points,
        trick_points=trick_points,
        counters=counters,
        caps=caps,
        counts=counts,
        table=table,
        linear_map=linear_map,
        linear_count=linear_count,
        linear_sign=linear_sign,
        done=done,
        scale=scale,
    )


def solve(
    state: State[Any], *, compiled: bool | None = None, node_limit: int = 0
) -> dict[int, int]:
    """Each legal card of the acting seat with its value (see the module's docstring).

    ``compiled``: None uses the compiled solver when it was built; False forces the pure
    Python one; True requires the compiled one (RuntimeError if it was not built).
    ``node_limit``: give up (SearchLimitError) after that many nodes; 0 for no limit."""
    problem = problem_of(state)
    return solve_problem(problem, compiled=compiled, node_limit=node_limit)


def solve_problem(
    problem: Problem, *, compiled: bool | None = None, node_limit: int = 0
) -> dict[int, int]:
    use_c = _dds is not None if compiled is None else compiled
    if use_c:
        if _dds is None:
            raise RuntimeError("the compiled solver (engine._dds) was not built")
        answer = _dds.solve(_c_arguments(problem), node_limit)
        last_nodes[0] = int(_dds.last_nodes())
        if answer is None:
            raise SearchLimitError(f"more than {node_limit} nodes")
        raw = dict(answer)
    else:
        if compiled is None:
            _fallback_warn()
        search = _Search(problem, node_limit)
        raw = search.root_values()
        last_nodes[0] = search.nodes
    return {card: _final(problem, value) for card, value in sorted(raw.items())}


last_nodes = [0]
"""Nodes searched by the last ``solve`` (benchmarks read it)."""


def clear_table() -> None:
    """Empty the compiled solver's transposition table before the next solve.

    The compiled solver keeps its table from one solve to the next while the deal's
    constants (rules, trumps, points, sides) are the same, as for the sampled deals of one
    decision, and empties it otherwise; values never depend on it. Benchmarks call this to
    measure each position from an empty table."""
    if _dds is not None:
        _dds.clear()


def compiled_available() -> bool:
    """Whether the compiled solver was built on this machine."""
    return _dds is not None


def compiled_unavailable_reason() -> str | None:
    """Why the solver runs in pure Python here, with what to do; None if it is compiled."""
    if _dds is not None:
        return None
    return (
        "the compiled double-dummy solver (engine._dds) was not built when the engine was"
        " installed (no C compiler then?), so the engine runs its pure-Python search: the"
        " same values, 30-50 times slower per node. Install gcc and Python's headers"
        " (Debian: apt-get install gcc libc6-dev python3-dev) and reinstall"
        " (pip install --force-reinstall ./engine), or install the engine's wheel"
        " (engine/README.md)"
    )


_fallback_warned = [False]


def _fallback_warn() -> None:
    """Warn once per process that the pure-Python search runs for want of the compiled one."""
    reason = compiled_unavailable_reason()
    if reason is not None and not _fallback_warned[0]:
        _fallback_warned[0] = True
        warnings.warn(reason, RuntimeWarning, stacklevel=3)


def _final(problem: Problem, value: int) -> int:
    if problem.linear_map:
        count = problem.linear_count + problem.linear_sign * value
        count = max(0, min(count, len(problem.linear_map) - 1))
        return problem.linear_map[count] + problem.done
    return value * problem.scale + problem.done


def _c_arguments(p: Problem) -> tuple[Any, ...]:
    r = p.rules
    rules = (
        r.lead_ban_suit,
        int(r.lead_ban_until_broken),
        r.forced_card,
        int(r.forced_on_void),
        r.forced_when_beaten_by,
        int(r.forced_on_first_lead),
        r.follow_penalty,
        int(r.beat_trump_lead),
        int(r.trump_rules),
        int(r.must_trump),
        int(r.must_overtrump),
        UNDERTRUMP_CODES[r.undertrump],
        r.discard_penalty,
    )
    return (
        p.num_seats,
        p.left_of,
        p.hands,
        p.trump,
        p.leader,
        p.trick,
        p.trick_index,
        p.tricks_total,
        p.played,
        p.suits_led,
        rules,
        p.side_mask,
        p.scorer_mask,
        p.card_points,
        p.trick_points,
        p.counters,
        p.caps,
        p.counts,
        p.table,
    )


def legal_mask(
    rules: CardPlayRules,
    hand: int,
    led: int,
    win_card: int,
    trump: int,
    played: int,
    suits_led: int,
) -> int:
    """The legal cards of ``hand`` under ``rules`` (``led`` -1 when leading)."""
    if led < 0:
        ban = rules.lead_ban_suit
        if ban >= 0:
            banned = SUIT_MASKS[ban]
            other = hand & ~banned
            if other and other != hand and not (rules.lead_ban_until_broken and played & banned):
                return other
        return hand
    same = hand & SUIT_MASKS[led]
    forced = rules.forced_card
    holds_forced = forced >= 0 and hand >> forced & 1
    if same:
        if holds_forced and SUIT_OF[forced] == led and same != BIT[forced]:
            if win_card == rules.forced_when_beaten_by:
                return BIT[forced]
            if rules.forced_on_first_lead and not suits_led >> led & 1:
                return BIT[forced]
        if rules.follow_penalty:
            safe = same & rules.follow_penalty & (BIT[win_card] - 1)
            if safe and safe != same:
                return safe
        if rules.beat_trump_lead and led == trump:
            higher = same & ~((BIT[win_card] << 1) - 1)
            if higher and higher != same:
                return higher
        return same
    if holds_forced and rules.forced_on_void and hand != BIT[forced]:
        return BIT[forced]
    if rules.trump_rules and trump >= 0:
        trumps = hand & SUIT_MASKS[trump]
        if not trumps:
            return hand
        if SUIT_OF[win_card] == trump != led:  # already trumped
            if rules.must_overtrump:
                higher = trumps & ~((BIT[win_card] << 1) - 1)
                if higher:
                    return higher
            if rules.undertrump == "must_trump_anyway":
                return trumps
            if rules.undertrump == "no_undertrump":
                return hand & ~trumps or hand
            return hand
        return trumps if rules.must_trump else hand
    if rules.discard_penalty:
        penalty = hand & rules.discard_penalty
        if penalty and penalty != hand:
            return penalty
    return hand


def _beats(card: int, win_card: int, trump: int) -> bool:
    suit = SUIT_OF[card]
    win_suit = SUIT_OF[win_card]
    if suit == win_suit:
        return card > win_card
    return suit == trump


class _Search:
    """The pure-Python search. The compiled one in engine/_dds.c does the same, except
    that it finds each root card's value by MTD(f) (null-window searches) where this one
    searches each with the full window, and that it prunes more (the outcome reachable
    from the trick counts, quick tricks, the last trick without search, a table kept
    between solves): the values are the same, which the tests check, so this one stays
    the plain reference."""

    def __init__(self, p: Problem, node_limit: int = 0) -> None:
        self.node_limit = node_limit
        self.p = p
        self.n = p.num_seats
        self.hands = list(p.hands)
        self.held_at_root = 0
        for h in p.hands:
            self.held_at_root |= h
        self.table: dict[tuple[Any, ...], tuple[int, int, int]] = {}
        self.nodes = 0
        self.radix: list[int] = []
        step = 1
        for cap in p.caps:
            self.radix.append(step)
            step *= cap + 1
        self.table_min = min(p.table)
        self.table_max = max(p.table)
        self.key_leads = p.rules.forced_on_first_lead
        # class of each card for merging equivalent cards: cards of one class and suit,
        # adjacent once the played cards are left out, are interchangeable
        r = p.rules
        marks = [
            r.follow_penalty,
            r.discard_penalty,
            BIT[r.forced_card] if r.forced_card >= 0 else 0,
            BIT[r.forced_when_beaten_by] if r.forced_when_beaten_by >= 0 else 0,
        ]
        self.card_class = [(p.card_points[c], tuple(m >> c & 1 for m in marks)) for c in range(52)]
        total = p.tricks_total
        # the best and worst the cards of tricks from index i on can still add
        self.trick_hi = [0] * (total + 1)
        self.trick_lo = [0] * (total + 1)
        for i in range(total - 1, -1, -1):
            self.trick_hi[i] = self.trick_hi[i + 1] + max(0, p.trick_points[i])
            self.trick_lo[i] = self.trick_lo[i + 1] + min(0, p.trick_points[i])

    # --- the root -----------------------------------------------------------------

    def root_values(self) -> dict[int, int]:
        p = self.p
        trick = list(p.trick)
        seat = p.leader
        win_card = -1
        win_seat = -1
        for c in trick:
            if win_card < 0 or _beats(c, win_card, p.trump):
                win_card, win_seat = c, seat
            seat = p.left_of[seat]
        counts = list(p.counts)
        values: dict[int, int] = {}
        mask = self._legal(seat, trick, win_card, p.suits_led)
        for group in self._groups(seat, mask, trick):
            value = self._play(
                seat,
                group[0],
                trick,
                win_card,
                win_seat,
                p.leader,
                p.trick_index,
                counts,
                p.suits_led,
                -INFINITY,
                INFINITY,
            )
            for c in group:
                values[c] = value
        return values

    # --- moves ----------------------------------------------------------------------

    def _legal(self, seat: int, trick: list[int], win_card: int, suits_led: int) -> int:
        p = self.p
        led = SUIT_OF[trick[0]] if trick else -1
        held = 0
        for h in self.hands:
            held |= h
        played = p.played | (self.held_at_root & ~held)
        return legal_mask(p.rules, self.hands[seat], led, win_card, p.trump, played, suits_led)

    def _groups(self, seat: int, mask: int, trick: list[int]) -> list[list[int]]:
        """The legal cards in groups of equivalent cards, highest first in each."""
        others = 0
        for s, h in enumerate(self.hands):
            if s != seat:
                others |= h
        for c in trick:
            others |= BIT[c]
        groups: list[list[int]] = []
        own = self.hands[seat]
        for suit in range(4):
            in_suit = mask & SUIT_MASKS[suit]
            if not in_suit:
                continue
            current: list[int] = []
            for c in range(suit * 13 + 12, suit * 13 - 1, -1):
                bit = BIT[c]
                if others & bit or (own & bit and not mask & bit):
                    if current:
                        groups.append(current)
                    current = []
                elif mask & bit:
                    if current and self.card_class[c] != self.card_class[current[0]]:
                        groups.append(current)
                        current = []
                    current.append(c)
            if current:
                groups.append(current)
        return groups

    # --- the search -------------------------------------------------------------------

    def _play(
        self,
        seat: int,
        card: int,
        trick: list[int],
        win_card: int,
        win_seat: int,
        leader: int,
        index: int,
        counts: list[int],
        suits_led: int,
        alpha: int,
        beta: int,
    ) -> int:
        """The value of the rest of the deal after ``seat`` plays ``card``."""
        p = self.p
        self.hands[seat] ^= BIT[card]
        trick.append(card)
        if win_card < 0 or _beats(card, win_card, p.trump):
            win_card, win_seat = card, seat
        try:
            if len(trick) < self.n:
                return self._node(
                    p.left_of[seat],
                    trick,
                    win_card,
                    win_seat,
                    leader,
                    index,
                    counts,
                    suits_led,
                    alpha,
                    beta,
                )
            gain = 0
            if p.scorer_mask >> win_seat & 1:
                gain = sum(p.card_points[c] for c in trick) + p.trick_points[index]
            new_counts = counts
            counter = p.counters[win_seat]
            if counter >= 0 and counts[counter] < p.caps[counter]:
                new_counts = list(counts)
                new_counts[counter] += 1
            led = suits_led | 1 << SUIT_OF[trick[0]]
            return gain + self._trick_start(
                win_seat, index + 1, new_counts, led, alpha - gain, beta - gain
            )
        finally:
            trick.pop()
            self.hands[seat] ^= BIT[card]

    def _trick_start(
        self, leader: int, index: int, counts: list[int], suits_led: int, alpha: int, beta: int
    ) -> int:
        p = self.p
        if index == p.tricks_total or not any(self.hands):
            return p.table[self._count_index(counts)]
        # bounds on what is left
        left = 0
        for h in self.hands:
            left |= h
        hi = self.trick_hi[index] + self.table_max
        lo = self.trick_lo[index] + self.table_min
        for c in _cards(left):
            points = p.card_points[c]
            if points > 0:
                hi += points
            else:
                lo += points
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        key = (*self.hands, leader, self._count_index(counts), suits_led if self.key_leads else 0)
        entry = self.table.get(key)
        best_first = -1
        if entry is not None:
            lower, upper, best_first = entry
            if lower >= beta:
                return lower
            if upper <= alpha:
                return upper
            if lower == upper:
                return lower
            alpha = max(alpha, lower)
            beta = min(beta, upper)
        value, best = self._search(
            leader, [], -1, -1, leader, index, counts, suits_led, alpha, beta, best_first
        )
        old_lower, old_upper = (entry[0], entry[1]) if entry else (-INFINITY, INFINITY)
        if value <= alpha:
            self.table[key] = (old_lower, min(old_upper, value), best)
        elif value >= beta:
            self.table[key] = (max(old_lower, value), old_upper, best)
        else:
            self.table[key] = (value, value, best)
        return value

    def _node(
        self,
        seat: int,
        trick: list[int],
        win_card: int,
        win_seat: int,
        leader: int,
        index: int,
        counts: list[int],
        suits_led: int,
        alpha: int,
        beta: int,
    ) -> int:
        return self._search(
            seat, trick, win_card, win_seat, leader, index, counts, suits_led, alpha, beta, -1
        )[0]

    def _search(
        self,
        seat: int,
        trick: list[int],
        win_card: int,
        win_seat: int,
        leader: int,
        index: int,
        counts: list[int],
        suits_led: int,
        alpha: int,
        beta: int,
        best_first: int,
    ) -> tuple[int, int]:
        self.nodes += 1
        if self.node_limit and self.nodes > self.node_limit:
            raise SearchLimitError(f"more than {self.node_limit} nodes")
        p = self.p
        mask = self._legal(seat, trick, win_card, suits_led)
        groups = self._groups(seat, mask, trick)
        if best_first >= 0:
            groups.sort(key=lambda g: best_first not in g)
        maximize = p.side_mask >> seat & 1
        best_value = -INFINITY if maximize else INFINITY
        best_card = -1
        for group in groups:
            value = self._play(
                seat,
                group[0],
                trick,
                win_card,
                win_seat,
                leader,
                index,
                counts,
                suits_led,
                alpha,
                beta,
            )
            if maximize:
                if value > best_value:
                    best_value, best_card = value, group[0]
                    alpha = max(alpha, value)
            elif value < best_value:
                best_value, best_card = value, group[0]
                beta = min(beta, value)
            if alpha >= beta:
                break
        return best_value, best_card

    def _count_index(self, counts: list[int]) -> int:
        return sum(c * r for c, r in zip(counts, self.radix, strict=True))


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
