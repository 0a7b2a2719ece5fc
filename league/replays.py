"""A match's engine state rebuilt from its seed and its stored events (a read).

The match runner continues a game from it (league/services/matches.py) and the pages and
the API show an unfinished game from it (league/selectors.py, web/selectors.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.chance import Chance
from engine.errors import IllegalActionError
from engine.game import State
from engine.variants import load_game
from league.models import Match, MatchEvent


class MatchLogError(Exception):
    """The stored events do not replay (a bug, or rows changed by hand)."""


@dataclass
class Replay:
    state: State[Any]
    times: dict[int, float]
    """Milliseconds taken per index of ``state.log``."""
    stored: int
    """How many events are stored (``state.log[:stored]``)."""


def match_replay(match: Match) -> Replay:
    """The engine state of ``match`` from its seed and its stored events."""
    game = load_game(match.game)
    state = game.new_initial_state(seed=match.seed)
    times: dict[int, float] = {}
    rows = (
        MatchEvent.objects.filter(match_id=match.pk)
        .order_by("index")
        .values_list("index", "seat", "action", "chance", "ms")
    )
    stored = 0
    for index, seat, action, chance, ms in rows.iterator(chunk_size=2000):
        if index != stored:
            raise MatchLogError(f"match {match.pk}: event {stored} is missing")
        stored += 1
        if seat is None:
            logged = state.log[index] if index < len(state.log) else None
            if not isinstance(logged, Chance) or logged.to_json() != chance:
                raise MatchLogError(f"match {match.pk}: event {index} is not the seed's deal")
            continue
        if index != len(state.log) or seat != state.current_seat:
            raise MatchLogError(f"match {match.pk}: event {index} is out of order")
        try:
            state.apply_action(state.parse_action(action))
        except IllegalActionError as exc:
            raise MatchLogError(f"match {match.pk}: event {index}: {exc}") from None
        if ms is not None:
            times[index] = ms
    return Replay(state=state, times=times, stored=stored)
