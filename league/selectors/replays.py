"""A match's engine state rebuilt from its seed and its stored events (a read).

The match runner continues a game from it (league/services/matches.py) and the pages and
the API show an unfinished game from it (league/selectors/matches.py, web/selectors.py).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from engine.chance import Chance
from engine.errors import IllegalActionError
from engine.game import State
from engine.variants import load_game
from league.models import Match, MatchEvent

STATES_KEPT = 64
"""Running matches whose last replayed state a process keeps for its reads
(``match_state_read``)."""
_states: OrderedDict[tuple[int, str, int | None, int], State[Any]] = OrderedDict()
_states_lock = threading.Lock()


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


def match_state_keep(match: Match, state: State[Any]) -> None:
    """Keep ``state`` as ``match``'s position for ``match_state_read``: the state a move
    just made, once its events are committed (``match.events_stored`` of them, the
    whole ``state.log``), so that the mover's answer and the other pages' reads of the
    same position need no replay."""
    if len(state.log) != match.events_stored:
        return
    key = (match.pk, match.game, match.seed, match.events_stored)
    with _states_lock:
        _states[key] = state
        _states.move_to_end(key)
        while len(_states) > STATES_KEPT:
            _states.popitem(last=False)


def match_state_read(match: Match) -> State[Any]:
    """The engine state of ``match`` for reading only: the caller never changes it (a
    service that plays on replays its own, ``match_replay``).

    Each of the pages at a table reads the position a move just made; the first read replays
    the match, the others get the same state. A state is kept per process under the match,
    its game, its seed and its ``events_stored`` (the stored events only grow, each count
    always the same events), the STATES_KEPT latest."""
    key = (match.pk, match.game, match.seed, match.events_stored)
    with _states_lock:
        state = _states.get(key)
        if state is not None:
            _states.move_to_end(key)
            return state
    replay = match_replay(match)
    if replay.stored != match.events_stored:
        return replay.state  # read while a writer stored more: not kept under this count
    with _states_lock:
        _states[key] = replay.state
        while len(_states) > STATES_KEPT:
            _states.popitem(last=False)
    return replay.state
