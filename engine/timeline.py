"""The public facts of a game record, step by step, for the replay viewer.

A game record (docs/record-format.md) lists the cards dealt and every action, but not what
the rules make of them: the contract of a Kingen deal, the trump suit, who won a trick.
``record_timeline`` replays a record through the engine and writes down, after each event,
what a spectator may know (``engine.game.spectator_view``): the phase, the seat to act,
the contract and trumps, the dealer, tricks won, running scores, the winner of a trick the
event completed, and for a card that moved between hands without being played (Kung och
Adel's tribute) the two seats. Nothing in it is private, so it may be served for a running
match too, computed from the full record on the server.

The output, per event, lists only the facts that changed since the previous event
(``set``), plus facts of that event alone (``won``, ``transfer``, and ``explain``: what a
bid or a choice means under the game's rules, ``Game.action_explanation``); the viewer
carries the rest forward.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.cards import cards_of
from engine.chance import Chance
from engine.errors import EngineError
from engine.game import CHANCE, State, spectator_view
from engine.record import parse_record
from engine.variants import load_game

TIMELINE_VERSION = 2

PUBLIC_EXTRAS = (
    "ranks",
    "quotas",
    "partners",
    "declarer",
    "beneficiary",
    "direction",
    "high_bid",
    "high_bidder",
    "rubber",
)
"""Family-specific public facts (``PlayerView.public``) worth showing beside the table."""


def _facts(state: State[Any]) -> dict[str, Any]:
    view = spectator_view(state.view_for(0)).to_json()
    facts: dict[str, Any] = {
        "phase": view["phase"],
        "to_act": view["to_act"],
        "contract": view["contract"],
        "trump": view["trump"],
        "dealer": view["dealer"],
        "tricks_won": view["tricks_won"],
        "hand_sizes": view["hand_sizes"],
        "scores": view["scores"],
        "tricks": len(view["tricks"]),
    }
    for key in PUBLIC_EXTRAS:
        if key in view["public"]:
            facts[key] = view["public"][key]
    return facts


def _hands(state: State[Any]) -> list[int]:
    return [state.view_for(seat).hand for seat in range(state.game.num_seats)]


def _transfer(before: list[int], after: list[int]) -> list[int] | None:
    """The seats a card moved from and to, when exactly that happened."""
    losers = [seat for seat, (b, a) in enumerate(zip(before, after, strict=True)) if b & ~a]
    gainers = [seat for seat, (b, a) in enumerate(zip(before, after, strict=True)) if a & ~b]
    if len(losers) == 1 and len(gainers) == 1:
        moved = before[losers[0]] & after[gainers[0]] & ~after[losers[0]]
        if cards_of(moved):
            return [losers[0], gainers[0]]
    return None


def record_timeline(source: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
    """The public facts after every event of a full (unredacted) record.

    Returns ``{"version", "game", "prelude": [step...], "deals": [[step...], ...]}`` with
    one step per event, or ``{"version", "error": message}`` when the record does not
    replay (the viewer then shows the record without these facts).
    """
    try:
        record = parse_record(source)
        game = load_game(str(record["game"]))
        state = game.new_initial_state()
        seats = game.num_seats
        previous: dict[str, Any] = {}

        def step(event: Mapping[str, Any], where: str) -> dict[str, Any]:
            nonlocal previous
            out: dict[str, Any] = {}
            if "chance" in event:
                if state.current_seat != CHANCE:
                    raise EngineError(f"{where}: a chance event is not due")
                state.apply_chance(Chance.from_json(event, seats))
            else:
                text = str(event["action"])
                tricks_before = previous.get("tricks", 0)
                hands_before = None if text.startswith("play ") else _hands(state)
                action = state.parse_action(text)
                explanation = game.action_explanation(action)
                if explanation:
                    out["explain"] = explanation
                state.apply_action(action, seat=int(event["seat"]))
                if hands_before is not None:
                    moved = _transfer(hands_before, _hands(state))
                    if moved is not None:
                        out["transfer"] = moved
                facts_now = spectator_view(state.view_for(0))
                if len(facts_now.tricks) > tricks_before and facts_now.tricks:
                    out["won"] = facts_now.tricks[-1].winner
            facts = _facts(state)
            changed = {key: value for key, value in facts.items() if previous.get(key) != value}
            previous = facts
            if changed:
                out["set"] = changed
            return out

        prelude = [
            step(event, f"prelude, event {index}")
            for index, event in enumerate(record.get("prelude", []), start=1)
        ]
        deals = []
        for deal in record.get("deals", []):
            number = deal.get("deal")
            deals.append(
                [
                    step(event, f"deal {number}, event {index}")
                    for index, event in enumerate(deal.get("actions", []), start=1)
                ]
            )
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        return {"version": TIMELINE_VERSION, "error": str(exc) or type(exc).__name__}
    return {"version": TIMELINE_VERSION, "game": str(game), "prelude": prelude, "deals": deals}
