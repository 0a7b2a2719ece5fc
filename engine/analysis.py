"""The analysis of a finished game's card play: what each card cost its player.

For every card played (a card-play decision in the record), two costs, both in the game's
own points for the deal and from the objective of the seat that chose the card (its
``acting_seat``: a dummy's cards are its partner's choice), as the double-dummy solver
(engine/double_dummy.py) defines it:

- ``cost``, with all hands known: the best legal card's value minus the played card's;
- ``view_cost``, as the player could know it: each legal card's value averaged over
  ``samples`` deals of the unseen cards drawn consistently with the seat's view
  (engine/hidden_hands.py), then the best average minus the played card's average. It is
  0 when the card was the best a player who saw only its own view could find by this
  method, and it never blames a player for a hidden card it could not have known.

A card is marked by its ``view_cost`` as a share of the deal's ``stake`` (how far apart the
seat's best and worst results of the deal can be, from the game's ``solver_scoring``: the
sum of what every card and trick can be worth, plus the spread of the final outcome), so
that the marks mean the same in King's hundreds of points and Kingen's single points:
``inaccuracy``, ``mistake`` and ``blunder`` from the thresholds in :class:`AnalysisSettings`
(docs/engine.md, "Analysis").

Cost control: a solve that needs more than ``node_limit`` nodes is given up, and the card
is stored as not analysed with the reason; so is every card left once the analysis's
``seconds`` are spent (a long match within its task's time limit). A deal's positions
are tried from its last card backwards: once one is over the budget, its earlier
positions (more cards left, so harder) are not tried and are stored as not analysed for
that reason. Nothing is dropped: every card of the record has a verdict, and the summary
counts the ones not analysed.

This module only reads records and states; it never changes what the engine accepts.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.cards import card_name
from engine.double_dummy import NotSolvableError, SearchLimitError, solve
from engine.game import CARD_ACTIONS, State, TrickTakingState
from engine.hidden_hands import HandSampler, InconsistentViewError
from engine.record import replay_events_with

ANALYSIS_VERSION = 1
"""Changes when the stored analysis's meaning or shape changes."""

REASON_BUDGET = "over the node budget"
REASON_BUDGET_SAMPLE = "a sampled deal over the node budget"
REASON_EARLIER = "earlier in a deal than a position over the node budget"
REASON_VIEW = "the seat's view does not add up to a deal"
REASON_UNSOLVABLE = "not a position the solver reads"
REASON_TIME = "over the match's time budget"

MARKS = ("inaccuracy", "mistake", "blunder")


@dataclass(frozen=True, slots=True)
class AnalysisSettings:
    """How an analysis is made; stored with it."""

    samples: int = 8
    """Deals drawn per decision for ``view_cost``."""
    node_limit: int = 200_000
    """The most nodes one solve may search (0: no limit)."""
    inaccuracy: float = 0.05
    mistake: float = 0.10
    blunder: float = 0.20
    """The marks' thresholds: ``view_cost`` at least this share of the deal's stake."""
    seed: int = 0
    """Seeds the deals drawn (an analysis is reproducible within its time budget)."""
    seconds: float = 0
    """The whole analysis's time budget (0: none): once spent, the cards left are not
    analysed (``REASON_TIME``); each card already begun is finished."""

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise ValueError("samples must be at least 1")
        if self.node_limit < 0:
            raise ValueError("node_limit must be 0 or more")
        if self.seconds < 0:
            raise ValueError("seconds must be 0 or more")
        if not 0 < self.inaccuracy <= self.mistake <= self.blunder:
            raise ValueError("thresholds must satisfy 0 < inaccuracy <= mistake <= blunder")


