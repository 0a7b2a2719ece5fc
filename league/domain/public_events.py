"""A match's new events as anyone may see them: what the match's socket carries, so that the
pages at a table draw a played card at once instead of waiting for their view's refetch.

Each event is ``{"index", "seat", "action"}`` for an action, with ``"won": seat`` when it
completed a trick, or ``{"index", "chance": kind}`` for a chance event (never its cards: a
deal is private). A private action (the game's ``private_action_verbs``, the rule
engine.record.redact_record applies: Kung och Adel's face-down tribute) keeps only its verb.
The winner of a trick is what the replay timeline (engine/timeline.py) reads: the spectator's
view of the state after the event, replayed on a copy without the seed (so that it takes
the log's chance events instead of drawing its own, and stops after a deal's last trick).

Messages stay small: more than EVENTS_MAX new events are not carried (None); the pages then
refetch, as they do for anything they cannot draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.chance import Chance
from engine.game import State, spectator_view

EVENTS_MAX = 12
"""The most events one message carries: a trick of four with the next deal and its bids."""


def _seedless_copy(state: State[Any]) -> State[Any]:
    copy = state.clone()
    copy.rng = None  # it takes the log's chance events; it draws none of its own
    return copy


class PublicEvents:
    """Follows a match's log (``state.log``, which only grows) and says its new events as
    anyone may see them."""

    def __init__(self, state: State[Any]) -> None:
        self._follower = _seedless_copy(state)
        game = state.game
        self._private_verbs: tuple[str, ...] = getattr(game, "private_action_verbs", ())

    @property
    def position(self) -> int:
        """The events said so far (the index of the next one)."""
        return len(self._follower.log)

    def since(self, state: State[Any], limit: int = EVENTS_MAX) -> list[dict[str, Any]] | None:
        """The events of ``state.log`` after those said before, as anyone may see them; None
        when there are more than ``limit`` (or the follower cannot replay them): the pages
        refetch. The follower catches up with ``state`` either way."""
        log = state.log
        start = self.position
        if len(log) - start > limit or len(log) < start:
            self._follower = _seedless_copy(state)
            return None
        try:
            return self._said(log, start)
        except Exception:  # never break a match over a message: the pages refetch
            self._follower = _seedless_copy(state)
            return None

    def _said(self, log: Sequence[int | Chance], start: int) -> list[dict[str, Any]]:
        follower = self._follower
        game = follower.game
        events: list[dict[str, Any]] = []
        tricks_before = len(spectator_view(follower.view_for(0)).tricks)
        for index in range(start, len(log)):
            entry = log[index]
            if isinstance(entry, Chance):
                follower.apply_chance(entry)
                events.append({"index": index, "chance": entry.kind})
                tricks_before = len(spectator_view(follower.view_for(0)).tricks)
                continue
            seat, code = entry >> 10, entry & 1023
            follower.apply_action(code, seat=seat)
            action = game.action_to_string(code)
            verb = action.split(" ", 1)[0]
            event: dict[str, Any] = {
                "index": index,
                "seat": seat,
                "action": verb if verb in self._private_verbs else action,
            }
            tricks = spectator_view(follower.view_for(0)).tricks
            if len(tricks) > tricks_before and tricks:
                event["won"] = tricks[-1].winner
            tricks_before = len(tricks)
            events.append(event)
        return events
