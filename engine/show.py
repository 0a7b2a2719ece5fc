"""A game for people: each deal with the hands, the choices, and the tricks one by one, as
text (``show_record``) or as a standalone page that replays it in the site's viewer
(``show_record_html``: ``python -m engine show FILE --html OUT.html``)."""

from __future__ import annotations

from typing import Any

from engine.cards import card_symbol, format_cards
from engine.chance import DEAL, DRAW, FIRST_DEALER, Chance
from engine.errors import RecordError
from engine.game import TrickTakingState
from engine.record import parse_record, verify_record
from engine.timeline import record_timeline
from engine.variants import load_game
from engine.viewer import standalone_page


def show_record(source: str | bytes | dict[str, Any]) -> str:
    """The whole record as text. Raises RecordError if the record is not valid.

    A record that breaks the rules is shown up to the event where verification stopped,
    then the problem: the events after it were never checked.
    """
    data = parse_record(source)
    verification = verify_record(data)
    assert verification.state is not None
    shown_events = len(verification.state.log)  # every event verification applied
    game = load_game(data["game"])
    names = [str(seat.get("name", f"seat {i}")) for i, seat in enumerate(data["seats"])]
    state = game.new_initial_state(seed=None)
    out = [f"{game}  ({', '.join(f'{i}: {name}' for i, name in enumerate(names))})"]

    def who(seat: int) -> str:
        return f"{names[seat]} ({seat})"

    parts = [(0, data.get("prelude", []))]
    parts += [(number, deal["actions"]) for number, deal in enumerate(data["deals"], start=1)]
    for number, events in parts:
        out.append("")
        out.append(f"Deal {number}" if number else "Before the first deal")
        trick_line: list[str] = []
        for event in events:
            if len(state.log) == shown_events:
                break
            if "chance" in event:
                chance = Chance.from_json(event, game.num_seats)
                deal_before = state.deal_number
                state.apply_chance(chance)
                if chance.kind == DEAL and state.deal_number != deal_before:
                    out.append(f"  dealer: {who(state.dealer)}")
                out.extend(_chance_lines(chance, who))
                if (
                    chance.kind == DEAL
                    and isinstance(state, TrickTakingState)
                    and state.phase == "play"
                ):
                    out.append(f"  contract: {_contract(state)}")
                continue
            seat, text = event["seat"], event["action"]
            action = state.parse_action(text)
            before = len(state.completed) if isinstance(state, TrickTakingState) else 0
            was_play = state.phase == "play"
            state.apply_action(action, seat=seat)
            if not was_play:
                out.append(f"  {who(seat)}: {text}")
                if (
                    isinstance(state, TrickTakingState)
                    and state.phase == "play"
                    and not state.completed
                    and not state.trick
                ):
                    out.append(f"  contract: {_contract(state)}")
                continue
            trick_line.append(f"{card_symbol(action)}")
            if isinstance(state, TrickTakingState) and len(state.completed) > before:
                leader, _, winner = state.completed[-1]
                number = len(state.completed)
                out.append(
                    f"  trick {number:>2}: {who(leader)} leads  {' '.join(trick_line)}"
                    f"  -> {who(winner)}"
                )
                trick_line = []
        if trick_line:
            out.append(f"  (trick in progress: {' '.join(trick_line)})")
        if number and len(state.deal_scores) >= number:
            deal_scores = state.deal_scores[number - 1]
            out.append(f"  scores: {deal_scores}   totals: {_running_totals(state, number)}")
        if len(state.log) == shown_events and not verification.ok:
            break
    out.append("")
    status = "complete" if state.is_terminal() else "in progress"
    out.append(f"Final scores ({status}): {state.scores()}")
    if not verification.ok:
        out.append(f"NOT VERIFIED: {verification.problem}")
    return "\n".join(out) + "\n"


def show_record_html(source: str | bytes | dict[str, Any], *, four_colour: bool = False) -> str:
    """One HTML page that replays the record in the site's replay viewer (cards, tricks,
    scores, stepping, the keyboard) with everything inline: opened from a file, it makes
    no request. Raises RecordError if the record is not one, or breaks the rules."""
    data = parse_record(source)
    verification = verify_record(data)
    if not verification.ok:
        raise RecordError(f"the record does not replay: {verification.problem}")
    game = load_game(data["game"])
    names = [str(seat.get("name") or f"seat {i}") for i, seat in enumerate(data["seats"])]
    title = f"{game}: {', '.join(names)}"
    return standalone_page(
        data,
        record_timeline(data),
        title=title,
        deck="cards-four" if four_colour else "cards",
    )


def _chance_lines(chance: Chance, who: Any) -> list[str]:
    if chance.kind == FIRST_DEALER:
        return [f"  first dealer: {who(chance.seat)}"]
    verb = "dealt" if chance.kind == DEAL else "drew" if chance.kind == DRAW else chance.kind
    lines = []
    for seat, mask in enumerate(chance.cards):
        if mask:
            lines.append(f"  {who(seat)} {verb}: {format_cards(mask)}")
    if chance.exposed >= 0:
        lines.append(f"  exposed: {card_symbol(chance.exposed)}")
    return lines


def _contract(state: TrickTakingState[Any]) -> str:
    return state.contract_name() or (
        "trumps " + "CDHS"[state.trump] if state.trump >= 0 else "no trumps"
    )


def _running_totals(state: Any, upto: int) -> list[int]:
    totals = [0] * len(state.totals)
    for scores in state.deal_scores[:upto]:
        for seat, points in enumerate(scores):
            totals[seat] += points
    return totals