@dataclass(slots=True)
class CardVerdict:
    """What one played card cost (None where it was not analysed)."""

    deal: int
    """The deal, from 1 (as in the record and ``python -m engine solve --deal``)."""
    event: int
    """The event of the deal, from 1 (``--event``)."""
    seat: int
    """The seat whose card it is."""
    player: int
    """The seat that chose it (the dummy's partner for a dummy's card)."""
    card: str
    trick: int
    """The trick of the deal, from 1."""
    analysed: bool
    reason: str = ""
    """Why it was not analysed (empty when it was)."""
    forced: bool = False
    """The only legal card (costs 0, left out of the accuracy)."""
    stake: int = 0
    best: list[str] = field(default_factory=list)
    """The best cards with all hands known."""
    cost: int | None = None
    view_best: list[str] = field(default_factory=list)
    """The best cards on average over the sampled deals."""
    view_cost: float | None = None
    samples: int = 0
    mark: str = ""
    """``inaccuracy``, ``mistake``, ``blunder`` or empty."""


def deal_stake(state: TrickTakingState[Any], seat: int) -> int:
    """How far apart ``seat``'s best and worst results of the deal can be (at least 1)."""
    scoring = state.solver_scoring(seat)
    table = scoring.outcome_table()
    spread = sum(abs(p) for p in scoring.card_points) + sum(abs(p) for p in scoring.trick_points)
    return max(1, spread + max(table) - min(table))


def mark_of(view_cost: float, stake: int, settings: AnalysisSettings) -> str:
    share = view_cost / stake
    if share >= settings.blunder:
        return "blunder"
    if share >= settings.mistake:
        return "mistake"
    if share >= settings.inaccuracy:
        return "inaccuracy"
    return ""


def _best(values: Mapping[int, float]) -> list[str]:
    top = max(values.values())
    return [card_name(c) for c, v in values.items() if v >= top - 1e-9]


def _verdict(
    state: TrickTakingState[Any],
    action: int,
    where: tuple[int, int],
    settings: AnalysisSettings,
) -> CardVerdict:
    """One card-play decision of ``state`` (all hands known) where ``action`` was played."""
    player = state.acting_seat()
    base = CardVerdict(
        deal=where[0],
        event=where[1],
        seat=state.current_seat,
        player=player,
        card=card_name(action),
        trick=len(state.completed) + 1,
        analysed=False,
    )
    legal = list(state.legal_actions())
    if len(legal) == 1:
        base.analysed, base.forced = True, True
        base.stake = deal_stake(state, player)
        base.best = base.view_best = [base.card]
        base.cost, base.view_cost = 0, 0.0
        return base
    try:
        base.stake = deal_stake(state, player)
        values = solve(state, node_limit=settings.node_limit)
    except SearchLimitError:
        base.reason = REASON_BUDGET
        return base
    except (NotSolvableError, NotImplementedError):
        base.reason = REASON_UNSOLVABLE
        return base
    view = state.view_for(player)
    try:
        sampler = HandSampler(view)
    except InconsistentViewError:
        base.reason = REASON_VIEW
        return base
    rng = random.Random(f"analysis/{settings.seed}/{where[0]}/{where[1]}")
    totals = dict.fromkeys(view.legal, 0.0)
    for _ in range(settings.samples):
        world = view.game.new_search_state(view, sampler.sample(rng))
        try:
            drawn = solve(world, node_limit=settings.node_limit)
        except SearchLimitError:
            base.reason = REASON_BUDGET_SAMPLE
            return base
        for card in totals:
            totals[card] += drawn[card]
    means = {card: total / settings.samples for card, total in totals.items()}
    base.analysed = True
    base.best = _best(values)
    base.cost = max(values.values()) - values[action]
    base.view_best = _best(means)
    base.view_cost = round(max(means.values()) - means[action], 6)
    base.samples = settings.samples
    base.mark = mark_of(base.view_cost, base.stake, settings)
    return base


@dataclass(slots=True)
class _Position:
    state: TrickTakingState[Any]
    action: int
    where: tuple[int, int]


