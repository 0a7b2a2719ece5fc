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
(``match_state_read``): one state a match, its latest."""
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
    stored = _stored_events_apply(match.pk, state, stored=0, times=times)
    return Replay(state=state, times=times, stored=stored)


def _stored_events_apply(
    match_id: int, state: State[Any], *, stored: int, times: dict[int, float] | None
) -> int:
    """Apply to ``state`` (which holds the match's first ``stored`` stored events) the
    stored events from index ``stored`` on; their times go to ``times``. Returns how many
    events are stored now. MatchLogError if they do not follow."""
    rows = (
        MatchEvent.objects.filter(match_id=match_id, index__gte=stored)
        .order_by("index")
        .values_list("index", "seat", "action", "chance", "ms")
    )
    for index, seat, action, chance, ms in rows.iterator(chunk_size=2000):
        if index != stored:
            raise MatchLogError(f"match {match_id}: event {stored} is missing")
        stored += 1
        if seat is None:
            logged = state.log[index] if index < len(state.log) else None
            if not isinstance(logged, Chance) or logged.to_json() != chance:
                raise MatchLogError(f"match {match_id}: event {index} is not the seed's deal")
            continue
        if index != len(state.log) or seat != state.current_seat:
            raise MatchLogError(f"match {match_id}: event {index} is out of order")
        try:
            state.apply_action(state.parse_action(action))
        except IllegalActionError as exc:
            raise MatchLogError(f"match {match_id}: event {index}: {exc}") from None
        if ms is not None and times is not None:
            times[index] = ms
    return stored


def match_state_keep(match: Match, state: State[Any]) -> None:
    """Keep ``state`` as ``match``'s position for ``match_state_read``: the state a move
    just made, once its events are committed (``match.events_stored`` of them, the
    whole ``state.log``), so that the mover's answer and the other pages' reads of the
    same position need no replay."""
    if len(state.log) != match.events_stored:
        return
    _state_keep((match.pk, match.game, match.seed, match.events_stored), state)


def match_state_read(match: Match) -> State[Any]:
    """The engine state of ``match`` for reading only: the caller never changes it (a
    service that plays on replays its own, ``match_replay``).

    Each of the pages at a table reads the position a move just made; the first read replays
    the match, the others get the same state. A state is kept per process under the match,
    its game, its seed and its ``events_stored`` (the stored events only grow, each count
    always the same events), the STATES_KEPT latest, one per match. A process that kept an
    earlier position of the match (the pages' moves and reads go to several processes)
    applies to a copy of it only the events stored since."""
    key = (match.pk, match.game, match.seed, match.events_stored)
    with _states_lock:
        state = _states.get(key)
        if state is not None:
            _states.move_to_end(key)
            return state
        earlier = _earlier_kept(key)
    if earlier is not None:
        # This process kept the match a few moves ago (a move made through another
        # process): only the events since are read and applied, to a copy.
        count, kept = earlier
        state = kept.clone()
        try:
            stored = _stored_events_apply(match.pk, state, stored=count, times=None)
        except MatchLogError:
            stored = -1  # replayed from the start below, which says what is wrong
        if stored == match.events_stored:
            _state_keep(key, state)
            return state
    replay = match_replay(match)
    if replay.stored != match.events_stored:
        return replay.state  # read while a writer stored more: not kept under this count
    _state_keep(key, replay.state)
    return replay.state


def _earlier_kept(
    key: tuple[int, str, int | None, int],
) -> tuple[int, State[Any]] | None:
    """The kept state of the same match with the most stored events short of ``key``'s,
    with that count (the caller holds ``_states_lock``)."""
    found: tuple[int, State[Any]] | None = None
    for (match_id, game, seed, count), state in _states.items():
        earlier = (match_id, game, seed) == key[:3] and count < key[3]
        if earlier and (found is None or count > found[0]):
            found = (count, state)
    return found


def _state_keep(key: tuple[int, str, int | None, int], state: State[Any]) -> None:
    """Keep ``state`` under ``key`` in place of the match's earlier positions."""
    with _states_lock:
        for older in [k for k in _states if k[:3] == key[:3] and k[3] < key[3]]:
            del _states[older]
        _states[key] = state
        _states.move_to_end(key)
        while len(_states) > STATES_KEPT:
            _states.popitem(last=False)
