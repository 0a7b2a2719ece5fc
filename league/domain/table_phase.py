"""What the table says to the person at a seat, from plain facts: the table's phase and
whose turn it is, the actions with the game's plain labels, and the moves played for the
person when a deadline passed. league.selectors.tables reads the match and its seats and asks
this module what to say; the sample table of the pages (web.samples) says it the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.errors import IllegalActionError
from engine.game import Game


class TablePhase:
    """What the table is doing, for the person at a seat (``seat_view()["phase"]``)."""

    WAITING_FOR_PLAYERS = "waiting_for_players"
    """A table whose seats are not all taken (``MatchStatus.WAITING``): no card is dealt."""
    YOUR_MOVE = "your_move"
    PLAYER_TO_MOVE = "player_to_move"
    """Another person is to move, with a deadline."""
    BOTS_TO_MOVE = "bots_to_move"
    """A bot (or the bot that took over a seat) is to move: the workers play it."""
    FINISHED = "finished"
    ERROR = "error"


def action_labels(game: Game[Any], actions: Iterable[str]) -> list[dict[str, str]]:
    """Each action string with the game's plain label of its kind (``play a card``,
    ``choose a contract``) and, where the game explains it, what it does."""
    labelled = []
    for action in actions:
        try:
            code = game.parse_action(action)
        except IllegalActionError:
            labelled.append({"action": action, "label": action, "explanation": ""})
            continue
        labelled.append(
            {
                "action": action,
                "label": game.action_label(code),
                "explanation": game.action_explanation(code),
            }
        )
    return labelled


def moves_played_for(*, game: Game[Any], faults: Any, strikes_allowed: int) -> list[dict[str, Any]]:
    """The moves played for the person at a seat because a deadline passed, oldest first,
    from the seat's stored ``faults``: the action with its plain label, the strike it
    counted (of ``strikes_allowed``) and whether it was the last (``forfeit``: a bot plays
    the seat from then on). league.words.table_notices says each in a sentence."""
    moved = []
    strike = 0
    for fault in faults or []:
        if not isinstance(fault, dict) or fault.get("cause") != "timeout":
            continue
        action = fault.get("fallback")
        if not isinstance(action, str) or not action:
            continue
        strike += 1
        (labelled,) = action_labels(game, [action])
        moved.append(
            {
                **labelled,
                "deal": fault.get("deal"),
                "decision": fault.get("decision"),
                "strike": strike,
                "strikes_allowed": strikes_allowed,
                "forfeit": strike >= strikes_allowed,
            }
        )
    return moved


@dataclass(frozen=True)
class SeatTurn:
    """Whose turn it is, as the person at a seat is told."""

    phase: str
    """A ``TablePhase``."""
    to_act: int | None
    """The seat the game waits for (None once it is over)."""
    your_turn: bool
    """The game and the league both wait for this seat's person."""
    person_waited_for: bool
    """The league waits for a person (this seat's or another's), with a deadline."""


def seat_turn(
    *,
    seat: int,
    running: bool,
    failed: bool,
    finished: bool,
    game_over: bool,
    acting_seat: int | None,
    waiting_seat: int | None,
) -> SeatTurn:
    """The phase of a started table for the person at ``seat``: ``running``, ``failed``
    and ``finished`` are the match's status, ``game_over`` its game's, ``acting_seat``
    the seat the game waits for (None once it is over) and ``waiting_seat`` the seat whose
    person the league waits for (None while the bots play)."""
    over = game_over or finished
    to_act = None if over else acting_seat
    person_waited_for = running and waiting_seat is not None and not over
    your_turn = person_waited_for and waiting_seat == seat and to_act == seat
    if failed:
        phase = TablePhase.ERROR
    elif over:
        phase = TablePhase.FINISHED
    elif your_turn:
        phase = TablePhase.YOUR_MOVE
    elif person_waited_for:
        phase = TablePhase.PLAYER_TO_MOVE
    else:
        phase = TablePhase.BOTS_TO_MOVE
    return SeatTurn(phase, to_act, your_turn, person_waited_for)