def _deal_verdicts(
    positions: Sequence[_Position], settings: AnalysisSettings, deadline: float | None
) -> list[CardVerdict]:
    """The verdicts of one deal's card plays, tried from the last card backwards."""
    verdicts: list[CardVerdict] = []
    over_budget = False
    for position in reversed(positions):
        out_of_time = deadline is not None and time.monotonic() > deadline
        if over_budget or out_of_time:
            state = position.state
            verdicts.append(
                CardVerdict(
                    deal=position.where[0],
                    event=position.where[1],
                    seat=state.current_seat,
                    player=state.acting_seat(),
                    card=card_name(position.action),
                    trick=len(state.completed) + 1,
                    analysed=False,
                    reason=REASON_TIME if out_of_time else REASON_EARLIER,
                )
            )
            continue
        verdict = _verdict(position.state, position.action, position.where, settings)
        over_budget = verdict.reason in (REASON_BUDGET, REASON_BUDGET_SAMPLE)
        verdicts.append(verdict)
    verdicts.reverse()
    return verdicts


def _is_card_play(state: State[Any], action: int) -> bool:
    return (
        isinstance(state, TrickTakingState)
        and state.phase == "play"
        and state.current_seat >= 0
        and action < CARD_ACTIONS
    )


def analyse_record(record: Mapping[str, Any], settings: AnalysisSettings) -> dict[str, Any]:
    """The analysis of a complete record (docs/engine.md, "Analysis"): settings, a verdict
    per card played, a summary per seat and per deal. RecordError (an EngineError) if
    the record does not replay. Each deal is analysed when the replay has passed it, so
    only one deal's positions are kept at a time."""
    deadline = time.monotonic() + settings.seconds if settings.seconds else None
    positions: list[_Position] = []
    verdicts: list[CardVerdict] = []

    def before(state: State[Any], deal: int, event: int, action: int) -> None:
        if positions and positions[-1].where[0] != deal:
            verdicts.extend(_deal_verdicts(positions, settings, deadline))
            positions.clear()
        if _is_card_play(state, action):
            assert isinstance(state, TrickTakingState)
            positions.append(
                _Position(state.clone(), action, (deal, event))  # type: ignore[arg-type]
            )

    game = replay_events_with(record, before)
    verdicts.extend(_deal_verdicts(positions, settings, deadline))
    return {
        "version": ANALYSIS_VERSION,
        "settings": asdict(settings),
        "game": str(game),
        "cards": [asdict(v) for v in verdicts],
        "summary": summarise(verdicts, game.num_seats),
        "deals": deal_charts(verdicts),
    }


def summarise(verdicts: Sequence[CardVerdict], num_seats: int) -> list[dict[str, Any]]:
    """Per seat (as the player who chose the cards): cards chosen, analysed and not, the
    marks, the mean costs, and ``accuracy``: the percentage of its analysed decisions (not
    forced) that were not marked."""
    rows = []
    for seat in range(num_seats):
        mine = [v for v in verdicts if v.player == seat]
        analysed = [v for v in mine if v.analysed]
        decisions = [v for v in analysed if not v.forced]
        marks = {m: sum(1 for v in decisions if v.mark == m) for m in MARKS}
        unmarked = sum(1 for v in decisions if not v.mark)
        rows.append(
            {
                "seat": seat,
                "cards": len(mine),
                "analysed": len(analysed),
                "not_analysed": len(mine) - len(analysed),
                "forced": len(analysed) - len(decisions),
                "inaccuracies": marks["inaccuracy"],
                "mistakes": marks["mistake"],
                "blunders": marks["blunder"],
                "mean_cost": _mean([v.cost or 0 for v in decisions]),
                "mean_view_cost": _mean([v.view_cost or 0.0 for v in decisions]),
                "accuracy": round(100 * unmarked / len(decisions), 1) if decisions else None,
            }
        )
    return rows


def deal_charts(verdicts: Sequence[CardVerdict]) -> list[dict[str, Any]]:
    """Per deal, the points each player lost (``view_cost``) trick by trick, for a chart."""
    deals: dict[int, dict[str, Any]] = {}
    for v in verdicts:
        deal = deals.setdefault(v.deal, {"deal": v.deal, "not_analysed": 0, "losses": {}})
        if not v.analysed:
            deal["not_analysed"] += 1
            continue
        per_trick = deal["losses"].setdefault(str(v.player), {})
        per_trick[str(v.trick)] = round(per_trick.get(str(v.trick), 0.0) + (v.view_cost or 0), 6)
    return [deals[d] for d in sorted(deals)]


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 6) if values else None
